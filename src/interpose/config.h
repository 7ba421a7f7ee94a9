/*
 * The interposer's process-wide configuration, read once from the
 * environment (LOCKLAB_LOCK, LOCKLAB_COND, LOCKLAB_SEM, LOCKLAB_TOPOLOGY,
 * LOCKLAB_VERBOSE, and the profiler's LOCKLAB_PROFILE*) by a
 * constructor, or earlier, lazily, by the first interposed call that runs
 * before the constructor (another library's constructor may lock a mutex).
 * Any invalid value: one line on stderr naming the variable, the value and
 * the valid choices, and _exit(2) before main runs.  Read with lp_env (env.h):
 * empty means unset, and in secure-execution mode nothing is read (defaults,
 * no report, no line on stderr).
 */
#ifndef LOCKLAB_INTERPOSE_CONFIG_H
#define LOCKLAB_INTERPOSE_CONFIG_H

#include <pthread.h>
#include <stdbool.h>

#include "locklab/acr.h"
#include "locklab/registry.h"
#include "locklab/sync.h"

/* Default lock: standby (src/locks/standby.c; docs/performance.md says why). */
#define LP_DEFAULT_LOCK "standby"
/* Spin budget used whenever the spec leaves it to the default (policy
 * spin_ns, or an algorithm key spin_ns = 0): fixed instead of measured
 * (LL_DEFAULTS_FIXED in ll_lock_place, which settles it), because measuring
 * (ll_park_cost_ns) starts two threads, which must not happen inside a
 * program's first pthread_mutex_lock.  Also the timed locks' spin (mutex_timed.c). */
#define LP_DEFAULT_SPIN_NS LL_FIXED_SPIN_NS
/* A timed lock against CLOCK_REALTIME waits in slices of at most this long, re-reading that
 * clock between them (mutex_timed.c): a clock set forward past the deadline
 * ends the wait at most this late.  Long against the locks' patience (mcscr: 50 ms), since
 * each slice joins the queue anew. */
#define LP_REALTIME_SLICE_NS 250000000u

typedef struct lp_config {
    const ll_lock_ops *ops;         /* lock.ops, where the entry points read it */
    ll_wait_policy wp;              /* inline mode: shared by every mutex; else each lock object has its own */
    /* The lock state lives in the pthread_mutex_t itself (16 bytes at offset
     * 24) when it fits there, its initialised state is all zeros (so static
     * initialisers are valid states) and it needs no destroy; else it lives in
     * an out-of-line object (slab.h) whose pointer is installed there once.
     * Always out-of-line when profiling (the record hangs off the object).
     * ll_lock_place says whether the state is so (ll_placement.inlinable). */
    bool inline_state;
    /* ll_placement.inline_prefix_bytes when it fits in the mutex, else 0: the
     * per-lock prefix of a lock whose other bytes are tunables shared by all its
     * locks (acr); the tunables are kept once, in acr below. */
    size_t inline_prefix;
    /* The configured lock is acr and lives inline: mutex.c calls its expert API
     * (inline fast paths, no indirect call) with these tunables (acr.h). */
    bool acr_inline;
    ll_acr_params acr;
    bool verbose;
    bool quiet; /* LOCKLAB_QUIET=1, or secure-execution mode (env.h): no advisory lines on stderr */
    /* The lock never blocks in the kernel (ll_spec_never_parks): the threads that
     * use it are counted, and one line warns once they outnumber the CPUs. */
    bool never_parks;
    /* The direct path's verbs (mutex.c): ops' direct verbs, or where it has none the plain
     * verbs behind the same signature (config.c); never NULL once lp_fast is LP_FAST_OPS*. */
    int (*direct_acquire)(void *state, ll_wait_policy *wp, ll_atomic_u64 *owner, uint64_t id);
    int (*direct_release)(void *state, ll_wait_policy *wp);
    /* The lock does not repair itself after a fork (no LL_CAP_FORK_SAFE: it records its
     * waiters): a mutex held across a fork is repaired by its unlock (mutex_fork.c). */
    bool fork_repair;
    char spec[128]; /* canonical spec, as ll_spec_parse prints it */
    /* LOCKLAB_COND / LOCKLAB_SEM ("fifo" | "lifo-cr[:append_one_in=N]", default fifo);
     * sem.append_one_in is always explicit (never 0, never LP_GLIBC_SHARED_SEM: sem.c). */
    ll_sync_config cond, sem;
    char cond_text[64], sem_text[64];
    /* LOCKLAB_COND_MORPH: which wake-ups a thread that holds the waiters' mutex defers to
     * its unlock (wait morphing, cond.c); the others wake at once.  "auto": under the
     * locks that do their own waiting (LL_CAP_PARKS_ITSELF) broadcasts only, under those
     * whose arrivals spin before they park (LL_CAP_WAKE_INTO_HELD: parkinglot, standby)
     * neither, under the others (queue and spinning locks) both. */
    bool morph_signal, morph_broadcast;
    char morph_text[16];
    /* The lock's spec with every default settled (ll_lock_place, LL_DEFAULTS_FIXED):
     * each out-of-line object is placed from it (mutex_object.c). */
    ll_spec lock;
} lp_config;

