/*
 * pthread_rwlock_* under the interposer (LOCKLAB_RWLOCK): run by run_tests.sh rwlock.
 *   static initialisers and the kinds; readers share (overlap seen); writers exclude
 *   (plain data checked under a mixed load); a thread re-takes its read lock while a
 *   writer waits (rdlock, try, timed); EDEADLK / EBUSY / EPERM / EAGAIN cases; two
 *   rwlocks at once (read holds released in either order, a read hold with the other's
 *   write lock, an unlock by a thread that holds nothing); timed
 *   and clock variants (ETIMEDOUT; EINVAL for a bad clock or tv_nsec, as glibc, before anything); a process-shared
 *   rwlock shared with a child process (passed to glibc); fork: the forking thread's
 *   write and read holds carry over (a re-entered one with its depth; also those of a
 *   thread whose only calls were read locks, which has no thread id), a lock another
 *   parent thread held for writing stays held, a hold of an rwlock initialised again
 *   leaves the child alive; an rwlock destroyed while another thread read-holds it (and
 *   never unlocks) leaves rwlocks initialised afterwards free; cancellation: a reader
 *   cancelled in its cleanup-protected section leaves the lock usable; one thread read-holds 1000 different rwlocks at once (glibc
 *   has no limit; lock coupling down a tree holds many), re-enters some, then releases
 *   them in another order; with 40 held, the 32 of the inline read-held set released newest
 *   first, the other 8 still held (wrlock EDEADLK).
 *   test_rwlock [glibc] [oom|atfork]: "glibc" skips the interposer-only expectations (run
 *   without the interposer to check the test against glibc).  "oom": only this case:
 *   a child process lowers RLIMIT_AS, fills it, then initialises rwlocks (0 or ENOMEM)
 *   and uses never-used ones (their first use): each works and excludes, a read hold
 *   past the thread's inline read-held set answers 0 or EAGAIN (nothing held then), a
 *   thread started before the fill makes its first rwlock calls, and a fork child keeps
 *   the forking thread's holds; no death (the interposer used to _exit(2)).  "atfork":
 *   only this case (atfork_lib.c preloaded after the interposer): that library's fork
 *   handlers hold its rwlock across fork(), and its child handler, which runs before the
 *   interposer's, unlocks it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "oom.h"

static int glibc; /* running without the interposer */

/* A fork child's end: exit 0 if each call answered as wanted, else 1 after a line on the
 * first that did not (write(2), not a stdio stream). */
static void child_exit_checked(const char *what, const int *rc, const int *want, int calls)
{
    for (int i = 0; i < calls; i++)
        if (rc[i] != want[i]) {
            char line[128];
            int n = snprintf(line, sizeof line, "%s: fork child: call %d answered %d, want %d\n", what, i, rc[i], want[i]);
            (void)!write(2, line, (size_t)n);
            _exit(1);
        }
    _exit(0);
}

/* The parent's side: the child ran and exited 0. */
#define CHECK_CHILD_OK(pid)                                                                                            \
    do {                                                                                                               \
        int status_ = 0;                                                                                               \
        CHECK((pid) > 0 && waitpid((pid), &status_, 0) == (pid) && WIFEXITED(status_) && WEXITSTATUS(status_) == 0);  \
    } while (0)

/* ---- readers share, writers exclude ---------------------------------------------------- */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int readers_in, max_readers, violations;
static long data_a, data_b, writes;
static atomic_int stop;

static void *mixed(void *arg)
{
    long id = (long)arg, n = 0;
    while (!atomic_load(&stop)) {
        if ((n++ + id) % 10 == 0) {
            CHECK_EQ(pthread_rwlock_wrlock(&rw), 0);
            if (atomic_load(&readers_in) != 0)
                atomic_fetch_add(&violations, 1);
            long x = data_a + 1;
            data_a = x;
            for (volatile int i = 0; i < 50; i++)
                ;
            data_b = x;
            writes++;
            CHECK_EQ(pthread_rwlock_unlock(&rw), 0);
        } else {
            CHECK_EQ(pthread_rwlock_rdlock(&rw), 0);
            int in = atomic_fetch_add(&readers_in, 1) + 1, m = atomic_load(&max_readers);
            while (in > m && !atomic_compare_exchange_weak(&max_readers, &m, in))
                ;
            long a = *(volatile long *)&data_a;
            for (volatile int i = 0; i < 50; i++)
                ;
            if (*(volatile long *)&data_b != a || *(volatile long *)&data_a != a)
                atomic_fetch_add(&violations, 1);
            atomic_fetch_sub(&readers_in, 1);
            CHECK_EQ(pthread_rwlock_unlock(&rw), 0);
        }
    }
    return NULL;
}

static void *overlap_reader(void *arg)
{
    (void)arg;
    CHECK_EQ(pthread_rwlock_rdlock(&rw), 0);
    atomic_fetch_add(&readers_in, 1);
    for (int i = 0; i < 2000 && atomic_load(&readers_in) < 2; i++) /* at most 2 s */
        test_sleep_ms(1);
    if (atomic_load(&readers_in) >= 2)
        atomic_store(&max_readers, 2);
    test_sleep_ms(5);
    atomic_fetch_sub(&readers_in, 1);
    CHECK_EQ(pthread_rwlock_unlock(&rw), 0);
    return NULL;
}

