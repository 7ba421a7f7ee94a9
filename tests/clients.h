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
 * The driver defines, before including this header:
 *   CLIENT_LOCK, CLIENT_DATA            types of a lock under test and of the shared data
 *   client_acquire(CLIENT_LOCK *), client_try(CLIENT_LOCK *) -> bool,
 *   client_release(CLIENT_LOCK *)
 *   client_direct_acquire(CLIENT_LOCK *), client_direct_release(CLIENT_LOCK *)
 *                                       the same through the direct verbs (or the plain
 *                                       ones, for a lock without them)
 *   client_cs_a(CLIENT_DATA *), client_cs_b(CLIENT_DATA *)
 *                                       the critical sections on the data a (b) guards
 *   client_timed(CLIENT_LOCK *, CLIENT_DATA *) -> bool
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
static bool client_step(enum client c, CLIENT_LOCK *a, CLIENT_LOCK *b, CLIENT_DATA *d, int index, uint64_t n)
{
    bool odd = ((n + (uint64_t)index) & 1) != 0;
    switch (c) {
    case NESTED:
        client_acquire(a);
        client_acquire(b);
        client_cs_a(d);
        client_cs_b(d);
        if (odd) { /* release in both orders */
            client_release(b);
            client_release(a);
        } else {
            client_release(a);
            client_release(b);
        }
        return true;
    case MIXED:
        client_acquire(a);
        client_cs_a(d);
        client_release(a);
        client_acquire(b);
        client_cs_b(d);
        client_release(b);
        return true;
    case TRYLOCK:
    case TIMED:
        if (odd) {
            if (c == TRYLOCK ? !client_try(a) : !client_timed(a, d))
                return false;
        } else {
            client_acquire(a);
        }
        client_cs_a(d);
        client_release(a);
        return true;
    case COUNTER:
        if (odd) {
            client_direct_acquire(a);
            client_cs_a(d);
            client_direct_release(a);
            return true;
        }
        break;
    case NCLIENTS:
        break;
    }
    client_acquire(a);
    client_cs_a(d);
    client_release(a);
    return true;
}

#endif /* LOCKLAB_TESTS_CLIENTS_H */
