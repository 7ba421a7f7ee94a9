/*
 * POSIX behaviour real programs rely on, checked the same way under the
 * interposer and under glibc (argument "glibc": run without LD_PRELOAD, the
 * reference):
 *   - signals: sem_wait / sem_timedwait / sem_clockwait interrupted by a
 *     handler installed without SA_RESTART return -1 / EINTR; with SA_RESTART
 *     sem_wait keeps waiting (the timed ones return EINTR, as on glibc: Linux
 *     never restarts a timed futex wait); a post racing with signals is never
 *     lost; condition waits never return EINTR; sem_post in a signal handler
 *     that interrupts an operation on the same semaphore neither hangs nor
 *     loses its unit;
 *   - cancellation: pthread_cancel of a thread blocked in pthread_cond_wait,
 *     _timedwait, _clockwait, sem_wait or sem_timedwait acts (join returns
 *     PTHREAD_CANCELED); the cleanup handler of a condition wait runs with the
 *     mutex held; the cancelled waiter leaves the wait list (other waiters are
 *     still woken); a signal or post racing with the cancel is not lost;
 *     a cancel pending at entry acts there;
 *   - ownership: a thread that exits holding an errorcheck and a recursive
 *     mutex still owns them; a new thread (which gets the exited thread's
 *     stack and TLS block back from glibc's cache) gets EPERM on unlock and
 *     EBUSY on trylock.
 * Run by run_tests.sh (case posix) once per lock spec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "locklab/atomics.h"

/* Joins t and returns its result, or fails the test (and leaves t) after 20 s and returns
 * STILL_BLOCKED (not PTHREAD_CANCELED, which is (void *)-1): a hang is the failure these tests look for. */
static char still_blocked_mark;
#define STILL_BLOCKED ((void *)&still_blocked_mark)
static void *join_within(pthread_t t, const char *what)
{
    struct timespec dl = in_ms(CLOCK_REALTIME, 20000);
    void *ret = NULL;
    int rc = pthread_timedjoin_np(t, &ret, &dl);
    if (rc != 0) {
        fprintf(stderr, "%s: thread still blocked after 20 s\n", what);
        failures++;
        return STILL_BLOCKED;
    }
    return ret;
}

/* Waits until thread tid sleeps in the kernel (state S in /proc), i.e. inside its blocking wait. */
static void await_sleeping(ll_atomic_u32 *tid_word)
{
    pid_t tid;
    while ((tid = (pid_t)ll_load_acquire(tid_word)) == 0) /* acquire: the thread stored it just before waiting */
        test_sleep_ms(1);
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    for (;;) {
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[n] = '\0';
        char *close_paren = strrchr(buf, ')');
        if (close_paren && close_paren[1] == ' ' && close_paren[2] == 'S')
            return;
        test_sleep_ms(1);
    }
}

/* ---- signals ------------------------------------------------------------------------- */
static ll_atomic_u32 handled;
static void on_signal(int sig)
{
    (void)sig;
    ll_faa(&handled, 1, LL_RELAXED); /* relaxed: counted, read after the handler returned */
}
#define SIG_NORESTART SIGUSR1
#define SIG_RESTART SIGUSR2

enum sem_how { SEM_WAIT, SEM_TIMEDWAIT, SEM_CLOCKWAIT };
static const char *const sem_how_name[] = {"sem_wait", "sem_timedwait", "sem_clockwait"};
typedef struct sem_waiter {
    sem_t *s;
    enum sem_how how;
    ll_atomic_u32 tid;
    ll_atomic_u32 returned;
    int rc, err;
} sem_waiter;
static int sem_wait_how(sem_t *s, enum sem_how how)
{
    struct timespec dl;
    switch (how) {
    case SEM_WAIT:
        return sem_wait(s);
    case SEM_TIMEDWAIT:
        dl = in_ms(CLOCK_REALTIME, 60000);
        return sem_timedwait(s, &dl);
    default:
        dl = in_ms(CLOCK_MONOTONIC, 60000);
        return sem_clockwait(s, CLOCK_MONOTONIC, &dl);
    }
}
static void *sem_waiter_main(void *arg)
{
    sem_waiter *w = (sem_waiter *)arg;
    ll_store_release(&w->tid, (uint32_t)syscall(SYS_gettid)); /* release: before the wait */
    errno = 0;
    w->rc = sem_wait_how(w->s, w->how);
    w->err = errno;
    ll_store_release(&w->returned, 1); /* release: rc and err */
    return NULL;
}

