/* The per-algorithm (expert) API: static initialisers and init, explicit queue
 * nodes (mcs), explicit waiting policies, and the same verbs everywhere
 * (init, acquire, try_acquire, release, is_locked: docs/design.md, "Expert headers").
 *  1. one thread: each lock's verbs agree (is_locked, try_acquire on a free and
 *     on a held lock, release, acquire), from its initialiser and from init
 *     (the MCS family, with the caller's nodes: mcs, cna, mcscr, mcscrn, hmcs; loiter);
 *  2. four threads increment plain counters under each lock. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "locklab/anderson.h"
#include "locklab/backoff.h"
#include "locklab/clh.h"
#include "locklab/cna.h"
#include "locklab/fissile.h"
#include "locklab/hemlock.h"
#include "locklab/hmcs.h"
#include "locklab/k42.h"
#include "locklab/lifocr.h"
#include "locklab/loiter.h"
#include "locklab/mcs.h"
#include "locklab/mcscr.h"
#include "locklab/mcscrn.h"
#include "locklab/parkinglot.h"
#include "locklab/standby.h"
#include "locklab/reciprocating.h"
#include "locklab/shfl.h"
#include "locklab/tas.h"
#include "locklab/ticket.h"
#include "locklab/ticket_pb.h"
#include "locklab/ttas.h"
#include "locklab/twa.h"
#include "test_util.h"

enum { THREADS = 4, ROUNDS = 20000 };

/* The locks with a static initialiser and the common verbs (LL_LOCK_VERBS), by the waiting
 * policy both parts use: X(NAME, UP, "name", policy) for ll_NAME_lock NAME =
 * LL_UP_INITIALIZER.  Part 2 also takes mcs (with a node), clh and anderson (from init). */
#define STATIC_LOCKS(X) YIELDING_LOCKS(X, yield) SPINNING_LOCKS(X, spin) PARKING_LOCKS(X, park)
#define YIELDING_LOCKS(X, WP)                                                                          \
    X(tas, TAS, "tas", WP)                                                                             \
    X(ttas, TTAS, "ttas", WP)                                                                          \
    X(ticket, TICKET, "ticket", WP)
#define SPINNING_LOCKS(X, WP)                                                                          \
    X(backoff, BACKOFF, "backoff", WP)                                                                 \
    X(ticket_pb, TICKET_PB, "ticket-pb", WP)                                                           \
    X(parkinglot, PARKINGLOT, "parkinglot", WP)                                                        \
    X(standby, STANDBY, "standby", WP)
#define PARKING_LOCKS(X, WP)                                                                           \
    X(twa, TWA, "twa", WP)                                                                             \
    X(k42, K42, "k42", WP)                                                                             \
    X(lifocr, LIFOCR, "lifocr", WP)                                                                    \
    X(hemlock, HEMLOCK, "hemlock", WP)                                                                 \
    X(reciprocating, RECIPROCATING, "reciprocating", WP)                                               \
    X(fissile, FISSILE, "fissile", WP)                                                                 \
    X(shfl, SHFL, "shfl", WP)

#define DECLARE(NAME, UP, STR, WP) static ll_##NAME##_lock NAME = LL_##UP##_INITIALIZER;
STATIC_LOCKS(DECLARE)
static ll_mcs_lock mcs = LL_MCS_INITIALIZER;
static ll_clh_lock clh;
static ll_anderson_lock anderson;
static ll_anderson_slot anderson_slots[8];
static ll_wait_policy spin = LL_WAIT_POLICY_INIT(ll_wait_spin);
static ll_wait_policy yield = LL_WAIT_POLICY_INIT(ll_wait_yield);
static ll_wait_policy park = LL_WAIT_POLICY_INIT(ll_wait_park);

