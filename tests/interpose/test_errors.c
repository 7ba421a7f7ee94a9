/*
 * The answers POSIX specifies, and glibc gives, for the calls of every interposed
 * family: error numbers (EBUSY, EDEADLK, EPERM, EINVAL, ETIMEDOUT, EAGAIN,
 * EOVERFLOW, ENOTRECOVERABLE, EOWNERDEAD), the values returned (a barrier's one
 * serial thread, a semaphore's value, attributes read back) and what holds after
 * (a timed-out condition wait holds its mutex again; a lock, timed lock, barrier or
 * condition wait interrupted by signal handlers goes on waiting), as conformance
 * suites check them.  The program prints one line per check, "name: answer"; run_tests.sh
 * (case errors) runs it under glibc and under the interposer with each lock, and
 * every line must be glibc's.  It asserts nothing itself, except that the
 * interposer is loaded when it is not told "glibc": the reference is glibc's run.
 * No misuse whose outcome POSIX leaves open and glibc does not settle: the undefined
 * calls kept are the destroy of a held mutex, which glibc answers EBUSY (as POSIX once
 * required), and objects initialised or destroyed twice and a mutex used after its
 * destroy (reinit), which programs do by accident and glibc answers the same every run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

typedef struct named { /* a table row: a type or kind and its name in the lines */
    const char *name;
    int value;
} named;

static void say(const char *name, long answer) { printf("%s: %ld\n", name, answer); }
/* "WHAT ROW CHECK: answer", for a section's table of rows */
static void say_row(const char *what, const char *row, const char *check, long answer)
{
    printf("%s %s %s: %ld\n", what, row, check, answer);
}
#define ROWS(i, table) (size_t i = 0; i < sizeof table / sizeof table[0]; i++)

static const struct timespec bad_nsec = {0, 1000000000L}; /* tv_nsec out of range */
static const struct timespec neg_nsec = {0, -1L};

/* Run fn(arg) on another thread and return its int answer. */
typedef int (*other_fn)(void *);
typedef struct other_call {
    other_fn fn;
    void *arg;
    int answer;
} other_call;
static void *other_main(void *p)
{
    other_call *c = p;
    c->answer = c->fn(c->arg);
    return NULL;
}
static int on_other(other_fn fn, void *arg)
{
    other_call c = {fn, arg, -1};
    pthread_t t;
    if (pthread_create(&t, NULL, other_main, &c) != 0)
        return -2;
    pthread_join(t, NULL);
    return c.answer;
}
/* int NAME(void *p): the answer of CALL, a call on p with t, a deadline MS ms from now
 * (CLOCK_REALTIME), taken when the call starts. */
#define WITH_DEADLINE(NAME, MS, CALL)                  \
    static int NAME(void *p)                           \
    {                                                  \
        struct timespec t = in_ms(CLOCK_REALTIME, (MS));  \
        return CALL;                                   \
    }
/* int NAME(void *p): the answer of TAKE (a call on p), and if it is OK (the lock was taken),
 * the lock given back by GIVE: a thread that ends holding a lock would change later answers. */
#define TAKE_GIVE_BACK(NAME, TAKE, OK, GIVE) \
    static int NAME(void *p)                 \
    {                                        \
        int rc = (TAKE);                     \
        if (rc == (OK))                      \
            GIVE;                            \
        return rc;                           \
    }
#define SPIN(p) ((pthread_spinlock_t *)(p))
TAKE_GIVE_BACK(other_tryrd, pthread_rwlock_tryrdlock(p), 0, pthread_rwlock_unlock(p))
TAKE_GIVE_BACK(lock_unlock, pthread_mutex_lock(p), 0, pthread_mutex_unlock(p))
TAKE_GIVE_BACK(wrlock_unlock, pthread_rwlock_wrlock(p), 0, pthread_rwlock_unlock(p))
TAKE_GIVE_BACK(rdlock_unlock, pthread_rwlock_rdlock(p), 0, pthread_rwlock_unlock(p))
TAKE_GIVE_BACK(spin_lock_unlock, pthread_spin_lock(SPIN(p)), 0, pthread_spin_unlock(SPIN(p)))
TAKE_GIVE_BACK(mtx_lock_unlock, mtx_lock(p), thrd_success, mtx_unlock(p))
TAKE_GIVE_BACK(try_mutex_release, pthread_mutex_trylock(p), 0, pthread_mutex_unlock(p))
TAKE_GIVE_BACK(try_wr_release, pthread_rwlock_trywrlock(p), 0, pthread_rwlock_unlock(p))
TAKE_GIVE_BACK(try_spin_release, pthread_spin_trylock(SPIN(p)), 0, pthread_spin_unlock(SPIN(p)))
TAKE_GIVE_BACK(try_mtx_release, mtx_trylock(p), thrd_success, mtx_unlock(p))

static int other_trylock(void *m) { return pthread_mutex_trylock(m); }
static int other_unlock(void *m) { return pthread_mutex_unlock(m); }
WITH_DEADLINE(other_timedlock, 20, pthread_mutex_timedlock(p, &t))
static int other_timedlock_bad(void *m) { return pthread_mutex_timedlock(m, &bad_nsec); }
WITH_DEADLINE(other_clocklock_bad_clock, 20, pthread_mutex_clocklock(p, CLOCK_PROCESS_CPUTIME_ID, &t))
static int other_lock_exit(void *m) { return pthread_mutex_lock(m); } /* returns holding m */

