/* pthread spinlocks and barriers under the interposer (src/interpose/spin.c, barrier.c;
 * run_tests.sh spinbar).  Also valid under glibc alone.
 *   spin:     2-4 threads (as many as CPUs) x 100 000 increments of a plain counter under one spinlock;
 *             trylock of a held spinlock: EBUSY; a byte copy of a free spinlock, never
 *             initialised itself, is a free spinlock of its own; 1 000 spinlocks initialised,
 *             used and dropped without destroy at recycled addresses, and
 *             re-initialised over themselves; a process-shared spinlock hammered by a
 *             parent's and a forked child's threads, and EBUSY across them.
 *   barrier:  4 threads x 2 000 rounds: one PTHREAD_BARRIER_SERIAL_THREAD per round,
 *             and each thread sees every other thread's write of the round after the
 *             barrier; count 1: every wait is the serial one; count 0: EINVAL;
 *             destroy by the serial thread right after its wait, while the others may
 *             still be leaving, then the memory scribbled over and freed (500 times);
 *             a process-shared barrier between a parent and a forked child (glibc's).
 * "test_spinbar oversubscribe": only 4 threads that take a spinlock, then meet at a barrier
 * (all alive at once: the warning's test).
 * "test_spinbar fork": fork while the forking thread holds a spinlock on which two parent
 * threads spin (their tickets, queue nodes in its state): in the child, a child thread that
 * asked for it before the forking thread's unlock gets it after, and threads hammer it.
 * "test_spinbar misuse": unlocks glibc's word survives: of a spinlock never locked, and a
 * second unlock of one just unlocked; the spinlock then works as before (threads hammer it).
 * A hang is a failure (alarm), not a stuck test. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test_util.h"

enum { THREADS = 4, ITERS = 100000, ROUNDS = 2000 };
/* Spinlock hammers: at most as many threads as CPUs (and 2 at least): a FIFO spinlock (ticket,
 * k42, cna) run by more threads than CPUs hands over to preempted spinners, a time slice each
 * (the interposer's warning, tested on its own), which turns seconds into minutes. */
static int spinners = THREADS;

static pthread_spinlock_t spin;
static unsigned long counter;

static void *spin_hammer(void *arg)
{
    pthread_spinlock_t *l = arg;
    for (int i = 0; i < ITERS; i++) {
        REQUIRE(pthread_spin_lock(l) == 0);
        counter++;
        REQUIRE(pthread_spin_unlock(l) == 0);
    }
    return NULL;
}

static void run_n_threads(int n, void *(*fn)(void *), void *arg)
{
    pthread_t t[THREADS];
    for (int i = 0; i < n; i++)
        REQUIRE(pthread_create(&t[i], NULL, fn, arg) == 0);
    for (int i = 0; i < n; i++)
        REQUIRE(pthread_join(t[i], NULL) == 0);
}
static void run_threads(void *(*fn)(void *), void *arg) { run_n_threads(THREADS, fn, arg); }

static void *try_held(void *arg)
{
    return (void *)(long)pthread_spin_trylock((pthread_spinlock_t *)arg);
}

