/*
 * What a drop-in must survive because glibc does (docs/interposer.md,
 * "Misuse, out of memory and signals"), one case per run, each also run
 * without the interposer (argument "glibc": the reference):
 *
 *   signal [MS]     sem_post from signal handlers (SIGUSR1, SIGUSR2) on a thread that
 *                   keeps creating, locking and destroying fresh mutexes (whose lock
 *                   objects are installed under the interposer's allocator lock), while
 *                   fresh threads make their first call a blocking sem_wait (which
 *                   creates their per-thread data) on the semaphore the handlers post.
 *                   MS (default 300) of that; a hang (the handler waiting for the
 *                   semaphore's guard, whose holder waits for the allocator lock) is
 *                   reported by an alarm after MS + 10 s.
 *   signal-first-post [MS]  a thread initialises and posts fresh semaphores (each post the
 *                   semaphore's first call) for MS ms (default 300) while another thread
 *                   signals it, whose handler posts the semaphore being posted.  Run
 *                   under LOCKLAB_PROFILE: a hang (the handler's post waiting for the
 *                   profile record that the interrupted first post is creating) is
 *                   reported by an alarm after MS + 10 s.
 *   unlock-unheld   pthread_mutex_unlock of a default mutex that is not locked (never
 *                   locked, and locked then unlocked), then the mutex used normally.
 *   unlock-other    ... of a default mutex another thread holds; the holder then
 *                   unlocks, destroys, and the mutex (re-initialised) is used normally.
 *   unlock-race     two threads unlock at once a default mutex the main thread holds
 *                   (5000 rounds); after each the mutex is free (glibc frees its word),
 *                   or still held where only the holder can release (trylock: EBUSY).
 *   unlock-race-cond  the main thread's unlock is a condition wait's (a timed wait of
 *                   50 us on a default mutex it holds) and another thread unlocks the mutex
 *                   at the same moment (5000 rounds); after each the mutex is free or held
 *                   by the main thread, never released twice (a queue lock's node handed on
 *                   twice: a crash; a ticket skipped: a hang).
 *   cancel-relock   a thread with asynchronous cancellation relocks a default mutex it
 *                   holds (it blocks for ever) and is cancelled; the join returns, the
 *                   mutex is unlocked and used normally, then re-initialised and used
 *                   normally again.
 *   reinit-waiter   a thread blocked relocking a default mutex it holds stays blocked
 *                   when the program re-initialises that mutex at the same address and
 *                   uses it from one thread (glibc's waiter sleeps on the old futex word,
 *                   which no uncontended unlock wakes; it must not take the new mutex).
 *   copy-inited     three default mutexes, each initialised in the same temporary and
 *                   copied into place (undefined in POSIX; glibc's unlocked mutex is
 *                   plain data): they are three mutexes (one held, another's trylock
 *                   succeeds) and each excludes.
 *   copied-used     a default mutex locked and unlocked (its lock object installed), then
 *                   copied (a struct assignment; undefined in POSIX, a second mutex under
 *                   glibc): while another thread holds the original, the copy's trylock
 *                   succeeds; one thread holds both at once; the copy is destroyed and
 *                   the original still excludes.
 *   oom             a child process lowers RLIMIT_AS, fills it, then initialises and
 *                   locks fresh mutexes (their first lock), and a thread started before
 *                   makes its first calls (its per-thread data): no SIGABRT, init
 *                   answers 0 or ENOMEM, every mutex excludes, semaphores work.
 * "Used normally": two threads add to a plain counter under the mutex 2000 times each.
 * Where glibc's own answer is an error (a destroy after an unlock of an unlocked mutex:
 * EBUSY), the answer is not checked.
 * Exit status 0 if the case held, 1 if not (a message says what).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "oom.h"
#include "locklab/atomics.h"


static void on_alarm(int sig)
{
    (void)sig;
    write_line("test_robust: hung (alarm)\n");
    _exit(1);
}

/* Fails the process (from a signal handler) if it has not finished within s seconds. */
static void hang_alarm(unsigned s)
{
    signal(SIGALRM, on_alarm);
    alarm(s);
}

