/*
 * fork(): the child can lock every mutex that was unlocked at fork time, one
 * the parent held before and released, one never used, a recursive one, and
 * one a parent thread was hammering until just before the fork.
 *
 * Under every lock (run_tests.sh fork runs every spec of locklab-bench --list)
 * also a mutex the forking thread holds while parent threads are queued on it
 * (their tickets, queue nodes, passive-set entries, per-socket records are
 * in the lock's state; the child does not have those threads):
 *   - fork_while_held: normal and errorcheck mutexes; the child unlocks them,
 *     a child thread that asked for one before that unlock gets it, a
 *     condition wait releases and retakes one, and new threads use them;
 *   - the pthread_atfork(lock, unlock, unlock) idiom: two parent threads hammer
 *     a mutex while the process forks 10 children, each of which uses it.
 * Argument "parked" (run_tests.sh fork, for the locks that park in a table of
 * their own: parkinglot): instead, threads hammer a mutex so that its waiters
 * keep parking while the process forks again and again; each child that finds
 * the mutex free (a few dozen of PARK_FORKS) locks it, has a thread of its own park on it and unlocks it,
 * which takes the lock of its bucket in the global parking table: a bucket
 * lock that a parent thread held at the fork must not hang the child.
 * Argument "atfork-contended" / "atfork-fresh-holder" (with libatfork_lib.so preloaded):
 * another library's fork handlers on a mutex our threads hold (below).
 * A hang is a failure (alarm), not a stuck test.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "trap_mutex.h"

static pthread_mutex_t used = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t never_used = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static long counter, held_counter;

static void *held_waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&held);
    pthread_mutex_unlock(&held);
    return NULL;
}

/* 20000 increments of *counter under *m: the threads a child (or the parent) starts. */
typedef struct counted {
    pthread_mutex_t *m;
    long *counter;
} counted;
static counted held_count = {&held, &held_counter}, contended_count = {&contended, &counter};

static void *count_worker(void *arg)
{
    counted *c = (counted *)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(c->m);
        (*c->counter)++;
        pthread_mutex_unlock(c->m);
    }
    return NULL;
}

/* The parent's side of a fork: the child exited, with status 0. */
static void check_child(pid_t pid)
{
    int status = -1;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
}

/* Forks a child that runs body under an alarm of 60 s (a hang is a failure; a loaded 2-CPU
 * machine has taken more than 30 s for a pure-spin lock's child: mcscr, under ctest -j 2
 * beside no_starvation) and exits with body's answer
 * (0: all held); checks that it exited with 0. */
static void run_child(int (*body)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        _exit(body());
    }
    CHECK(pid > 0);
    check_child(pid);
}

/* A child thread that asks for `held` while the forking thread still holds it from before the fork. */
static volatile int late_got;
static void *late_locker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&held);
    late_got = 1;
    held_counter++;
    pthread_mutex_unlock(&held);
    return NULL;
}

static void *errorcheck_waiter(void *arg)
{
    pthread_mutex_lock((pthread_mutex_t *)arg);
    pthread_mutex_unlock((pthread_mutex_t *)arg);
    return NULL;
}