/* One waiter blocked in how, hit by sig: EINTR (interrupts) or still waiting, then a post. */
static void sem_signal_case(enum sem_how how, int sig, bool interrupts)
{
    sem_t s;
    sem_init(&s, 0, 0);
    sem_waiter w = {.s = &s, .how = how};
    pthread_t t;
    test_start(&t, sem_waiter_main, &w);
    await_sleeping(&w.tid);
    /* The thread may have been seen asleep elsewhere (malloc's lock in its first call): a signal
     * that came too early interrupts nothing, so one that should interrupt is sent again until
     * the wait returns (at most 100 times). */
    for (int sent = 0; sent < (interrupts ? 100 : 1) && !ll_load_acquire(&w.returned); sent++) { /* acquire: rc, err */
        uint32_t before = ll_load_relaxed(&handled); /* relaxed: only this thread and handlers touch it */
        pthread_kill(t, sig);
        while (ll_load_relaxed(&handled) == before) /* relaxed: a counter */
            test_sleep_ms(1);
        test_sleep_ms(interrupts ? 20 : 50); /* a wait that (wrongly) returns has done so by now */
    }
    bool returned_early = ll_load_acquire(&w.returned); /* acquire: rc and err */
    CHECK(returned_early == interrupts, "%s, %s: %s", sem_how_name[how], sig == SIG_RESTART ? "SA_RESTART" : "no SA_RESTART",
          interrupts ? "did not return EINTR" : "returned on a signal");
    sem_post(&s); /* lets a still blocked waiter go; after an EINTR, the unit stays in s */
    join_within(t, sem_how_name[how]);
    if (interrupts) {
        CHECK_EQ(w.rc, -1);
        CHECK_EQ(w.err, EINTR);
        int v = -1;
        sem_getvalue(&s, &v);
        CHECK_EQ(v, 1);
    } else {
        CHECK_EQ(w.rc, 0);
    }
    sem_destroy(&s);
}

/* Posts racing with signals: every unit reaches the waiter (an EINTR never swallows one). */
enum { RACE_UNITS = 20000 };
static sem_t race_sem;
static ll_atomic_u32 race_done;
static ll_atomic_u64 race_eintr;
static void *race_consumer(void *arg)
{
    (void)arg;
    for (int got = 0; got < RACE_UNITS;) {
        if (sem_wait(&race_sem) == 0)
            got++;
        else if (errno == EINTR)
            ll_faa(&race_eintr, 1, LL_RELAXED); /* relaxed: a statistic */
        else
            CHECK(!"sem_wait failed with an error other than EINTR");
    }
    ll_store_release(&race_done, 1); /* release: nothing but the fact */
    return NULL;
}
static void *race_signaller(void *arg)
{
    pthread_t target = *(pthread_t *)arg;
    while (!ll_load_acquire(&race_done)) { /* acquire: pairs with the consumer's release */
        pthread_kill(target, SIG_NORESTART);
        sched_yield();
    }
    return NULL;
}
static void test_sem_post_races_signal(void)
{
    sem_init(&race_sem, 0, 0);
    pthread_t consumer, signaller;
    test_start(&consumer, race_consumer, NULL);
    test_start(&signaller, race_signaller, &consumer);
    for (int i = 0; i < RACE_UNITS; i++) {
        sem_post(&race_sem);
        if (i % 16 == 0)
            sched_yield();
    }
    /* The signaller first: it stops once the consumer has all its units, and a consumer
     * that exited but is not joined yet is still a valid target (ESRCH). */
    join_within(signaller, "post racing signals (a post was lost)");
    pthread_join(consumer, NULL);
    int v = -1;
    sem_getvalue(&race_sem, &v);
    CHECK_EQ(v, 0);
    sem_destroy(&race_sem);
}

/* sem_post from a signal handler (POSIX: async-signal-safe) that interrupts the same thread
 * inside an operation on the same semaphore: sem_post, sem_trywait, sem_getvalue, a sem_wait
 * that finds a unit and a sem_timedwait that times out all take the semaphore's guard for a few
 * instructions; a handler that waits for that guard waits for the thread it interrupted (it hung
 * here).  Every handler's post must arrive: the value ends at the number of handled signals. */