/* ---- "used normally": mutual exclusion over a plain counter ------------------------------ */

enum { ROUNDS = 2000 }; /* few: under a lock that never parks, on a loaded machine, a handover may wait a time slice */
static long counter;
static void *add_rounds(void *arg)
{
    pthread_mutex_t *m = (pthread_mutex_t *)arg;
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_EQ(pthread_mutex_lock(m), 0);
        counter++;
        CHECK_EQ(pthread_mutex_unlock(m), 0);
    }
    return NULL;
}
static void check_excludes(pthread_mutex_t *m, const char *what)
{
    counter = 0;
    pthread_t t[2];
    test_start_n(t, 2, add_rounds, m, 0);
    test_join_n(t, 2);
    CHECK(counter == 2 * ROUNDS, "%s: counter %ld, want %d: the mutex let two threads in", what, counter, 2 * ROUNDS);
}

/* ---- signal ------------------------------------------------------------------------------ */

static sem_t posted;
static ll_atomic_u32 stop;
static void post_handler(int sig)
{
    (void)sig;
    int e = errno;
    sem_post(&posted);
    errno = e;
}

/* Installs objects: a fresh mutex per round (init, trylock or lock, unlock, destroy). */
static void *fresh_mutexes(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !ll_load_relaxed(&stop); i++) { /* relaxed: a flag polled */
        pthread_mutex_t m;
        pthread_mutex_init(&m, NULL);
        if (i & 1) {
            if (pthread_mutex_trylock(&m) == 0)
                pthread_mutex_unlock(&m);
        } else {
            pthread_mutex_lock(&m);
            pthread_mutex_unlock(&m);
        }
        pthread_mutex_destroy(&m);
    }
    return NULL;
}

/* A fresh thread whose first interposed call is a blocking sem_wait: units already there are
 * taken by trywait first (no per-thread data needed), so the wait finds none and queues. */
static void *first_wait(void *arg)
{
    (void)arg;
    while (sem_trywait(&posted) == 0)
        ;
    while (sem_wait(&posted) != 0 && errno == EINTR)
        ;
    return NULL;
}

typedef struct sender {
    pthread_t target;
} sender;
static void *send_signals(void *arg)
{
    sender *s = (sender *)arg;
    for (unsigned i = 0; !ll_load_relaxed(&stop); i++) { /* relaxed: a flag polled */
        pthread_kill(s->target, i & 1 ? SIGUSR2 : SIGUSR1);
        if ((i & 7) == 0)
            sched_yield();
    }
    return NULL;
}

static int case_signal(long ms)
{
    sem_init(&posted, 0, 0);
    test_on_signal(SIGUSR1, post_handler, SA_RESTART);
    test_on_signal(SIGUSR2, post_handler, SA_RESTART);
    pthread_t locker, sig;
    test_start(&locker, fresh_mutexes, NULL);
    sender s = {locker};
    test_start(&sig, send_signals, &s);
    struct timespec end = in_ms(CLOCK_MONOTONIC, ms);
    unsigned waiters = 0;
    do {
        pthread_t w;
        test_start(&w, first_wait, NULL);
        pthread_join(w, NULL); /* a post arrives with the next signal */
        waiters++;
    } while (test_before(CLOCK_MONOTONIC, &end));
    ll_store_relaxed(&stop, 1); /* relaxed: a flag polled */
    pthread_join(sig, NULL);
    pthread_join(locker, NULL);
    printf("signal: %u fresh waiters in %ld ms\n", waiters, ms);
    return test_done("signal");
}

/* ---- signal-first-post --------------------------------------------------------------------- */

enum { FIRST_POSTS = 16384 }; /* fewer than the profiler's table holds (proftable.h) */
static sem_t first_posts[FIRST_POSTS];
static ll_atomic_u32 posting; /* 1 + the index of the semaphore being posted; 0: none */
static void post_current(int sig)
{
    (void)sig;
    int e = errno;
    uint32_t i = ll_load_acquire(&posting); /* acquire: pairs with the release below; the initialised semaphore */
    if (i != 0)
        sem_post(&first_posts[i - 1]);
    errno = e;
}

