/*
 * Admission order of hemlock, reciprocating and shfl, which the validator
 * cannot see.  A holder (the main thread) lets waiters arrive one at a time
 * (each one's arrival visible in the lock word before the next starts), then
 * releases; the order in which they get the lock must be the algorithm's:
 *   hemlock        FIFO:                                   A B C
 *   reciprocating  the arrivals form one entry segment, served newest first: C B A
 *   shfl           2 virtual sockets; A (socket 1) is the queue head, B D on
 *                  socket 0, C E on socket 1 queue behind it.  A holds the
 *                  lock until B, made head, has shuffled (B's next is D, or
 *                  2 s passed): B groups D behind itself:  A B D C E
 *                  (with max_batch=0, no shuffling:        A B C D E)
 *   parkinglot     fairness: a waiter parked longer than LL_PARKINGLOT_FAIR_NS
 *                  is handed the lock by the next release, so the releaser's
 *                  immediate try_acquire fails (without the handoff it succeeds:
 *                  the woken waiter would still be waking up)
 *   fissile, shfl  the queue head (standby) past its patience raises the gate's
 *                  impatient flag (arrivals stop barging) and clears it once it
 *                  owns the lock
 * Thread i (in order of first use of locklab) is on virtual socket i % 2.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "locklab/fissile.h"
#include "locklab/hemlock.h"
#include "locklab/parkinglot.h"
#include "locklab/reciprocating.h"
#include "locklab/shfl.h"
#include "order_util.h"

static ll_wait_policy yield_wp = LL_WAIT_POLICY_INIT(ll_wait_yield); /* 6 threads on 2 CPUs */
/* Start waiter i, then wait until its arrival changed *word (its value is returned). */
static void *arrive(pthread_t *t, test_thread_fn fn, int i, ll_atomic_ptr *word)
{
    void *before = ll_load_acquire(word); /* acquire: the waiters' nodes, read below */
    test_start(t, fn, (void *)(intptr_t)i);
    void *now;
    while ((now = ll_load_acquire(word)) == before) /* acquire: as above */
        ll_yield();
    return now;
}

/* ---- shfl ---------------------------------------------------------------------------- */
static ll_shfl_lock shfl;
static ll_shfl_node *shfl_nodes[5];

static void *shfl_waiter(void *arg)
{
    int i = (int)(intptr_t)arg;
    ll_shfl_acquire(&shfl, &yield_wp);
    order[norder++] = (char)('A' + i);
    if (i == 0) { /* A: hold until B is the head and has grouped D behind itself (or 2 s) */
        ll_shfl_node *b = shfl_nodes[1], *d = shfl_nodes[3];
        uint64_t deadline = ll_now_ns() + 2000000000ull;
        /* acquire: the head's grant and relinks (relaxed or release stores; we only compare) */
        while (!(ll_load_acquire(&b->mcs.waiting) == 0 && ll_load_acquire(&b->mcs.next) == (void *)&d->mcs) &&
               ll_now_ns() < deadline)
            ll_yield();
    }
    ll_shfl_release(&shfl, &yield_wp);
    return NULL;
}

static void shfl_case(uint32_t max_batch, const char *expect, const char *what)
{
    pthread_t t[5];
    ll_shfl_init(&shfl, max_batch, 1000000000u); /* patience 1 s: no impatience in this test */
    ll_shfl_acquire(&shfl, &yield_wp);
    for (int i = 0; i < 5; i++) {
        shfl_nodes[i] = (ll_shfl_node *)arrive(&t[i], shfl_waiter, i, &shfl.tail);
        if (i > 0) /* linked behind the previous one (the head edits only linked nodes) */
            while (ll_load_acquire(&shfl_nodes[i - 1]->mcs.next) != (void *)&shfl_nodes[i]->mcs) /* acquire: as above */
                ll_yield();
    }
    ll_shfl_release(&shfl, &yield_wp);
    test_join_n(t, 5);
    check_order(expect, what);
}

/* ---- reciprocating and hemlock ---------------------------------------------------------- */
static ll_reciprocating_lock recip = LL_RECIPROCATING_INITIALIZER;
static ll_hemlock_lock hem = LL_HEMLOCK_INITIALIZER;

static void *recip_waiter(void *arg)
{
    ll_reciprocating_acquire(&recip, &yield_wp);
    order[norder++] = (char)('A' + (int)(intptr_t)arg);
    ll_reciprocating_release(&recip, &yield_wp);
    return NULL;
}
static void *hem_waiter(void *arg)
{
    ll_hemlock_acquire(&hem, &yield_wp);
    order[norder++] = (char)('A' + (int)(intptr_t)arg);
    ll_hemlock_release(&hem, &yield_wp);
    return NULL;
}

static void stack_case(bool reciprocating, const char *expect, const char *what)
{
    pthread_t t[3];
    if (reciprocating)
        ll_reciprocating_acquire(&recip, &yield_wp);
    else
        ll_hemlock_acquire(&hem, &yield_wp);
    for (int i = 0; i < 3; i++)
        arrive(&t[i], reciprocating ? recip_waiter : hem_waiter, i, reciprocating ? &recip.arrivals : &hem.tail);
    if (reciprocating)
        ll_reciprocating_release(&recip, &yield_wp);
    else
        ll_hemlock_release(&hem, &yield_wp);
    test_join_n(t, 3);
    check_order(expect, what);
}

