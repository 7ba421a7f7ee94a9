/*
 * The lock registry: one ll_lock_ops per algorithm, defined with designated
 * initialisers in that algorithm's file (src/locks/NAME.c), a line per group of
 * fields: name and source; summary; fairness, policies, caps and params; the
 * *_bytes and the verbs, the ones the adapters fill alike by LL_OPS_STATE_IS and
 * LL_OPS_VERBS (below; a group wraps when it is too long), and listed once in
 * src/api/registry.c.  The generic API, the validator, the benchmark, the
 * interposer, the simulator and the model checker find every lock there, and
 * what they need to know about it beyond its verbs is a field of its entry (its
 * capabilities, LL_CAP_* below); no code outside src/locks/ names an algorithm
 * to decide behaviour (docs/adding-a-lock.md).
 */
#ifndef LOCKLAB_REGISTRY_H
#define LOCKLAB_REGISTRY_H

#include "wait.h"

#ifdef __cplusplus
extern "C" {
#endif
LL_API_BEGIN

/* An integer tunable: spec key, range, default. */
typedef struct ll_param {
    const char *key;
    const char *summary;
    uint64_t min, max, def;
} ll_param;
#define LL_MAX_PARAMS 8

/* Bit i = ll_wait_policies[i] is supported. */
#define LL_POLICY_BIT(i) (1u << (i))
#define LL_SPIN_ONLY LL_POLICY_BIT(0)
#define LL_SPIN_YIELD (LL_POLICY_BIT(0) | LL_POLICY_BIT(1))
#define LL_ALL_POLICIES 0x1fu

/* ---- capabilities (ll_lock_ops.caps) -------------------------------------------------
 * What the layers above the verbs may rely on, promised by the lock's entry (a flag not
 * set promises nothing).  tests/test_spec.c ("capabilities") checks every registered
 * lock's flags against its other fields and, where it can, its behaviour. */

/* The algorithm blocks its waiters in the kernel by itself, whatever the policy (acr,
 * loiter, parkinglot, standby, pthread): it is registered with the spin policy only
 * (policies == LL_SPIN_ONLY) and does its own waiting.  Without the flag a lock
 * parks only if its policy does (ll_spec_never_parks). */
#define LL_CAP_PARKS_ITSELF (1u << 0)
/* A one-word exchange lock (include/locklab/word_lock.h: tas, ttas): the state is one
 * ll_atomic_u32 (state_bytes == 4) that all zeros make free (no init, destroy nor
 * abandon), 1 is held; any successful CAS 0 -> 1 on it acquires the lock and a store
 * of 0 releases it, whatever the policy, with no waiter to wake.  The interposer
 * inlines its fast path (LP_FAST_WORD).  Set only with LL_CAP_FORK_SAFE (a store of
 * 0 frees it in a fork child too). */
#define LL_CAP_WORD_LOCK (1u << 1)
/* Only the holder's own thread may call release: the lock hands over through a
 * per-thread element that the successor watches (hemlock's grant word,
 * reciprocating's wait element), not through the handle's state.  The interposer
 * ignores another thread's pthread_mutex_unlock of such a lock; under every other
 * lock it releases the mutex for its holder, as glibc does (docs/interposer.md,
 * "Misuse, out of memory and signals"). */
#define LL_CAP_HOLDER_RELEASES (1u << 2)
/* The lock repairs itself across fork(): in the child (one thread left), a lock the
 * forking thread held while other parent threads waited in it is freed by its
 * ordinary release, and every acquisition after that works; one that nobody held
 * works too: the lock records no waiter that a release would hand it to (a word
 * freed by a store of 0), or forgets the parent's waiters in the child (parked
 * waiters in a table that the child empties, park_table.h "Fork"; roles stamped with
 * the fork generation, acr.c, standby.c).  Without the flag the interposer repairs the lock itself: the unlock
 * in the child re-initialises it (src/interpose/mutex_fork.c). */
#define LL_CAP_FORK_SAFE (1u << 3)
/* Set only with LL_CAP_PARKS_ITSELF: a herd woken into the held lock does better than a herd
 * woken one by one at the unlock, because arrivals spin and yield before they park
 * and most find the lock free by then (parkinglot, standby).  The interposer's
 * LOCKLAB_COND_MORPH=auto then defers no condition-variable wake-up to the unlock;
 * under the other locks that park by themselves it defers broadcasts
 * (docs/interposer.md, "Wait morphing"). */
#define LL_CAP_WAKE_INTO_HELD (1u << 4)
#define LL_CAP_ALL 0x1fu

typedef struct ll_lock_ops {
    const char *name;
    const char *source;   /* paper the algorithm comes from */
    const char *summary;
    const char *fairness; /* "FIFO", "none (barging)", ... */
    unsigned policies;
    unsigned caps;          /* LL_CAP_* (above); 0: none */
    const ll_param *params; /* NULL or terminated by a NULL key */
    size_t state_bytes;     /* bytes the generic handle reserves (incl. holder bookkeeping) */
    /* Leading bytes of the state that are all zeros once initialised and hold everything
     * that differs between two locks of one spec; the bytes after them (tunables) are
     * the same in every such lock (acr: its ll_acr_lock, then its ll_acr_params).  0: no
     * such split (ll_placement.inline_prefix_bytes). */
    size_t inline_prefix_bytes;
    size_t lock_bytes;      /* algorithmic footprint per lock, at default parameters */
    size_t waiter_bytes;    /* per waiting thread */
    /* params[i] is the value of params[i].key.  Returns 0, or -1 with err set.  May be
     * NULL: all zeros are the free lock. */
    int (*init)(void *state, const uint64_t *params, char *err, size_t errlen);
    void (*destroy)(void *state); /* may be NULL */
    void (*acquire)(void *state, ll_wait_policy *wp);
    bool (*try_acquire)(void *state, ll_wait_policy *wp);
    void (*release)(void *state, ll_wait_policy *wp);
    /* Timed acquire (may be NULL: then callers can only poll try_acquire): acquire, or give
     * up once ll_now_ns() reaches deadline_ns and return false, leaving the lock as if this
     * caller had never come; it waits as acquire does (same queue, same policy), spinning
     * then parking until the deadline.  Each lock's header says how it leaves, and how many
     * handovers a timed waiter may have to let pass ("Timed acquire"; docs/interposer.md). */
    bool (*acquire_until)(void *state, ll_wait_policy *wp, uint64_t deadline_ns);
    /* The interposer's direct path (docs/interposer.md, "Cost of the uncontended pair"):
     * acquire, then store id into *owner (release), and release; both return 0 (the entry
     * points' result; pthread's release returns glibc's unlock's, 0 for its holder), so that
     * the entry points jump to them and keep no frame of their own.  Made by the adapters
     * (LL_DIRECT_VERBS, below); NULL: the interposer calls acquire and release. */
    int (*direct_acquire)(void *state, ll_wait_policy *wp, ll_atomic_u64 *owner, uint64_t id);
    int (*direct_release)(void *state, ll_wait_policy *wp);
    /* The state of a lock whose memory is being reused while it may be held (a
     * mutex dropped without destroy, found by the interposer's registry): give
     * back what a holder keeps (its queue node).  No thread touches the lock
     * again.  NULL: a holder keeps nothing. */
    void (*abandon)(void *state);
} ll_lock_ops;

/* The capabilities, one by one (LL_CAP_*, above). */
LL_INLINE bool ll_lock_parks_itself(const ll_lock_ops *ops) { return (ops->caps & LL_CAP_PARKS_ITSELF) != 0; }
LL_INLINE bool ll_lock_is_word_lock(const ll_lock_ops *ops) { return (ops->caps & LL_CAP_WORD_LOCK) != 0; }
LL_INLINE bool ll_lock_holder_releases(const ll_lock_ops *ops) { return (ops->caps & LL_CAP_HOLDER_RELEASES) != 0; }
LL_INLINE bool ll_lock_fork_safe(const ll_lock_ops *ops) { return (ops->caps & LL_CAP_FORK_SAFE) != 0; }
LL_INLINE bool ll_lock_wakes_into_held(const ll_lock_ops *ops) { return (ops->caps & LL_CAP_WAKE_INTO_HELD) != 0; }
/* caps as tools print them: the flags' names joined by commas, in bit order (parks-itself,
 * word-lock, holder-releases, fork-safe, wake-into-held), or "-" for none; into buf
 * (truncated to len).  Returns buf. */
char *ll_lock_caps_format(unsigned caps, char *buf, size_t len);
/* The algorithm's inline prefix (ll_lock_ops.inline_prefix_bytes). */
LL_INLINE size_t ll_lock_inline_prefix_bytes(const ll_lock_ops *ops) { return ops->inline_prefix_bytes; }
/* Does a lock of ops under policy never block in the kernel (pure spinning or
 * yielding)?  Such a lock, run by more threads than there are CPUs, can hand over
 * to a preempted spinner and wait a whole time slice (100-1000x slower). */
LL_INLINE bool ll_spec_never_parks(const ll_lock_ops *ops, const ll_wait_ops *policy)
{
    return !ll_lock_parks_itself(ops) && !policy->may_park;
}

/* Every algorithm's ops, defined in src/locks/NAME.c and listed in src/api/registry.c.
 * Declared here so that each definition has external linkage when the sources are
 * compiled as C++ too (a namespace-scope const is internal there without one). */
extern const ll_lock_ops ll_lock_tas, ll_lock_ttas, ll_lock_backoff, ll_lock_ticket, ll_lock_ticket_pb,
    ll_lock_anderson, ll_lock_clh, ll_lock_mcs, ll_lock_k42, ll_lock_twa, ll_lock_pthread,
    ll_lock_pthread_adaptive, ll_lock_hemlock, ll_lock_reciprocating, ll_lock_parkinglot, ll_lock_standby,
    ll_lock_fissile, ll_lock_shfl;
extern const ll_lock_ops ll_lock_mcscr, ll_lock_lifocr, ll_lock_loiter, ll_lock_acr; /* concurrency restriction */
extern const ll_lock_ops ll_lock_cna, ll_lock_hmcs, ll_lock_mcscrn;     /* NUMA-aware */

/* The i-th registered algorithm (i = 0, 1, ...): locklab's own, then the
 * peers; NULL past the last one. */
const ll_lock_ops *ll_lock_algorithm(size_t i);
/* Other libraries' locks behind the same ops (NULL-terminated; empty when the
 * library is absent): defined by src/peers/ck.c or src/peers/none.c. */
extern const ll_lock_ops *const ll_peer_locks[];

/* The spec adapter of a lock whose initialisation cannot fail: defines
 *   static int init(void *s, const uint64_t *p, char *err, size_t errlen)
 * that runs the statement given (over the state s and the spec's keys p) and
 * returns 0. */
#define LL_INIT_ADAPTER(...)                                                             \
    static int init(void *s, const uint64_t *p, char *err, size_t errlen)                \
    {                                                                                    \
        (void)p, (void)err, (void)errlen;                                                \
        __VA_ARGS__;                                                                     \
        return 0;                                                                        \
    }

/* The direct verbs (ll_lock_ops.direct_acquire, direct_release) over the file's static
 * acquire, try_acquire and release (FN-prefixed ones: LL_QUEUE_LOCK_ADAPTER_NAMED, which
 * makes its own direct_acquire).  Why: the interposer jumps to them from an entry point
 * that keeps no frame, so that an uncontended pair costs the lock's own work plus the
 * entry points' checks (docs/interposer.md, "Cost of the uncontended pair").
 *   direct_release: release, inlined with all it calls in this file (flatten): a lock
 *     whose release has a slow path keeps it out of line, taking over where the inline
 *     steps stopped (cna.c, hmcs.c, passive_set.h; mcs.c's repeats the tail's CAS when a
 *     successor is linking).
 *   direct_acquire (LL_DIRECT_VERBS): try_acquire inlined, the lock's uncontended path,
 *     and acquire, out of line, when it fails: an acquire that was going to wait anyway
 *     pays the failed try (a try that reads before its RMW costs it one load).
 *   direct_acquire (LL_DIRECT_VERBS_PLAIN): acquire, inlined with all it calls in this file
 *     (flatten; its waits stay out of line, LL_COLD); for a lock whose try_acquire is slower
 *     than its acquire's uncontended path.
 * Either stores id to *owner after the acquisition: release; pairs with the acquire of
 * lp_owner_claim (src/interpose/mutex.h), as the entry points' own owner stores. */
/* FN##NAME: acquire, then the owner store (the direct acquire's plain form). */
#define LL_DIRECT_CALLING_ACQUIRE(FN, NAME, ATTR)                                            \
    static ATTR int FN##NAME(void *s, ll_wait_policy *wp, ll_atomic_u64 *owner, uint64_t id) \
    {                                                                                    \
        FN##acquire(s, wp);                                                              \
        ll_store_release(owner, id); /* release: pairs with lp_owner_claim (above) */    \
        return 0;                                                                        \
    }
#define LL_DIRECT_RELEASE_NAMED(FN)                                                         \
    static LL_FLATTEN LL_HOT __attribute__((unused)) int FN##direct_release(void *s, ll_wait_policy *wp) \
    {                                                                                    \
        FN##release(s, wp);                                                              \
        return 0;                                                                        \
    }                                                                                    \
    LL_DIRECT_CALLING_ACQUIRE(FN, direct_acquire_slow, __attribute__((noinline, cold, unused)))
/* FN##direct_acquire: FAST inline, FN##acquire when it fails (LL_DIRECT_VERBS_BY: no prefix). */
#define LL_DIRECT_VERBS_NAMED(FN, FAST)                                                     \
    LL_DIRECT_RELEASE_NAMED(FN)                                                          \
    static LL_FLATTEN LL_HOT __attribute__((unused)) int FN##direct_acquire(void *s, ll_wait_policy *wp,   \
                                                                 ll_atomic_u64 *owner, uint64_t id) \
    {                                                                                    \
        if (LL_UNLIKELY(!FAST(s, wp)))                                                   \
            return FN##direct_acquire_slow(s, wp, owner, id);                            \
        ll_store_release(owner, id); /* release: pairs with lp_owner_claim (above) */    \
        return 0;                                                                        \
    }