static void mutexes(void)
{
    static const named types[] = {{"normal", PTHREAD_MUTEX_NORMAL},
                 {"errorcheck", PTHREAD_MUTEX_ERRORCHECK},
                 {"recursive", PTHREAD_MUTEX_RECURSIVE},
                 {"default", PTHREAD_MUTEX_DEFAULT},
                 {"adaptive", PTHREAD_MUTEX_ADAPTIVE_NP}};
    for ROWS(i, types) {
        pthread_mutex_t m;
#define SAY(check, answer) say_row("mutex", types[i].name, check, answer)
        SAY("init", init_mutex_of_type(&m, types[i].value));
        SAY("lock", pthread_mutex_lock(&m));
        SAY("trylock by another", on_other(other_trylock, &m));
        SAY("timedlock by another", on_other(other_timedlock, &m));
        SAY("timedlock by another, tv_nsec 10^9", on_other(other_timedlock_bad, &m));
        SAY("clocklock by another, CPU-time clock", on_other(other_clocklock_bad_clock, &m));
        if (types[i].value == PTHREAD_MUTEX_ERRORCHECK) {
            SAY("relock", pthread_mutex_lock(&m));
            SAY("trylock by owner", pthread_mutex_trylock(&m));
            struct timespec t = in_ms(CLOCK_REALTIME, 20);
            SAY("timedlock by owner", pthread_mutex_timedlock(&m, &t));
        }
        if (types[i].value == PTHREAD_MUTEX_RECURSIVE) {
            SAY("relock", pthread_mutex_lock(&m));
            SAY("trylock by owner", pthread_mutex_trylock(&m));
            struct timespec t = in_ms(CLOCK_REALTIME, 20);
            SAY("timedlock by owner", pthread_mutex_timedlock(&m, &t));
            SAY("unlock 1", pthread_mutex_unlock(&m));
            SAY("unlock 2", pthread_mutex_unlock(&m));
            SAY("unlock 3", pthread_mutex_unlock(&m));
            SAY("trylock by another, still held once", on_other(other_trylock, &m));
        }
        if (types[i].value == PTHREAD_MUTEX_ERRORCHECK || types[i].value == PTHREAD_MUTEX_RECURSIVE)
            SAY("unlock by another", on_other(other_unlock, &m));
        SAY("destroy while held", pthread_mutex_destroy(&m));
        SAY("unlock", pthread_mutex_unlock(&m));
        if (types[i].value == PTHREAD_MUTEX_ERRORCHECK || types[i].value == PTHREAD_MUTEX_RECURSIVE)
            SAY("unlock when unlocked", pthread_mutex_unlock(&m));
        SAY("trylock", pthread_mutex_trylock(&m));
        SAY("unlock after trylock", pthread_mutex_unlock(&m));
        SAY("timedlock, free, tv_nsec 10^9", pthread_mutex_timedlock(&m, &bad_nsec));
        SAY("unlock after timedlock", pthread_mutex_unlock(&m));
        struct timespec past = in_ms(CLOCK_MONOTONIC, -1000);
        SAY("clocklock monotonic, free, past deadline", pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &past));
        SAY("unlock after clocklock", pthread_mutex_unlock(&m));
        SAY("destroy", pthread_mutex_destroy(&m));
#undef SAY
    }
    pthread_mutex_t s = PTHREAD_MUTEX_INITIALIZER;
    say("mutex static: lock", pthread_mutex_lock(&s));
    say("mutex static: trylock by another", on_other(other_trylock, &s));
    say("mutex static: unlock", pthread_mutex_unlock(&s));
    say("mutex static: destroy", pthread_mutex_destroy(&s));

    pthread_mutexattr_t a;
    int v = -1;
    say("mutexattr init", pthread_mutexattr_init(&a));
    say("mutexattr settype 12345", pthread_mutexattr_settype(&a, 12345));
    say("mutexattr gettype rc", pthread_mutexattr_gettype(&a, &v));
    say("mutexattr gettype", v);
    say("mutexattr setpshared 12345", pthread_mutexattr_setpshared(&a, 12345));
    say("mutexattr getpshared rc", pthread_mutexattr_getpshared(&a, &v));
    say("mutexattr getpshared", v);
    say("mutexattr setrobust 12345", pthread_mutexattr_setrobust(&a, 12345));
    say("mutexattr getrobust rc", pthread_mutexattr_getrobust(&a, &v));
    say("mutexattr getrobust", v);
    say("mutexattr setprotocol 12345", pthread_mutexattr_setprotocol(&a, 12345));
    say("mutexattr getprotocol rc", pthread_mutexattr_getprotocol(&a, &v));
    say("mutexattr getprotocol", v);
    say("mutexattr setprioceiling 100000", pthread_mutexattr_setprioceiling(&a, 100000));
    say("mutexattr destroy", pthread_mutexattr_destroy(&a));
    pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
    say("mutex getprioceiling of a plain mutex", pthread_mutex_getprioceiling(&plain, &v));
    say("mutex consistent of a plain mutex", pthread_mutex_consistent(&plain));

    /* a priority-protect mutex: its ceiling read and set */
    pthread_mutex_t pp;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT);
    pthread_mutexattr_setprioceiling(&a, 0);
    say("mutex prio-protect init", pthread_mutex_init(&pp, &a));
    pthread_mutexattr_destroy(&a);
    say("mutex prio-protect getprioceiling rc", pthread_mutex_getprioceiling(&pp, &v));
    say("mutex prio-protect getprioceiling", v);
    int old = -1;
    say("mutex prio-protect setprioceiling", pthread_mutex_setprioceiling(&pp, 0, &old));
    say("mutex prio-protect setprioceiling old", old);
    int rc = pthread_mutex_lock(&pp); /* EINVAL for a SCHED_OTHER caller: a ceiling above its priority */
    say("mutex prio-protect lock", rc);
    if (rc == 0)
        say("mutex prio-protect unlock", pthread_mutex_unlock(&pp));
    say("mutex prio-protect destroy", pthread_mutex_destroy(&pp));

    /* priority inheritance: glibc's own, passed through */
    pthread_mutex_t pi;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    say("mutex prio-inherit errorcheck init", pthread_mutex_init(&pi, &a));
    pthread_mutexattr_destroy(&a);
    say("mutex prio-inherit lock", pthread_mutex_lock(&pi));
    say("mutex prio-inherit relock", pthread_mutex_lock(&pi));
    say("mutex prio-inherit trylock by another", on_other(other_trylock, &pi));
    say("mutex prio-inherit timedlock by another", on_other(other_timedlock, &pi));
    say("mutex prio-inherit unlock by another", on_other(other_unlock, &pi));
    say("mutex prio-inherit unlock", pthread_mutex_unlock(&pi));
    say("mutex prio-inherit unlock when unlocked", pthread_mutex_unlock(&pi));
    say("mutex prio-inherit destroy", pthread_mutex_destroy(&pi));

    /* robust: the owner's thread ends holding it */
    pthread_mutex_t r;
    say("mutex robust init", init_mutex_with(&r, pthread_mutexattr_setrobust, PTHREAD_MUTEX_ROBUST));
    say("mutex robust lock by a thread that ends", on_other(other_lock_exit, &r));
    say("mutex robust lock after", pthread_mutex_lock(&r));
    say("mutex robust unlock without consistent", pthread_mutex_unlock(&r));
    say("mutex robust lock when unrecoverable", pthread_mutex_lock(&r));
    say("mutex robust trylock when unrecoverable", pthread_mutex_trylock(&r));
    say("mutex robust destroy", pthread_mutex_destroy(&r));
    init_mutex_with(&r, pthread_mutexattr_setrobust, PTHREAD_MUTEX_ROBUST);
    on_other(other_lock_exit, &r);
    say("mutex robust trylock after", pthread_mutex_trylock(&r));
    say("mutex robust consistent", pthread_mutex_consistent(&r));
    say("mutex robust unlock", pthread_mutex_unlock(&r));
    say("mutex robust consistent when consistent", pthread_mutex_consistent(&r));
    say("mutex robust lock again", pthread_mutex_lock(&r));
    say("mutex robust unlock again", pthread_mutex_unlock(&r));
    say("mutex robust destroy", pthread_mutex_destroy(&r));
}