static void test_share_and_exclude(void)
{
    pthread_t t[6];
    atomic_store(&max_readers, 0);
    for (long i = 0; i < 2; i++)
        test_start(&t[i], overlap_reader, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&max_readers) >= 2); /* readers shared the lock */
    atomic_store(&stop, 0);
    for (long i = 0; i < 6; i++)
        test_start(&t[i], mixed, (void *)i);
    test_sleep_ms(300);
    atomic_store(&stop, 1);
    for (int i = 0; i < 6; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(atomic_load(&violations), 0);
    CHECK_EQ(data_a, writes);
    CHECK(writes > 0);
}

/* ---- a recursive reader while a writer waits ------------------------------------------ */
static pthread_rwlock_t rec = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static atomic_int writer_done;
static void *rec_writer(void *arg)
{
    pthread_rwlock_t *l = (pthread_rwlock_t *)arg;
    CHECK_EQ(pthread_rwlock_wrlock(l), 0);
    atomic_store(&writer_done, 1);
    CHECK_EQ(pthread_rwlock_unlock(l), 0);
    return NULL;
}
static void test_recursive_reader(pthread_rwlock_t *l)
{
    pthread_t w;
    atomic_store(&writer_done, 0);
    CHECK_EQ(pthread_rwlock_rdlock(l), 0);
    test_start(&w, rec_writer, l);
    test_sleep_ms(20); /* the writer waits */
    CHECK_EQ(pthread_rwlock_rdlock(l), 0); /* must not deadlock */
    CHECK_EQ(pthread_rwlock_tryrdlock(l), 0);
    struct timespec d = in_ms(CLOCK_REALTIME, 100);
    CHECK_EQ(pthread_rwlock_timedrdlock(l, &d), 0);
    CHECK_EQ(atomic_load(&writer_done), 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(pthread_rwlock_unlock(l), 0);
    pthread_join(w, NULL);
    CHECK_EQ(atomic_load(&writer_done), 1);
}

/* ---- errors ------------------------------------------------------------------------------ */
static void *try_from_other(void *arg) /* trywrlock's answer; released if it got it */
{
    pthread_rwlock_t *l = (pthread_rwlock_t *)arg;
    long r = pthread_rwlock_trywrlock(l);
    if (r == 0)
        pthread_rwlock_unlock(l);
    return (void *)r;
}
static long try_write_in_thread(pthread_rwlock_t *l) /* -1: no thread */
{
    pthread_t t;
    void *r;
    if (pthread_create(&t, NULL, try_from_other, l) != 0)
        return -1;
    pthread_join(t, &r);
    return (long)r;
}
static void test_errors(void)
{
    pthread_rwlock_t l;
    CHECK_EQ(init_rwlock_with(&l, pthread_rwlockattr_setkind_np, PTHREAD_RWLOCK_PREFER_WRITER_NP), 0);
    CHECK_EQ(pthread_rwlock_wrlock(&l), 0);
    CHECK_EQ(pthread_rwlock_rdlock(&l), EDEADLK); /* glibc too */
    CHECK_EQ(pthread_rwlock_wrlock(&l), EDEADLK);
    CHECK_EQ(pthread_rwlock_tryrdlock(&l), EBUSY);
    CHECK_EQ(pthread_rwlock_trywrlock(&l), EBUSY);
    if (!glibc)
        CHECK_EQ(pthread_rwlock_destroy(&l), EBUSY);
    struct timespec past = {0, 0}, bad = {0, 2000000000L};
    CHECK_EQ(pthread_rwlock_timedrdlock(&l, &past), EDEADLK);
    CHECK_EQ(pthread_rwlock_unlock(&l), 0);
    /* timed against another thread's hold */
    pthread_t t;
    CHECK_EQ(pthread_rwlock_rdlock(&l), 0);
    void *r;
    test_start(&t, try_from_other, &l);
    pthread_join(t, &r);
    CHECK_EQ((long)r, EBUSY);
    if (!glibc) {
        CHECK_EQ(pthread_rwlock_wrlock(&l), EDEADLK); /* glibc hangs here */
        CHECK_EQ(pthread_rwlock_trywrlock(&l), EBUSY);
    }
    CHECK_EQ(pthread_rwlock_timedrdlock(&l, &bad), EINVAL); /* checked even when it would not block (glibc) */
    CHECK_EQ(pthread_rwlock_unlock(&l), 0);
    if (!glibc)
        CHECK_EQ(pthread_rwlock_unlock(&l), EPERM); /* holds nothing */
    CHECK_EQ(pthread_rwlock_destroy(&l), 0);
}

/* ---- two rwlocks at once --------------------------------------------------------------------
 * Read holds of two: the older released first, or the newer; the older re-entered (its
 * release leaves a hold); a read hold on one and the write lock of the other; an unlock by a
 * thread that holds nothing (its first call). */
static pthread_rwlock_t ra = PTHREAD_RWLOCK_INITIALIZER, rb = PTHREAD_RWLOCK_INITIALIZER;
static void *unlock_from_other(void *arg) { return (void *)(long)pthread_rwlock_unlock((pthread_rwlock_t *)arg); }
static long unlock_in_thread(pthread_rwlock_t *l)
{
    pthread_t t;
    void *r;
    test_start(&t, unlock_from_other, l);
    pthread_join(t, &r);
    return (long)r;
}
static void test_two_locks(void)
{
    for (int newer_first = 0; newer_first < 2; newer_first++) {
        pthread_rwlock_t *first = newer_first ? &rb : &ra, *second = newer_first ? &ra : &rb;
        CHECK_EQ(pthread_rwlock_rdlock(&ra), 0);
        CHECK_EQ(pthread_rwlock_rdlock(&rb), 0);
        CHECK_EQ(pthread_rwlock_unlock(first), 0);
        CHECK_EQ(try_write_in_thread(first), 0);
        CHECK_EQ(try_write_in_thread(second), EBUSY);
        CHECK_EQ(pthread_rwlock_unlock(second), 0);
        CHECK_EQ(try_write_in_thread(second), 0);
        if (!glibc)
            CHECK_EQ(pthread_rwlock_unlock(second), EPERM);
    }
    CHECK_EQ(pthread_rwlock_rdlock(&ra), 0); /* the older one re-entered: its release leaves a hold */
    CHECK_EQ(pthread_rwlock_rdlock(&rb), 0);
    CHECK_EQ(pthread_rwlock_rdlock(&ra), 0);
    CHECK_EQ(pthread_rwlock_unlock(&ra), 0);
    CHECK_EQ(try_write_in_thread(&ra), EBUSY);
    CHECK_EQ(try_write_in_thread(&rb), EBUSY);
    CHECK_EQ(pthread_rwlock_unlock(&ra), 0);
    CHECK_EQ(try_write_in_thread(&ra), 0);
    CHECK_EQ(pthread_rwlock_wrlock(&ra), 0); /* another rwlock's read hold: no EDEADLK */
    CHECK_EQ(pthread_rwlock_rdlock(&ra), EDEADLK);
    CHECK_EQ(pthread_rwlock_tryrdlock(&ra), EBUSY);
    CHECK_EQ(pthread_rwlock_trywrlock(&ra), EBUSY);
    CHECK_EQ(pthread_rwlock_rdlock(&rb), 0); /* a re-entry */
    CHECK_EQ(pthread_rwlock_unlock(&rb), 0);
    if (!glibc) { /* glibc's unlock by a non-holder releases a read hold it does not have */
        CHECK_EQ(unlock_in_thread(&ra), EPERM);
        CHECK_EQ(unlock_in_thread(&rb), EPERM);
    }
    CHECK_EQ(try_write_in_thread(&ra), EBUSY);
    CHECK_EQ(try_write_in_thread(&rb), EBUSY);
    CHECK_EQ(pthread_rwlock_unlock(&rb), 0);
    CHECK_EQ(try_write_in_thread(&rb), 0);
    CHECK_EQ(try_write_in_thread(&ra), EBUSY);
    CHECK_EQ(pthread_rwlock_unlock(&ra), 0);
    CHECK_EQ(try_write_in_thread(&ra), 0);
}

/* ---- timed --------------------------------------------------------------------------------- */
static pthread_rwlock_t tl = PTHREAD_RWLOCK_INITIALIZER;
static void *timed_other(void *arg)
{
    long mode = (long)arg;
    struct timespec d = in_ms(CLOCK_MONOTONIC, 50), bad = {0, -1};
    long r1 = mode ? pthread_rwlock_clockwrlock(&tl, CLOCK_MONOTONIC, &d) : pthread_rwlock_clockrdlock(&tl, CLOCK_MONOTONIC, &d);
    long r2 = mode ? pthread_rwlock_timedwrlock(&tl, &bad) : pthread_rwlock_timedrdlock(&tl, &bad);
    long r3 = pthread_rwlock_clockwrlock(&tl, CLOCK_PROCESS_CPUTIME_ID, &d);
    return (void *)(r1 | r2 << 8 | r3 << 16);
}
static void test_timed(void)
{
    CHECK_EQ(pthread_rwlock_wrlock(&tl), 0);
    for (long mode = 0; mode < 2; mode++) {
        pthread_t t;
        void *r;
        test_start(&t, timed_other, (void *)mode);
        pthread_join(t, &r);
        CHECK_EQ((long)r & 0xff, ETIMEDOUT);
        CHECK_EQ(((long)r >> 8) & 0xff, EINVAL);
        CHECK_EQ(((long)r >> 16) & 0xff, EINVAL);
    }
    CHECK_EQ(pthread_rwlock_unlock(&tl), 0);
    struct timespec d = in_ms(CLOCK_REALTIME, 50);
    CHECK_EQ(pthread_rwlock_timedwrlock(&tl, &d), 0);
    CHECK_EQ(pthread_rwlock_unlock(&tl), 0);
}

/* ---- process-shared --------------------------------------------------------------------- */
static void test_pshared(void)
{
    pthread_rwlock_t *l = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    long *shared = (long *)(l + 1);
    CHECK_EQ(init_rwlock_with(l, pthread_rwlockattr_setpshared, PTHREAD_PROCESS_SHARED), 0);
    CHECK_EQ(pthread_rwlock_wrlock(l), 0);
    pid_t pid = fork();
    if (pid == 0) {
        int rc = pthread_rwlock_wrlock(l); /* waits for the parent's unlock: a real cross-process lock */
        *shared += 1;
        pthread_rwlock_unlock(l);
        _exit(rc == 0 && *shared == 2 ? 0 : 1);
    }
    test_sleep_ms(50);
    *shared = 1;
    CHECK_EQ(pthread_rwlock_unlock(l), 0);
    CHECK_CHILD_OK(pid);
    CHECK_EQ(*shared, 2);
    CHECK_EQ(pthread_rwlock_destroy(l), 0);
    munmap(l, 4096);
}

/* ---- fork -------------------------------------------------------------------------------- */
static pthread_rwlock_t fw = PTHREAD_RWLOCK_INITIALIZER, fr = PTHREAD_RWLOCK_INITIALIZER,
                        fo = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int other_holds, release_other;
static void *hold_other(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&fo);
    atomic_store(&other_holds, 1);
    while (!atomic_load(&release_other))
        test_sleep_ms(1);
    pthread_rwlock_unlock(&fo);
    return NULL;
}
static void *waiting_writer(void *arg)
{
    pthread_rwlock_wrlock((pthread_rwlock_t *)arg); /* queued behind the reader at the fork */
    pthread_rwlock_unlock((pthread_rwlock_t *)arg);
    return NULL;
}
static void *child_reader(void *arg)
{
    long r = pthread_rwlock_tryrdlock((pthread_rwlock_t *)arg);
    if (r == 0)
        pthread_rwlock_unlock((pthread_rwlock_t *)arg);
    return (void *)r;
}
static void test_fork(void)
{
    pthread_t o, ww;
    test_start(&o, hold_other, NULL);
    while (!atomic_load(&other_holds))
        test_sleep_ms(1);
    CHECK_EQ(pthread_rwlock_wrlock(&fw), 0);
    CHECK_EQ(pthread_rwlock_rdlock(&fr), 0);
    test_start(&ww, waiting_writer, &fr); /* a parent writer waits on fr at the fork */
    test_sleep_ms(20);
    pid_t pid = fork();
    if (pid == 0) {
        int bad = 0;
        bad |= pthread_rwlock_trywrlock(&fo) != EBUSY;  /* another parent thread's write hold: held */
        bad |= pthread_rwlock_unlock(&fw) != 0;         /* our write hold carries over */
        bad |= pthread_rwlock_unlock(&fr) != 0;         /* our read hold carries over */
        pthread_t t;
        void *r;
        pthread_create(&t, NULL, child_reader, &fr); /* the parent's waiting writer is gone */
        pthread_join(t, &r);
        bad |= r != 0;
        bad |= pthread_rwlock_wrlock(&fw) != 0 || pthread_rwlock_unlock(&fw) != 0;
        bad |= pthread_rwlock_wrlock(&fr) != 0 || pthread_rwlock_unlock(&fr) != 0;
        _exit(bad);
    }
    CHECK_CHILD_OK(pid);
    CHECK_EQ(pthread_rwlock_unlock(&fw), 0);
    CHECK_EQ(pthread_rwlock_unlock(&fr), 0);
    pthread_join(ww, NULL);
    atomic_store(&release_other, 1);
    pthread_join(o, NULL);
}

