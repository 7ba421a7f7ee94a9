/*
 * pthread_rwlock_* under the interposer (LOCKLAB_RWLOCK): run by run_tests.sh rwlock.
 *   static initialisers and the kinds; readers share (overlap seen); writers exclude
 *   (plain data checked under a mixed load); a thread re-takes its read lock while a
 *   writer waits (rdlock, try, timed); EDEADLK / EBUSY / EPERM / EAGAIN cases; timed
 *   and clock variants (ETIMEDOUT; EINVAL for a bad clock or tv_nsec, as glibc, before anything); a process-shared
 *   rwlock shared with a child process (passed to glibc); fork: the forking thread's
 *   write and read holds carry over, a lock another parent thread held for writing
 *   stays held; cancellation: a reader cancelled in its cleanup-protected section
 *   leaves the lock usable.
 *   test_rwlock [glibc]: "glibc" skips the interposer-only expectations (run without
 *   the interposer to check the test against glibc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static int glibc; /* running without the interposer */

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
static void *try_from_other(void *arg)
{
    pthread_rwlock_t *l = (pthread_rwlock_t *)arg;
    long r = pthread_rwlock_trywrlock(l);
    return (void *)r;
}
static void test_errors(void)
{
    pthread_rwlock_t l;
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NP);
    CHECK_EQ(pthread_rwlock_init(&l, &a), 0);
    pthread_rwlockattr_destroy(&a);
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
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    CHECK_EQ(pthread_rwlock_init(l, &a), 0);
    pthread_rwlockattr_destroy(&a);
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
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
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
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(pthread_rwlock_unlock(&fw), 0);
    CHECK_EQ(pthread_rwlock_unlock(&fr), 0);
    pthread_join(ww, NULL);
    atomic_store(&release_other, 1);
    pthread_join(o, NULL);
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

int main(int argc, char **argv)
{
    glibc = argc > 1 && strcmp(argv[1], "glibc") == 0;
    if (!glibc)
        require_interposed((void *)pthread_rwlock_rdlock);
    test_share_and_exclude();
    test_recursive_reader(&rw);
    if (!glibc)
        test_recursive_reader(&rec); /* glibc: a writer-nonrecursive rwlock deadlocks here */
    test_errors();
    test_timed();
    test_pshared();
    if (!glibc)
        test_fork(); /* glibc's child waits for ever for the parent's waiting writer */
    test_cancel();
    return test_done("test_rwlock");
}
