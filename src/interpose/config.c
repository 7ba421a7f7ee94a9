/* Environment parsing and one-time initialisation of the interposer (config.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "env.h"
#include "profile.h"
#include "real.h"
#include "rwlock.h"
#include "slab.h"

/* The locks whose own expert verbs mutex.c calls inline (acr.h, parkinglot.h, standby.h):
 * the only algorithms the interposer names.  Each such fast path is that algorithm's API
 * (acr's tunables kept once in lp_cfg.acr, parkinglot's and standby's slow paths and
 * standby's wake-from-condition entry), not a capability another lock could declare;
 * every other decision reads the lock's capabilities (registry.h, LL_CAP_*). */
extern const ll_lock_ops ll_lock_acr, ll_lock_parkinglot, ll_lock_standby;

lp_config lp_cfg;
ll_atomic_u32 lp_fast;
ll_atomic_u32 lp_init_state;
ll_atomic_u64 lp_passthrough_mutexes, lp_passthrough_conds, lp_passthrough_sems;
static __thread bool initialising_here;

void lp_say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    if ((size_t)n >= sizeof line) { /* cut: keep the line a line */
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    (void)!syscall(SYS_write, 2, line, (size_t)n);
}

void lp_die(const char *line)
{
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL); /* it may run in a lock: stdio is a cancellation point */
    fprintf(stderr, "liblocklab-preload: %s\n", line);
    _exit(2);
}

/* The scratch lock parse_lock placed: a lock with an inline prefix keeps its
 * tunables (the bytes after the prefix, as init set them: no destroy) from here. */
static LL_ALIGNED(LL_SECTOR) unsigned char scratch[4096];
static size_t scratch_bytes;

void lp_lock_settle(const char *var, const char *value, char *echo, ll_placement *pl)
{
    char err[512], line[800];
    ll_elide(value, LP_ECHO, echo, LP_ECHO + 1);
    ll_spec s;
    if (ll_spec_parse(value, &s, err, sizeof err) != 0) {
        snprintf(line, sizeof line, "%s='%s': %s", var, echo, err);
        lp_die(line);
    }
    ll_lock_place(&s, LL_DEFAULTS_FIXED, NULL, NULL, pl, err, sizeof err); /* sizes only: cannot fail */
}

void lp_lock_place_scratch(const char *var, const char *echo, ll_placement *pl, void *scratch, size_t bytes,
                           ll_wait_policy *wp)
{
    char err[512], line[800];
    if (pl->state_bytes > bytes) {
        snprintf(line, sizeof line, "%s='%s': state of %zu bytes is larger than this interposer supports (%zu)", var,
                 echo, pl->state_bytes, bytes);
        lp_die(line);
    }
    if (ll_lock_place(&pl->spec, LL_DEFAULTS_FIXED, scratch, wp, pl, err, sizeof err) != 0) {
        snprintf(line, sizeof line, "%s='%s': %s", var, echo, err);
        lp_die(line);
    }
}

/* Settles the lock through the API's one placement call (ll_lock_place) with the
 * fixed spin budget (config.h), and initialises one scratch state: that checks the
 * parameters and tells where a mutex keeps its lock (inline_state, inline_prefix). */
static void parse_lock(const char *value)
{
    char echo[LP_ECHO + 1];
    ll_placement pl;
    lp_lock_settle("LOCKLAB_LOCK", value, echo, &pl);
    lp_lock_place_scratch("LOCKLAB_LOCK", echo, &pl, scratch, sizeof scratch, &lp_cfg.wp);
    lp_cfg.ops = pl.spec.ops;
    lp_cfg.lock = pl.spec;
    snprintf(lp_cfg.spec, sizeof lp_cfg.spec, "%s", pl.spec.name);
    lp_cfg.inline_state = pl.inlinable && pl.state_bytes <= LP_INLINE_STATE_BYTES;
    lp_cfg.inline_prefix = pl.inline_prefix_bytes <= LP_INLINE_STATE_BYTES ? pl.inline_prefix_bytes : 0;
    scratch_bytes = pl.state_bytes;
    if (lp_cfg.ops->destroy)
        lp_cfg.ops->destroy(scratch);
}

