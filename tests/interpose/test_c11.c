/* C11 <threads.h> under the interposer (src/interpose/c11.c; run_tests.sh c11):
 *   - mtx_plain: 4 threads x 20 000 increments of a plain counter (mutual exclusion);
 *   - mtx_timed: mtx_timedlock of a mutex another thread holds times out
 *     (thrd_timedout), then succeeds once it is released; mtx_trylock: thrd_busy;
 *   - mtx_recursive: three levels by lock, timedlock and trylock, three unlocks;
 *   - an invalid type: a normal mutex, as glibc makes it;
 *   - cnd: a bounded queue of 4 slots between 2 producers and 2 consumers (cnd_wait,
 *     cnd_signal, cnd_broadcast at the end), every item received once; cnd_timedwait
 *     with nobody signalling: thrd_timedout, the mutex held again.
 * Prints "acquisitions N": every successful acquisition the program made (mtx_lock,
 * mtx_trylock, mtx_timedlock, and each cnd_wait/cnd_timedwait return, which re-takes
 * the mutex), which LOCKLAB_PROFILE's report must count exactly.  Also valid under
 * glibc alone (no interposer). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>
#include <time.h>

#include "../test_util.h"

static atomic_ulong acquisitions;
static void took(void) { atomic_fetch_add_explicit(&acquisitions, 1, memory_order_relaxed); }

enum { THREADS = 4, ITERS = 20000, ITEMS = 10000, SLOTS = 4 };
static mtx_t plain;
static unsigned long counter;

static int hammer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        REQUIRE(mtx_lock(&plain) == thrd_success);
        took();
        counter++;
        REQUIRE(mtx_unlock(&plain) == thrd_success);
    }
    return 0;
}

static struct timespec in_ms(long ms)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    t.tv_nsec += ms * 1000000L;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    return t;
}

static mtx_t timed;
static atomic_int holding;
static int hold_timed(void *arg)
{
    (void)arg;
    REQUIRE(mtx_lock(&timed) == thrd_success);
    took();
    atomic_store(&holding, 1);
    while (atomic_load(&holding) == 1)
        thrd_yield();
    REQUIRE(mtx_unlock(&timed) == thrd_success);
    return 0;
}

static mtx_t qm;
static cnd_t not_empty, not_full;
static int queue[SLOTS], head, tail, count, done_producers;
static atomic_int received[2 * ITEMS];

static int produce(void *arg)
{
    int base = (int)(long)arg;
    for (int i = 0; i < ITEMS; i++) {
        REQUIRE(mtx_lock(&qm) == thrd_success);
        took();
        while (count == SLOTS) {
            REQUIRE(cnd_wait(&not_full, &qm) == thrd_success);
            took();
        }
        queue[tail] = base + i;
        tail = (tail + 1) % SLOTS;
        count++;
        REQUIRE(cnd_signal(&not_empty) == thrd_success);
        REQUIRE(mtx_unlock(&qm) == thrd_success);
    }
    REQUIRE(mtx_lock(&qm) == thrd_success);
    took();
    done_producers++;
    REQUIRE(cnd_broadcast(&not_empty) == thrd_success);
    REQUIRE(mtx_unlock(&qm) == thrd_success);
    return 0;
}

static int consume(void *arg)
{
    (void)arg;
    for (;;) {
        REQUIRE(mtx_lock(&qm) == thrd_success);
        took();
        while (count == 0 && done_producers < 2) {
            REQUIRE(cnd_wait(&not_empty, &qm) == thrd_success);
            took();
        }
        if (count == 0) {
            REQUIRE(mtx_unlock(&qm) == thrd_success);
            return 0;
        }
        int item = queue[head];
        head = (head + 1) % SLOTS;
        count--;
        REQUIRE(cnd_signal(&not_full) == thrd_success);
        REQUIRE(mtx_unlock(&qm) == thrd_success);
        REQUIRE(atomic_fetch_add(&received[item], 1) == 0);
    }
}

int main(void)
{
    /* mutual exclusion */
    REQUIRE(mtx_init(&plain, mtx_plain) == thrd_success);
    thrd_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        REQUIRE(thrd_create(&t[i], hammer, NULL) == thrd_success);
    for (int i = 0; i < THREADS; i++)
        REQUIRE(thrd_join(t[i], NULL) == thrd_success);
    REQUIRE(counter == (unsigned long)THREADS * ITERS);
    mtx_destroy(&plain);

    /* timed: held by another thread */
    REQUIRE(mtx_init(&timed, mtx_timed) == thrd_success);
    thrd_t h;
    REQUIRE(thrd_create(&h, hold_timed, NULL) == thrd_success);
    while (atomic_load(&holding) == 0)
        thrd_yield();
    struct timespec soon = in_ms(20);
    REQUIRE(mtx_timedlock(&timed, &soon) == thrd_timedout);
    REQUIRE(mtx_trylock(&timed) == thrd_busy);
    atomic_store(&holding, 2);
    struct timespec later = in_ms(10000);
    REQUIRE(mtx_timedlock(&timed, &later) == thrd_success);
    took();
    REQUIRE(mtx_unlock(&timed) == thrd_success);
    REQUIRE(thrd_join(h, NULL) == thrd_success);
    mtx_destroy(&timed);

    /* recursive */
    mtx_t rec;
    REQUIRE(mtx_init(&rec, mtx_plain | mtx_recursive) == thrd_success);
    REQUIRE(mtx_lock(&rec) == thrd_success);
    took();
    REQUIRE(mtx_timedlock(&rec, &later) == thrd_success); /* a recursive re-entry is no acquisition (as for */
    REQUIRE(mtx_trylock(&rec) == thrd_success);            /* pthread mutexes: the profile counts the outermost) */
    for (int i = 0; i < 3; i++)
        REQUIRE(mtx_unlock(&rec) == thrd_success);
    mtx_destroy(&rec);
    REQUIRE(mtx_init(&rec, mtx_timed | mtx_recursive) == thrd_success);
    mtx_destroy(&rec);
    REQUIRE(mtx_init(&rec, 4 /* no such type: glibc makes it a normal mutex */) == thrd_success);
    REQUIRE(mtx_lock(&rec) == thrd_success);
    took();
    REQUIRE(mtx_trylock(&rec) == thrd_busy);
    REQUIRE(mtx_unlock(&rec) == thrd_success);
    mtx_destroy(&rec);

    /* condition variables */
    REQUIRE(mtx_init(&qm, mtx_plain) == thrd_success);
    REQUIRE(cnd_init(&not_empty) == thrd_success);
    REQUIRE(cnd_init(&not_full) == thrd_success);
    thrd_t p[2], c[2];
    for (int i = 0; i < 2; i++) {
        REQUIRE(thrd_create(&c[i], consume, NULL) == thrd_success);
        REQUIRE(thrd_create(&p[i], produce, (void *)(long)(i * ITEMS)) == thrd_success);
    }
    for (int i = 0; i < 2; i++) {
        REQUIRE(thrd_join(p[i], NULL) == thrd_success);
        REQUIRE(thrd_join(c[i], NULL) == thrd_success);
    }
    for (int i = 0; i < 2 * ITEMS; i++)
        REQUIRE(atomic_load(&received[i]) == 1);
    REQUIRE(mtx_lock(&qm) == thrd_success);
    took();
    struct timespec brief = in_ms(10);
    REQUIRE(cnd_timedwait(&not_empty, &qm, &brief) == thrd_timedout);
    took();
    REQUIRE(mtx_trylock(&qm) == thrd_busy); /* held again after the timed-out wait */
    REQUIRE(mtx_unlock(&qm) == thrd_success);
    cnd_destroy(&not_empty);
    cnd_destroy(&not_full);
    mtx_destroy(&qm);
    printf("acquisitions %lu\n", atomic_load(&acquisitions));
    return 0;
}