/* ---- parkinglot ---------------------------------------------------------------------- */
static ll_parkinglot_lock pl = LL_PARKINGLOT_INITIALIZER;
static ll_atomic_ptr pl_parker; /* the waiter's parker, published before it waits */
static ll_atomic_u32 pl_may_release; /* main has tried to barge: the waiter may release */

static void *pl_waiter(void *arg)
{
    (void)arg;
    ll_store_release(&pl_parker, ll_self()->parker); /* release: pairs with main's acquire load */
    ll_parkinglot_acquire(&pl, &yield_wp);
    /* Hold it until main's try_acquire is done: a handed-over lock stays ours, however fast
     * we wake, so that try_acquire fails (else a quick waiter could release first). */
    while (!ll_load_acquire(&pl_may_release)) /* acquire: pairs with main's release store */
        ll_yield();
    ll_parkinglot_release(&pl, &yield_wp);
    return NULL;
}

static void parkinglot_case(void)
{
    pthread_t t;
    ll_parkinglot_acquire(&pl, &yield_wp);
    test_start(&t, pl_waiter, NULL);
    ll_parker *p;
    while ((p = (ll_parker *)ll_load_acquire(&pl_parker)) == NULL) /* acquire: pairs with the waiter's store */
        ll_yield();
    /* Parked (it parks only in the table, after appending itself), for longer than FAIR_NS. */
    while (!ll_parker_sleeping(p))
        ll_yield();
    uint64_t parked_at = ll_now_ns();
    while (ll_now_ns() - parked_at < 2 * (uint64_t)LL_PARKINGLOT_FAIR_NS || !ll_parker_sleeping(p))
        ll_yield();
    ll_parkinglot_release(&pl, &yield_wp);
    bool barged = ll_parkinglot_try_acquire(&pl);
    if (barged)
        ll_parkinglot_release(&pl, &yield_wp);
    ll_store_release(&pl_may_release, 1); /* release: pairs with the waiter's acquire load */
    test_join_n(&t, 1);
    printf("%s parkinglot: a waiter parked > %u ns is handed the lock (the releaser's try_acquire %s)\n",
           barged ? "FAIL" : "ok  ", LL_PARKINGLOT_FAIR_NS, barged ? "succeeded" : "failed");
    failures += barged;
}

/* ---- fissile, shfl: the standby's impatience ------------------------------------------------ */
static ll_fissile_lock fis;
static ll_shfl_lock shf;

static void *gate_waiter(void *arg)
{
    if (arg == &fis) {
        ll_fissile_acquire(&fis, &yield_wp);
        ll_fissile_release(&fis, &yield_wp);
    } else {
        ll_shfl_acquire(&shf, &yield_wp);
        ll_shfl_release(&shf, &yield_wp);
    }
    return NULL;
}

static void impatience_case(ll_ts_gate *g, void *lock, const char *name)
{
    pthread_t t;
    bool fissile = lock == (void *)&fis;
    if (fissile)
        ll_fissile_acquire(&fis, &yield_wp);
    else
        ll_shfl_acquire(&shf, &yield_wp);
    test_start(&t, gate_waiter, lock);
    uint64_t deadline = ll_now_ns() + 2000000000ull;
    /* relaxed: the flag carries no data (ts_gate.h) */
    while (ll_load_relaxed(&g->impatient) == 0 && ll_now_ns() < deadline)
        ll_yield();
    bool raised = ll_load_relaxed(&g->impatient) != 0;
    if (fissile)
        ll_fissile_release(&fis, &yield_wp);
    else
        ll_shfl_release(&shf, &yield_wp);
    test_join_n(&t, 1);
    bool cleared = ll_load_relaxed(&g->impatient) == 0;
    int ok = raised && cleared;
    printf("%s %s: the standby raises impatient past its patience (%s) and clears it once it owns the lock (%s)\n",
           ok ? "ok  " : "FAIL", name, raised ? "raised" : "never raised", cleared ? "cleared" : "still set");
    failures += !ok;
}

int main(void)
{
    if (two_sockets("test_order") != 0)
        return 2;
    /* Waiters register at their first locklab call, in arrival order: A is index 1 (socket 1). */
    shfl_case(LL_SHFL_DEFAULT_MAX_BATCH, "ABDCE", "shfl: the head groups its socket's waiters behind itself");
    skip_thread_index(); /* indices 1-5 used, this one 6: A gets 7 (socket 1) */
    shfl_case(0, "ABCDE", "shfl max_batch=0: no shuffling, FIFO");
    stack_case(true, "CBA", "reciprocating: one entry segment, newest first");
    stack_case(false, "ABC", "hemlock: FIFO");
    parkinglot_case();
    ll_fissile_init(&fis, 0); /* patience 0: impatient at once */
    impatience_case(&fis.gate, &fis, "fissile patience_ns=0");
    ll_shfl_init(&shf, LL_SHFL_DEFAULT_MAX_BATCH, 0);
    impatience_case(&shf.gate, &shf, "shfl patience_ns=0");
    return test_done("test_order");
}