/* Part 2's counters, one per lock: I_NAME. */
#define INDEX(NAME, UP, STR, WP) I_##NAME,
enum { STATIC_LOCKS(INDEX) I_mcs, I_clh, I_anderson, NLOCKS };
static unsigned long counters[NLOCKS];
#define NAME_OF(NAME, UP, STR, WP) STR,
static const char *const names[NLOCKS] = {STATIC_LOCKS(NAME_OF) "mcs", "clh", "anderson"};

/* ---- 1. the verbs, one thread ------------------------------------------------------- */

static int passed, failed;
static void report(const char *what, bool ok)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    ok ? passed++ : failed++;
}

/* free -> try_acquire succeeds -> held, a second try fails -> release -> free -> acquire -> held -> release -> free;
 * IS_LOCKED, TRY, TRY2 (the second try: another node for the queue locks), ACQUIRE, RELEASE: the lock's calls. */
#define CHECK_VERBS(IS_LOCKED, TRY, TRY2, ACQUIRE, RELEASE, WHAT)                                     \
    do {                                                                                               \
        bool ok_ = !(IS_LOCKED);                                                                       \
        if (TRY) {                                                                                     \
            ok_ = ok_ && (IS_LOCKED) && !(TRY2);                                                       \
            RELEASE;                                                                                   \
        } else {                                                                                       \
            ok_ = false;                                                                               \
        }                                                                                              \
        ok_ = ok_ && !(IS_LOCKED);                                                                     \
        ACQUIRE;                                                                                       \
        ok_ = ok_ && (IS_LOCKED);                                                                      \
        RELEASE;                                                                                       \
        ok_ = ok_ && !(IS_LOCKED);                                                                     \
        report(WHAT, ok_);                                                                             \
    } while (0)