/* "fifo" or "lifo-cr", for reports. */
LL_INLINE const char *lp_discipline_name(const ll_sync_config *c)
{
    return c->discipline == LL_DISCIPLINE_LIFO_CR ? "lifo-cr" : "fifo";
}

/* glibc's FUTEX_SHARED flag in a process-shared sem_t's offset-8 word (sem.c). */
#define LP_GLIBC_SHARED_SEM 128u
/* Mostly-LIFO's default 1/append_one_in (the paper's 1/1000). */
#define LP_DEFAULT_APPEND_ONE_IN 1000u

extern lp_config lp_cfg;
/* Which fast path the entry points inline for normal mutexes, stored (release) once lp_cfg is
 * complete: LP_FAST_ACR when lp_cfg.acr_inline; LP_FAST_WORD for an inline one-word exchange
 * lock (LL_CAP_WORD_LOCK: tas, ttas); LP_FAST_PARKINGLOT for an inline parkinglot;
 * LP_FAST_STANDBY for an inline standby (the default); LP_FAST_OPS for any other lock when not
 * profiling (the lock's own verbs, called straight from the entry points: mutex.c, "the direct
 * path"), LP_FAST_OPS_INLINE when that lock's state lives in the mutex (lp_cfg.inline_state);
 * LP_FAST_NONE while profiling (and until lp_cfg is complete).
 * The inline word contract, which the inline kinds share (mutex.c asserts the layout):
 * the lock's first 32-bit word is 0 free and 1 held, and a CAS 0 -> 1 acquires it; its second
 * word's bit 0 is 0 unless a waiter may sleep (acr's SLEEPING, parkinglot's parked, standby's ACT; always 0 for
 * tas and ttas), and then a release is a store of 0 to the first word.  So the entry points'
 * fast path is one CAS and one load + store whatever the kind, and the kind only picks the slow
 * path (the lock's own acquire, or its own release when bit 0 is set).  After the CAS, the lock
 * path also tests the second word's bit 2 (standby's PARKED: a turn's count, standby.h; for the
 * other kinds the cold call it makes then does nothing). */
enum { LP_FAST_NONE = 0, LP_FAST_ACR = 1, LP_FAST_WORD = 2, LP_FAST_PARKINGLOT = 3, LP_FAST_STANDBY = 4, LP_FAST_OPS = 5,
       LP_FAST_OPS_INLINE = 6 };
/* The direct kinds come last: the entry points test fast >= LP_FAST_OPS (mutex.c). */
_Static_assert(LP_FAST_OPS_INLINE == LP_FAST_OPS + 1, "the direct kinds are the last two");
extern ll_atomic_u32 lp_fast;

enum { LP_UNINITIALISED, LP_INITIALISING, LP_READY };
extern ll_atomic_u32 lp_init_state;
/* Idempotent.  true: lp_cfg is complete.  false: the caller is the thread that is
 * configuring the interposer, re-entered from inside the configuration (see below). */
bool lp_init(void);

/* Every interposed entry point starts with this.  It returns false only for a
 * call the configuring thread makes from inside the configuration itself: e.g.
 * configure's fopen calls malloc, and a malloc replacement (jemalloc, ...)
 * locks a pthread mutex.  Every other thread waits in lp_init until the
 * configuration is complete, so no other thread can be inside a critical
 * section of any interposed mutex (or waiting on a condition variable): the
 * configuring thread's nested mutex calls are exclusive without touching the
 * mutex, and its signals have no waiter to wake (mutex.c, cond.c).  Calls
 * that cannot be served that way use lp_require_init. */
LL_INLINE bool lp_ensure_init(void)
{
    if (LL_LIKELY(ll_load_acquire(&lp_init_state) == LP_READY)) /* acquire: pairs with lp_init's release; lp_cfg is complete */
        return true;
    return lp_init();
}
/* A head count of the threads that take locks that never park, one per kind of object
 * (mutexes: config.c; spinlocks: spin.c): a thread is counted at its first such acquisition
 * until it exits (key's destructor, set to the count itself), and the most at once is kept
 * for LOCKLAB_VERBOSE's report at exit.  Relaxed throughout: a head count. */
typedef struct lp_headcount {
    ll_atomic_u32 now, max, warned;
    pthread_once_t once;
    pthread_key_t key; /* made by the owner's make_key: pthread_key_create(&key, lp_headcount_exit) */
} lp_headcount;
#define LP_HEADCOUNT_INIT {.once = PTHREAD_ONCE_INIT}
void lp_headcount_exit(void *h);
/* Count the calling thread in h; the first time the count is above the CPUs (once per
 * process, never when LOCKLAB_QUIET), one line on stderr: warning, a printf format given
 * the lock's spec (%s), the count (%u) and the CPUs (%d) in that order. */