/* A thread whose only calls before the fork were read locks of an rwlock in use (the fast
 * path, which gives it no thread id) forks: in the child its read hold carries over when it
 * re-takes the lock first (the first call that gives it an id). */
static pthread_rwlock_t fq = PTHREAD_RWLOCK_INITIALIZER;
static void *fork_as_reader_only(void *arg)
{
    (void)arg;
    CHECK_EQ(pthread_rwlock_rdlock(&fq), 0); /* this thread's first call (on a lock already in use) */
    pid_t pid = fork();
    if (pid == 0) {
        int rc[6];
        rc[0] = pthread_rwlock_rdlock(&fq); /* a re-entry: the lock placed anew with our hold */
        rc[1] = (int)try_write_in_thread(&fq);
        rc[2] = pthread_rwlock_unlock(&fq);
        rc[3] = (int)try_write_in_thread(&fq); /* the pre-fork hold */
        rc[4] = pthread_rwlock_unlock(&fq);
        rc[5] = (int)try_write_in_thread(&fq); /* released */
        static const int want[6] = {0, EBUSY, 0, EBUSY, 0, 0};
        child_exit_checked("fork, a reader only", rc, want, 6);
    }
    CHECK_CHILD_OK(pid);
    CHECK_EQ(pthread_rwlock_unlock(&fq), 0);
    return NULL;
}
/* The forking thread holds a read lock, and in the child another thread uses the lock first:
 * the hold carried over all the same (the child's fork handler placed the lock anew with it),
 * and its release frees the lock. */