/* ---- condition variables ---------------------------------------------------------------- */
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;

static void conds(void)
{
    pthread_condattr_t a;
    clockid_t clock = -1;
    say("condattr init", pthread_condattr_init(&a));
    say("condattr setclock CPU-time", pthread_condattr_setclock(&a, CLOCK_PROCESS_CPUTIME_ID));
    say("condattr setclock monotonic", pthread_condattr_setclock(&a, CLOCK_MONOTONIC));
    say("condattr getclock rc", pthread_condattr_getclock(&a, &clock));
    say("condattr getclock", (long)clock);
    int pshared = -1;
    say("condattr setpshared 12345", pthread_condattr_setpshared(&a, 12345));
    say("condattr getpshared rc", pthread_condattr_getpshared(&a, &pshared));
    say("condattr getpshared", pshared);
    say("cond init monotonic", pthread_cond_init(&cv, &a));
    pthread_condattr_destroy(&a);
    pthread_mutex_lock(&cm);
    struct timespec t = in_ms(CLOCK_MONOTONIC, 20);
    say("cond timedwait monotonic, 20 ms", pthread_cond_timedwait(&cv, &cm, &t));
    say("cond timedwait: mutex held after (trylock by another)", on_other(other_trylock, &cm));
    t = in_ms(CLOCK_MONOTONIC, -1000);
    say("cond timedwait, past deadline", pthread_cond_timedwait(&cv, &cm, &t));
    say("cond timedwait, tv_nsec 10^9", pthread_cond_timedwait(&cv, &cm, &bad_nsec));
    say("cond timedwait, tv_nsec -1", pthread_cond_timedwait(&cv, &cm, &neg_nsec));
    t = in_ms(CLOCK_REALTIME, 20);
    say("cond clockwait realtime, 20 ms", pthread_cond_clockwait(&cv, &cm, CLOCK_REALTIME, &t));
    say("cond clockwait CPU-time clock", pthread_cond_clockwait(&cv, &cm, CLOCK_PROCESS_CPUTIME_ID, &t));
    say("cond: mutex held at the end (trylock by another)", on_other(other_trylock, &cm));
    pthread_mutex_unlock(&cm);
    say("cond signal, no waiter", pthread_cond_signal(&cv));
    say("cond broadcast, no waiter", pthread_cond_broadcast(&cv));
    say("cond destroy", pthread_cond_destroy(&cv));

    /* an errorcheck mutex the waiter does not hold */
    pthread_mutex_t em;
    init_mutex_of_type(&em, PTHREAD_MUTEX_ERRORCHECK);
    pthread_cond_t c2 = PTHREAD_COND_INITIALIZER;
    say("cond wait, errorcheck mutex not held", pthread_cond_wait(&c2, &em));
    t = in_ms(CLOCK_REALTIME, 20);
    say("cond timedwait, errorcheck mutex not held", pthread_cond_timedwait(&c2, &em, &t));
    /* a recursive mutex held once: the wait releases it and takes it back */
    pthread_mutex_t rm;
    init_mutex_of_type(&rm, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_lock(&rm);
    t = in_ms(CLOCK_REALTIME, 20);
    say("cond timedwait, recursive mutex held once", pthread_cond_timedwait(&c2, &rm, &t));
    say("cond: recursive mutex held after (unlock)", pthread_mutex_unlock(&rm));
    say("cond: recursive mutex free after (unlock again)", pthread_mutex_unlock(&rm));
    pthread_mutex_destroy(&rm);
    pthread_mutex_destroy(&em);
    say("cond static destroy", pthread_cond_destroy(&c2));
}

/* ---- semaphores --------------------------------------------------------------------------- */
static int sem_answer(int rc) { return rc == 0 ? 0 : errno; }
static void *sem_waiter(void *s) { return (void *)(long)sem_wait(s); }

static void sems(void)
{
    sem_t s;
    int v = -1;
    errno = 0;
    say("sem init SEM_VALUE_MAX + 1", sem_answer(sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1u)));
    say("sem init 0", sem_answer(sem_init(&s, 0, 0)));
    say("sem trywait at 0", sem_answer(sem_trywait(&s)));
    struct timespec t = in_ms(CLOCK_REALTIME, 20);
    say("sem timedwait at 0, 20 ms", sem_answer(sem_timedwait(&s, &t)));
    say("sem timedwait at 0, tv_nsec 10^9", sem_answer(sem_timedwait(&s, &bad_nsec)));
    t = in_ms(CLOCK_MONOTONIC, 20);
    say("sem clockwait monotonic at 0, 20 ms", sem_answer(sem_clockwait(&s, CLOCK_MONOTONIC, &t)));
    say("sem clockwait CPU-time clock", sem_answer(sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &t)));
    say("sem post", sem_answer(sem_post(&s)));
    say("sem getvalue rc", sem_answer(sem_getvalue(&s, &v)));
    say("sem getvalue", v);
    t = in_ms(CLOCK_REALTIME, -1000);
    say("sem timedwait at 1, past deadline", sem_answer(sem_timedwait(&s, &t)));
    say("sem post again", sem_answer(sem_post(&s)));
    say("sem timedwait at 1, tv_nsec 10^9", sem_answer(sem_timedwait(&s, &bad_nsec)));
    sem_getvalue(&s, &v);
    say("sem getvalue after", v);
    say("sem destroy", sem_answer(sem_destroy(&s)));

    /* the value while a thread waits: 0 on Linux (POSIX also allows minus the waiters) */
    sem_init(&s, 0, 0);
    pthread_t waiter;
    pthread_create(&waiter, NULL, sem_waiter, &s);
    usleep(50000);
    sem_getvalue(&s, &v);
    say("sem getvalue with a waiter", v);
    sem_post(&s);
    pthread_join(waiter, NULL);
    sem_getvalue(&s, &v);
    say("sem getvalue after the waiter took the post", v);
    sem_destroy(&s);

    say("sem init SEM_VALUE_MAX", sem_answer(sem_init(&s, 0, SEM_VALUE_MAX)));
    say("sem post at SEM_VALUE_MAX", sem_answer(sem_post(&s)));
    sem_getvalue(&s, &v);
    say("sem getvalue at SEM_VALUE_MAX", v == SEM_VALUE_MAX);
    say("sem wait", sem_answer(sem_wait(&s)));
    say("sem trywait", sem_answer(sem_trywait(&s)));
    sem_getvalue(&s, &v);
    say("sem getvalue, 2 taken", SEM_VALUE_MAX - v);
    sem_destroy(&s);

    /* a named semaphore, process-shared by nature: a child posts it */
    char name[64];
    snprintf(name, sizeof name, "/locklab-test-errors-%d", (int)getpid());
    sem_t *n = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
    say("sem_open", n != SEM_FAILED);
    if (n == SEM_FAILED)
        return;
    say("sem_open again, O_EXCL", sem_open(name, O_CREAT | O_EXCL, 0600, 0) == SEM_FAILED ? errno : 0);
    pid_t pid = fork();
    if (pid == 0) {
        sem_t *c = sem_open(name, 0);
        _exit(c != SEM_FAILED && sem_post(c) == 0 && sem_post(c) == 0 && sem_close(c) == 0 ? 0 : 1);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    say("sem named: child posted twice", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    t = in_ms(CLOCK_REALTIME, 5000);
    say("sem named timedwait", sem_answer(sem_timedwait(n, &t)));
    sem_getvalue(n, &v);
    say("sem named getvalue", v);
    say("sem close", sem_answer(sem_close(n)));
    say("sem unlink", sem_answer(sem_unlink(name)));
    say("sem unlink again", sem_answer(sem_unlink(name)));

    /* process-shared in shared memory, posted by a child */
    sem_t *ps = mmap(NULL, sizeof *ps, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    say("sem pshared init", sem_answer(sem_init(ps, 1, 0)));
    pid = fork();
    if (pid == 0)
        _exit(sem_post(ps) == 0 ? 0 : 1);
    waitpid(pid, &status, 0);
    t = in_ms(CLOCK_REALTIME, 5000);
    say("sem pshared timedwait", sem_answer(sem_timedwait(ps, &t)));
    say("sem pshared destroy", sem_answer(sem_destroy(ps)));
    munmap(ps, sizeof *ps);
}

/* ---- reader-writer locks -------------------------------------------------------------------- */
static int other_trywr(void *l) { return pthread_rwlock_trywrlock(l); }
WITH_DEADLINE(other_timedrd, 20, pthread_rwlock_timedrdlock(p, &t))
WITH_DEADLINE(other_timedwr, 20, pthread_rwlock_timedwrlock(p, &t))
static int other_timedwr_bad(void *l) { return pthread_rwlock_timedwrlock(l, &bad_nsec); }
WITH_DEADLINE(other_clockrd_bad_clock, 20, pthread_rwlock_clockrdlock(p, CLOCK_PROCESS_CPUTIME_ID, &t))

static void rwlocks(void)
{
    static const named kinds[] = {{"prefer-reader", PTHREAD_RWLOCK_PREFER_READER_NP},
                 {"prefer-writer", PTHREAD_RWLOCK_PREFER_WRITER_NP},
                 {"prefer-writer-nonrecursive", PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP}};
    for ROWS(i, kinds) {
        pthread_rwlock_t l;
#define SAY(check, answer) say_row("rwlock", kinds[i].name, check, answer)
        SAY("init", init_rwlock_with(&l, pthread_rwlockattr_setkind_np, kinds[i].value));
        SAY("rdlock", pthread_rwlock_rdlock(&l));
        SAY("rdlock again", pthread_rwlock_rdlock(&l));
        SAY("tryrdlock by another", on_other(other_tryrd, &l));
        SAY("rdlock and unlock by another", on_other(rdlock_unlock, &l));
        SAY("trywrlock by another", on_other(other_trywr, &l));
        SAY("trywrlock by the reader", pthread_rwlock_trywrlock(&l));
        SAY("unlock", pthread_rwlock_unlock(&l));
        SAY("unlock 2", pthread_rwlock_unlock(&l));
        /* a writer that timed out against readers: on a lock of its own, left afterwards (glibc
         * 2.36's reader-preferring rwlock can hang the next wrlock after such a timeout) */
        pthread_rwlock_t t1;
        init_rwlock_with(&t1, pthread_rwlockattr_setkind_np, kinds[i].value);
        SAY("rdlock (timed writers)", pthread_rwlock_rdlock(&t1));
        SAY("timedwrlock by another", on_other(other_timedwr, &t1));
        SAY("timedwrlock by another, tv_nsec 10^9", on_other(other_timedwr_bad, &t1));
        SAY("unlock (timed writers)", pthread_rwlock_unlock(&t1));
        SAY("wrlock", pthread_rwlock_wrlock(&l));
        SAY("wrlock again by the writer", pthread_rwlock_wrlock(&l));
        SAY("rdlock by the writer", pthread_rwlock_rdlock(&l));
        SAY("tryrdlock by the writer", pthread_rwlock_tryrdlock(&l));
        SAY("trywrlock by the writer", pthread_rwlock_trywrlock(&l));
        struct timespec t = in_ms(CLOCK_REALTIME, 20);
        SAY("timedrdlock by the writer", pthread_rwlock_timedrdlock(&l, &t));
        SAY("tryrdlock by another", on_other(other_tryrd, &l));
        SAY("timedrdlock by another", on_other(other_timedrd, &l));
        SAY("clockrdlock by another, CPU-time clock", on_other(other_clockrd_bad_clock, &l));
        SAY("unlock the writer", pthread_rwlock_unlock(&l));
        int rc = pthread_rwlock_timedrdlock(&l, &bad_nsec);
        SAY("timedrdlock, free, tv_nsec 10^9", rc);
        if (rc == 0)
            pthread_rwlock_unlock(&l);
        t = in_ms(CLOCK_MONOTONIC, -1000);
        SAY("clockwrlock monotonic, free, past deadline", pthread_rwlock_clockwrlock(&l, CLOCK_MONOTONIC, &t));
        SAY("unlock", pthread_rwlock_unlock(&l));
        SAY("destroy", pthread_rwlock_destroy(&l));
#undef SAY
    }
    pthread_rwlockattr_t a;
    int v = -1;
    pthread_rwlockattr_init(&a);
    say("rwlockattr setkind 12345", pthread_rwlockattr_setkind_np(&a, 12345));
    say("rwlockattr getkind rc", pthread_rwlockattr_getkind_np(&a, &v));
    say("rwlockattr getkind", v);
    say("rwlockattr setpshared 12345", pthread_rwlockattr_setpshared(&a, 12345));
    say("rwlockattr getpshared rc", pthread_rwlockattr_getpshared(&a, &v));
    say("rwlockattr getpshared", v);
    pthread_rwlockattr_destroy(&a);
    pthread_rwlock_t s = PTHREAD_RWLOCK_INITIALIZER;
    say("rwlock static wrlock", pthread_rwlock_wrlock(&s));
    say("rwlock static tryrdlock by another", on_other(other_tryrd, &s));
    say("rwlock static unlock", pthread_rwlock_unlock(&s));
    say("rwlock static destroy", pthread_rwlock_destroy(&s));
}

/* ---- spinlocks and barriers ----------------------------------------------------------------- */
static int other_spin_trylock(void *s) { return pthread_spin_trylock((pthread_spinlock_t *)s); }

static pthread_barrier_t bar;
static void *barrier_waiter(void *arg)
{
    (void)arg;
    return (void *)(long)pthread_barrier_wait(&bar);
}

static void spins_and_barriers(void)
{
    pthread_spinlock_t s;
    say("spin init", pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE));
    say("spin lock", pthread_spin_lock(&s));
    say("spin trylock by another", on_other(other_spin_trylock, (void *)&s));
    say("spin unlock", pthread_spin_unlock(&s));
    say("spin trylock", pthread_spin_trylock(&s));
    say("spin unlock after trylock", pthread_spin_unlock(&s));
    say("spin destroy", pthread_spin_destroy(&s));
    say("spin init pshared", pthread_spin_init(&s, PTHREAD_PROCESS_SHARED));
    say("spin lock pshared", pthread_spin_lock(&s));
    say("spin unlock pshared", pthread_spin_unlock(&s));
    say("spin destroy pshared", pthread_spin_destroy(&s));

    say("barrier init count 0", pthread_barrier_init(&bar, NULL, 0));
    pthread_barrierattr_t a;
    int v = -1;
    pthread_barrierattr_init(&a);
    say("barrierattr setpshared 12345", pthread_barrierattr_setpshared(&a, 12345));
    say("barrierattr getpshared rc", pthread_barrierattr_getpshared(&a, &v));
    say("barrierattr getpshared", v);
    say("barrier init count 1", pthread_barrier_init(&bar, &a, 1));
    pthread_barrierattr_destroy(&a);
    say("barrier wait, count 1", pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD);
    say("barrier wait, count 1, again", pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD);
    say("barrier destroy", pthread_barrier_destroy(&bar));
    enum { N = 5, ROUNDS = 3 };
    say("barrier init count 5", pthread_barrier_init(&bar, NULL, N));
    for (int r = 0; r < ROUNDS; r++) {
        pthread_t t[N - 1];
        for (int i = 0; i < N - 1; i++)
            pthread_create(&t[i], NULL, barrier_waiter, NULL);
        int serial = 0, zero = 0, rc = pthread_barrier_wait(&bar);
        serial += rc == PTHREAD_BARRIER_SERIAL_THREAD, zero += rc == 0;
        for (int i = 0; i < N - 1; i++) {
            void *res;
            pthread_join(t[i], &res);
            serial += (long)res == PTHREAD_BARRIER_SERIAL_THREAD, zero += (long)res == 0;
        }
        say("barrier round: serial threads", serial);
        say("barrier round: others returning 0", zero);
    }
    say("barrier destroy", pthread_barrier_destroy(&bar));
}

/* ---- C11 threads ------------------------------------------------------------------------------ */
static int other_mtx_trylock(void *m) { return mtx_trylock(m); }
WITH_DEADLINE(other_mtx_timedlock, 20, mtx_timedlock(p, &t))

static void c11(void)
{
    say("C11 thrd_success", thrd_success), say("C11 thrd_busy", thrd_busy), say("C11 thrd_timedout", thrd_timedout);
    static const named types[] = {{"plain", mtx_plain}, {"timed", mtx_timed}, {"recursive", mtx_plain | mtx_recursive},
                 {"timed recursive", mtx_timed | mtx_recursive}};
    for ROWS(i, types) {
        mtx_t m;
#define SAY(check, answer) say_row("C11 mtx", types[i].name, check, answer)
        SAY("init", mtx_init(&m, types[i].value));
        SAY("lock", mtx_lock(&m));
        SAY("trylock by another", on_other(other_mtx_trylock, &m));
        if (types[i].value & mtx_timed)
            SAY("timedlock by another", on_other(other_mtx_timedlock, &m));
        if (types[i].value & mtx_recursive) {
            SAY("relock", mtx_lock(&m));
            SAY("trylock by owner", mtx_trylock(&m));
            SAY("unlock", mtx_unlock(&m));
            SAY("unlock", mtx_unlock(&m));
        }
        SAY("unlock", mtx_unlock(&m));
        SAY("trylock", mtx_trylock(&m));
        SAY("unlock", mtx_unlock(&m));
        mtx_destroy(&m);
#undef SAY
    }
    mtx_t m;
    cnd_t c;
    mtx_init(&m, mtx_timed);
    say("C11 cnd init", cnd_init(&c));
    mtx_lock(&m);
    struct timespec t = in_ms(CLOCK_REALTIME, 20);
    say("C11 cnd timedwait, 20 ms", cnd_timedwait(&c, &m, &t));
    say("C11 cnd timedwait: mutex held after", on_other(other_mtx_trylock, &m));
    t = in_ms(CLOCK_REALTIME, -1000);
    say("C11 cnd timedwait, past deadline", cnd_timedwait(&c, &m, &t));
    mtx_unlock(&m);
    say("C11 cnd signal", cnd_signal(&c));
    say("C11 cnd broadcast", cnd_broadcast(&c));
    cnd_destroy(&c);
    mtx_destroy(&m);
}

/* ---- re-initialised and destroyed objects -------------------------------------------------------
 * Undefined in POSIX, settled by glibc, and done by programs by accident: an object initialised
 * twice, destroyed twice, a mutex used after its destroy (glibc: EINVAL) and initialised again. */
static void reinit(void)
{
    pthread_mutex_t m;
    say("reinit: mutex init", pthread_mutex_init(&m, NULL));
    say("reinit: mutex init again", pthread_mutex_init(&m, NULL));
    say("reinit: mutex lock", pthread_mutex_lock(&m));
    say("reinit: mutex unlock", pthread_mutex_unlock(&m));
    say("reinit: mutex destroy", pthread_mutex_destroy(&m));
    say("reinit: mutex destroy again", pthread_mutex_destroy(&m));
    say("reinit: mutex lock after destroy", pthread_mutex_lock(&m));
    say("reinit: mutex trylock after destroy", pthread_mutex_trylock(&m));
    say("reinit: mutex unlock after destroy", pthread_mutex_unlock(&m));
    say("reinit: mutex init after destroy", pthread_mutex_init(&m, NULL));
    say("reinit: mutex lock", pthread_mutex_lock(&m));
    say("reinit: mutex unlock", pthread_mutex_unlock(&m));
    pthread_cond_t c;
    say("reinit: cond init", pthread_cond_init(&c, NULL));
    say("reinit: cond init again", pthread_cond_init(&c, NULL));
    say("reinit: cond destroy", pthread_cond_destroy(&c));
    say("reinit: cond destroy again", pthread_cond_destroy(&c));
    pthread_rwlock_t l;
    say("reinit: rwlock init", pthread_rwlock_init(&l, NULL));
    say("reinit: rwlock init again", pthread_rwlock_init(&l, NULL));
    say("reinit: rwlock rdlock", pthread_rwlock_rdlock(&l));
    say("reinit: rwlock unlock", pthread_rwlock_unlock(&l));
    say("reinit: rwlock destroy", pthread_rwlock_destroy(&l));
    say("reinit: rwlock destroy again", pthread_rwlock_destroy(&l));
    sem_t s;
    int v = -1;
    say("reinit: sem init 1", sem_answer(sem_init(&s, 0, 1)));
    say("reinit: sem init 2 again", sem_answer(sem_init(&s, 0, 2)));
    sem_getvalue(&s, &v);
    say("reinit: sem value", v);
    say("reinit: sem destroy", sem_answer(sem_destroy(&s)));
    pthread_spinlock_t sp;
    say("reinit: spin init", pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE));
    say("reinit: spin init again", pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE));
    say("reinit: spin destroy", pthread_spin_destroy(&sp));
    say("reinit: spin destroy again", pthread_spin_destroy(&sp));
    pthread_barrier_t b;
    say("reinit: barrier init", pthread_barrier_init(&b, NULL, 1));
    say("reinit: barrier init again", pthread_barrier_init(&b, NULL, 1));
    say("reinit: barrier wait", pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD);
    say("reinit: barrier destroy", pthread_barrier_destroy(&b));
}