/* LOCKLAB_VERBOSE, LOCKLAB_QUIET: 0, 1 or unset. */
static bool parse_flag(const char *var)
{
    const char *value = lp_env(var);
    if (value == NULL || strcmp(value, "0") == 0)
        return false;
    if (strcmp(value, "1") == 0)
        return true;
    char line[300], echo[LP_ECHO + 1];
    snprintf(line, sizeof line, "%s='%s' is not valid (valid: 0, 1, or unset)", var, ll_elide(value, LP_ECHO, echo, sizeof echo));
    lp_die(line);
    return false;
}

/* ---- a lock that never parks: more threads than CPUs, or real-time threads ------------ */
/* Where such a lock cannot work, one line each (unless quiet), once per process:
 *   - its threads outnumber the CPUs: a handover to a preempted spinner waits a time slice;
 *   - a real-time thread (SCHED_FIFO/RR) takes it: spinning would starve a lower-priority
 *     holder forever, so the waiting engine makes such waiters sleep between polls (wait.h).
 *     Noticed at a thread's first acquisition, and whenever the engine makes one sleep
 *     (ll_wait_set_realtime_hook: a thread may turn real-time later).
 * LOCKLAB_VERBOSE=1 adds a summary at exit. */

__thread bool lp_spinning_thread_counted __attribute__((tls_model("initial-exec")));
static ll_atomic_u32 realtime_warned;
static ll_atomic_u64 realtime_naps;
static lp_headcount spinning = LP_HEADCOUNT_INIT;
static void make_spinning_key(void) { pthread_key_create(&spinning.key, lp_headcount_exit); }

void lp_headcount_exit(void *h) { ll_faa(&((lp_headcount *)h)->now, (uint32_t)-1, LL_RELAXED); }

void lp_headcount_join(lp_headcount *h, void (*make_key)(void), const char *warning, const char *spec)
{
    pthread_once(&h->once, make_key);
    pthread_setspecific(h->key, h); /* the destructor runs only for non-NULL values */
    uint32_t n = ll_faa(&h->now, 1, LL_RELAXED) + 1;
    uint32_t max = ll_load_relaxed(&h->max);
    while (n > max && !ll_cas(&h->max, &max, n, LL_RELAXED))
        ;
    int cpus = ll_cpus_available();
    if ((int)n > cpus && !lp_cfg.quiet && !ll_xchg(&h->warned, 1, LL_RELAXED))
        lp_say(warning, spec, n, cpus); /* in a lock: no cancellation point */
}

void lp_say_once(ll_atomic_u32 *warned, const char *fmt, const char *spec)
{
    if (lp_cfg.quiet || ll_xchg(warned, 1, LL_RELAXED)) /* relaxed: once is all it orders */
        return;
    lp_say(fmt, spec);
}

static void warn_realtime(void)
{
    lp_say_once(&realtime_warned,
                "liblocklab-preload: lock %s never parks and a real-time thread (SCHED_FIFO/RR) waits for it: spinning "
                "would starve a lower-priority holder on its CPU, so such waiters sleep between polls (1 us to 1 ms: "
                "slow); use a parking lock (standby, the default; parkinglot, acr, mcs-stp, ...) or set LOCKLAB_QUIET=1 to silence this line\n",
                lp_cfg.spec);
}

/* The waiting engine made a real-time waiter sleep (ll_wait_set_realtime_hook): a spinlock's
 * (spin.c says so in lp_spin_waiting, and warns naming LOCKLAB_SPIN), else, when the mutexes'
 * lock never parks, taken to be a mutex's (an rwlock's whose LOCKLAB_RWLOCK never parks is
 * counted and named as the mutexes' too; with a parking mutex lock it is not reported). */
static void realtime_napped(void)
{
    if (lp_spin_waiting) {
        lp_spin_realtime_napped();
        return;
    }
    if (!lp_cfg.never_parks)
        return; /* not a mutex's wait: another object's that never parks */
    ll_faa(&realtime_naps, 1, LL_RELAXED); /* relaxed: a statistic */
    warn_realtime();
}