static pthread_rwlock_t fo2 = PTHREAD_RWLOCK_INITIALIZER;
static void test_fork_other_first(void)
{
    CHECK_EQ(pthread_rwlock_rdlock(&fo2), 0);
    pid_t pid = fork();
    if (pid == 0) {
        int rc[4];
        rc[0] = (int)try_write_in_thread(&fo2); /* another child thread first: our hold is in */
        rc[1] = pthread_rwlock_unlock(&fo2);
        rc[2] = (int)try_write_in_thread(&fo2); /* released: free */
        rc[3] = (int)try_write_in_thread(&fo2);
        static const int want[4] = {EBUSY, 0, 0, 0};
        child_exit_checked("fork, another child thread first", rc, want, 4);
    }
    CHECK_CHILD_OK(pid);
    CHECK_EQ(pthread_rwlock_unlock(&fo2), 0);
}

/* The forking thread holds a read lock twice (a re-entry): both holds carry over, so the
 * lock stays read-held until the child's second unlock. */
static pthread_rwlock_t fd2 = PTHREAD_RWLOCK_INITIALIZER;
static void test_fork_recursive_reader(void)
{
    CHECK_EQ(pthread_rwlock_rdlock(&fd2), 0);
    CHECK_EQ(pthread_rwlock_rdlock(&fd2), 0);
    pid_t pid = fork();
    if (pid == 0) {
        int rc[4];
        rc[0] = pthread_rwlock_unlock(&fd2);
        rc[1] = (int)try_write_in_thread(&fd2); /* one hold left */
        rc[2] = pthread_rwlock_unlock(&fd2);
        rc[3] = (int)try_write_in_thread(&fd2); /* released: free */
        static const int want[4] = {0, EBUSY, 0, 0};
        child_exit_checked("fork, a reader twice", rc, want, 4);
    }
    CHECK_CHILD_OK(pid);
    CHECK_EQ(pthread_rwlock_unlock(&fd2), 0);
    CHECK_EQ(pthread_rwlock_unlock(&fd2), 0);
}