/* ---- process-shared objects across a fork ----------------------------------------------------
 * A robust process-shared mutex whose holder process dies; a process-shared condition variable
 * and mutex with the waiter in a child; a process-shared rwlock held by a child. */
typedef struct shared_objs {
    pthread_mutex_t robust, m;
    pthread_cond_t c;
    pthread_rwlock_t l;
    volatile int ready, flag, held, go;
} shared_objs;

static void process_shared(void)
{
    shared_objs *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    say("pshared: mutex init", pthread_mutex_init(&sh->m, &ma));
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    say("pshared: robust mutex init", pthread_mutex_init(&sh->robust, &ma));
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    say("pshared: cond init", pthread_cond_init(&sh->c, &ca));
    pthread_condattr_destroy(&ca);
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
    say("pshared: rwlock init", pthread_rwlock_init(&sh->l, &ra));
    pthread_rwlockattr_destroy(&ra);

    int status = -1;
    pid_t pid = fork();
    if (pid == 0)
        _exit(pthread_mutex_lock(&sh->robust) == 0 ? 0 : 1); /* dies holding it */
    waitpid(pid, &status, 0);
    say("pshared: robust lock after its holder process died", pthread_mutex_lock(&sh->robust));
    say("pshared: robust consistent", pthread_mutex_consistent(&sh->robust));
    say("pshared: robust unlock", pthread_mutex_unlock(&sh->robust));

    pid = fork();
    if (pid == 0) { /* waits for the flag under the condition variable */
        int rc = pthread_mutex_lock(&sh->m);
        sh->ready = 1;
        while (rc == 0 && !sh->flag)
            rc = pthread_cond_wait(&sh->c, &sh->m);
        pthread_mutex_unlock(&sh->m);
        _exit(rc == 0 ? 0 : 1);
    }
    for (int i = 0; i < 5000 && !sh->ready; i++)
        usleep(1000);
    pthread_mutex_lock(&sh->m);
    sh->flag = 1;
    say("pshared: cond signal to a child", pthread_cond_signal(&sh->c));
    pthread_mutex_unlock(&sh->m);
    waitpid(pid, &status, 0);
    say("pshared: the child's wait returned 0", WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    pid = fork();
    if (pid == 0) { /* holds the write lock until told */
        int rc = pthread_rwlock_wrlock(&sh->l);
        sh->held = 1;
        while (!sh->go)
            usleep(1000);
        _exit(rc == 0 && pthread_rwlock_unlock(&sh->l) == 0 ? 0 : 1);
    }
    while (pid > 0 && !sh->held) /* no limit: a child that never holds it is run_tests.sh's timeout */
        usleep(1000);
    int tried = pthread_rwlock_tryrdlock(&sh->l);
    say("pshared: tryrdlock while a child writes", tried);
    if (tried == 0)
        pthread_rwlock_unlock(&sh->l);
    sh->go = 1;
    waitpid(pid, &status, 0);
    say("pshared: the child's write lock and unlock", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    int rc = pthread_rwlock_tryrdlock(&sh->l);
    say("pshared: tryrdlock after", rc);
    if (rc == 0)
        pthread_rwlock_unlock(&sh->l);
    say("pshared: rwlock destroy", pthread_rwlock_destroy(&sh->l));
    say("pshared: cond destroy", pthread_cond_destroy(&sh->c));
    say("pshared: mutex destroy", pthread_mutex_destroy(&sh->m));
    say("pshared: robust destroy", pthread_mutex_destroy(&sh->robust));
    munmap(sh, sizeof *sh);
}

/* ---- signals while blocked ------------------------------------------------------------------
 * A handler installed without SA_RESTART runs 5 times while a thread is blocked in a lock or a
 * timed lock: the lock is still taken when released (never EINTR), the timed one times out. */
static volatile sig_atomic_t handled;
static void on_signal(int sig)
{
    (void)sig;
    handled++;
}

/* fn(arg) on another thread, interrupted 5 times, then release(rarg) (if any) and its answer. */
static int interrupted(other_fn fn, void *arg, void (*release)(void *), void *rarg)
{
    other_call c = {fn, arg, -1};
    pthread_t t;
    if (pthread_create(&t, NULL, other_main, &c) != 0)
        return -2;
    for (int i = 0; i < 5; i++) {
        usleep(10000);
        pthread_kill(t, SIGUSR1);
    }
    usleep(10000);
    if (release)
        release(rarg);
    pthread_join(t, NULL);
    return c.answer;
}
WITH_DEADLINE(timedlock_150, 150, pthread_mutex_timedlock(p, &t))
static void unlock_mutex(void *m) { pthread_mutex_unlock(m); }
WITH_DEADLINE(timedwrlock_150, 150, pthread_rwlock_timedwrlock(p, &t))
static void unlock_rwlock(void *l) { pthread_rwlock_unlock(l); }
static void unlock_spin(void *l) { pthread_spin_unlock((pthread_spinlock_t *)l); }
static void unlock_mtx(void *m) { mtx_unlock(m); }
static int barrier_wait_serial(void *b) { return pthread_barrier_wait(b) == PTHREAD_BARRIER_SERIAL_THREAD; }
static int main_serial;
static void barrier_meet(void *b) { main_serial = pthread_barrier_wait(b) == PTHREAD_BARRIER_SERIAL_THREAD; }
static int cond_go; /* under cm */
static int cond_wait_signalled(void *c)
{
    int rc = 0;
    pthread_mutex_lock(&cm);
    while (rc == 0 && !cond_go)
        rc = pthread_cond_wait(c, &cm);
    pthread_mutex_unlock(&cm);
    return rc;
}
static void cond_signal_once(void *c)
{
    pthread_mutex_lock(&cm);
    cond_go = 1;
    pthread_cond_signal(c);
    pthread_mutex_unlock(&cm);
}
static int cond_timedwait_150(void *c)
{
    struct timespec t = in_ms(CLOCK_REALTIME, 150);
    pthread_mutex_lock(&cm);
    int rc = pthread_cond_timedwait(c, &cm, &t);
    pthread_mutex_unlock(&cm);
    return rc;
}

static void signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART */
    sigaction(SIGUSR1, &sa, NULL);
    static const int types[] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE,
                                PTHREAD_MUTEX_ADAPTIVE_NP};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        pthread_mutex_t m;
        init_mutex_of_type(&m, types[i]);
        pthread_mutex_lock(&m);
        say("signals: mutex lock, blocked, then unlocked", interrupted(lock_unlock, &m, unlock_mutex, &m));
        pthread_mutex_lock(&m);
        say("signals: mutex timedlock, blocked 150 ms", interrupted(timedlock_150, &m, NULL, NULL));
        pthread_mutex_unlock(&m);
        pthread_mutex_destroy(&m);
    }
    pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
    pthread_rwlock_rdlock(&l);
    say("signals: rwlock wrlock, blocked by a reader", interrupted(wrlock_unlock, &l, unlock_rwlock, &l));
    pthread_rwlock_wrlock(&l);
    say("signals: rwlock rdlock, blocked by a writer", interrupted(rdlock_unlock, &l, unlock_rwlock, &l));
    pthread_rwlock_rdlock(&l);
    say("signals: rwlock timedwrlock, blocked 150 ms", interrupted(timedwrlock_150, &l, NULL, NULL));
    pthread_rwlock_unlock(&l);
    pthread_rwlock_destroy(&l);
    pthread_spinlock_t sl;
    pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE);
    pthread_spin_lock(&sl);
    say("signals: spin lock, spinning, then unlocked", interrupted(spin_lock_unlock, (void *)&sl, unlock_spin, (void *)&sl));
    pthread_spin_destroy(&sl);
    mtx_t m11;
    mtx_init(&m11, mtx_plain);
    mtx_lock(&m11);
    say("signals: C11 mtx_lock, blocked, then unlocked", interrupted(mtx_lock_unlock, &m11, unlock_mtx, &m11));
    mtx_destroy(&m11);
    pthread_barrier_t b;
    pthread_barrier_init(&b, NULL, 2);
    int serial = interrupted(barrier_wait_serial, &b, barrier_meet, &b);
    say("signals: barrier wait, blocked, then met: serial threads", serial + main_serial);
    pthread_barrier_destroy(&b);
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    say("signals: cond wait, blocked, then signalled", interrupted(cond_wait_signalled, &c, cond_signal_once, &c));
    say("signals: cond timedwait, blocked 150 ms", interrupted(cond_timedwait_150, &c, NULL, NULL));
    pthread_cond_destroy(&c);
    say("signals: handlers ran", handled > 0);
    signal(SIGUSR1, SIG_DFL);
}