static int case_signal_first_post(long ms)
{
    test_on_signal(SIGUSR1, post_current, SA_RESTART);
    test_on_signal(SIGUSR2, post_current, SA_RESTART);
    sender s = {pthread_self()};
    pthread_t sig;
    test_start(&sig, send_signals, &s);
    struct timespec end = in_ms(CLOCK_MONOTONIC, ms);
    unsigned n = 0;
    do {
        CHECK_EQ(sem_init(&first_posts[n], 0, 0), 0);
        ll_store_release(&posting, n + 1); /* release: the initialised semaphore, for the handler */
        CHECK_EQ(sem_post(&first_posts[n]), 0); /* its first call */
        ll_store_relaxed(&posting, 0); /* relaxed: our own handler reads it */
        n++;
    } while (n < FIRST_POSTS && test_before(CLOCK_MONOTONIC, &end));
    ll_store_relaxed(&stop, 1); /* relaxed: a flag polled */
    pthread_join(sig, NULL);
    for (unsigned i = 0; i < n; i++) {
        int v = 0;
        CHECK_EQ(sem_getvalue(&first_posts[i], &v), 0);
        CHECK(v >= 1);
    }
    printf("signal-first-post: %u semaphores in %ld ms\n", n, ms);
    return test_done("signal-first-post");
}

/* ---- unlock-unheld, unlock-other ---------------------------------------------------------- */

static int case_unlock_unheld(void)
{
    static pthread_mutex_t never = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_unlock(&never); /* undefined for a default mutex; glibc returns 0 */
    check_excludes(&never, "never locked, then unlocked");
    pthread_mutex_t used;
    pthread_mutex_init(&used, NULL);
    CHECK_EQ(pthread_mutex_lock(&used), 0);
    CHECK_EQ(pthread_mutex_unlock(&used), 0);
    pthread_mutex_unlock(&used); /* a second time */
    pthread_mutex_unlock(&used); /* and a third */
    check_excludes(&used, "unlocked twice more");
    pthread_mutex_destroy(&used); /* glibc: EBUSY (its user count went below zero) */
    return test_done("unlock-unheld");
}

static void *unlock_it(void *arg)
{
    pthread_mutex_unlock((pthread_mutex_t *)arg); /* undefined: glibc releases it */
    return NULL;
}

static int case_unlock_other(void)
{
    pthread_mutex_t m;
    pthread_mutex_init(&m, NULL);
    CHECK_EQ(pthread_mutex_lock(&m), 0);
    pthread_t t;
    test_start(&t, unlock_it, &m);
    pthread_join(t, NULL);
    pthread_mutex_unlock(&m); /* the holder's own unlock (under glibc: of a mutex already freed) */
    pthread_mutex_destroy(&m); /* glibc: EBUSY (its user count) */
    pthread_mutex_init(&m, NULL);
    check_excludes(&m, "unlocked by another thread, then re-initialised");
    CHECK_EQ(pthread_mutex_destroy(&m), 0);
    return test_done("unlock-other");
}

/* Two threads unlock, at once, a default mutex the main thread holds (ROUNDS times): glibc
 * frees its word, so the mutex is free after each round (the main thread's trylock takes it).
 * Under a lock whose release needs the holder's thread, both unlocks are ignored: it is still
 * held (the holder's trylock answers EBUSY, as glibc's to a holder).  A queue or ticket lock
 * released twice hands the holder's node on twice or skips a ticket: crash, hang, or EBUSY. */
enum { RACE_ROUNDS = 5000 };
static pthread_mutex_t race_m = PTHREAD_MUTEX_INITIALIZER;
static ll_atomic_u32 race_go, race_arrived;
static sem_t race_done;
/* Wait until race_arrived reaches want: spinning (the racers leave within nanoseconds of each
 * other), then, after about a millisecond, yielding, so that a busy machine runs the thread
 * still on its way (the race is then looser). */