#define LL_DIRECT_VERBS_BY(FAST) LL_DIRECT_VERBS_NAMED(, FAST)
#define LL_DIRECT_VERBS() LL_DIRECT_VERBS_BY(try_acquire)
#define LL_DIRECT_VERBS_PLAIN()                                                             \
    LL_DIRECT_RELEASE_NAMED()                                                            \
    LL_DIRECT_CALLING_ACQUIRE(, direct_acquire, LL_FLATTEN LL_HOT __attribute__((unused)))

/* A lock's direct verbs, or its plain ones and the owner store where it has none: for the
 * callers that run them as the interposer does (the generic handle's, for the validator; the
 * model checker's and the simulator's clients). */
LL_INLINE int ll_ops_direct_acquire(const ll_lock_ops *ops, void *state, ll_wait_policy *wp, ll_atomic_u64 *owner,
                                    uint64_t id)
{
    if (ops->direct_acquire)
        return ops->direct_acquire(state, wp, owner, id);
    ops->acquire(state, wp);
    ll_store_release(owner, id); /* release: as the direct verbs' owner store (above) */
    return 0;
}
LL_INLINE int ll_ops_direct_release(const ll_lock_ops *ops, void *state, ll_wait_policy *wp)
{
    if (ops->direct_release)
        return ops->direct_release(state, wp);
    ops->release(state, wp);
    return 0;
}