enum { HANDLER_MS = 2000 };
static sem_t handler_sem;
static ll_atomic_u32 handler_posts, handler_done, looper_tid;
static unsigned handler_units_taken; /* by the looper; read after it is joined */
static void post_in_handler(int sig)
{
    (void)sig;
    sem_post(&handler_sem);
    ll_faa(&handler_posts, 1, LL_RELAXED); /* relaxed: read after the thread is joined */
}
static void *sem_looper(void *arg)
{
    (void)arg;
    ll_store_release(&looper_tid, (uint32_t)syscall(SYS_gettid)); /* release: nothing but the fact */
    while (!ll_load_acquire(&handler_done)) { /* acquire: pairs with the release store below */
        sem_post(&handler_sem);
        int v;
        sem_getvalue(&handler_sem, &v);
        CHECK(sem_trywait(&handler_sem) == 0);
        sem_post(&handler_sem);
        CHECK(sem_wait(&handler_sem) == 0); /* a unit is there: no sleep, no EINTR */
        struct timespec past = {0, 0};
        if (sem_timedwait(&handler_sem, &past) == 0) /* takes a handler's unit, or times out at once */
            handler_units_taken++;
    }
    return NULL;
}
static void test_sem_post_in_handler(void)
{
    test_on_signal(SIGALRM, post_in_handler, SA_RESTART);
    sem_init(&handler_sem, 0, 0);
    pthread_t t;
    test_start(&t, sem_looper, NULL);
    while (!ll_load_acquire(&looper_tid)) /* acquire: pairs with the looper's release */
        sched_yield();
    /* A timer aimed at the looper (SIGEV_THREAD_ID), every 10 us: its signals land anywhere in
     * the loop, inside the guard a good share of the time. */
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGALRM;
    sev._sigev_un._tid = (pid_t)ll_load_relaxed(&looper_tid); /* relaxed: read above with acquire */
    timer_t timer;
    CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);
    struct itimerspec every = {{0, 10000}, {0, 10000}}, off = {{0, 0}, {0, 0}};
    CHECK_EQ(timer_settime(timer, 0, &every, NULL), 0);
    test_sleep_ms(HANDLER_MS);
    timer_settime(timer, 0, &off, NULL);
    timer_delete(timer);
    ll_store_release(&handler_done, 1); /* release: nothing but the fact */
    if (join_within(t, "sem_post in a signal handler (deadlock on the semaphore's guard)") == STILL_BLOCKED)
        return; /* the semaphore's guard stays taken */
    int v = -1;
    sem_getvalue(&handler_sem, &v);
    /* Each handler posted once; the looper's sem_timedwait took some of those units; none is lost. */
    CHECK_EQ(v, (long)ll_load_relaxed(&handler_posts) - (long)handler_units_taken); /* relaxed: joined */
    printf("sem_post in a handler: %u signals handled, value %d\n", (unsigned)ll_load_relaxed(&handler_posts), v);
    signal(SIGALRM, SIG_DFL);
    sem_destroy(&handler_sem);
}

/* Condition waits hit by signals (both kinds) return 0 (or ETIMEDOUT), never EINTR, with the mutex held. */
static pthread_mutex_t sig_m;
static pthread_cond_t sig_c = PTHREAD_COND_INITIALIZER;
static int sig_go, sig_bad_rc;
static ll_atomic_u32 sig_tid;
static void *cond_signalled_waiter(void *arg)
{
    int timed = (int)(intptr_t)arg;
    pthread_mutex_lock(&sig_m);
    ll_store_release(&sig_tid, (uint32_t)syscall(SYS_gettid)); /* release: before the wait */
    while (!sig_go) {
        struct timespec dl = in_ms(CLOCK_REALTIME, 60000);
        int rc = timed ? pthread_cond_timedwait(&sig_c, &sig_m, &dl) : pthread_cond_wait(&sig_c, &sig_m);
        if (rc != 0 && rc != ETIMEDOUT)
            sig_bad_rc = rc;
    }
    CHECK_EQ(pthread_mutex_unlock(&sig_m), 0); /* errorcheck: EPERM if the wait returned without the mutex */
    return NULL;
}
static void test_cond_wait_signals(void)
{
    CHECK_EQ(init_mutex_of_type(&sig_m, PTHREAD_MUTEX_ERRORCHECK), 0);
    for (int timed = 0; timed < 2; timed++) {
        sig_go = 0;
        sig_bad_rc = 0;
        ll_store_relaxed(&sig_tid, 0); /* relaxed: before the thread starts */
        pthread_t t;
        test_start(&t, cond_signalled_waiter, (void *)(intptr_t)timed);
        for (int i = 0; i < 20; i++) {
            await_sleeping(&sig_tid);
            uint32_t before = ll_load_relaxed(&handled); /* relaxed: a counter */
            pthread_kill(t, i % 2 ? SIG_RESTART : SIG_NORESTART);
            while (ll_load_relaxed(&handled) == before) /* relaxed: a counter */
                test_sleep_ms(1);
        }
        pthread_mutex_lock(&sig_m);
        sig_go = 1;
        pthread_cond_signal(&sig_c);
        pthread_mutex_unlock(&sig_m);
        join_within(t, "cond wait hit by signals");
        CHECK(sig_bad_rc == 0, "pthread_cond_%swait returned %d (%s) on a signal", timed ? "timed" : "", sig_bad_rc,
              strerror(sig_bad_rc));
    }
    pthread_mutex_destroy(&sig_m);
}

