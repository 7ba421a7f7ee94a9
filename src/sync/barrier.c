/*
 * Barriers on one futex word (the interposer's pthread_barrier_*; API contract:
 * include/locklab/sync.h).  They take no lock, so no lock can break them.
 *
 * Words (ll_barrier, 20 bytes; the interposer overlays it on pthread_barrier_t):
 *   count     threads per round, set by init (1 .. LL_BARRIER_MAX_COUNT - 1, glibc's range)
 *   arrived   threads arrived in the current round (reset by its last arrival)
 *   round     the round number: the futex word the others sleep on
 *   reserved  never touched here (the interposer keeps glibc's process-shared flag there)
 *   inside    threads between their entry and their last access in wait, plus
 *             LL_BARRIER_DESTROYING once a destroy waits for them to leave
 *
 * wait: enter (inside + 1), read the round, count in (arrived + 1, acq_rel).  The
 * count-th arrival resets arrived, advances the round (release), wakes every sleeper
 * and returns true (PTHREAD_BARRIER_SERIAL_THREAD); the others wait until the round
 * changes (spinning spin_ns, then futex waits; a signal handler's EINTR waits again;
 * not a cancellation point, as in POSIX) and return false.  Then each leaves
 * (inside - 1), its last access to the barrier but a futex wake-up of a destroy.
 *
 * Memory orders: every arrival's increment of arrived is an acq_rel RMW, so the
 * last arrival's acquires every earlier one (a release sequence of RMWs) and its
 * release store of round publishes them all to the sleepers' acquire loads: what
 * any thread wrote before the barrier happens before what any thread does after it.
 *
 * destroy (as glibc's, which waits for the threads still leaving, so that the
 * memory can be freed as soon as one thread has returned from the last wait): with
 * threads blocked in an unfinished round (arrived != 0: undefined in POSIX) it
 * returns EBUSY instead of waiting for ever; else it sets DESTROYING in inside and
 * futex-waits until the leavers are gone (the last one, seeing DESTROYING + 1 in its
 * decrement, wakes it: RMWs of one word, so exactly one sees it).  Its futex wake
 * may touch the memory after destroy returned and the program freed it: a futex
 * wake of a freed or reused word is harmless (EFAULT, or a spurious wake-up that
 * every futex user tolerates), glibc's own argument.
 *
 * Checked by the model checker's barrier client (verify/check.cpp: every thread reads
 * what every other wrote before each round; one serial thread per round; the serial
 * thread of the last round destroys at once, and no leaver touches the barrier after).
 */
#include <errno.h>
#include <limits.h>

#include "locklab/core.h"
#include "locklab/sync.h"

#define DESTROYING LL_BARRIER_DESTROYING

int ll_barrier_init(ll_barrier *b, unsigned count)
{
    if (count == 0 || count >= LL_BARRIER_MAX_COUNT)
        return EINVAL;
    ll_plain_store(&b->count, count);
    ll_store_relaxed(&b->arrived, 0); /* relaxed: the barrier is published by whatever publishes it */
    ll_store_relaxed(&b->round, 0);
    ll_store_relaxed(&b->inside, 0);
    return 0;
}

bool ll_barrier_wait(ll_barrier *b, uint64_t spin_ns)
{
    ll_faa(&b->inside, 1, LL_RELAXED); /* relaxed: only its RMW order with destroy's matters */
    uint32_t round = ll_load_relaxed(&b->round); /* relaxed: this round cannot end before our arrival below */
    bool serial = false;
    /* acq_rel: the last arrival acquires every earlier one's writes (a release sequence of RMWs) */
    if (ll_faa(&b->arrived, 1, LL_ACQ_REL) + 1 == ll_plain_load(&b->count)) {
        ll_store_relaxed(&b->arrived, 0); /* relaxed: no arrival for the next round before the store below */
        ll_store_release(&b->round, round + 1); /* release: everything before the barrier; pairs with the loads below */
        ll_futex_wake(&b->round, INT_MAX);
        serial = true;
    } else {
        uint64_t spin_until = ll_now_ns() + spin_ns;
        while (ll_load_acquire(&b->round) == round) { /* acquire: pairs with the last arrival's release */
            if (ll_now_ns() < spin_until) {
                for (int i = 0; i < 64; i++)
                    ll_pause();
            } else {
                ll_futex_wait(&b->round, round); /* returns at once if the round moved; EINTR: wait again */
            }
        }
    }
    /* release: our reads of the barrier come before a destroy that sees us gone (its acquire) */
    if (ll_faa(&b->inside, (uint32_t)-1, LL_RELEASE) == (DESTROYING | 1u))
        ll_futex_wake(&b->inside, 1);
    return serial;
}

int ll_barrier_destroy(ll_barrier *b)
{
    if (ll_load_relaxed(&b->arrived) != 0) /* relaxed: threads blocked in a round (misuse): not waited for */
        return EBUSY;
    uint32_t in = ll_faa(&b->inside, DESTROYING, LL_ACQUIRE) + DESTROYING; /* acquire: pairs with the leavers' release */
    while (in != DESTROYING) {
        ll_futex_wait(&b->inside, in);
        in = ll_load_acquire(&b->inside); /* acquire: as above */
    }
    ll_store_relaxed(&b->inside, 0); /* relaxed: nobody uses a destroyed barrier */
    return 0;
}