/* Fork while holding `held` (normal) and an errorcheck mutex, with parent threads queued on both. */
static void fork_while_held(void)
{
    pthread_mutex_t errorcheck;
    CHECK_EQ(init_mutex_of_type(&errorcheck, PTHREAD_MUTEX_ERRORCHECK), 0);
    CHECK_EQ(pthread_mutex_lock(&held), 0);
    CHECK_EQ(pthread_mutex_lock(&errorcheck), 0);
    pthread_t waiter[3];
    test_start(&waiter[0], held_waiter, NULL);
    test_start(&waiter[1], held_waiter, NULL);
    test_start(&waiter[2], errorcheck_waiter, &errorcheck);
    usleep(30000); /* the waiters queue, spin or sleep (acr: and, patience 1 ms, turn impatient) */
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60); /* generous: pure-spin locks on a loaded 2-CPU machine are slow, not hung */
        int bad = 0;
        /* A child thread asks for the mutex before the child's first unlock of it. */
        pthread_t late;
        test_start(&late, late_locker, NULL);
        usleep(20000);
        bad |= late_got != 0;                                       /* still held by the forking thread */
        bad |= (pthread_mutex_unlock(&held) != 0) << 1;
        pthread_join(late, NULL);
        bad |= (late_got != 1) << 2;
        bad |= (pthread_mutex_lock(&held) != 0) << 3;
        pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        struct timespec soon = in_ms(CLOCK_REALTIME, 5);
        bad |= (pthread_cond_timedwait(&cv, &held, &soon) != ETIMEDOUT) << 4; /* unlocks and relocks it */
        bad |= (pthread_mutex_unlock(&held) != 0) << 5;
        test_run_threads(2, count_worker, &held_count, 0);
        bad |= (held_counter != 40001) << 6;
        bad |= (pthread_mutex_unlock(&errorcheck) != 0) << 7;      /* held by this thread: not EPERM */
        bad |= (pthread_mutex_unlock(&errorcheck) != EPERM) << 8;
        bad |= (pthread_mutex_lock(&errorcheck) != 0) << 9;
        bad |= (pthread_mutex_lock(&errorcheck) != EDEADLK) << 10;
        bad |= (pthread_mutex_unlock(&errorcheck) != 0) << 11;
        if (bad)
            fprintf(stderr, "fork_while_held: child failures 0x%x\n", bad);
        _exit(bad ? 3 : 0);
    }
    CHECK(pid > 0);
    CHECK_EQ(pthread_mutex_unlock(&held), 0);
    CHECK_EQ(pthread_mutex_unlock(&errorcheck), 0);
    test_join_n(waiter, 3);
    check_child(pid);
    CHECK_EQ(pthread_mutex_destroy(&errorcheck), 0);
}

/* ---- the pthread_atfork(lock, unlock, unlock) idiom ------------------------------------ */

static pthread_mutex_t guarded = PTHREAD_MUTEX_INITIALIZER;
static long guarded_counter;
static volatile int stop_hammering;
static counted guarded_count = {&guarded, &guarded_counter};

static void prepare(void)
{
    pthread_mutex_lock(&guarded);
    usleep(2000); /* the hammering threads queue behind us */
}
static void after(void) { pthread_mutex_unlock(&guarded); }

static void *hammer(void *arg)
{
    (void)arg;
    while (!stop_hammering) {
        pthread_mutex_lock(&guarded);
        guarded_counter++;
        pthread_mutex_unlock(&guarded);
    }
    return NULL;
}

static void atfork_idiom(void)
{
    CHECK_EQ(pthread_atfork(prepare, after, after), 0);
    pthread_t t[2];
    test_start_n(t, 2, hammer, NULL, 0);
    pid_t pids[10];
    for (int i = 0; i < 10; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            alarm(60); /* generous: pure-spin locks on a loaded 2-CPU machine are slow, not hung */
            int bad = pthread_mutex_lock(&guarded) != 0;
            bad |= pthread_mutex_unlock(&guarded) != 0;
            long before = guarded_counter;
            test_run_threads(2, count_worker, &guarded_count, 0);
            bad |= guarded_counter != before + 40000;
            _exit(bad ? 3 : 0);
        }
        CHECK(pids[i] > 0);
    }
    stop_hammering = 1;
    test_join_n(t, 2);
    for (int i = 0; i < 10; i++)
        check_child(pids[i]);
}

/* ---- fork while waiters park -------------------------------------------------------- */
enum { PARK_HAMMERS = 16, PARK_FORKS = 2000 };
static pthread_mutex_t parking = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop_parking;

static void *park_hammer(void *arg)
{
    (void)arg;
    while (!stop_parking) {
        pthread_mutex_lock(&parking);
        for (volatile int i = 0; i < 2000; i++) /* long enough that the others park */
            ;
        pthread_mutex_unlock(&parking);
        for (volatile int i = 0; i < 500; i++) /* and now and then nobody holds it */
            ;
    }
    return NULL;
}

static void *park_once(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&parking);
    pthread_mutex_unlock(&parking);
    return NULL;
}

/* The child: if `parking` was free at the fork, a thread of ours parks on it while we hold it. */
static int *parked_children; /* shared with the children: how many found the mutex free */