static void test_signals(void)
{
    test_on_signal(SIG_NORESTART, on_signal, 0);
    test_on_signal(SIG_RESTART, on_signal, SA_RESTART);
    for (enum sem_how how = SEM_WAIT; how <= SEM_CLOCKWAIT; how++) {
        sem_signal_case(how, SIG_NORESTART, true);
        /* Linux restarts an untimed futex wait after an SA_RESTART handler, never a timed one (glibc's too) */
        sem_signal_case(how, SIG_RESTART, how != SEM_WAIT);
    }
    test_sem_post_races_signal();
    test_sem_post_in_handler();
    test_cond_wait_signals();
}

/* ---- cancellation ----------------------------------------------------------------------- */
enum cancel_how { C_COND_WAIT, C_COND_TIMEDWAIT, C_COND_CLOCKWAIT, C_SEM_WAIT, C_SEM_TIMEDWAIT };
static const char *const cancel_how_name[] = {"pthread_cond_wait", "pthread_cond_timedwait",
                                              "pthread_cond_clockwait", "sem_wait", "sem_timedwait"};
typedef struct cancel_obj {
    pthread_mutex_t m; /* errorcheck: the cleanup handler's unlock says whether it holds it */
    pthread_cond_t c;
    sem_t s;
    int go; /* under m */
} cancel_obj;
typedef struct cancel_waiter {
    cancel_obj *o;
    enum cancel_how how;
    ll_atomic_u32 tid;
    int waiting; /* under m: about to wait */
    int cleanup_ran, cleanup_unlock_rc;
    int got; /* returned from the wait normally (with the token / unit) */
} cancel_waiter;

static void cancel_obj_init(cancel_obj *o)
{
    CHECK_EQ(init_mutex_of_type(&o->m, PTHREAD_MUTEX_ERRORCHECK), 0);
    pthread_cond_init(&o->c, NULL);
    sem_init(&o->s, 0, 0);
    o->go = 0;
}
static void cancel_obj_destroy(cancel_obj *o)
{
    CHECK_EQ(pthread_mutex_destroy(&o->m), 0);
    CHECK_EQ(pthread_cond_destroy(&o->c), 0);
    CHECK_EQ(sem_destroy(&o->s), 0);
}

static void cond_cleanup(void *arg)
{
    cancel_waiter *w = (cancel_waiter *)arg;
    w->cleanup_ran = 1;
    w->cleanup_unlock_rc = pthread_mutex_unlock(&w->o->m); /* 0 only if the cancelled wait re-took the mutex */
}
static void sem_cleanup(void *arg) { ((cancel_waiter *)arg)->cleanup_ran = 1; }