/* ---- cancellation while blocked ----------------------------------------------------------------
 * A deferred pthread_cancel of a thread blocked in a lock that is not a cancellation point: it
 * stays blocked, takes the lock when released, and acts at the next cancellation point, where
 * its cleanup handler gives the lock back. */
typedef struct cancel_case {
    int (*take)(void *);
    void (*give)(void *);
    void *lock;
    volatile int took;
} cancel_case;
static void cancel_cleanup(void *arg)
{
    cancel_case *c = arg;
    c->give(c->lock);
}
static void *cancel_main(void *arg)
{
    cancel_case *c = arg;
    if (c->take(c->lock) != 0)
        return NULL;
    c->took = 1;
    pthread_cleanup_push(cancel_cleanup, c);
    pthread_testcancel();
    pthread_cleanup_pop(1);
    return NULL;
}
static int take_mutex(void *m) { return pthread_mutex_lock(m); }
static int take_wr(void *l) { return pthread_rwlock_wrlock(l); }
static int take_rd(void *l) { return pthread_rwlock_rdlock(l); }
static int take_spin(void *l) { return pthread_spin_lock((pthread_spinlock_t *)l); }
static int take_mtx(void *m) { return mtx_lock(m) == thrd_success ? 0 : 1; }

/* Lines: blocked after the cancel (1), took the lock once released (1), cancelled (1), the lock
 * free again afterwards (0: its try's answer). */