static void race_meet(uint32_t want)
{
    for (uint32_t i = 0; ll_load_relaxed(&race_arrived) < want; i++) /* relaxed: a meeting */
        if (i < 20000)
            ll_pause();
        else
            sched_yield();
}

static void *race_unlocker(void *arg)
{
    (void)arg;
    for (uint32_t r = 1; r <= RACE_ROUNDS; r++) {
        while (ll_load_acquire(&race_go) < r) /* acquire: pairs with the main thread's release: its lock first */
            sched_yield();
        /* the two racers meet (unlock-race: both unlockers, the main thread sleeping meanwhile;
         * unlock-race-cond: this one and the main thread), then leave together; relaxed: a meeting */
        ll_faa(&race_arrived, 1, LL_RELAXED);
        race_meet(2 * r);
        pthread_mutex_unlock(&race_m); /* undefined: glibc releases it */
        sem_post(&race_done); /* our unlock before the main thread's try */
    }
    return NULL;
}

static int case_unlock_race(void)
{
    const char *holder_releases = getenv("LOCKLAB_TEST_HOLDER_RELEASES");
    int want = holder_releases && strcmp(holder_releases, "1") == 0 ? EBUSY : 0;
    sem_init(&race_done, 0, 0);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        test_start(&t[i], race_unlocker, NULL);
    for (uint32_t r = 1; r <= RACE_ROUNDS; r++) {
        CHECK_EQ(pthread_mutex_lock(&race_m), 0);
        ll_store_release(&race_go, r); /* release: the lock above, before the racers' unlocks (their acquire) */
        sem_wait(&race_done);
        sem_wait(&race_done);
        int rc = pthread_mutex_trylock(&race_m);
        if (rc != want) {
            CHECK_EQ(rc, want);
            break;
        }
        CHECK_EQ(pthread_mutex_unlock(&race_m), 0);
    }
    ll_store_release(&race_go, RACE_ROUNDS); /* release: as above; after a failure, the racers' last rounds */
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    check_excludes(&race_m, "unlocked by two threads at once");
    return test_done("unlock-race");
}

static pthread_cond_t race_c = PTHREAD_COND_INITIALIZER;

static int case_unlock_race_cond(void)
{
    sem_init(&race_done, 0, 0);
    pthread_t t;
    test_start(&t, race_unlocker, NULL); /* it meets the main thread instead of a second racer */
    for (uint32_t r = 1; r <= RACE_ROUNDS; r++) {
        CHECK_EQ(pthread_mutex_lock(&race_m), 0);
        ll_store_release(&race_go, r); /* release: the lock above, before the racer's unlock (its acquire) */
        ll_faa(&race_arrived, 1, LL_RELAXED); /* relaxed: a meeting */
        race_meet(2 * r);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        /* its unlock races with the racer's; it returns holding the mutex again, or EPERM if
         * the racer's unlock came before its check */
        int rc = pthread_cond_timedwait(&race_c, &race_m, &until);
        sem_wait(&race_done);
        if (rc == 0 || rc == ETIMEDOUT) {
            CHECK_EQ(pthread_mutex_unlock(&race_m), 0);
        } else if (rc != EPERM) {
            CHECK_EQ(rc, ETIMEDOUT);
            break;
        }
        rc = pthread_mutex_trylock(&race_m); /* free now: a lock released twice is not (or crashed) */
        if (rc != 0) {
            CHECK_EQ(rc, 0);
            break;
        }
        CHECK_EQ(pthread_mutex_unlock(&race_m), 0);
    }
    ll_store_release(&race_go, RACE_ROUNDS); /* release: as above; after a failure, the racer's last rounds */
    ll_store_relaxed(&race_arrived, 4 * RACE_ROUNDS); /* relaxed: let its meetings pass */
    pthread_join(t, NULL);
    check_excludes(&race_m, "unlocked by two threads at once");
    return test_done("unlock-race-cond");
}