/* The common verbs (LL_LOCK_VERBS). */
#define VERBS(NAME, L, WP, WHAT)                                                                       \
    CHECK_VERBS(ll_##NAME##_is_locked(L), ll_##NAME##_try_acquire(L), ll_##NAME##_try_acquire(L),      \
                ll_##NAME##_acquire(L, WP), ll_##NAME##_release(L, WP), WHAT)
/* The MCS family: the caller's node N (N2 for the second try). */
#define QVERBS(NAME, L, N, N2, WP, WHAT)                                                               \
    CHECK_VERBS(ll_##NAME##_is_locked(L), ll_##NAME##_try_acquire(L, N), ll_##NAME##_try_acquire(L, N2), \
                ll_##NAME##_acquire(L, N, WP), ll_##NAME##_release(L, N, WP), WHAT)

/* Declares ll_NAME_lock V, initialises it by ll_NAME_init(&V, ...) and checks the verbs on it. */
#define INIT_VERBS(NAME, V, WP, WHAT, ...)                                                             \
    ll_##NAME##_lock V;                                                                                \
    ll_##NAME##_init(&V, ##__VA_ARGS__);                                                               \
    VERBS(NAME, &V, WP, WHAT)

/* A queue lock from its initialiser (LL_UP_INITIALIZER, parking) and from ll_NAME_init(&l, ...) (spinning),
 * with the nodes N[0] and N[1]. */
#define QVERBS_BOTH(NAME, UP, N, WHAT_INIT, ...)                                                       \
    do {                                                                                               \
        static ll_##NAME##_lock l0_ = LL_##UP##_INITIALIZER;                                           \
        QVERBS(NAME, &l0_, &N[0], &N[1], &park, #NAME ": verbs agree (initialiser)");                  \
        ll_##NAME##_lock l1_;                                                                          \
        ll_##NAME##_init(&l1_, ##__VA_ARGS__);                                                         \
        QVERBS(NAME, &l1_, &N[0], &N[1], &spin, WHAT_INIT);                                            \
    } while (0)

static void test_verbs(void)
{
    /* From the static initialisers. */
#define CHECK_INITIALISER(NAME, UP, STR, WP) VERBS(NAME, &NAME, &WP, STR ": verbs agree (initialiser)");
    STATIC_LOCKS(CHECK_INITIALISER)

    /* From init, with non-default parameters where the algorithm has them. */
    INIT_VERBS(tas, t1, &spin, "tas: verbs agree (init)");
    INIT_VERBS(ttas, t2, &spin, "ttas: verbs agree (init)");
    INIT_VERBS(backoff, b, &spin, "backoff: verbs agree (init min=4 max=64)", 4, 64);
    report("backoff: init stores min and max", b.min_delay == 4 && b.max_delay == 64);
    INIT_VERBS(ticket, tk, &spin, "ticket: verbs agree (init)");
    INIT_VERBS(ticket_pb, pb, &spin, "ticket-pb: verbs agree (init unit=16)", 16);
    report("ticket-pb: init stores unit", pb.unit == 16);
    INIT_VERBS(twa, tw, &park, "twa: verbs agree (init threshold=3)", 3);
    report("twa: init stores threshold", tw.threshold == 3);
    INIT_VERBS(k42, k, &spin, "k42: verbs agree (init)");
    INIT_VERBS(lifocr, lc, &spin, "lifocr: verbs agree (init fairness=1 patience_ns=0)", 1, 0);
    report("lifocr: init stores fairness and patience_ns", lc.fairness == 1 && lc.patience_ns == 0);
    INIT_VERBS(hemlock, hl, &spin, "hemlock: verbs agree (init)");
    INIT_VERBS(reciprocating, rl, &spin, "reciprocating: verbs agree (init)");
    INIT_VERBS(parkinglot, pl, &spin, "parkinglot: verbs agree (init)");
    INIT_VERBS(standby, sb, &spin, "standby: verbs agree (init)");
    INIT_VERBS(fissile, fi, &spin, "fissile: verbs agree (init patience_ns=0)", 0);
    report("fissile: init stores patience_ns", fi.patience_ns == 0);
    INIT_VERBS(shfl, sh, &spin, "shfl: verbs agree (init max_batch=4 patience_ns=2000)", 4, 2000);
    report("shfl: init stores max_batch and patience", sh.max_batch == 4 && sh.patience_us == 2);
    INIT_VERBS(clh, c, &park, "clh: verbs agree (init)");
    ll_clh_destroy(&c);
    static ll_anderson_slot slots[4];
    ll_anderson_lock a;
    ll_anderson_init(&a, slots, 4);
    for (int round = 0; round < 6; round++) /* past the 4 slots: tickets wrap around the array */
        VERBS(anderson, &a, &park, round == 5 ? "anderson: verbs agree (init slots=4, 6 rounds)" : "anderson: round");

    /* The MCS family: init (mcs, cna) and is_locked, with the caller's nodes. */
    ll_mcs_node mn[2];
    QVERBS_BOTH(mcs, MCS, mn, "mcs: verbs agree (init)");
    ll_cna_node cn[2];
    QVERBS_BOTH(cna, CNA, cn, "cna: verbs agree (init)");
    ll_mcscr_node rn[2];
    QVERBS_BOTH(mcscr, MCSCR, rn, "mcscr: verbs agree (init fairness=1, the paper's)", 1, 0, 0, 0, 0, 1);
    QVERBS_BOTH(mcscrn, MCSCRN, rn, "mcscrn: verbs agree (init fairness=1 rehome=1)", 1, 1, 0, 0, 0);
    ll_hmcs_lock h;
    report("hmcs: init", ll_hmcs_init(&h, 2, 4) == 0);
    ll_hmcs_node hn[2];
    for (uint32_t so = 0; so < 2; so++) /* the caller's socket: each socket lock, and the global one */
        CHECK_VERBS(ll_hmcs_is_locked(&h), ll_hmcs_try_acquire(&h, &hn[0], so, &park),
                    ll_hmcs_try_acquire(&h, &hn[1], so, &park), ll_hmcs_acquire(&h, &hn[0], so, &park),
                    ll_hmcs_release(&h, &hn[0], so, &park),
                    so ? "hmcs: verbs agree (init sockets=2, socket 1)" : "hmcs: verbs agree (init sockets=2, socket 0)");
    ll_hmcs_destroy(&h);
    report("hmcs: init sockets=1", ll_hmcs_init(&h, 1, 4) == 0); /* one level: the socket lock alone */
    CHECK_VERBS(ll_hmcs_is_locked(&h), ll_hmcs_try_acquire(&h, &hn[0], 0, &park), ll_hmcs_try_acquire(&h, &hn[1], 0, &park),
                ll_hmcs_acquire(&h, &hn[0], 0, &park), ll_hmcs_release(&h, &hn[0], 0, &park),
                "hmcs: verbs agree (init sockets=1)");
    ll_hmcs_destroy(&h);
    ll_loiter_lock lo;
    ll_loiter_init(&lo, 20000, LL_LOITER_DEFAULT_PATIENCE_NS, LL_LOITER_DEFAULT_SPINNERS);
    CHECK_VERBS(ll_loiter_is_locked(&lo), ll_loiter_try_acquire(&lo), ll_loiter_try_acquire(&lo), ll_loiter_acquire(&lo),
                ll_loiter_release(&lo), "loiter: verbs agree (init spin_ns=20000)");
}

/* ---- 2. four threads ---------------------------------------------------------------- */

static void *worker(void *arg)
{
    (void)arg;
    ll_mcs_node mcs_node;
#define ROUND(NAME, UP, STR, WP)                                                                       \
    ll_##NAME##_acquire(&NAME, &WP);                                                                   \
    counters[I_##NAME]++;                                                                              \
    ll_##NAME##_release(&NAME, &WP);
    for (int i = 0; i < ROUNDS; i++) {
        STATIC_LOCKS(ROUND)
        ll_mcs_acquire(&mcs, &mcs_node, &park); counters[I_mcs]++; ll_mcs_release(&mcs, &mcs_node, &park);
        ll_clh_acquire(&clh, &park); counters[I_clh]++; ll_clh_release(&clh, &park);
        ll_anderson_acquire(&anderson, &park); counters[I_anderson]++; ll_anderson_release(&anderson, &park);
    }
    return NULL;
}


/* parkinglot's release (a load of parked, a store to locked, no fence) can miss a waiter
 * that announces itself as the store leaves (parkinglot.c, "Release"): the waiter must find
 * out at a nap and compete again, not sleep forever.  The missed release is made by hand:
 * holding l, start waiter on a thread, wait for its announcement, let it sleep asleep_us,
 * then free the lock without looking at parked. */
static pthread_t miss_release(ll_parkinglot_lock *l, void *(*waiter)(void *), useconds_t asleep_us)
{
    ll_parkinglot_acquire(l, &spin);
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    while (ll_load_acquire(&l->parked) == 0) /* acquire: its announcement */
        usleep(100);
    usleep(asleep_us);
    ll_store_release(&l->locked, 0); /* release: the critical section; a release that missed it */
    return t;
}

static ll_parkinglot_lock pl_orphan = LL_PARKINGLOT_INITIALIZER;
static ll_atomic_u32 orphan_done;
static void *orphan_waiter(void *arg)
{
    (void)arg;
    ll_parkinglot_acquire(&pl_orphan, &spin);
    ll_store_release(&orphan_done, 1); /* release: seen by the main thread's acquire load */
    ll_parkinglot_release(&pl_orphan, &spin);
    return NULL;
}
static void test_parkinglot_missed_release(void)
{
    pthread_t t = miss_release(&pl_orphan, orphan_waiter, 50000); /* it is asleep in the table by then */
    uint64_t deadline = ll_now_ns() + 10000000000ull; /* its first nap is 1 ms: 10 s means never */
    while (!ll_load_acquire(&orphan_done) && ll_now_ns() < deadline) /* acquire: pairs with its store */
        usleep(1000);
    bool ok = ll_load_acquire(&orphan_done) != 0; /* acquire: as above */
    report("parkinglot: a waiter a release missed takes the lock", ok);
    if (ok)
        pthread_join(t, NULL);
}

/* A timed waiter whose release was missed during its last nap (the nap that ends at its
 * deadline: no "is the lock free?" look follows it) must not give up on a lock that has been
 * free for most of that nap.  The missed release is made by hand, as above: the waiter parks
 * at ~0 ms with a 200 ms deadline, naps 1+2+...+64 = 127 ms, then sleeps to its deadline;
 * the lock is freed at ~140 ms. */
static ll_parkinglot_lock pl_timed = LL_PARKINGLOT_INITIALIZER;
static void *timed_waiter(void *arg)
{
    (void)arg;
    bool got = ll_parkinglot_acquire_until(&pl_timed, ll_now_ns() + 200000000u);
    if (got)
        ll_parkinglot_release(&pl_timed, &spin);
    return (void *)(uintptr_t)got;
}
static void test_parkinglot_timed_missed_release(void)
{
    pthread_t t = miss_release(&pl_timed, timed_waiter, 140000); /* its last nap (to the deadline) began at ~127 ms */
    void *got;
    pthread_join(t, &got);
    report("parkinglot: a timed waiter a release missed in its last nap takes the free lock", got != NULL);
}

/* standby's turns (standby.h, ll_standby_turn_tick): a thread's turn ends at its
 * LL_STANDBY_TURN_OPS-th counted acquisition, or once its acquisitions have taken
 * LL_STANDBY_TURN_NS, whichever comes first. */
static uint32_t ticks_to_turn_end(uint64_t spacing_ns)
{
    static ll_standby_lock l = LL_STANDBY_INITIALIZER; /* the lock the ticks are counted for (never held) */
    ll_standby_turn_count *t = ll_standby_turn();
    t->acquisitions = 0, t->used_ns = 0, t->seen_ns = 0;
    uint32_t n = 1;
    for (;; n++) {
        for (uint64_t until = ll_now_ns() + spacing_ns; spacing_ns != 0 && ll_now_ns() < until;)
            ;
        if (ll_standby_turn_tick(&l))
            return n;
    }
}
static void test_standby_turns(void)
{
    uint32_t fast = ticks_to_turn_end(0), slow = ticks_to_turn_end(2000);
    printf("     standby turns: %u acquisitions back to back, %u at 2 us each\n", fast, slow);
    /* 2,000 back-to-back ticks take microseconds: the count ends the turn */
    report("standby: a fast turn ends at exactly LL_STANDBY_TURN_OPS acquisitions", fast == LL_STANDBY_TURN_OPS);
    /* at 2 us each, 1 ms of them is ~500: the time ends it (a look-to-look gap over TURN_NS / 4,
     * a preemption, does not count, so a loaded machine only delays it) */
    report("standby: a slow turn ends by time, before LL_STANDBY_TURN_OPS", slow < LL_STANDBY_TURN_OPS &&
                                                                               slow >= LL_STANDBY_TURN_NS / 2000 / 2);
}

int main(void)
{
    test_verbs();
    test_standby_turns();
    test_parkinglot_missed_release();
    test_parkinglot_timed_missed_release();
    ll_clh_init(&clh);
    ll_anderson_init(&anderson, anderson_slots, 8);
    test_run_threads(THREADS, worker, NULL, 0);
    for (int i = 0; i < NLOCKS; i++) {
        int ok = counters[i] == (unsigned long)THREADS * ROUNDS;
        printf("%s %s counter=%lu\n", ok ? "ok  " : "FAIL", names[i], counters[i]);
        ok ? passed++ : failed++;
    }
    ll_clh_destroy(&clh);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