static void test_spin(void)
{
    REQUIRE(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
    run_n_threads(spinners, spin_hammer, (void *)&spin);
    REQUIRE(counter == (unsigned long)spinners * ITERS);

    REQUIRE(pthread_spin_lock(&spin) == 0);
    pthread_t t;
    void *rc;
    REQUIRE(pthread_create(&t, NULL, try_held, (void *)&spin) == 0);
    REQUIRE(pthread_join(t, &rc) == 0);
    REQUIRE((long)rc == EBUSY);
    REQUIRE(pthread_spin_unlock(&spin) == 0);
    REQUIRE(pthread_spin_trylock(&spin) == 0);
    REQUIRE(pthread_spin_unlock(&spin) == 0);
    REQUIRE(pthread_spin_destroy(&spin) == 0);

    /* a copy of a free spinlock, never initialised itself, is a free spinlock (glibc's is a
     * word; an out-of-line one's handle names the original's object, not the copy's) */
    pthread_spinlock_t original, *copy = malloc(sizeof *copy);
    REQUIRE(pthread_spin_init(&original, PTHREAD_PROCESS_PRIVATE) == 0);
    memcpy((void *)copy, (void *)&original, sizeof original);
    REQUIRE(pthread_spin_lock(&original) == 0);
    counter = 0;
    run_n_threads(spinners, spin_hammer, (void *)copy);
    REQUIRE(counter == (unsigned long)spinners * ITERS);
    REQUIRE(pthread_spin_trylock(copy) == 0);
    REQUIRE(pthread_spin_unlock(copy) == 0);
    REQUIRE(pthread_spin_unlock(&original) == 0);
    free((void *)copy);

    /* dropped without destroy, at addresses malloc gives back; re-initialised in place */
    for (int i = 0; i < 1000; i++) {
        pthread_spinlock_t *l = malloc(64);
        REQUIRE(pthread_spin_init(l, PTHREAD_PROCESS_PRIVATE) == 0);
        REQUIRE(pthread_spin_lock(l) == 0);
        REQUIRE(pthread_spin_trylock(l) == EBUSY);
        REQUIRE(pthread_spin_unlock(l) == 0);
        REQUIRE(pthread_spin_init(l, PTHREAD_PROCESS_PRIVATE) == 0);
        REQUIRE(pthread_spin_trylock(l) == 0);
        REQUIRE(pthread_spin_unlock(l) == 0);
        memset((void *)l, 0xa5, 64);
        free((void *)l);
    }
}

static pthread_barrier_t bar;
static atomic_int serials;
static int seen[THREADS];
static atomic_int next_id;

static void *barrier_rounds(void *arg)
{
    (void)arg;
    int id = atomic_fetch_add(&next_id, 1);
    for (int r = 1; r <= ROUNDS; r++) {
        seen[id] = r; /* plain writes: the barrier orders them */
        int rc = pthread_barrier_wait(&bar);
        REQUIRE(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
        if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
            atomic_fetch_add(&serials, 1);
        for (int i = 0; i < THREADS; i++)
            REQUIRE(seen[i] == r);
        rc = pthread_barrier_wait(&bar); /* nobody writes round r + 1 before all have checked round r */
        REQUIRE(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    }
    return NULL;
}

/* Each thread takes the spinlock once, then all meet: THREADS threads have used it at once. */
static void *spin_then_meet(void *arg)
{
    REQUIRE(pthread_spin_lock((pthread_spinlock_t *)arg) == 0);
    REQUIRE(pthread_spin_unlock((pthread_spinlock_t *)arg) == 0);
    int rc = pthread_barrier_wait(&bar);
    REQUIRE(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    return NULL;
}

static void *destroy_while_leaving(void *arg)
{
    pthread_barrier_t *b = arg;
    int rc = pthread_barrier_wait(b);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
        REQUIRE(pthread_barrier_destroy(b) == 0); /* others may still be leaving the wait */
        memset(b, 0x5a, sizeof *b);
        free(b);
    } else {
        REQUIRE(rc == 0);
    }
    return NULL;
}

static void test_barrier(void)
{
    REQUIRE(pthread_barrier_init(&bar, NULL, 0) == EINVAL);
    REQUIRE(pthread_barrier_init(&bar, NULL, THREADS) == 0);
    run_threads(barrier_rounds, NULL);
    REQUIRE(atomic_load(&serials) == 2 * ROUNDS - ROUNDS); /* counted in the first wait of each round only */
    REQUIRE(pthread_barrier_destroy(&bar) == 0);

    REQUIRE(pthread_barrier_init(&bar, NULL, 1) == 0);
    for (int i = 0; i < 10; i++)
        REQUIRE(pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD);
    REQUIRE(pthread_barrier_destroy(&bar) == 0);

    for (int i = 0; i < 500; i++) {
        pthread_barrier_t *b = malloc(sizeof *b);
        REQUIRE(pthread_barrier_init(b, NULL, THREADS) == 0);
        run_threads(destroy_while_leaving, b);
    }

    /* process-shared: glibc's own, in shared memory */
    pthread_barrier_t *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(shared != MAP_FAILED);
    pthread_barrierattr_t attr;
    REQUIRE(pthread_barrierattr_init(&attr) == 0);
    REQUIRE(pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) == 0);
    REQUIRE(pthread_barrier_init(shared, &attr, 2) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    int rc = 0;
    for (int i = 0; i < 100; i++) {
        int w = pthread_barrier_wait(shared);
        rc += w == PTHREAD_BARRIER_SERIAL_THREAD;
        REQUIRE(w == 0 || w == PTHREAD_BARRIER_SERIAL_THREAD);
    }
    if (child == 0)
        _exit(rc);
    int status;
    REQUIRE(waitpid(child, &status, 0) == child && WIFEXITED(status));
    REQUIRE(rc + WEXITSTATUS(status) == 100); /* one serial thread per round, across the processes */
    REQUIRE(pthread_barrier_destroy(shared) == 0);
}

/* A spinlock's waiter that takes and drops it once. */
static void *spin_once(void *arg)
{
    REQUIRE(pthread_spin_lock((pthread_spinlock_t *)arg) == 0);
    counter++;
    REQUIRE(pthread_spin_unlock((pthread_spinlock_t *)arg) == 0);
    return NULL;
}

static void test_fork_held(void)
{
    REQUIRE(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
    REQUIRE(pthread_spin_lock(&spin) == 0);
    pthread_t waiter[2];
    for (int i = 0; i < 2; i++)
        REQUIRE(pthread_create(&waiter[i], NULL, spin_once, (void *)&spin) == 0);
    usleep(30000); /* the waiters take tickets, queue their nodes */
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        alarm(30);
        counter = 0;
        pthread_t late;
        REQUIRE(pthread_create(&late, NULL, spin_once, (void *)&spin) == 0); /* asks while still held */
        usleep(20000);
        REQUIRE(counter == 0);
        REQUIRE(pthread_spin_unlock(&spin) == 0);
        REQUIRE(pthread_join(late, NULL) == 0);
        REQUIRE(counter == 1);
        counter = 0;
        run_n_threads(spinners, spin_hammer, (void *)&spin);
        REQUIRE(counter == (unsigned long)spinners * ITERS);
        REQUIRE(pthread_spin_trylock(&spin) == 0);
        REQUIRE(pthread_spin_unlock(&spin) == 0);
        _exit(0);
    }
    REQUIRE(pthread_spin_unlock(&spin) == 0);
    for (int i = 0; i < 2; i++)
        REQUIRE(pthread_join(waiter[i], NULL) == 0);
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s %d", WIFEXITED(status) ? "exit" : "signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* A process-shared spinlock in shared memory: a parent's and a forked child's threads
 * increment one shared counter under it (under an out-of-line LOCKLAB_SPIN the spinlock is
 * the word itself: spin.c, "pshared"); then trylock answers across the processes. */
typedef struct shared_spin {
    pthread_spinlock_t lock;
    unsigned long counter;
} shared_spin;

static void *shared_hammer(void *arg)
{
    shared_spin *sh = arg;
    for (int i = 0; i < ITERS; i++) {
        REQUIRE(pthread_spin_lock(&sh->lock) == 0);
        sh->counter++;
        REQUIRE(pthread_spin_unlock(&sh->lock) == 0);
    }
    return NULL;
}

static void test_pshared(void)
{
    shared_spin *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(sh != MAP_FAILED);
    REQUIRE(pthread_spin_init(&sh->lock, PTHREAD_PROCESS_SHARED) == 0);
    int each = spinners / 2;
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    run_n_threads(each, shared_hammer, sh);
    if (pid == 0)
        _exit(0);
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    REQUIRE(sh->counter == 2ul * (unsigned long)each * ITERS, "counter %lu", sh->counter);
    REQUIRE(pthread_spin_lock(&sh->lock) == 0);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0)
        _exit(pthread_spin_trylock(&sh->lock) == EBUSY ? 0 : 1); /* held by the parent */
    REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    REQUIRE(pthread_spin_unlock(&sh->lock) == 0);
    REQUIRE(pthread_spin_destroy(&sh->lock) == 0);
    munmap(sh, sizeof *sh);
}

static void test_misuse(void)
{
    alarm(30);
    REQUIRE(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
    REQUIRE(pthread_spin_unlock(&spin) == 0); /* never locked */
    REQUIRE(pthread_spin_lock(&spin) == 0);
    REQUIRE(pthread_spin_unlock(&spin) == 0);
    REQUIRE(pthread_spin_unlock(&spin) == 0); /* unlocked twice */
    REQUIRE(pthread_spin_trylock(&spin) == 0);
    REQUIRE(pthread_spin_trylock(&spin) == EBUSY);
    REQUIRE(pthread_spin_unlock(&spin) == 0);
    counter = 0;
    run_n_threads(spinners, spin_hammer, (void *)&spin);
    REQUIRE(counter == (unsigned long)spinners * ITERS);
    REQUIRE(pthread_spin_destroy(&spin) == 0);
}

int main(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    spinners = cpus < 2 ? 2 : cpus > THREADS ? THREADS : (int)cpus;
    if (argc > 1 && strcmp(argv[1], "oversubscribe") == 0) { /* run_tests.sh spinbar: the warning */
        REQUIRE(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
        REQUIRE(pthread_barrier_init(&bar, NULL, THREADS) == 0);
        run_threads(spin_then_meet, (void *)&spin);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        test_fork_held();
        puts("test_spinbar fork: ok");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "misuse") == 0) {
        test_misuse();
        puts("test_spinbar misuse: ok");
        return 0;
    }
    test_spin();
    test_pshared();
    test_barrier();
    puts("test_spinbar: ok");
    return 0;
}