/* ---- cancel-relock, reinit-waiter ---------------------------------------------------------- */

typedef struct relocker {
    pthread_mutex_t *m;
    sem_t locked;            /* posted once it holds m */
    ll_atomic_u32 returned;  /* its relock returned (it must not) */
    int async;
} relocker;

static void *relock(void *arg)
{
    relocker *r = (relocker *)arg;
    if (r->async)
        pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
    pthread_mutex_lock(r->m);
    sem_post(&r->locked);
    pthread_mutex_lock(r->m); /* a default mutex it holds: blocks for ever */
    ll_store_release(&r->returned, 1); /* release: nothing; read by the main thread */
    return NULL;
}

static int case_cancel_relock(void)
{
    pthread_mutex_t m;
    pthread_mutex_init(&m, NULL);
    relocker r;
    memset(&r, 0, sizeof r);
    r.m = &m;
    r.async = 1;
    sem_init(&r.locked, 0, 0);
    pthread_t t;
    test_start(&t, relock, &r);
    while (sem_wait(&r.locked) != 0)
        ;
    test_sleep_ms(50); /* inside its relock */
    CHECK_EQ(pthread_cancel(t), 0);
    void *ret = NULL;
    struct timespec dl = in_ms(CLOCK_REALTIME, 10000);
    int rc = pthread_timedjoin_np(t, &ret, &dl);
    CHECK_EQ(rc, 0);
    CHECK(rc != 0 || ret == PTHREAD_CANCELED);
    CHECK_EQ(ll_load_acquire(&r.returned), 0); /* acquire: pairs with relock's release */
    pthread_mutex_unlock(&m); /* held by the cancelled thread: undefined; glibc releases it */
    /* As it is: the cancelled thread left nothing in it (a relocker queued in the lock would be
     * handed it).  Not where only the holder can release (the unlock above is ignored,
     * docs/interposer.md): run_tests.sh sets LOCKLAB_TEST_HOLDER_RELEASES=1 for such a lock
     * (its capabilities, registry.h: LL_CAP_HOLDER_RELEASES). */
    const char *holder_releases = getenv("LOCKLAB_TEST_HOLDER_RELEASES");
    if (!holder_releases || strcmp(holder_releases, "1") != 0)
        check_excludes(&m, "relocked by a cancelled thread, then unlocked");
    pthread_mutex_destroy(&m); /* 0 under glibc */
    pthread_mutex_init(&m, NULL);
    check_excludes(&m, "relocked by a cancelled thread, then re-initialised");
    /* And a mutex at a new address, with its waiters gone too */
    pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;
    check_excludes(&other, "another mutex afterwards");
    return test_done("cancel-relock");
}

static int case_reinit_waiter(void)
{
    static pthread_mutex_t m; /* outlives the blocked thread's wait */
    pthread_mutex_init(&m, NULL);
    static relocker r;
    r.m = &m;
    sem_init(&r.locked, 0, 0);
    pthread_t t;
    test_start(&t, relock, &r);
    while (sem_wait(&r.locked) != 0)
        ;
    test_sleep_ms(50); /* inside its relock */
    pthread_mutex_init(&m, NULL); /* over the held mutex: undefined, glibc's waiter sleeps on */
    /* Used by this thread alone: glibc wakes no one (a contended unlock's futex wake would
     * wake the old waiter too), so its waiter stays asleep and every trylock here succeeds. */
    for (int i = 0; i < 20; i++) {
        CHECK_EQ(pthread_mutex_lock(&m), 0);
        CHECK_EQ(pthread_mutex_unlock(&m), 0);
        test_sleep_ms(2);
        int rc = pthread_mutex_trylock(&m);
        CHECK_EQ(rc, 0);
        if (rc == 0)
            CHECK_EQ(pthread_mutex_unlock(&m), 0);
    }
    CHECK(!ll_load_acquire(&r.returned), /* acquire: pairs with relock's release */
          "reinit-waiter: the thread blocked in the old mutex took the re-initialised one");
    return test_done("reinit-waiter"); /* the blocked thread stays blocked: exit ends it */
}

