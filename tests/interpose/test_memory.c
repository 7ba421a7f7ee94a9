/*
 * Memory stays flat however a program creates and drops its mutexes: the
 * resident set (/proc/self/statm) may grow by at most LIMIT_MB over each loop
 * of CYCLES mutex lifetimes, where a lock object (128-512 bytes) or profile
 * record kept per lifetime would add far more:
 *   - init, lock, destroy while held (EBUSY, as glibc), re-init at the same address;
 *   - the same after a timed lock of the held mutex by its holder gave up (the
 *     interposer waits without queueing: a timed waiter that left a node in k42,
 *     an inline lock, lost it when the mutex was dropped: +125 MB per million);
 *   - zeroed and locked, never destroyed (a std::mutex: trivial destructor);
 *   - malloc'd, locked, freed without destroy (malloc hands the address back);
 *   - init, lock, unlock, destroy (with LOCKLAB_PROFILE: the records go).
 * Argument "profile": the run has LOCKLAB_PROFILE set (fewer cycles: each one
 * makes a profile record).  Run by run_tests.sh (case memory) per lock spec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { LIMIT_MB = 16 };

static long rss_kb(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2) {
        perror("/proc/self/statm");
        exit(1);
    }
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

typedef void (*cycle_fn)(void);

static pthread_mutex_t *slot; /* one heap mutex, re-created in place */

static void held_destroy(void)
{
    CHECK_EQ(pthread_mutex_init(slot, NULL), 0);
    CHECK_EQ(pthread_mutex_lock(slot), 0);
    CHECK_EQ(pthread_mutex_destroy(slot), EBUSY); /* glibc's answer; the program then reuses the memory */
}

static void held_timed_out_destroy(void)
{
    CHECK_EQ(pthread_mutex_init(slot, NULL), 0);
    CHECK_EQ(pthread_mutex_lock(slot), 0);
    struct timespec t = test_deadline(CLOCK_REALTIME, 2000); /* 2 us: waits (unqueued: the caller holds it) and gives up */
    CHECK_EQ(pthread_mutex_timedlock(slot, &t), ETIMEDOUT); /* a normal mutex held by the caller */
    CHECK_EQ(pthread_mutex_destroy(slot), EBUSY);
}

static void zeroed_never_destroyed(void)
{
    memset(slot, 0, sizeof *slot); /* std::mutex's constexpr constructor */
    CHECK_EQ(pthread_mutex_lock(slot), 0);
    CHECK_EQ(pthread_mutex_unlock(slot), 0);
}

static void malloc_lock_free(void)
{
    pthread_mutex_t *m = (pthread_mutex_t *)malloc(sizeof *m);
    if (!m)
        exit(1);
    pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
    *m = init;
    CHECK_EQ(pthread_mutex_lock(m), 0); /* and freed while held */
    free(m);
}

static void init_destroy(void)
{
    CHECK_EQ(pthread_mutex_init(slot, NULL), 0);
    CHECK_EQ(pthread_mutex_lock(slot), 0);
    CHECK_EQ(pthread_mutex_unlock(slot), 0);
    CHECK_EQ(pthread_mutex_destroy(slot), 0);
}

static void run(const char *name, cycle_fn fn, long cycles)
{
    for (int i = 0; i < 1000; i++) /* warm up: the first chunks of every allocator */
        fn();
    long before = rss_kb();
    for (long i = 0; i < cycles; i++)
        fn();
    long grew = rss_kb() - before;
    printf("%s: %ld cycles, RSS +%ld kB\n", name, cycles, grew);
    if (grew > LIMIT_MB * 1024L)
        fprintf(stderr, "%s: RSS grew by %ld kB over %ld cycles (limit %d MB)\n", name, grew, cycles, LIMIT_MB);
    CHECK(grew <= LIMIT_MB * 1024L);
}

int main(int argc, char **argv)
{
    require_interposed((void *)pthread_mutex_lock);
    long cycles = argc > 1 && strcmp(argv[1], "profile") == 0 ? 100000 : 1000000;
    slot = (pthread_mutex_t *)malloc(sizeof *slot);
    if (!slot)
        return 1;
    run("init, lock, destroy while held", held_destroy, cycles);
    /* a fifth of the cycles: each waits out its timeout, which a lock that parks ends only after
     * the kernel's timer slack (~50-80 us a cycle with clh-stp: 1 M cycles took 78 s); a node
     * kept per cycle (128 bytes) would still add 25 MB */
    run("init, lock, timedlock gives up, destroy while held", held_timed_out_destroy, cycles / 5);
    run("zeroed, lock, never destroyed", zeroed_never_destroyed, cycles);
    run("malloc, lock, free while held", malloc_lock_free, cycles);
    run("init, lock, unlock, destroy", init_destroy, cycles);
    return test_done("test_memory");
}
