/*
 * The lock clients, written once for two drivers (as libvsync does):
 *   tests/validator.c   stress: real threads, each running steps for a fixed time
 *   verify/check.cpp    model checking: Relacy threads, 1-2 acquisitions each
 *
 *   counter   acquire a; critical section on a's data; release a; every other time
 *             (by the thread's parity) through the lock's direct verbs, the
 *             interposer's path (registry.h: direct_acquire, direct_release)
 *   nested    acquire a; acquire b; both critical sections; release in alternating
 *             order (b then a, a then b): a thread holds two locks of one kind
 *   trylock   every other acquisition (by the thread's parity) is a try_acquire;
 *             a failed one acquires nothing (the driver retries)
 *   mixed     a, then b, a lock of another algorithm: queue nodes are recycled
 *             across lock types while late releasers may still look
 *   timed     every other acquisition is a timed acquire with a very short timeout
 *             (many give up, some right as the lock reaches them; the driver retries)
 *
 * The driver defines, before including this header, in the same names (a lock under test,
 * "lut", and the data its critical sections touch, "shared"):
 *   lut, shared                         types of a lock under test and of the shared data
 *   lut_acquire(lut *), lut_try(lut *) -> bool, lut_release(lut *)
 *   lut_direct_acquire(lut *), lut_direct_release(lut *)
 *                                       the same through the direct verbs (or the plain
 *                                       ones, for a lock without them)
 *   client_cs_a(shared *), client_cs_b(shared *)
 *                                       the critical sections on the data a (b) guards
 *   client_timed(lut *, shared *) -> bool
 *                                       a timed acquire with the driver's short timeout
 */
#ifndef LOCKLAB_TESTS_CLIENTS_H
#define LOCKLAB_TESTS_CLIENTS_H

#include <stdbool.h>
#include <stdint.h>

enum client { COUNTER, NESTED, TRYLOCK, MIXED, TIMED, NCLIENTS };
static const char *const client_names[] = {"counter", "nested", "trylock", "mixed", "timed"};

/* Thread `index`'s step number n of client c on locks a and b.  Returns false if
 * nothing was acquired (a failed try_acquire or timed acquire). */
static bool client_step(enum client c, lut *a, lut *b, shared *d, int index, uint64_t n)
{
    bool odd = ((n + (uint64_t)index) & 1) != 0;
    switch (c) {
    case NESTED:
        lut_acquire(a);
        lut_acquire(b);
        client_cs_a(d);
        client_cs_b(d);
        if (odd) { /* release in both orders */
            lut_release(b);
            lut_release(a);
        } else {
            lut_release(a);
            lut_release(b);
        }
        return true;
    case MIXED:
        lut_acquire(a);
        client_cs_a(d);
        lut_release(a);
        lut_acquire(b);
        client_cs_b(d);
        lut_release(b);
        return true;
    case TRYLOCK:
    case TIMED:
        if (odd) {
            if (c == TRYLOCK ? !lut_try(a) : !client_timed(a, d))
                return false;
        } else {
            lut_acquire(a);
        }
        client_cs_a(d);
        lut_release(a);
        return true;
    case COUNTER:
        if (odd) {
            lut_direct_acquire(a);
            client_cs_a(d);
            lut_direct_release(a);
            return true;
        }
        break;
    case NCLIENTS:
        break;
    }
    lut_acquire(a);
    client_cs_a(d);
    lut_release(a);
    return true;
}

#endif /* LOCKLAB_TESTS_CLIENTS_H */