/* ---- copy-inited ---------------------------------------------------------------------------- */

/* A mutex initialised in a temporary (at the same address each call) and copied into place, as
 * a container's push_back of a struct holding one does. */
static __attribute__((noinline)) void init_by_copy(pthread_mutex_t *dst)
{
    pthread_mutex_t tmp;
    CHECK_EQ(pthread_mutex_init(&tmp, NULL), 0);
    memcpy(dst, &tmp, sizeof tmp);
}

static int case_copy_inited(void)
{
    static pthread_mutex_t m[3];
    for (int i = 0; i < 3; i++)
        init_by_copy(&m[i]);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(pthread_mutex_lock(&m[i]), 0);
        for (int j = 0; j < 3; j++) /* the others are free: distinct mutexes */
            if (j != i && pthread_mutex_trylock(&m[j]) == 0)
                CHECK_EQ(pthread_mutex_unlock(&m[j]), 0);
            else
                CHECK(j == i, "copy-inited: mutex %d busy while only mutex %d is held", j, i);
        CHECK_EQ(pthread_mutex_unlock(&m[i]), 0);
    }
    for (int i = 0; i < 3; i++)
        check_excludes(&m[i], "initialised in a temporary and copied into place");
    return test_done("copy-inited");
}

/* ---- copied-used ---------------------------------------------------------------------------- */

static pthread_mutex_t original = PTHREAD_MUTEX_INITIALIZER, copy;
static sem_t held, done_with;

static void *hold_original(void *arg)
{
    (void)arg;
    CHECK_EQ(pthread_mutex_lock(&original), 0);
    CHECK_EQ(sem_post(&held), 0);
    while (sem_wait(&done_with) != 0)
        ;
    CHECK_EQ(pthread_mutex_unlock(&original), 0);
    return NULL;
}

static int case_copied_used(void)
{
    CHECK_EQ(pthread_mutex_lock(&original), 0);
    CHECK_EQ(pthread_mutex_unlock(&original), 0);
    memcpy(&copy, &original, sizeof copy); /* after use: the object pointer comes along */
    CHECK_EQ(sem_init(&held, 0, 0), 0);
    CHECK_EQ(sem_init(&done_with, 0, 0), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, hold_original, NULL), 0);
    while (sem_wait(&held) != 0)
        ;
    bool free_ = pthread_mutex_trylock(&copy) == 0;
    CHECK(free_, "copied-used: the copy is busy while only the original is held");
    if (free_)
        CHECK_EQ(pthread_mutex_unlock(&copy), 0);
    CHECK_EQ(sem_post(&done_with), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(pthread_mutex_lock(&original), 0); /* one thread holds both (a hang if they were one lock) */
    CHECK_EQ(pthread_mutex_lock(&copy), 0);
    CHECK_EQ(pthread_mutex_unlock(&copy), 0);
    CHECK_EQ(pthread_mutex_unlock(&original), 0);
    CHECK_EQ(pthread_mutex_destroy(&copy), 0); /* must leave the original's object alone */
    check_excludes(&original, "the original after its copy was destroyed");
    return test_done("copied-used");
}

/* ---- oom ------------------------------------------------------------------------------------ */

enum { FRESH = 20000 };
static pthread_mutex_t fresh[FRESH]; /* static initialisers: the first lock installs each object */
static sem_t oom_sem;

/* The late thread's first interposed calls (oom.h): a contended mutex (its per-thread data, a
 * queue node) and a blocking semaphore wait. */
static void late_first_calls(void)
{
    add_rounds(&fresh[FRESH - 1]);
    while (sem_wait(&oom_sem) != 0)
        ;
}