/* The direct path's verbs for a lock with no direct verbs of its own (config.h). */
static int plain_direct_acquire(void *s, ll_wait_policy *wp, ll_atomic_u64 *owner, uint64_t id)
{
    return ll_ops_direct_acquire(lp_cfg.ops, s, wp, owner, id);
}
static int plain_direct_release(void *s, ll_wait_policy *wp) { return ll_ops_direct_release(lp_cfg.ops, s, wp); }

void lp_note_spinning_thread_slow(void)
{
    lp_spinning_thread_counted = true;
    if (ll_thread_realtime())
        warn_realtime();
    lp_headcount_join(&spinning, make_spinning_key,
                      "liblocklab-preload: lock %s never parks and %u threads now use it on %d CPUs: a handover to a "
                      "preempted spinner waits a time slice (100-1000x slower); use a parking lock (standby, the default; parkinglot, acr, "
                      "mcs-stp, ...) or set LOCKLAB_QUIET=1 to silence this line\n",
                      lp_cfg.spec);
}

/* LOCKLAB_COND / LOCKLAB_SEM: a queue discipline (ll_sync_config_parse). */
static void parse_discipline(const char *var, ll_sync_config *cfg, char *text, size_t textlen)
{
    const char *value = lp_env(var);
    if (value == NULL)
        value = "fifo";
    char err[300], line[500], echo[LP_ECHO + 1];
    ll_elide(value, LP_ECHO, echo, sizeof echo);
    if (ll_sync_config_parse(value, cfg, err, sizeof err) != 0) {
        snprintf(line, sizeof line, "%s='%s': %s", var, echo, err);
        lp_die(line);
    }
    if (cfg->append_one_in == 0)
        cfg->append_one_in = LP_DEFAULT_APPEND_ONE_IN;
    if (cfg->append_one_in == LP_GLIBC_SHARED_SEM) {
        snprintf(line, sizeof line,
                 "%s='%s': append_one_in=%u is reserved by the interposer (it marks glibc's process-shared "
                 "semaphores); valid: 1..4294967295 except %u (e.g. %u or %u)",
                 var, echo, LP_GLIBC_SHARED_SEM, LP_GLIBC_SHARED_SEM, LP_GLIBC_SHARED_SEM - 1, LP_GLIBC_SHARED_SEM + 1);
        lp_die(line);
    }
    snprintf(text, textlen, "%s", value);
}

/* LOCKLAB_COND_MORPH (config.h; docs/interposer.md, "Wait morphing"). */
static void parse_morph(void)
{
    const char *value = lp_env("LOCKLAB_COND_MORPH");
    if (value == NULL)
        value = "auto";
    bool own_waiting = ll_lock_parks_itself(lp_cfg.ops);
    if (strcmp(value, "auto") == 0) {
        /* docs/interposer.md, "Wait morphing": a herd woken into the held mutex suits only
         * the locks whose arrivals spin before they park (LL_CAP_WAKE_INTO_HELD) */
        lp_cfg.morph_signal = !own_waiting;
        lp_cfg.morph_broadcast = !own_waiting || !ll_lock_wakes_into_held(lp_cfg.ops);
    } else if (strcmp(value, "all") == 0 || strcmp(value, "broadcast") == 0 || strcmp(value, "none") == 0) {
        lp_cfg.morph_signal = value[0] == 'a';
        lp_cfg.morph_broadcast = value[0] != 'n';
    } else {
        char line[300], echo[LP_ECHO + 1];
        snprintf(line, sizeof line, "LOCKLAB_COND_MORPH='%s' is not valid (valid: auto, all, broadcast, none)",
                 ll_elide(value, LP_ECHO, echo, sizeof echo));
        lp_die(line);
    }
    snprintf(lp_cfg.morph_text, sizeof lp_cfg.morph_text, "%s",
             lp_cfg.morph_signal ? "all" : lp_cfg.morph_broadcast ? "broadcast" : "none");
}

static void report_census(void);