/* A thread holds a read lock and initialises it again (misuse, which glibc lets pass: the
 * rwlock starts afresh, unlocked), then forks: the child lives (its fork handler has no lock
 * to place for that forgotten hold). */
static pthread_rwlock_t fx = PTHREAD_RWLOCK_INITIALIZER;
static void *fork_after_reinit(void *arg)
{
    (void)arg;
    CHECK_EQ(pthread_rwlock_rdlock(&fx), 0);
    CHECK_EQ(pthread_rwlock_init(&fx, NULL), 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    CHECK_CHILD_OK(pid);
    return NULL; /* the forgotten hold ends with this thread */
}
static void test_fork_after_reinit(void)
{
    pthread_t t;
    test_start(&t, fork_after_reinit, NULL);
    pthread_join(t, NULL);
    CHECK_EQ(try_write_in_thread(&fx), 0);
}

static void test_fork_reader_only(void)
{
    pthread_t t;
    CHECK_EQ(pthread_rwlock_rdlock(&fq), 0); /* its object placed: the thread's rdlock takes the fast path */
    CHECK_EQ(pthread_rwlock_unlock(&fq), 0);
    test_start(&t, fork_as_reader_only, NULL);
    pthread_join(t, NULL);
}

/* ---- destroyed while another thread read-holds it ---------------------------------------- */
/* Misuse glibc survives (its destroy does nothing): a thread destroys an rwlock another still
 * read-holds and never unlocks.  Rwlocks initialised afterwards (which may get the destroyed
 * one's lock object back) must exclude nothing: trywrlock succeeds on each. */
static pthread_rwlock_t dr;
static atomic_int dr_phase;
static void *read_and_stay(void *arg)
{
    (void)arg;
    CHECK_EQ(pthread_rwlock_rdlock(&dr), 0);
    atomic_store(&dr_phase, 1);
    while (atomic_load(&dr_phase) != 2)
        test_sleep_ms(1);
    return NULL; /* never unlocks */
}
static void test_destroy_read_held(void)
{
    CHECK_EQ(pthread_rwlock_init(&dr, NULL), 0);
    pthread_t t;
    test_start(&t, read_and_stay, NULL);
    while (atomic_load(&dr_phase) != 1)
        test_sleep_ms(1);
    CHECK_EQ(pthread_rwlock_destroy(&dr), 0);
    for (int i = 0; i < 4; i++) {
        pthread_rwlock_t *l = malloc(sizeof *l);
        CHECK_EQ(pthread_rwlock_init(l, NULL), 0);
        CHECK_EQ(pthread_rwlock_trywrlock(l), 0);
        CHECK_EQ(pthread_rwlock_unlock(l), 0);
        CHECK_EQ(pthread_rwlock_destroy(l), 0);
        free(l);
    }
    atomic_store(&dr_phase, 2);
    pthread_join(t, NULL);
}

/* ---- cancellation ------------------------------------------------------------------------ */
static pthread_rwlock_t cl = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int reader_in;
static void unlock_cleanup(void *l) { pthread_rwlock_unlock((pthread_rwlock_t *)l); }
static void *cancelled_reader(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&cl);
    pthread_cleanup_push(unlock_cleanup, &cl);
    atomic_store(&reader_in, 1);
    for (;;)
        test_sleep_ms(1); /* a cancellation point */
    pthread_cleanup_pop(1);
    return NULL;
}
static void test_cancel(void)
{
    pthread_t t;
    test_start(&t, cancelled_reader, NULL);
    while (!atomic_load(&reader_in))
        test_sleep_ms(1);
    pthread_cancel(t);
    pthread_join(t, NULL);
    struct timespec d = in_ms(CLOCK_REALTIME, 2000);
    CHECK_EQ(pthread_rwlock_timedwrlock(&cl, &d), 0); /* the cancelled reader's hold is gone */
    CHECK_EQ(pthread_rwlock_unlock(&cl), 0);
}