static int oom_child(void)
{
    CHECK_EQ(sem_init(&oom_sem, 0, 0), 0);
    oom_late late;
    oom_late_start(&late, late_first_calls);
    size_t mapped;
    if (oom_fill_address_space(&mapped) != 0)
        return 1;
    /* Fresh mutexes: init answers 0 or ENOMEM, and one initialised works. */
    static pthread_mutex_t inited[64];
    int ok = 0, enomem = 0;
    for (int i = 0; i < 64; i++)
        CHECK_EQ(oom_count_init(pthread_mutex_init(&inited[i], NULL), &ok, &enomem), 0);
    for (int i = 0; i < FRESH; i++) { /* each one's first lock */
        CHECK_EQ(pthread_mutex_lock(&fresh[i]), 0);
        CHECK_EQ(pthread_mutex_trylock(&fresh[i]), EBUSY);
        CHECK_EQ(pthread_mutex_unlock(&fresh[i]), 0);
        CHECK_EQ(pthread_mutex_trylock(&fresh[i]), 0);
        CHECK_EQ(pthread_mutex_unlock(&fresh[i]), 0);
    }
    /* The late thread's first calls: a contended mutex, then a semaphore it waits on. */
    counter = 0;
    oom_late_go(&late);
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_EQ(pthread_mutex_lock(&fresh[FRESH - 1]), 0);
        counter++;
        CHECK_EQ(pthread_mutex_unlock(&fresh[FRESH - 1]), 0);
    }
    test_sleep_ms(20);
    CHECK_EQ(sem_post(&oom_sem), 0);
    pthread_join(late.thread, NULL);
    CHECK(counter == 2 * ROUNDS, "oom: counter %ld, want %d", counter, 2 * ROUNDS);
    for (int i = 0; i < ok; i++) { /* no thread can be started now: one thread's view */
        CHECK_EQ(pthread_mutex_lock(&inited[i]), 0);
        CHECK_EQ(pthread_mutex_trylock(&inited[i]), EBUSY);
        CHECK_EQ(pthread_mutex_unlock(&inited[i]), 0);
        CHECK_EQ(pthread_mutex_destroy(&inited[i]), 0);
    }
    for (int i = 0; i < FRESH; i++)
        CHECK_EQ(pthread_mutex_destroy(&fresh[i]), 0);
    printf("oom: %zu MiB mapped to fill; %d inits 0, %d ENOMEM\n", mapped >> 20, ok, enomem);
    return test_done("oom");
}

static int case_oom(void)
{
    return oom_run_child(oom_child);
}

int main(int argc, char **argv)
{
    /* A case with a duration MS (default 300) runs under an alarm of MS + 10 s, any other under one of 60 s. */
    static const struct {
        const char *name;
        int (*run)(void);
        int (*run_ms)(long ms);
    } cases[] = {
        {"signal", NULL, case_signal},
        {"signal-first-post", NULL, case_signal_first_post},
        {"unlock-unheld", case_unlock_unheld, NULL},
        {"unlock-other", case_unlock_other, NULL},
        {"unlock-race", case_unlock_race, NULL},
        {"unlock-race-cond", case_unlock_race_cond, NULL},
        {"cancel-relock", case_cancel_relock, NULL},
        {"reinit-waiter", case_reinit_waiter, NULL},
        {"copy-inited", case_copy_inited, NULL},
        {"copied-used", case_copied_used, NULL},
        {"oom", case_oom, NULL},
    };
    int arg = 1;
    if (argc > arg && strcmp(argv[arg], "glibc") == 0)
        arg++;
    else
        require_interposed((void *)pthread_mutex_lock);
    const char *c = argc > arg ? argv[arg] : "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(c, cases[i].name) != 0)
            continue;
        if (!cases[i].run_ms) {
            hang_alarm(60);
            return cases[i].run();
        }
        long ms = argc > arg + 1 ? atol(argv[arg + 1]) : 300;
        hang_alarm((unsigned)(ms / 1000 + 10));
        return cases[i].run_ms(ms);
    }
    fprintf(stderr, "test_robust: unknown case '%s' (valid: [glibc] then ", c);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        fprintf(stderr, "%s%s%s", i ? ", " : "", cases[i].name, cases[i].run_ms ? " [MS]" : "");
    fprintf(stderr, ")\n");
    return 2;
}