static void *cancel_waiter_main(void *arg)
{
    cancel_waiter *w = (cancel_waiter *)arg;
    cancel_obj *o = w->o;
    struct timespec dl;
    if (w->how >= C_SEM_WAIT) {
        pthread_cleanup_push(sem_cleanup, w);
        ll_store_release(&w->tid, (uint32_t)syscall(SYS_gettid)); /* release: before the wait */
        while (sem_wait_how(&o->s, w->how == C_SEM_WAIT ? SEM_WAIT : SEM_TIMEDWAIT) != 0)
            CHECK(errno == EINTR);
        w->got = 1;
        pthread_cleanup_pop(0);
        return NULL;
    }
    pthread_mutex_lock(&o->m);
    pthread_cleanup_push(cond_cleanup, w);
    w->waiting = 1;
    ll_store_release(&w->tid, (uint32_t)syscall(SYS_gettid)); /* release: before the wait */
    while (!o->go) {
        switch (w->how) {
        case C_COND_WAIT:
            CHECK_EQ(pthread_cond_wait(&o->c, &o->m), 0);
            break;
        case C_COND_TIMEDWAIT:
            dl = in_ms(CLOCK_REALTIME, 60000);
            CHECK_EQ(pthread_cond_timedwait(&o->c, &o->m, &dl), 0);
            break;
        default:
            dl = in_ms(CLOCK_MONOTONIC, 60000);
            CHECK_EQ(pthread_cond_clockwait(&o->c, &o->m, CLOCK_MONOTONIC, &dl), 0);
            break;
        }
    }
    o->go = 0; /* takes the token */
    w->got = 1;
    pthread_cleanup_pop(0);
    pthread_mutex_unlock(&o->m);
    return NULL;
}

/* Starts a waiter and returns once it is listed: a condition waiter has released
 * the mutex (it lists itself first), a semaphore waiter sleeps in the kernel. */
static void start_listed(pthread_t *t, cancel_waiter *w)
{
    test_start(t, cancel_waiter_main, w);
    if (w->how >= C_SEM_WAIT) {
        await_sleeping(&w->tid);
        return;
    }
    for (;;) {
        pthread_mutex_lock(&w->o->m);
        int waiting = w->waiting;
        pthread_mutex_unlock(&w->o->m);
        if (waiting)
            break;
        test_sleep_ms(1);
    }
}

/* Wakes one waiter of o: a token under the mutex and a signal, or a post. */
static void wake_one(cancel_obj *o, enum cancel_how how)
{
    if (how >= C_SEM_WAIT) {
        sem_post(&o->s);
        return;
    }
    pthread_mutex_lock(&o->m);
    o->go = 1;
    pthread_cond_signal(&o->c);
    pthread_mutex_unlock(&o->m);
}

/* Waiters A and B of one fresh object, A started and listed (B not started). */
typedef struct cancel_scene {
    cancel_obj o;
    cancel_waiter a, b;
    pthread_t ta, tb;
} cancel_scene;
static void cancel_scene_start(cancel_scene *s, enum cancel_how how)
{
    cancel_obj_init(&s->o);
    s->a = (cancel_waiter){.o = &s->o, .how = how, .cleanup_unlock_rc = -1};
    s->b = s->a;
    start_listed(&s->ta, &s->a);
}

/* A is blocked, then B: cancel A (cleanup with the mutex held), then one wake-up must reach B. */
static void cancel_blocked_case(enum cancel_how how)
{
    cancel_scene s;
    cancel_scene_start(&s, how);
    if (how < C_SEM_WAIT)
        await_sleeping(&s.a.tid);
    start_listed(&s.tb, &s.b);
    pthread_cancel(s.ta);
    void *ret = join_within(s.ta, cancel_how_name[how]);
    CHECK(ret == PTHREAD_CANCELED, "%s: the cancelled waiter's join returned %p, not PTHREAD_CANCELED", cancel_how_name[how],
          ret);
    if (ret == STILL_BLOCKED)
        return; /* still blocked: the objects cannot be destroyed, and the rest would hang too */
    CHECK_EQ(s.a.cleanup_ran, 1);
    CHECK_EQ(s.a.got, 0);
    if (how < C_SEM_WAIT)
        CHECK(s.a.cleanup_unlock_rc == 0, "%s: the cleanup handler ran without the mutex (unlock: %d)", cancel_how_name[how],
              s.a.cleanup_unlock_rc);
    wake_one(&s.o, how); /* must reach B: A left the wait list */
    ret = join_within(s.tb, "the waiter behind a cancelled one");
    if (ret == STILL_BLOCKED)
        return;
    CHECK_EQ(s.b.got, 1);
    cancel_obj_destroy(&s.o);
}