/* The generic-handle adapter of a lock with the common expert verbs
 * (LL_LOCK_VERBS in wait.h): the handle's state is the lock itself. */
#define LL_LOCK_ADAPTER(LOCK, PREFIX)                                                    \
    static void acquire(void *s, ll_wait_policy *wp) { PREFIX##_acquire((LOCK *)s, wp); } \
    static bool try_acquire(void *s, ll_wait_policy *wp)                                 \
    {                                                                                    \
        (void)wp;                                                                        \
        return PREFIX##_try_acquire((LOCK *)s);                                          \
    }                                                                                    \
    static void release(void *s, ll_wait_policy *wp) { PREFIX##_release((LOCK *)s, wp); }

/* Has a timed acquire's deadline passed before it started?  Then every adapter's
 * acquire_until is the lock's try_acquire: one attempt, no queue node left behind for
 * the releasers to pass over (an abortable queue lock would queue and leave at once). */
LL_INLINE bool ll_deadline_passed(uint64_t deadline_ns) { return ll_now_ns() >= deadline_ns; }

/* The generic-handle timed adapter of a lock whose expert API has
 *   PREFIX_acquire_until(LOCK *, wp, deadline_ns):
 * defines static acquire_until for its ll_lock_ops (after LL_LOCK_ADAPTER or another
 * static try_acquire). */
#define LL_TIMED_ADAPTER(LOCK, PREFIX)                                                  \
    static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)         \
    {                                                                                    \
        if (ll_deadline_passed(deadline_ns))                                             \
            return try_acquire(s, wp);                                                   \
        return PREFIX##_acquire_until((LOCK *)s, wp, deadline_ns);                       \
    }
/* The same for a lock that does its own waiting (the policy is not used):
 *   PREFIX_acquire_until(LOCK *, deadline_ns). */
#define LL_OWN_WAIT_TIMED_ADAPTER(LOCK, PREFIX)                                          \
    static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)         \
    {                                                                                    \
        if (ll_deadline_passed(deadline_ns))                                             \
            return try_acquire(s, wp);                                                   \
        return PREFIX##_acquire_until((LOCK *)s, deadline_ns);                           \
    }