static void cancel_blocked(const char *what, cancel_case *c, void (*release)(void *), int (*try_free)(void *))
{
    char name[96];
    pthread_t t;
    pthread_create(&t, NULL, cancel_main, c);
    usleep(30000);
    pthread_cancel(t);
    usleep(30000);
    snprintf(name, sizeof name, "cancel: %s: still blocked after the cancel", what);
    say(name, c->took == 0);
    release(c->lock);
    void *res = NULL;
    pthread_join(t, &res);
    snprintf(name, sizeof name, "cancel: %s: took it, then cancelled", what);
    say(name, c->took == 1 && res == PTHREAD_CANCELED);
    snprintf(name, sizeof name, "cancel: %s: free afterwards (try)", what);
    say(name, try_free(c->lock));
}

static void cancellation(void)
{
    static const int types[] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE,
                                PTHREAD_MUTEX_ADAPTIVE_NP};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        pthread_mutex_t m;
        init_mutex_of_type(&m, types[i]);
        pthread_mutex_lock(&m);
        cancel_case c = {take_mutex, unlock_mutex, &m, 0};
        cancel_blocked("mutex lock", &c, unlock_mutex, try_mutex_release);
        pthread_mutex_destroy(&m);
    }
    pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
    pthread_rwlock_rdlock(&l);
    cancel_case w = {take_wr, unlock_rwlock, &l, 0};
    cancel_blocked("rwlock wrlock", &w, unlock_rwlock, try_wr_release);
    pthread_rwlock_wrlock(&l);
    cancel_case r = {take_rd, unlock_rwlock, &l, 0};
    cancel_blocked("rwlock rdlock", &r, unlock_rwlock, try_wr_release);
    pthread_rwlock_destroy(&l);
    pthread_spinlock_t sl;
    pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE);
    pthread_spin_lock(&sl);
    cancel_case sp = {take_spin, unlock_spin, (void *)&sl, 0};
    cancel_blocked("spin lock", &sp, unlock_spin, try_spin_release);
    pthread_spin_destroy(&sl);
    mtx_t m11;
    mtx_init(&m11, mtx_plain);
    mtx_lock(&m11);
    cancel_case cm11 = {take_mtx, unlock_mtx, &m11, 0};
    cancel_blocked("C11 mtx_lock", &cm11, unlock_mtx, try_mtx_release);
    mtx_destroy(&m11);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "glibc") != 0)
        require_interposed((void *)pthread_mutex_lock);
    setvbuf(stdout, NULL, _IOLBF, 0);
    mutexes();
    conds();
    sems();
    rwlocks();
    spins_and_barriers();
    c11();
    reinit();
    process_shared();
    signals();
    cancellation();
    return 0;
}