/* ---- many read locks held at once by one thread ---------------------------------------- */
enum { MANY = 1000 };
static pthread_rwlock_t many[MANY];
static void *try_write_all(void *arg)
{
    long want = (long)arg; /* EBUSY: every one is read-held; 0: none is */
    for (int i = 0; i < MANY; i++) {
        int rc = pthread_rwlock_trywrlock(&many[i]);
        if (rc != want) {
            fprintf(stderr, "many: trywrlock of rwlock %d from another thread = %d, want %ld\n", i, rc, want);
            atomic_fetch_add(&violations, 1);
        }
        if (rc == 0)
            CHECK_EQ(pthread_rwlock_unlock(&many[i]), 0);
    }
    return NULL;
}
static void test_many_read_holds(void)
{
    pthread_t t;
    atomic_store(&violations, 0);
    for (int i = 0; i < MANY; i++)
        CHECK_EQ(pthread_rwlock_init(&many[i], NULL), 0);
    for (int i = 0; i < MANY; i++)
        CHECK_EQ(pthread_rwlock_rdlock(&many[i]), 0);
    for (int i = 0; i < MANY; i += 7) { /* re-entries, found anywhere in the set */
        CHECK_EQ(pthread_rwlock_rdlock(&many[i]), 0);
        CHECK_EQ(pthread_rwlock_tryrdlock(&many[i]), 0);
    }
    test_start(&t, try_write_all, (void *)(long)EBUSY);
    pthread_join(t, NULL);
    if (!glibc)
        for (int i = 0; i < MANY; i += 97)
            CHECK_EQ(pthread_rwlock_wrlock(&many[i]), EDEADLK); /* a read holder (glibc hangs) */
    for (int i = 0; i < MANY; i += 7) { /* the re-entries: the holds stay */
        CHECK_EQ(pthread_rwlock_unlock(&many[i]), 0);
        CHECK_EQ(pthread_rwlock_unlock(&many[i]), 0);
    }
    test_start(&t, try_write_all, (void *)(long)EBUSY);
    pthread_join(t, NULL);
    for (int i = 1; i < MANY; i += 2) /* odd ones first, oldest first; then even, newest first */
        CHECK_EQ(pthread_rwlock_unlock(&many[i]), 0);
    for (int i = (MANY - 1) / 2 * 2; i >= 0; i -= 2)
        CHECK_EQ(pthread_rwlock_unlock(&many[i]), 0);
    if (!glibc)
        for (int i = 0; i < MANY; i += 13)
            CHECK_EQ(pthread_rwlock_unlock(&many[i]), EPERM); /* holds nothing now */
    test_start(&t, try_write_all, (void *)0L);
    pthread_join(t, NULL);
    CHECK_EQ(atomic_load(&violations), 0);
    for (int i = 0; i < MANY; i++)
        CHECK_EQ(pthread_rwlock_destroy(&many[i]), 0);
}

/* Past the inline read-held set (LL_RW_HELD_INLINE, 32 in include/locklab/rwlock.h): with
 * the overflow in use, the inline entries released newest first, then the overflow's locks
 * are still known as held (wrlock: EDEADLK, not a wait for ever) and still held. */
enum { INLINE = 32, EDGE = INLINE + 8 };
static pthread_rwlock_t edge[EDGE];
static void test_overflow_edge(void)
{
    for (int i = 0; i < EDGE; i++)
        CHECK_EQ(pthread_rwlock_init(&edge[i], NULL), 0);
    for (int i = 0; i < EDGE; i++)
        CHECK_EQ(pthread_rwlock_rdlock(&edge[i]), 0);
    for (int i = INLINE; i-- > 0;)
        CHECK_EQ(pthread_rwlock_unlock(&edge[i]), 0);
    for (int i = INLINE; i < EDGE; i++) {
        struct timespec d = in_ms(CLOCK_MONOTONIC, 100);
        if (!glibc) /* glibc waits for itself */
            CHECK_EQ(pthread_rwlock_clockwrlock(&edge[i], CLOCK_MONOTONIC, &d), EDEADLK);
        CHECK_EQ(try_write_in_thread(&edge[i]), EBUSY);
    }
    CHECK_EQ(try_write_in_thread(&edge[0]), 0);
    for (int i = INLINE; i < EDGE; i++)
        CHECK_EQ(pthread_rwlock_unlock(&edge[i]), 0);
    for (int i = 0; i < EDGE; i++) {
        CHECK_EQ(try_write_in_thread(&edge[i]), 0);
        CHECK_EQ(pthread_rwlock_destroy(&edge[i]), 0);
    }
}