/* A cancel pending at entry acts there (with the mutex held for a condition wait), even if a unit is there. */
static void *pending_cancel_main(void *arg)
{
    cancel_waiter *w = (cancel_waiter *)arg;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    while (!ll_load_acquire(&w->tid)) /* acquire: main stored it after its pthread_cancel */
        test_sleep_ms(1);
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
    if (w->how >= C_SEM_WAIT) {
        pthread_cleanup_push(sem_cleanup, w);
        sem_wait(&w->o->s);
        w->got = 1;
        pthread_cleanup_pop(0);
        return NULL;
    }
    pthread_mutex_lock(&w->o->m);
    pthread_cleanup_push(cond_cleanup, w);
    pthread_cond_wait(&w->o->c, &w->o->m);
    w->got = 1;
    pthread_cleanup_pop(1);
    return NULL;
}
static void cancel_pending_case(enum cancel_how how)
{
    cancel_obj o;
    cancel_obj_init(&o);
    sem_post(&o.s); /* a unit is there: sem_wait must still act on the cancel */
    cancel_waiter w = {.o = &o, .how = how, .cleanup_unlock_rc = -1};
    pthread_t t;
    test_start(&t, pending_cancel_main, &w);
    pthread_cancel(t);
    ll_store_release(&w.tid, 1); /* release: after the cancel request */
    void *ret = join_within(t, "pending cancel");
    CHECK(ret == PTHREAD_CANCELED, "%s: a pending cancel did not act at entry", cancel_how_name[how]);
    CHECK_EQ(w.got, 0);
    if (how < C_SEM_WAIT)
        CHECK_EQ(w.cleanup_unlock_rc, 0);
    cancel_obj_destroy(&o);
}

/* A wake-up racing with the cancel of the waiter it chose is not lost: whoever
 * did not get it (the cancelled waiter) passes it on (to B, or back to the semaphore). */
static void cancel_race_case(enum cancel_how how, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        cancel_scene s;
        cancel_scene_start(&s, how);
        if (how < C_SEM_WAIT)
            start_listed(&s.tb, &s.b);
        if (i % 2)
            sched_yield();
        wake_one(&s.o, how);
        pthread_cancel(s.ta);
        void *ret = join_within(s.ta, "cancel racing a wake-up");
        if (ret == STILL_BLOCKED)
            return;
        if (how >= C_SEM_WAIT) {
            int v = -1;
            sem_getvalue(&s.o.s, &v);
            CHECK(s.a.got + v == 1, "%s: cancel racing a post: got %d, value %d (the unit was lost)", cancel_how_name[how],
                  s.a.got, v);
        } else {
            if (s.a.got)
                wake_one(&s.o, how); /* A took the token: give B its own */
            ret = join_within(s.tb, "cancel racing a signal: the waiter left waiting");
            if (ret == STILL_BLOCKED)
                return;
            CHECK_EQ(s.b.got, 1);
        }
        cancel_obj_destroy(&s.o);
    }
}

static void test_cancellation(void)
{
    for (enum cancel_how how = C_COND_WAIT; how <= C_SEM_TIMEDWAIT; how++) {
        cancel_blocked_case(how);
        cancel_pending_case(how);
        cancel_race_case(how, 100);
    }
}

/* ---- ownership by a thread that exited -------------------------------------------------- */
static pthread_mutex_t ex_errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t ex_recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static __thread char tls_probe;
static void *tls_block;
static void *lock_and_exit(void *arg)
{
    (void)arg;
    CHECK_EQ(pthread_mutex_lock(&ex_errorcheck), 0);
    CHECK_EQ(pthread_mutex_lock(&ex_recursive), 0);
    tls_block = &tls_probe;
    return NULL;
}
static void *after_owner_exited(void *arg)
{
    int *reused = (int *)arg;
    *reused = tls_block == (void *)&tls_probe;
    CHECK_EQ(pthread_mutex_unlock(&ex_errorcheck), EPERM);
    CHECK_EQ(pthread_mutex_trylock(&ex_errorcheck), EBUSY);
    CHECK_EQ(pthread_mutex_trylock(&ex_recursive), EBUSY);
    CHECK_EQ(pthread_mutex_unlock(&ex_recursive), EPERM);
    return NULL;
}
static void test_exited_owner(void)
{
    int reused = 0;
    test_run_threads(1, lock_and_exit, NULL, 0);
    test_run_threads(1, after_owner_exited, &reused, 0);
    printf("exited owner: the new thread %s the owner's TLS block\n", reused ? "reused" : "did not reuse");
}

int main(int argc, char **argv)
{
    if (!(argc > 1 && strcmp(argv[1], "glibc") == 0))
        require_interposed((void *)pthread_mutex_lock);
    test_exited_owner();
    test_signals();
    test_cancellation();
    return test_done("test_posix");
}