/* LL_LOCK_ADAPTER, LL_TIMED_ADAPTER and LL_DIRECT_VERBS over the same lock: the verbs of a
 * lock whose expert API has PREFIX_acquire, _try_acquire, _release and _acquire_until, and
 * whose try is its uncontended path (else write the three with another direct flavour). */
#define LL_LOCK_ADAPTERS(LOCK, PREFIX) LL_LOCK_ADAPTER(LOCK, PREFIX) LL_TIMED_ADAPTER(LOCK, PREFIX) LL_DIRECT_VERBS()

/* The generic-handle adapter of a queue lock whose expert API is
 *   PREFIX_acquire(lock *, node *, wp), PREFIX_try_acquire(lock *, node *),
 *   PREFIX_release(lock *, node *, wp):
 * defines static acquire/try_acquire/release/abandon over STATE, a struct with members
 * `lock` and `holder` (the holder's node: taken from the per-thread cache,
 * remembered while held, written only by the holder, NULL again and returned at
 * release; abandon returns the node of a lock dropped while held).
 * LL_QUEUE_LOCK_ADAPTER_NAMED: the same, named FN##acquire, FN##try_acquire,
 * FN##release (several adapters in one file: src/peers/ck.c). */
#define LL_QUEUE_LOCK_ADAPTER_NAMED(STATE, NODE, PREFIX, FN)                                 \
    static void FN##acquire(void *s, ll_wait_policy *wp)                                     \
    {                                                                                    \
        STATE *st = (STATE *)s;                                                          \
        NODE *me = (NODE *)ll_qnode_get();                                               \
        PREFIX##_acquire(&st->lock, me, wp);                                             \
        st->holder = me;                                                                 \
    }                                                                                    \
    static bool FN##try_acquire(void *s, ll_wait_policy *wp)                                 \
    {                                                                                    \
        (void)wp;                                                                        \
        STATE *st = (STATE *)s;                                                          \
        NODE *me = (NODE *)ll_qnode_get();                                               \
        if (!PREFIX##_try_acquire(&st->lock, me)) {                                      \
            ll_qnode_put(me);                                                            \
            return false;                                                                \
        }                                                                                \
        st->holder = me;                                                                 \
        return true;                                                                     \
    }                                                                                    \
    static void FN##release(void *s, ll_wait_policy *wp)                                     \
    {                                                                                    \
        STATE *st = (STATE *)s;                                                          \
        NODE *me = st->holder;                                                           \
        st->holder = NULL; /* holder-only: before the release hands the lock on */       \
        PREFIX##_release(&st->lock, me, wp);                                             \
        ll_qnode_put(me);                                                                \
    }                                                                                    \
    LL_DIRECT_RELEASE_NAMED(FN)                                                          \
    /* the direct verbs' acquire: a node from the cache and the lock's try, inline */    \
    static LL_HOT __attribute__((unused)) int FN##direct_acquire(void *s, ll_wait_policy *wp, ll_atomic_u64 *owner, \
                                                        uint64_t id)                     \
    {                                                                                    \
        STATE *st = (STATE *)s;                                                          \
        ll_thread *self = ll_self_if_any();                                              \
        NODE *me = (NODE *)ll_qnode_take(self);                                          \
        if (LL_UNLIKELY(me == NULL))                                                     \
            return FN##direct_acquire_slow(s, wp, owner, id);                            \
        if (LL_UNLIKELY(!PREFIX##_try_acquire(&st->lock, me))) {                         \
            ll_qnode_untake(self, me);                                                   \
            return FN##direct_acquire_slow(s, wp, owner, id);                            \
        }                                                                                \
        st->holder = me;                                                                 \
        ll_store_release(owner, id); /* release: pairs with lp_owner_claim (above) */               \
        return 0;                                                                        \
    }                                                                                    \
    static __attribute__((unused)) void FN##abandon(void *s)                             \
    {                                                                                    \
        STATE *st = (STATE *)s;                                                          \
        if (st->holder)                                                                  \
            ll_qnode_put(st->holder);                                                    \
        st->holder = NULL;                                                               \
    }
#define LL_QUEUE_LOCK_ADAPTER(STATE, NODE, PREFIX) LL_QUEUE_LOCK_ADAPTER_NAMED(STATE, NODE, PREFIX, )
/* The timed verb of such a lock, PREFIX_acquire_until(lock *, node *, wp, deadline_ns):
 * defines static acquire_until.  The node comes from the per-thread cache; on a
 * timeout it is the lock's (an abandoned node, recycled by the releaser who finds it). */
#define LL_QUEUE_LOCK_ADAPTER_UNTIL(STATE, NODE, PREFIX)                                     \
    static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)         \
    {                                                                                    \
        if (ll_deadline_passed(deadline_ns))                                             \
            return try_acquire(s, wp);                                                   \
        STATE *st = (STATE *)s;                                                          \
        NODE *me = (NODE *)ll_qnode_get();                                               \
        if (!PREFIX##_acquire_until(&st->lock, me, wp, deadline_ns))                     \
            return false; /* me is the lock's now */                                     \
        st->holder = me;                                                                 \
        return true;                                                                     \
    }

/* The fields of an ll_lock_ops that the adapters above fill the same way in every lock's
 * file, for its designated initialiser:
 *   LL_OPS_VERBS: acquire, try_acquire, release, acquire_until, direct_acquire and
 *     direct_release, the file's static functions of those names (the adapters', or its
 *     own; the direct verbs from LL_DIRECT_VERBS or the queue adapter); init, destroy and
 *     abandon, which differ between locks, are set by name beside it;
 *   LL_OPS_STATE_IS(LOCK): state_bytes and lock_bytes of a lock whose generic handle's
 *     state is the lock itself (LL_LOCK_ADAPTER): sizeof(LOCK) both. */
#define LL_OPS_VERBS                                                                       \
    .acquire = acquire, .try_acquire = try_acquire, .release = release, .acquire_until = acquire_until, \
    .direct_acquire = direct_acquire, .direct_release = direct_release
#define LL_OPS_STATE_IS(LOCK) .state_bytes = sizeof(LOCK), .lock_bytes = sizeof(LOCK)

const ll_lock_ops *ll_lock_find_algorithm(const char *name);

/* Parsed spec, for tools (the bench's --list --verbose, tests). */
typedef struct ll_spec {
    const ll_lock_ops *ops;
    const ll_wait_ops *policy;
    uint64_t params[LL_MAX_PARAMS]; /* algorithm keys, in ops->params order */
    uint64_t spin_ns;               /* 0 = policy default */
    char name[128];                 /* canonical */
} ll_spec;
int ll_spec_parse(const char *spec, ll_spec *out, char *err, size_t errlen);
/* The same grammar over another list of algorithms: at(i) the i-th (NULL past the last),
 * kind what messages call them ("rwlock": ll_rwlock_spec_parse, rwlock.h). */
int ll_spec_parse_among(const ll_lock_ops *(*at)(size_t i), const char *kind, const char *spec, ll_spec *out,
                        char *err, size_t errlen);

/* ---- placing a lock in caller memory (src/api/lock.c) ------------------------------- */
/* The one place that settles the defaults a spec leaves open, sizes a lock's state and
 * initialises it wherever the caller wants it: the generic handle (ll_lock_create), the
 * interposer's mutexes (src/interpose/config.c, mutex.c) and, through ll_lock_create,
 * the bench.  docs/design.md, "The generic handle". */

/* How the open defaults are settled: the policy's spin_ns (0 = default, policies
 * with a budget) and every algorithm key spin_ns whose default is 0 ("the measured
 * park/unpark cost": loiter). */
typedef enum ll_defaults {
    LL_DEFAULTS_MEASURED, /* ll_park_cost_ns(): measured once per process (starts two threads) */
    LL_DEFAULTS_FIXED,    /* LL_FIXED_SPIN_NS: never starts a thread (the interposer, which may be
                           * configuring inside a program's first pthread_mutex_lock) */
} ll_defaults;
/* The fixed budget: ~ one futex wake-up on the development machine (docs/design.md,
 * "Waiting": 20-35 us wake-to-run). */
#define LL_FIXED_SPIN_NS 20000u

typedef struct ll_placement {
    ll_spec spec;       /* the spec with every default resolved (name: as parsed, canonical) */
    size_t state_bytes; /* memory the state needs (ops->state_bytes) */
    size_t state_align; /* and its alignment (LL_SECTOR: no false sharing with neighbours) */
    /* Set only when a state was initialised: the initialised state is all zeros and
     * needs no destroy nor abandon, so zeroed memory (a static initialiser) is a valid
     * free lock, and memory reused without notice loses nothing. */
    bool inlinable;
    /* Leading bytes of the state that are all zeros once initialised and hold
     * everything that differs between two locks of this spec; the bytes after them
     * (tunables) are the same in every such lock, so a caller with the algorithm's
     * own verbs may keep only the prefix per lock and the rest once (the
     * interposer's acr).  0: no such split. */
    size_t inline_prefix_bytes;
} ll_placement;

/* From a parsed spec: resolve every default per `defaults` and fill *out (may be
 * NULL); then, if state != NULL, initialise a lock there: state_bytes of zeros,
 * then the algorithm's init with the resolved keys, and *wp (if not NULL) as the
 * lock's waiting policy.  state must hold out->state_bytes at out->state_align
 * (call once with state = NULL to learn them).  Resolution is idempotent: placing
 * again from out->spec gives the same lock.  Returns 0, or -1 with err set (one
 * line naming the bad value and the valid choices; only init can fail). */
int ll_lock_place(const ll_spec *spec, ll_defaults defaults, void *state, ll_wait_policy *wp, ll_placement *out,
                  char *err, size_t errlen);

LL_API_END
#ifdef __cplusplus
}
#endif
#endif /* LOCKLAB_REGISTRY_H */