/* ---- out of memory ---------------------------------------------------------------------- */
enum { FRESH = 2000, INITED = 64, HOLD = 200, ROUNDS = 2000 };
/* Static storage: zeros, which is PTHREAD_RWLOCK_INITIALIZER on glibc; each never used before
 * the address space is full, so its first use installs its lock object then. */
static pthread_rwlock_t fresh[FRESH], inited[INITED];
static pthread_rwlock_t *shared_rw = &fresh[FRESH - 1];
static long counter;

static void add_rounds(void)
{
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_EQ(pthread_rwlock_wrlock(shared_rw), 0);
        long c = counter;
        for (volatile int k = 0; k < 20; k++)
            ;
        counter = c + 1;
        CHECK_EQ(pthread_rwlock_unlock(shared_rw), 0);
        CHECK_EQ(pthread_rwlock_rdlock(shared_rw), 0);
        c = *(volatile long *)&counter;
        for (volatile int k = 0; k < 20; k++)
            ;
        if (*(volatile long *)&counter != c)
            atomic_fetch_add(&violations, 1); /* a writer inside with a reader */
        CHECK_EQ(pthread_rwlock_unlock(shared_rw), 0);
    }
}

static int oom_child(void)
{
    oom_late late; /* its first rwlock calls (its per-thread data): add_rounds, against this thread's */
    oom_late_start(&late, add_rounds);
    size_t mapped;
    if (oom_fill_address_space(&mapped) != 0)
        return 1;
    /* init answers 0 or ENOMEM (POSIX allows it) */
    int ok = 0, enomem = 0;
    for (int i = 0; i < INITED; i++)
        CHECK_EQ(oom_count_init(pthread_rwlock_init(&inited[i], NULL), &ok, &enomem), 0);
    /* each fresh rwlock's first use, then every verb */
    for (int i = 0; i < FRESH - 1; i++) {
        pthread_rwlock_t *l = &fresh[i];
        CHECK_EQ(i % 2 ? pthread_rwlock_rdlock(l) : pthread_rwlock_tryrdlock(l), 0);
        CHECK_EQ(pthread_rwlock_rdlock(l), 0);
        CHECK_EQ(pthread_rwlock_trywrlock(l), EBUSY);
        CHECK_EQ(pthread_rwlock_unlock(l), 0);
        CHECK_EQ(pthread_rwlock_unlock(l), 0);
        CHECK_EQ(pthread_rwlock_wrlock(l), 0);
        CHECK_EQ(pthread_rwlock_tryrdlock(l), EBUSY);
        CHECK_EQ(pthread_rwlock_trywrlock(l), EBUSY);
        CHECK_EQ(pthread_rwlock_unlock(l), 0);
        struct timespec d = in_ms(CLOCK_MONOTONIC, 1000);
        CHECK_EQ(pthread_rwlock_clockwrlock(l, CLOCK_MONOTONIC, &d), 0);
        CHECK_EQ(pthread_rwlock_unlock(l), 0);
    }
    /* HOLD read locks at once: past the inline read-held set the interposer needs a page;
     * 0 (held) or EAGAIN (POSIX: too many read locks; nothing held), never anything else */
    int held = 0, eagain = 0;
    static int got[HOLD];
    for (int i = 0; i < HOLD; i++) {
        got[i] = pthread_rwlock_rdlock(&fresh[i]);
        if (got[i] == 0) {
            held++;
        } else if (got[i] == EAGAIN) {
            eagain++;
            CHECK_EQ(pthread_rwlock_trywrlock(&fresh[i]), 0); /* not held */
            CHECK_EQ(pthread_rwlock_unlock(&fresh[i]), 0);
        } else {
            CHECK_EQ(got[i], 0);
        }
    }
    CHECK(held >= 32);
    for (int i = HOLD; i-- > 0;)
        if (got[i] == 0)
            CHECK_EQ(pthread_rwlock_unlock(&fresh[i]), 0);
    /* the late thread's first calls, against this thread's */
    counter = 0;
    atomic_store(&violations, 0);
    oom_late_go(&late);
    add_rounds();
    pthread_join(late.thread, NULL);
    CHECK_EQ(counter, 2 * ROUNDS);
    CHECK_EQ(atomic_load(&violations), 0);
    /* fork: the forking thread's write and read holds carry over to the child */
    CHECK_EQ(pthread_rwlock_wrlock(&fresh[0]), 0);
    CHECK_EQ(pthread_rwlock_rdlock(&fresh[1]), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int rc[8] = {EBUSY, 0, 0, 0}; /* in this order (an initialiser list's order is unspecified) */
        if (!glibc) { /* glibc's child cannot unlock it: its unlock tells a writer by thread id */
            rc[0] = pthread_rwlock_tryrdlock(&fresh[0]); /* write-held: carried over */
            rc[1] = pthread_rwlock_unlock(&fresh[0]);
            rc[2] = pthread_rwlock_trywrlock(&fresh[0]);
            rc[3] = pthread_rwlock_unlock(&fresh[0]);
        }
        rc[4] = pthread_rwlock_trywrlock(&fresh[1]); /* read-held: carried over */
        rc[5] = pthread_rwlock_unlock(&fresh[1]);
        rc[6] = pthread_rwlock_trywrlock(&fresh[1]);
        rc[7] = pthread_rwlock_unlock(&fresh[1]);
        static const int want[8] = {EBUSY, 0, 0, 0, EBUSY, 0, 0, 0};
        child_exit_checked("oom", rc, want, 8);
    }
    if (pid > 0) {
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "oom: fork child: holds did not carry over (status %#x)\n", status);
            failures++;
        }
    } /* else fork failed for want of memory: nothing to check */
    CHECK_EQ(pthread_rwlock_unlock(&fresh[0]), 0);
    CHECK_EQ(pthread_rwlock_unlock(&fresh[1]), 0);
    for (int i = 0; i < INITED; i++) { /* those init answered 0 for, then the ENOMEM ones: all work */
        CHECK_EQ(pthread_rwlock_rdlock(&inited[i]), 0);
        CHECK_EQ(pthread_rwlock_trywrlock(&inited[i]), EBUSY);
        CHECK_EQ(pthread_rwlock_unlock(&inited[i]), 0);
        CHECK_EQ(pthread_rwlock_wrlock(&inited[i]), 0);
        CHECK_EQ(pthread_rwlock_unlock(&inited[i]), 0);
        CHECK_EQ(pthread_rwlock_destroy(&inited[i]), 0);
    }
    for (int i = 0; i < FRESH; i++)
        CHECK_EQ(pthread_rwlock_destroy(&fresh[i]), 0);
    printf("oom: %zu MiB mapped to fill; %d inits 0, %d ENOMEM; %d read holds at once, %d EAGAIN; fork %s\n",
           mapped >> 20, ok, enomem, held, eagain, pid > 0 ? "checked" : "failed (not checked)");
    return test_done("test_rwlock oom");
}