static void report_at_exit(void)
{
    /* relaxed loads: statistics */
    if (lp_cfg.never_parks)
        fprintf(stderr,
                "liblocklab-preload: exit: lock %s never parks: up to %u threads used it at once on %d CPUs; "
                "real-time waiters slept %llu times (wait.h)\n",
                lp_cfg.spec, (unsigned)ll_load_relaxed(&spinning.max), ll_cpus_available(),
                (unsigned long long)ll_load_relaxed(&realtime_naps));
    fprintf(stderr,
            "liblocklab-preload: exit: passed through to glibc: %llu mutexes (robust, PI/PP or process-shared), "
            "%llu condition variables and %llu semaphores (process-shared)\n",
            (unsigned long long)ll_load_relaxed(&lp_passthrough_mutexes),
            (unsigned long long)ll_load_relaxed(&lp_passthrough_conds),
            (unsigned long long)ll_load_relaxed(&lp_passthrough_sems));
    if (ll_load_relaxed(&lp_slab_fallbacks))
        fprintf(stderr, "liblocklab-preload: exit: out of memory: %llu mutexes ran on an inline standby lock instead of %s\n",
                (unsigned long long)ll_load_relaxed(&lp_slab_fallbacks), lp_cfg.spec);
    report_census();
}

/* ---- LOCKLAB_VERBOSE's census of the kinds of objects used (config.h) ---------------- */
ll_atomic_u32 lp_seen;
static uint32_t fast_when_seen; /* lp_fast once a pthread mutex was seen (verbose mode) */

void lp_mark_seen_slow(uint32_t kind)
{
    uint32_t old = ll_load_relaxed(&lp_seen); /* relaxed: a statistic */
    while (!(old & kind) && !ll_cas(&lp_seen, &old, old | kind, LL_RELAXED)) /* relaxed: as above */
        ;
}

void lp_census_mutex(void)
{
    lp_mark_seen_slow(LP_SEEN_MUTEX);
    ll_store_release(&lp_fast, fast_when_seen); /* release: as configure's store (lp_cfg is complete) */
}

static void report_census(void)
{
    static const char *const names[] = {"pthread mutexes", "condition variables", "semaphores", "C11 mtx",
                                        "C11 cnd", "spinlocks", "barriers", "rwlocks"};
    char used[200] = "", unused[200] = "";
    uint32_t seen = ll_load_relaxed(&lp_seen); /* relaxed: a statistic */
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *to = seen & (1u << i) ? used : unused;
        snprintf(to + strlen(to), 200 - strlen(to), "%s%s", *to ? ", " : "", names[i]);
    }
    fprintf(stderr, "liblocklab-preload: exit: used: %s; not used: %s\n", *used ? used : "nothing",
            *unused ? unused : "nothing");
}