__attribute__((format(printf, 3, 0))) void lp_headcount_join(lp_headcount *h, void (*make_key)(void),
                                                             const char *warning, const char *spec);
/* A thread takes a mutex of a lock that never parks: count it (once per thread);
 * the first time such threads outnumber the CPUs, one line on stderr (unless quiet). */
void lp_note_spinning_thread_slow(void);
extern __thread bool lp_spinning_thread_counted __attribute__((tls_model("initial-exec")));
LL_INLINE void lp_note_spinning_thread(void)
{
    if (LL_UNLIKELY(lp_cfg.never_parks) && !lp_spinning_thread_counted)
        lp_note_spinning_thread_slow();
}

/* One advisory line on stderr, once per process (*warned), never when LOCKLAB_QUIET: fmt, a
 * printf format given spec (%s): the real-time warnings of mutexes (config.c) and spinlocks. */
__attribute__((format(printf, 2, 0))) void lp_say_once(ll_atomic_u32 *warned, const char *fmt, const char *spec);
/* A real-time waiter of a spinlock slept (spin.c): one line on stderr (unless quiet), once
 * per process, naming LOCKLAB_SPIN; lp_spin_waiting is true while a thread waits for a
 * spinlock, so that the waiting engine's hook (config.c) tells its naps from a mutex's. */
extern __thread bool lp_spin_waiting __attribute__((tls_model("initial-exec")));
void lp_spin_realtime_napped(void);

/* For the entry points that need the configuration: a re-entrant call during
 * configuration is one line on stderr and exit status 2. */
void lp_init_recursion_fatal(const char *function);
LL_INLINE void lp_require_init(const char *function)
{
    if (LL_UNLIKELY(!lp_ensure_init()))
        lp_init_recursion_fatal(function);
}

/* LOCKLAB_VERBOSE=1 reports at exit which kinds of objects the program used (lp_seen): each
 * kind's bit is set by its entry points (lp_mark_seen: one relaxed load once set).  pthread
 * mutexes are marked by their first call past the inline fast path: in verbose mode the fast
 * path stays closed (lp_fast LP_FAST_NONE) until that call, which marks them and opens it
 * (lp_census_mutex); C11's mtx_* share the entry points but not the mark. */
enum {
    LP_SEEN_MUTEX = 1u << 0, LP_SEEN_COND = 1u << 1, LP_SEEN_SEM = 1u << 2, LP_SEEN_MTX = 1u << 3,
    LP_SEEN_CND = 1u << 4, LP_SEEN_SPIN = 1u << 5, LP_SEEN_BARRIER = 1u << 6, LP_SEEN_RWLOCK = 1u << 7
};
extern ll_atomic_u32 lp_seen;
void lp_mark_seen_slow(uint32_t kind);
LL_INLINE void lp_mark_seen(uint32_t kind)
{
    if (LL_UNLIKELY(!(ll_load_relaxed(&lp_seen) & kind))) /* relaxed: a statistic */
        lp_mark_seen_slow(kind);
}
void lp_census_mutex(void);
/* LOCKLAB_SPIN, the lock of pthread spinlocks (spin.c): parsed by configure. */
void lp_spin_configure(void);

/* A bad setting: "liblocklab-preload: LINE" on stderr, and the process exits with 2. */
__attribute__((noreturn)) void lp_die(const char *line);
/* One line (printf format, at most 511 bytes) on stderr by the write system call, for what a
 * lock or unlock says while it runs: glibc's stdio and write() are cancellation points, which a
 * lock is not (a deferred cancel acting inside a pthread_mutex_lock would leave it held by
 * nobody's cleanup), and this also takes no stdio lock (async-signal-safe but for the format). */
__attribute__((format(printf, 1, 2))) void lp_say(const char *fmt, ...);
/* Longest echo of a value in a message (ll_elide: its middle is elided, the reason kept). */
#define LP_ECHO 64
/* The lock spec `value` of the environment variable var (LOCKLAB_LOCK, LOCKLAB_SPIN),
 * settled as the interposer places its locks (ll_lock_place with LL_DEFAULTS_FIXED: the
 * fixed spin budget, no thread started): *pl, its sizes, and echo (LP_ECHO + 1 bytes),
 * the value as messages quote it.  A bad spec ends the process (lp_die: var, the value,
 * what is wrong). */
void lp_lock_settle(const char *var, const char *value, char *echo, ll_placement *pl);
/* Then one lock of *pl initialised in scratch (bytes long, LL_SECTOR-aligned, as
 * pl->state_align asks), *wp its waiting policy: that checks the parameters.  A state
 * larger than scratch, or a bad parameter, ends the process as above. */
void lp_lock_place_scratch(const char *var, const char *echo, ll_placement *pl, void *scratch, size_t bytes,
                           ll_wait_policy *wp);

/* Objects handed to glibc: mutexes (robust, PI/PP, process-shared),
 * process-shared condition variables and semaphores. */
extern ll_atomic_u64 lp_passthrough_mutexes, lp_passthrough_conds, lp_passthrough_sems;

#endif