static int case_oom(void)
{
    alarm(60); /* a hang fails the test */
    return oom_run_child(oom_child);
}

/* "atfork" (run with atfork_lib.c preloaded after the interposer): that library's fork handlers
 * read- or write-lock its rwlock before the fork and unlock it after; its child handler, registered
 * before the interposer's, runs before them.  The forking thread's hold carries over to it all the
 * same, and its unlock frees the lock. */
static int case_atfork(void)
{
    pthread_rwlock_t *l = (pthread_rwlock_t *)dlsym(RTLD_DEFAULT, "atfork_lib_rwlock");
    volatile char *mode = (volatile char *)dlsym(RTLD_DEFAULT, "atfork_lib_rwlock_mode");
    CHECK(l != NULL && mode != NULL);
    if (!l || !mode)
        return test_done("test_rwlock atfork");
    CHECK_EQ(pthread_rwlock_wrlock(l), 0); /* the lock in use, and this thread known (a write hold) */
    CHECK_EQ(pthread_rwlock_unlock(l), 0);
    static const char modes[] = {'r', 'w'};
    /* glibc's own write unlock in a child misfires (it compares the writer with the thread's
     * tid, which the fork changed): the read hold only */
    for (size_t i = 0; i < (glibc ? 1 : sizeof modes); i++) {
        *mode = modes[i];
        pid_t pid = fork();
        if (pid == 0) {
            int rc[5];
            rc[0] = (int)try_write_in_thread(l); /* the child handler's unlock freed it */
            rc[1] = pthread_rwlock_rdlock(l);
            rc[2] = (int)try_write_in_thread(l);
            rc[3] = pthread_rwlock_unlock(l);
            rc[4] = (int)try_write_in_thread(l);
            static const int want[5] = {0, 0, EBUSY, 0, 0};
            child_exit_checked(modes[i] == 'r' ? "atfork_lib's read hold" : "atfork_lib's write hold", rc, want, 5);
        }
        CHECK_CHILD_OK(pid);
        *mode = 0;
        CHECK_EQ(try_write_in_thread(l), 0); /* the parent handler's unlock freed it */
    }
    return test_done("test_rwlock atfork");
}

int main(int argc, char **argv)
{
    int arg = 1;
    glibc = argc > arg && strcmp(argv[arg], "glibc") == 0;
    arg += glibc;
    if (!glibc)
        require_interposed((void *)pthread_rwlock_rdlock);
    if (argc > arg && strcmp(argv[arg], "oom") == 0)
        return case_oom();
    if (argc > arg && strcmp(argv[arg], "atfork") == 0)
        return case_atfork();
    if (argc > arg) {
        fprintf(stderr, "usage: test_rwlock [glibc] [oom|atfork] (bad argument '%s')\n", argv[arg]);
        return 2;
    }
    test_share_and_exclude();
    test_recursive_reader(&rw);
    if (!glibc)
        test_recursive_reader(&rec); /* glibc: a writer-nonrecursive rwlock deadlocks here */
    test_errors();
    test_two_locks();
    test_timed();
    test_pshared();
    if (!glibc)
        test_fork(); /* glibc's child waits for ever for the parent's waiting writer */
    test_fork_reader_only();
    test_fork_other_first();
    test_fork_recursive_reader();
    test_fork_after_reinit();
    test_destroy_read_held();
    test_cancel();
    test_many_read_holds();
    test_overflow_edge();
    return test_done("test_rwlock");
}