static void configure(void)
{
    lp_real_resolve();
    char err[512];
    if (ll_topology_configure(lp_env("LOCKLAB_TOPOLOGY"), err, sizeof err) != 0)
        lp_die(err); /* the message names LOCKLAB_TOPOLOGY, the value and the valid forms */
    const char *lock = lp_env("LOCKLAB_LOCK");
    parse_lock(lock ? lock : LP_DEFAULT_LOCK);
    parse_discipline("LOCKLAB_COND", &lp_cfg.cond, lp_cfg.cond_text, sizeof lp_cfg.cond_text);
    parse_discipline("LOCKLAB_SEM", &lp_cfg.sem, lp_cfg.sem_text, sizeof lp_cfg.sem_text);
    ll_sync_set_defaults(&lp_cfg.cond, &lp_cfg.sem);
    parse_morph();
    lp_cfg.verbose = parse_flag("LOCKLAB_VERBOSE");
    /* Secure-execution mode (env.h): lp_env read nothing, and no advisory line either. */
    lp_cfg.quiet = parse_flag("LOCKLAB_QUIET") || getauxval(AT_SECURE) != 0;
    lp_cfg.never_parks = ll_spec_never_parks(lp_cfg.ops, lp_cfg.wp.ops);
    ll_wait_set_realtime_hook(realtime_napped); /* spinlocks never park, whatever the mutex's lock */
    if (lp_profile_init() != 0)
        _exit(2); /* lp_profile_init printed the one-line message */
    if (lp_profiling) {
        lp_cfg.inline_state = false; /* a mutex's profile record hangs off its lock object */
        lp_profile_set_config(lp_cfg.spec, lp_cfg.cond_text, lp_cfg.morph_text, lp_cfg.sem_text);
    }
    if (lp_cfg.inline_prefix && scratch_bytes - lp_cfg.inline_prefix == sizeof lp_cfg.acr &&
        lp_cfg.ops == &ll_lock_acr /* its own verbs: above */ && !lp_profiling) {
        /* The lock's per-mutex prefix (acr's 16-byte lock, zeros when free) lives in the
         * mutex, its tunables once here; mutex.c calls acr's own verbs on them (acr.h). */
        lp_cfg.acr_inline = lp_cfg.inline_state = true;
        memcpy(&lp_cfg.acr, scratch + lp_cfg.inline_prefix, sizeof lp_cfg.acr);
    }
    lp_slab_init();
    if (lp_cfg.verbose) {
        fprintf(stderr,
                "liblocklab-preload: lock=%s (%s%s) state=%s (%zu bytes per mutex beyond the pthread_mutex_t) "
                "cond=%s (morph %s) sem=%s topology=%s profile=%s\n",
                lp_cfg.spec, lock ? "LOCKLAB_LOCK" : "default",
                lp_cfg.never_parks ? "; never parks: slow with more threads than CPUs or real-time threads" : "",
                lp_cfg.inline_state ? "inline" : "out-of-line", lp_cfg.inline_state ? (size_t)0 : lp_slab_object_bytes(),
                lp_cfg.cond_text, lp_cfg.morph_text, lp_cfg.sem_text, ll_topology_describe(), lp_profiling ? lp_env("LOCKLAB_PROFILE") : "off");
        atexit(report_at_exit);
    }
    lp_rwlock_configure(); /* after the lock's verbose line, which stays the first */
    lp_spin_configure(); /* LOCKLAB_SPIN (spin.c) */
    bool parkinglot = lp_cfg.ops == &ll_lock_parkinglot, standby = lp_cfg.ops == &ll_lock_standby; /* above */
    uint32_t fast = lp_cfg.acr_inline                                                 ? LP_FAST_ACR
                    : lp_cfg.inline_state && ll_lock_is_word_lock(lp_cfg.ops) ? LP_FAST_WORD
                    : lp_cfg.inline_state && parkinglot                      ? LP_FAST_PARKINGLOT
                    : lp_cfg.inline_state && standby                         ? LP_FAST_STANDBY
                    : lp_profiling                                           ? LP_FAST_NONE
                    : lp_cfg.inline_state                                    ? LP_FAST_OPS_INLINE
                                                                                : LP_FAST_OPS;
    lp_cfg.direct_acquire = lp_cfg.ops->direct_acquire ? lp_cfg.ops->direct_acquire : plain_direct_acquire;
    lp_cfg.direct_release = lp_cfg.ops->direct_release ? lp_cfg.ops->direct_release : plain_direct_release;
    /* The interposer repairs a mutex held across a fork unless its lock repairs itself
     * (LL_CAP_FORK_SAFE: mutex_fork.c). */
    lp_cfg.fork_repair = !ll_lock_fork_safe(lp_cfg.ops);
    fast_when_seen = fast; /* verbose: the fast path opens at the first pthread mutex call (lp_census_mutex) */
    ll_store_release(&lp_fast, lp_cfg.verbose ? (uint32_t)LP_FAST_NONE : fast); /* release: lp_cfg is complete before a fast path reads it */
}

bool lp_init(void)
{
    uint32_t expected = LP_UNINITIALISED;
    if (ll_cas(&lp_init_state, &expected, LP_INITIALISING, LL_ACQUIRE)) { /* acquire: nothing to pair with yet; we own init */
        initialising_here = true;
        ll_without_cancel(configure); /* it reads files (cancellation points); the first call may be a lock */
        initialising_here = false;
        ll_store_release(&lp_init_state, LP_READY); /* release: lp_cfg is complete before READY is seen */
        return true;
    }
    if (initialising_here)
        return false; /* re-entered from inside configure (config.h, lp_ensure_init) */
    uint32_t turns = 0;
    while (ll_load_acquire(&lp_init_state) != LP_READY) /* acquire: pairs with the release above */
        ll_yield_turn(&turns);
    return true;
}

void lp_init_recursion_fatal(const char *function)
{
    char line[200];
    snprintf(line, sizeof line, "%s was called while the interposer configured itself (recursion; please report)",
             function);
    lp_die(line);
}

__attribute__((constructor)) static void lp_constructor(void) { (void)lp_init(); }