static int parked_child(void)
{
    if (pthread_mutex_trylock(&parking) != 0)
        return 0; /* held by a parent thread at the fork: stays taken (as glibc) */
    __atomic_fetch_add(parked_children, 1, __ATOMIC_RELAXED);
    pthread_t t;
    int bad = pthread_create(&t, NULL, park_once, NULL) != 0;
    usleep(2000); /* it spins (on 2 CPUs yields), then parks (the bucket's lock) */
    bad |= pthread_mutex_unlock(&parking) != 0; /* unparks it (the bucket's lock) */
    bad |= !bad && pthread_join(t, NULL) != 0;
    return bad ? 3 : 0;
}

static int forks_while_parking(void)
{
    parked_children = (int *)mmap(NULL, sizeof *parked_children, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(parked_children != MAP_FAILED);
    pthread_t t[PARK_HAMMERS];
    test_start_n(t, PARK_HAMMERS, park_hammer, NULL, 0);
    for (int i = 0; i < PARK_FORKS && failures == 0; i++)
        run_child(parked_child);
    stop_parking = 1;
    test_join_n(t, PARK_HAMMERS);
    printf("%d children found the mutex free and parked a thread on it\n", *parked_children);
    return test_done("test_fork parked");
}

/* ---- another library's fork handlers on a contended mutex ------------------------------
 * Argument "atfork-contended" (run_tests.sh fork, with libatfork_lib.so preloaded): its
 * pthread_atfork(lock, unlock, unlock), registered by its constructor before the
 * interposer's handlers, so that its child handler runs before them, on a mutex our threads
 * keep contended: parent threads are parked on it at each fork.  The child's unlock must
 * leave it free (not handed to a parent waiter the child does not have), and must not take
 * a bucket lock a parent thread held.  A hang is a failure (alarm, or run_tests.sh's timeout
 * for one in the fork handler). */
static pthread_mutex_t *lib_mutex;

/* Finds atfork_lib_mutex; false (a failure) if libatfork_lib.so is not loaded. */
static bool find_lib_mutex(void)
{
    lib_mutex = (pthread_mutex_t *)dlsym(RTLD_DEFAULT, "atfork_lib_mutex");
    CHECK(lib_mutex != NULL, "atfork_lib_mutex not found: libatfork_lib.so is not preloaded");
    return lib_mutex != NULL;
}

/* The child: atfork_lib's child handler left lib_mutex free. */
static int lib_mutex_child(void)
{
    int bad = pthread_mutex_lock(lib_mutex) != 0;
    bad |= pthread_mutex_unlock(lib_mutex) != 0;
    return bad ? 3 : 0;
}
static void *lib_hammer(void *arg)
{
    (void)arg;
    while (!stop_parking) {
        pthread_mutex_lock(lib_mutex);
        usleep(300); /* the others park, and wait past the fair-handoff age (0.5 ms) */
        pthread_mutex_unlock(lib_mutex);
    }
    return NULL;
}
static int forks_with_contended_handler(void)
{
    if (!find_lib_mutex())
        return test_done("test_fork atfork-contended");
    pthread_t t[4];
    test_start_n(t, 4, lib_hammer, NULL, 0);
    /* Long enough that every hammer has parked at least once (a thread's first park makes its
     * locklab context: the arena; a fork meanwhile is "atfork-fresh-holder"'s subject). */
    usleep(300000);
    for (int i = 0; i < 40 && failures == 0; i++) {
        run_child(lib_mutex_child);
        usleep(2000);
    }
    stop_parking = 1;
    test_join_n(t, 4);
    return test_done("test_fork atfork-contended");
}

/* ---- another library's prepare handler waits for a thread that needs the arena ---------
 * Argument "atfork-fresh-holder" (run_tests.sh fork, with libatfork_lib.so preloaded after
 * the interposer, so that its prepare handler runs after the interposer's): a thread holds
 * atfork_lib_mutex while the process forks, so that library's prepare handler waits for it;
 * meanwhile the holder, a thread that had never waited for anything (no locklab thread
 * context yet), creates, uses and destroys a mutex (an out-of-line lock object: the arena),
 * waits on a semaphore (its thread context: the arena) and unlocks the contended mutex (a
 * parkinglot slow path: its PRNG, the thread context again).  The interposer's prepare
 * handler used to hold the arena's lock until the fork was done: the holder waited for it
 * and the fork for the holder, for ever (alarm).  The child then uses the arena too. */
static volatile int fork_started, fresh_holds;
static void note_fork_started(void) { fork_started = 1; } /* registered last: the first prepare handler */
static void *fresh_holder(void *arg)
{
    (void)arg;
    lock_or_trap(lib_mutex);
    fresh_holds = 1;
    while (!fork_started)
        usleep(1000);
    usleep(100000); /* the forking thread passes the interposer's prepare handler and waits in atfork_lib's */
    pthread_mutex_t m;
    CHECK_EQ(pthread_mutex_init(&m, NULL), 0);
    CHECK_EQ(pthread_mutex_lock(&m), 0);
    CHECK_EQ(pthread_mutex_unlock(&m), 0);
    CHECK_EQ(pthread_mutex_destroy(&m), 0);
    sem_t s;
    CHECK_EQ(sem_init(&s, 0, 0), 0);
    struct timespec soon = in_ms(CLOCK_REALTIME, 1);
    CHECK(sem_timedwait(&s, &soon) == -1 && errno == ETIMEDOUT);
    CHECK_EQ(sem_destroy(&s), 0);
    unlock_or_trap(lib_mutex);
    return NULL;
}
/* The child: a fresh mutex, lib_mutex and new threads work. */
static int fresh_holder_child(void)
{
    pthread_mutex_t m;
    int bad = pthread_mutex_init(&m, NULL) != 0;
    bad |= pthread_mutex_lock(&m) != 0;
    bad |= pthread_mutex_unlock(&m) != 0;
    bad |= pthread_mutex_destroy(&m) != 0;
    bad |= lib_mutex_child() != 0;
    test_run_threads(2, count_worker, &contended_count, 0); /* new threads: contexts from the arena */
    return bad ? 3 : 0;
}

static int forks_with_fresh_holder(void)
{
    if (!find_lib_mutex())
        return test_done("test_fork atfork-fresh-holder");
    CHECK_EQ(pthread_atfork(note_fork_started, NULL, NULL), 0);
    alarm(60); /* a hang in fork() is the failure */
    pthread_t t;
    test_start(&t, fresh_holder, NULL);
    while (!fresh_holds)
        usleep(1000);
    run_child(fresh_holder_child);
    pthread_join(t, NULL);
    return test_done("test_fork atfork-fresh-holder");
}

static int child(void)
{
    int bad = 0;
    bad |= pthread_mutex_lock(&used) != 0;
    bad |= pthread_mutex_unlock(&used) != 0;
    bad |= pthread_mutex_trylock(&never_used) != 0;
    bad |= pthread_mutex_unlock(&never_used) != 0;
    bad |= pthread_mutex_lock(&recursive) != 0;
    bad |= pthread_mutex_lock(&recursive) != 0;
    bad |= pthread_mutex_unlock(&recursive) != 0;
    bad |= pthread_mutex_unlock(&recursive) != 0;
    bad |= pthread_mutex_lock(&contended) != 0;
    bad |= pthread_mutex_unlock(&contended) != 0;
    /* The child can start threads that use the mutexes, too. */
    test_run_threads(2, count_worker, &contended_count, 0);
    return bad ? 3 : 0;
}

int main(int argc, char **argv)
{
    require_interposed((void *)pthread_mutex_lock);
    if (argc > 1 && strcmp(argv[1], "parked") == 0)
        return forks_while_parking();
    if (argc > 1 && strcmp(argv[1], "atfork-contended") == 0)
        return forks_with_contended_handler();
    if (argc > 1 && strcmp(argv[1], "atfork-fresh-holder") == 0)
        return forks_with_fresh_holder();
    CHECK_EQ(pthread_mutex_lock(&used), 0);
    CHECK_EQ(pthread_mutex_unlock(&used), 0);
    test_run_threads(2, count_worker, &contended_count, 0);
    for (int round = 0; round < 3; round++)
        run_child(child);
    fork_while_held();
    atfork_idiom();
    return test_done("test_fork");
}
