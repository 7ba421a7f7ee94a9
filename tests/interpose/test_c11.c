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

#define CHECK(c)                                                                       \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "test_c11: %s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static atomic_ulong acquisitions;
static void took(void) { atomic_fetch_add_explicit(&acquisitions, 1, memory_order_relaxed); }

enum { THREADS = 4, ITERS = 20000, ITEMS = 10000, SLOTS = 4 };
static mtx_t plain;
static unsigned long counter;

static int hammer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        CHECK(mtx_lock(&plain) == thrd_success);
        took();
        counter++;
        CHECK(mtx_unlock(&plain) == thrd_success);
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
    CHECK(mtx_lock(&timed) == thrd_success);
    took();
    atomic_store(&holding, 1);
    while (atomic_load(&holding) == 1)
        thrd_yield();
    CHECK(mtx_unlock(&timed) == thrd_success);
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
        CHECK(mtx_lock(&qm) == thrd_success);
        took();
        while (count == SLOTS) {
            CHECK(cnd_wait(&not_full, &qm) == thrd_success);
            took();
        }
        queue[tail] = base + i;
        tail = (tail + 1) % SLOTS;
        count++;
        CHECK(cnd_signal(&not_empty) == thrd_success);
        CHECK(mtx_unlock(&qm) == thrd_success);
    }
    CHECK(mtx_lock(&qm) == thrd_success);
    took();
    done_producers++;
    CHECK(cnd_broadcast(&not_empty) == thrd_success);
    CHECK(mtx_unlock(&qm) == thrd_success);
    return 0;
}

static int consume(void *arg)
{
    (void)arg;
    for (;;) {
        CHECK(mtx_lock(&qm) == thrd_success);
        took();
        while (count == 0 && done_producers < 2) {
            CHECK(cnd_wait(&not_empty, &qm) == thrd_success);
            took();
        }
        if (count == 0) {
            CHECK(mtx_unlock(&qm) == thrd_success);
            return 0;
        }
        int item = queue[head];
        head = (head + 1) % SLOTS;
        count--;
        CHECK(cnd_signal(&not_full) == thrd_success);
        CHECK(mtx_unlock(&qm) == thrd_success);
        CHECK(atomic_fetch_add(&received[item], 1) == 0);
    }
}

int main(void)
{
    /* mutual exclusion */
    CHECK(mtx_init(&plain, mtx_plain) == thrd_success);
    thrd_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(thrd_create(&t[i], hammer, NULL) == thrd_success);
    for (int i = 0; i < THREADS; i++)
        CHECK(thrd_join(t[i], NULL) == thrd_success);
    CHECK(counter == (unsigned long)THREADS * ITERS);
    mtx_destroy(&plain);

    /* timed: held by another thread */
    CHECK(mtx_init(&timed, mtx_timed) == thrd_success);
    thrd_t h;
    CHECK(thrd_create(&h, hold_timed, NULL) == thrd_success);
    while (atomic_load(&holding) == 0)
        thrd_yield();
    struct timespec soon = in_ms(20);
    CHECK(mtx_timedlock(&timed, &soon) == thrd_timedout);
    CHECK(mtx_trylock(&timed) == thrd_busy);
    atomic_store(&holding, 2);
    struct timespec later = in_ms(10000);
    CHECK(mtx_timedlock(&timed, &later) == thrd_success);
    took();
    CHECK(mtx_unlock(&timed) == thrd_success);
    CHECK(thrd_join(h, NULL) == thrd_success);
    mtx_destroy(&timed);

    /* recursive */
    mtx_t rec;
    CHECK(mtx_init(&rec, mtx_plain | mtx_recursive) == thrd_success);
    CHECK(mtx_lock(&rec) == thrd_success);
    took();
    CHECK(mtx_timedlock(&rec, &later) == thrd_success); /* a recursive re-entry is no acquisition (as for */
    CHECK(mtx_trylock(&rec) == thrd_success);            /* pthread mutexes: the profile counts the outermost) */
    for (int i = 0; i < 3; i++)
        CHECK(mtx_unlock(&rec) == thrd_success);
    mtx_destroy(&rec);
    CHECK(mtx_init(&rec, mtx_timed | mtx_recursive) == thrd_success);
    mtx_destroy(&rec);
    CHECK(mtx_init(&rec, 4 /* no such type: glibc makes it a normal mutex */) == thrd_success);
    CHECK(mtx_lock(&rec) == thrd_success);
    took();
    CHECK(mtx_trylock(&rec) == thrd_busy);
    CHECK(mtx_unlock(&rec) == thrd_success);
    mtx_destroy(&rec);

    /* condition variables */
    CHECK(mtx_init(&qm, mtx_plain) == thrd_success);
    CHECK(cnd_init(&not_empty) == thrd_success);
    CHECK(cnd_init(&not_full) == thrd_success);
    thrd_t p[2], c[2];
    for (int i = 0; i < 2; i++) {
        CHECK(thrd_create(&c[i], consume, NULL) == thrd_success);
        CHECK(thrd_create(&p[i], produce, (void *)(long)(i * ITEMS)) == thrd_success);
    }
    for (int i = 0; i < 2; i++) {
        CHECK(thrd_join(p[i], NULL) == thrd_success);
        CHECK(thrd_join(c[i], NULL) == thrd_success);
    }
    for (int i = 0; i < 2 * ITEMS; i++)
        CHECK(atomic_load(&received[i]) == 1);
    CHECK(mtx_lock(&qm) == thrd_success);
    took();
    struct timespec brief = in_ms(10);
    CHECK(cnd_timedwait(&not_empty, &qm, &brief) == thrd_timedout);
    took();
    CHECK(mtx_trylock(&qm) == thrd_busy); /* held again after the timed-out wait */
    CHECK(mtx_unlock(&qm) == thrd_success);
    cnd_destroy(&not_empty);
    cnd_destroy(&not_full);
    mtx_destroy(&qm);
    printf("acquisitions %lu\n", atomic_load(&acquisitions));
    return 0;
}
