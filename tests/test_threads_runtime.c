/*
 * The lightweight-thread runtime (include/locklab/threads.h), every
 * alternative at P = 1 and 2:
 *   once        100k threads (100 parents x 1000 children, created on every
 *               worker) each run exactly once and their joins see their results;
 *               a chain of detached threads; llt_exit from a nested call
 *   prodcons    producers and consumers over a bounded buffer through
 *               llt_mutex/llt_cond: exact count and sum (no lost wake-up)
 *   mutex       threads increment a plain counter under llt_mutex (lock and trylock),
 *               yielding inside the critical section: exact count
 *   yields      the direct switch: 8 threads yield 100k times in all; exact
 *               per-thread counts, each thread's stack words intact after every
 *               yield, and at P = 1 strict round robin (between two iterations
 *               of a thread, each other thread runs exactly one)
 *   steals      rounds of 3 yielding threads while the other worker steals:
 *               exact counts, stack words intact
 *   stacks      threads write a pattern over their stacks, yield, check it;
 *               stacks are reused (fewer distinct stacks than threads)
 *   idle        an idle runtime parks: ~no CPU time while it waits; then a
 *               thread made ready from outside wakes it (llt_run)
 * and, once:
 *   guard       a thread running into its guard page kills the process (a child)
 *               with SIGSEGV, after one line naming the overflow
 *   badinput    unknown alternative, 0 processors, absurd stack sizes, a bad lock
 *               spec: NULL and one line naming the value and the valid choices
 *
 * A case still running after 300 s fails (a lost wake-up or a deadlock, not a hang).
 *
 *   test_threads_runtime [--quick] [--lock SPEC] [CASE...]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "locklab/atomics.h"
#include "locklab/threads.h"
#include "test_util.h"

static const char *lock_spec = "backoff";
static int quick;

/* A case that blocks for good (a lost wake-up, a deadlock) fails instead of hanging:
 * no case takes a tenth of this, even under the sanitizers on a loaded machine. */
enum { WATCHDOG_S = 300 };
static char running[64] = "start-up";
static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL test_threads_runtime: no progress for 300 s in case ";
    (void)!write(2, msg, sizeof msg - 1);
    (void)!write(2, running, strlen(running));
    (void)!write(2, "\n", 1);
    _exit(1);
}
static void begin(const char *name, const char *alt, unsigned p)
{
    snprintf(running, sizeof running, "%s %s P=%u", name, alt, p);
    alarm(WATCHDOG_S);
}

static llt_runtime *start(const char *alt, unsigned p)
{
    char err[256];
    llt_config cfg = LLT_CONFIG_DEFAULT;
    cfg.alternative = alt;
    cfg.processors = p;
    cfg.lock_spec = lock_spec;
    llt_runtime *rt = llt_start(&cfg, err, sizeof err);
    if (!rt) {
        fprintf(stderr, "llt_start(%s, %u): %s\n", alt, p, err);
        exit(1);
    }
    return rt;
}

/* ---- once ---- */

enum { PARENTS = 100, CHILDREN = 1000 };
static ll_atomic_u32 *ran; /* ran[i]: times child i ran */

static void *child(void *arg)
{
    uintptr_t i = (uintptr_t)arg;
    ll_faa(&ran[i], 1, LL_RELAXED); /* relaxed: read after every join */
    if (i % 7 == 0)
        llt_yield();
    return (void *)(i * 3 + 1);
}

static void *parent(void *arg)
{
    uintptr_t p = (uintptr_t)arg, children = quick ? CHILDREN / 10 : CHILDREN;
    llt_thread *t[CHILDREN];
    for (uintptr_t c = 0; c < children; c++)
        t[c] = llt_create(child, (void *)(p * CHILDREN + c));
    uintptr_t bad = 0;
    for (uintptr_t c = 0; c < children; c++)
        bad += llt_join(t[c]) != (void *)((p * CHILDREN + c) * 3 + 1);
    return (void *)bad;
}

static __attribute__((noinline)) void exit_inner(void) { llt_exit((void *)0x5eed); }
static __attribute__((noinline)) void exit_outer(void) { exit_inner(); }
static void *exits(void *arg)
{
    (void)arg;
    exit_outer();
    return NULL;
}

/* A chain of detached threads: each counts itself and creates the next, the last
 * one tells the root through a mutex and a condition variable. */
typedef struct chain {
    llt_mutex m;
    llt_cond done;
    unsigned left, finished;
} chain;
static void *link_fn(void *arg)
{
    chain *c = (chain *)arg;
    if (--c->left > 0) { /* only one thread of the chain runs at a time */
        llt_detach(llt_create(link_fn, c));
        return NULL;
    }
    llt_mutex_lock(&c->m);
    c->finished = 1;
    llt_cond_signal(&c->done);
    llt_mutex_unlock(&c->m);
    return NULL;
}

static void *once_root(void *arg)
{
    (void)arg;
    llt_thread *p[PARENTS];
    for (uintptr_t i = 0; i < PARENTS; i++)
        p[i] = llt_create(parent, (void *)i);
    uintptr_t bad = 0;
    for (int i = 0; i < PARENTS; i++)
        bad += (uintptr_t)llt_join(p[i]);
    if (llt_join(llt_create(exits, NULL)) != (void *)0x5eed)
        bad++;
    chain c = {.left = quick ? 1000 : 20000};
    llt_mutex_init(&c.m, llt_current());
    llt_cond_init(&c.done, llt_current());
    llt_detach(llt_create(link_fn, &c));
    llt_mutex_lock(&c.m);
    while (!c.finished)
        llt_cond_wait(&c.done, &c.m);
    llt_mutex_unlock(&c.m);
    llt_mutex_destroy(&c.m);
    llt_cond_destroy(&c.done);
    return (void *)bad;
}

static void test_once(const char *alt, unsigned p)
{
    begin("once", alt, p);
    unsigned children = quick ? CHILDREN / 10 : CHILDREN;
    ran = calloc(PARENTS * CHILDREN, sizeof *ran);
    llt_runtime *rt = start(alt, p);
    uintptr_t bad = (uintptr_t)llt_run(rt, once_root, NULL);
    llt_stop(rt);
    CHECK(bad == 0, "%s P=%u: %zu joins saw a wrong result", alt, p, (size_t)bad);
    unsigned wrong = 0;
    for (unsigned i = 0; i < PARENTS; i++)
        for (unsigned c = 0; c < CHILDREN; c++)
            wrong += ll_load_relaxed(&ran[i * CHILDREN + c]) != (c < children); /* relaxed: workers joined */
    CHECK(wrong == 0, "%s P=%u: %u children ran other than once", alt, p, wrong);
    free(ran);
}

/* ---- prodcons ---- */

enum { PRODUCERS = 4, CONSUMERS = 4, SLOTS = 4 };
typedef struct buffer {
    llt_mutex m;
    llt_cond not_full, not_empty;
    uint64_t item[SLOTS];
    unsigned head, count, items_per_producer, producers_left;
    uint64_t consumed, sum;
} buffer;

static void *producer(void *arg)
{
    buffer *b = (buffer *)arg;
    for (unsigned i = 1; i <= b->items_per_producer; i++) {
        llt_mutex_lock(&b->m);
        while (b->count == SLOTS)
            llt_cond_wait(&b->not_full, &b->m);
        b->item[(b->head + b->count++) % SLOTS] = i;
        llt_cond_signal(&b->not_empty);
        llt_mutex_unlock(&b->m);
    }
    llt_mutex_lock(&b->m);
    if (--b->producers_left == 0)
        llt_cond_broadcast(&b->not_empty);
    llt_mutex_unlock(&b->m);
    return NULL;
}

static void *consumer(void *arg)
{
    buffer *b = (buffer *)arg;
    for (;;) {
        llt_mutex_lock(&b->m);
        while (b->count == 0 && b->producers_left > 0)
            llt_cond_wait(&b->not_empty, &b->m);
        if (b->count == 0) {
            llt_mutex_unlock(&b->m);
            return NULL;
        }
        uint64_t x = b->item[b->head];
        b->head = (b->head + 1) % SLOTS;
        b->count--;
        b->consumed++;
        b->sum += x;
        llt_cond_signal(&b->not_full);
        llt_mutex_unlock(&b->m);
    }
}

static void *prodcons_root(void *arg)
{
    buffer *b = (buffer *)arg;
    llt_thread *t[PRODUCERS + CONSUMERS];
    for (int i = 0; i < CONSUMERS; i++)
        t[i] = llt_create(consumer, b);
    for (int i = 0; i < PRODUCERS; i++)
        t[CONSUMERS + i] = llt_create(producer, b);
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
        llt_join(t[i]);
    return NULL;
}

static void test_prodcons(const char *alt, unsigned p)
{
    begin("prodcons", alt, p);
    llt_runtime *rt = start(alt, p);
    buffer b;
    memset(&b, 0, sizeof b);
    b.items_per_producer = quick ? 2000 : 20000;
    b.producers_left = PRODUCERS;
    if (llt_mutex_init(&b.m, rt) || llt_cond_init(&b.not_full, rt) || llt_cond_init(&b.not_empty, rt)) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    llt_run(rt, prodcons_root, &b);
    llt_mutex_destroy(&b.m);
    llt_cond_destroy(&b.not_full);
    llt_cond_destroy(&b.not_empty);
    llt_stop(rt);
    uint64_t n = b.items_per_producer;
    CHECK(b.consumed == PRODUCERS * n, "%s P=%u: consumed %llu of %llu items", alt, p,
          (unsigned long long)b.consumed, (unsigned long long)(PRODUCERS * n));
    CHECK(b.sum == PRODUCERS * n * (n + 1) / 2, "%s P=%u: sum %llu, expected %llu", alt, p,
          (unsigned long long)b.sum, (unsigned long long)(PRODUCERS * n * (n + 1) / 2));
}

/* ---- mutex: exclusion with switches inside the critical section ---- */

enum { LOCKERS = 8 };
typedef struct counted {
    llt_mutex m;
    uint64_t counter; /* plain: the mutex is all that protects it */
    unsigned iters;
} counted;

static void *locker(void *arg)
{
    counted *c = (counted *)arg;
    for (unsigned i = 0; i < c->iters; i++) {
        if (i % 5 != 0 || !llt_mutex_trylock(&c->m))
            llt_mutex_lock(&c->m);
        uint64_t v = c->counter;
        if (i % 3 == 0)
            llt_yield(); /* another thread runs inside our critical section unless the mutex keeps it out */
        c->counter = v + 1;
        llt_mutex_unlock(&c->m);
    }
    return NULL;
}

static void *mutex_root(void *arg)
{
    llt_thread *t[LOCKERS];
    for (int i = 0; i < LOCKERS; i++)
        t[i] = llt_create(locker, arg);
    for (int i = 0; i < LOCKERS; i++)
        llt_join(t[i]);
    return NULL;
}

static void test_mutex(const char *alt, unsigned p)
{
    begin("mutex", alt, p);
    llt_runtime *rt = start(alt, p);
    counted c = {.iters = quick ? 500 : 5000};
    if (llt_mutex_init(&c.m, rt) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    llt_run(rt, mutex_root, &c);
    llt_mutex_destroy(&c.m);
    llt_stop(rt);
    CHECK(c.counter == (uint64_t)LOCKERS * c.iters, "%s P=%u: counter %llu, expected %llu (lost updates)", alt, p,
          (unsigned long long)c.counter, (unsigned long long)LOCKERS * c.iters);
}

/* ---- yields: thread-to-thread switches ---- */

enum { YIELDERS = 8, YIELDS_TOTAL = 100000 };
typedef struct yielder {
    uint64_t yields;   /* this thread's own count: plain, only it writes */
    uint64_t bad;      /* stack words found changed after a yield */
    uint64_t unfair;   /* P = 1: iterations not exactly YIELDERS after its previous one */
} yielder;
typedef struct yield_ctx {
    yielder th[YIELDERS];
    unsigned per_thread;
    ll_atomic_u64 iterations; /* every thread adds one per iteration */
} yield_ctx;

static yield_ctx *yctx;

static void *yield_body(void *arg)
{
    yielder *me = (yielder *)arg;
    uintptr_t id = (uintptr_t)(me - yctx->th);
    volatile uint64_t words[64]; /* live on this thread's stack across every switch */
    for (int i = 0; i < 64; i++)
        words[i] = id * 0x9e3779b97f4a7c15ull ^ (uint64_t)i;
    uint64_t previous = 0;
    for (unsigned n = 0; n < yctx->per_thread; n++) {
        uint64_t mine = ll_faa(&yctx->iterations, 1, LL_RELAXED); /* relaxed: a count (P = 1: one pthread) */
        me->unfair += n > 0 && mine - previous != YIELDERS;
        previous = mine;
        me->yields++;
        llt_yield();
        for (int i = 0; i < 64; i++)
            me->bad += words[i] != (id * 0x9e3779b97f4a7c15ull ^ (uint64_t)i);
    }
    return (void *)(id + 1);
}

static void *yields_root(void *arg)
{
    (void)arg;
    llt_thread *t[YIELDERS];
    for (uintptr_t i = 0; i < YIELDERS; i++)
        t[i] = llt_create(yield_body, &yctx->th[i]);
    uintptr_t bad = 0;
    for (uintptr_t i = 0; i < YIELDERS; i++)
        bad += llt_join(t[i]) != (void *)(i + 1);
    return (void *)bad;
}

static void test_yields(const char *alt, unsigned p)
{
    begin("yields", alt, p);
    yctx = calloc(1, sizeof *yctx);
    yctx->per_thread = (quick ? YIELDS_TOTAL / 10 : YIELDS_TOTAL) / YIELDERS;
    llt_runtime *rt = start(alt, p);
    uintptr_t bad_joins = (uintptr_t)llt_run(rt, yields_root, NULL);
    llt_stop(rt);
    CHECK(bad_joins == 0, "%s P=%u: %zu yielders' joins saw a wrong result", alt, p, (size_t)bad_joins);
    uint64_t unfair = 0;
    for (int i = 0; i < YIELDERS; i++) {
        yielder *y = &yctx->th[i];
        CHECK(y->yields == yctx->per_thread, "%s P=%u: thread %d yielded %llu times, expected %u", alt, p, i,
              (unsigned long long)y->yields, yctx->per_thread);
        CHECK(y->bad == 0, "%s P=%u: thread %d found %llu stack words changed after its yields", alt, p, i,
              (unsigned long long)y->bad);
        unfair += y->unfair;
    }
    /* relaxed: the workers are joined */
    CHECK(ll_load_relaxed(&yctx->iterations) == (uint64_t)YIELDERS * yctx->per_thread,
          "%s P=%u: %llu iterations counted, expected %llu", alt, p,
          (unsigned long long)ll_load_relaxed(&yctx->iterations), (unsigned long long)YIELDERS * yctx->per_thread);
    /* One processor, 8 threads that all yield until they finish together: a yield
     * queues the thread behind the 7 others, which each run once before it resumes. */
    CHECK(p > 1 || unfair == 0, "%s P=%u: %llu yields were not followed by exactly one turn of each other thread",
          alt, p, (unsigned long long)unfair);
    free(yctx);
}

/* ---- steals: yields while another worker steals ----
 * Rounds of 3 threads created together that yield 20 times each: at P = 2 the
 * other worker, idle between rounds, takes threads from the queue the yielders
 * go through, often the one just queued.  A yielder published before its
 * registers are saved (the post-switch action's reason to be) is resumed
 * half-saved there: a crash or changed stack words. */

typedef struct stealer {
    uint64_t yields, bad;
} stealer;

static void *steal_body(void *arg)
{
    stealer *me = (stealer *)arg;
    volatile uint64_t words[16];
    for (int i = 0; i < 16; i++)
        words[i] = (uintptr_t)me ^ (uint64_t)i;
    for (int n = 0; n < 20; n++) {
        me->yields++;
        llt_yield();
        for (int i = 0; i < 16; i++)
            me->bad += words[i] != ((uintptr_t)me ^ (uint64_t)i);
    }
    return NULL;
}

static void *steals_root(void *arg)
{
    unsigned rounds = *(unsigned *)arg;
    stealer s[3];
    memset(s, 0, sizeof s);
    for (unsigned r = 0; r < rounds; r++) {
        llt_thread *t[3];
        for (int i = 0; i < 3; i++)
            t[i] = llt_create(steal_body, &s[i]);
        for (int i = 0; i < 3; i++)
            llt_join(t[i]);
    }
    uintptr_t bad = 0;
    for (int i = 0; i < 3; i++)
        bad += s[i].bad + (s[i].yields != 20ull * rounds);
    return (void *)bad;
}

static void test_steals(const char *alt, unsigned p)
{
    begin("steals", alt, p);
    unsigned rounds = quick ? 2000 : 20000;
    llt_runtime *rt = start(alt, p);
    uintptr_t bad = (uintptr_t)llt_run(rt, steals_root, &rounds);
    llt_stop(rt);
    CHECK(bad == 0, "%s P=%u: %zu bad stack words or yield counts", alt, p, (size_t)bad);
}

/* ---- stacks ---- */

enum { ROUNDS = 40, PER_ROUND = 50, PATTERN_WORDS = 2048 };
static void *stack_user(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    volatile uint64_t pattern[PATTERN_WORDS]; /* 16 KiB of the 64 KiB stack */
    for (int i = 0; i < PATTERN_WORDS; i++)
        pattern[i] = id * 0x9e3779b97f4a7c15ull + (uint64_t)i;
    uintptr_t bad = 0;
    for (int round = 0; round < 3; round++) {
        llt_yield();
        for (int i = 0; i < PATTERN_WORDS; i++)
            bad += pattern[i] != id * 0x9e3779b97f4a7c15ull + (uint64_t)i;
    }
    /* The result: bad words, and in the upper bits the stack's 64 KiB-aligned region. */
    return (void *)(((uintptr_t)&pattern[0] & ~(uintptr_t)0xffff) | (bad ? 1 : 0));
}

static void *stacks_root(void *arg)
{
    uintptr_t *regions = (uintptr_t *)arg, bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        llt_thread *t[PER_ROUND];
        for (int i = 0; i < PER_ROUND; i++)
            t[i] = llt_create(stack_user, (void *)(uintptr_t)(r * PER_ROUND + i));
        for (int i = 0; i < PER_ROUND; i++) {
            uintptr_t v = (uintptr_t)llt_join(t[i]);
            bad += v & 1;
            regions[r * PER_ROUND + i] = v & ~(uintptr_t)1;
        }
    }
    return (void *)bad;
}

static int cmp_uptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static void test_stacks(const char *alt, unsigned p)
{
    begin("stacks", alt, p);
    static uintptr_t regions[ROUNDS * PER_ROUND];
    llt_runtime *rt = start(alt, p);
    uintptr_t bad = (uintptr_t)llt_run(rt, stacks_root, regions);
    llt_stop(rt);
    CHECK(bad == 0, "%s P=%u: %zu threads found their stack pattern corrupted", alt, p, (size_t)bad);
    qsort(regions, ROUNDS * PER_ROUND, sizeof *regions, cmp_uptr);
    unsigned distinct = 0;
    for (int i = 0; i < ROUNDS * PER_ROUND; i++)
        distinct += i == 0 || regions[i] != regions[i - 1];
    /* At most PER_ROUND + a few per processor live at once: far fewer than the threads. */
    CHECK(distinct <= 2 * PER_ROUND + 64, "%s P=%u: %u distinct stacks for %d threads (not reused)", alt, p, distinct,
          ROUNDS * PER_ROUND);
}

/* ---- idle ---- */

static void *nothing(void *arg) { return arg; }

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void test_idle(const char *alt, unsigned p)
{
    begin("idle", alt, p);
    llt_runtime *rt = start(alt, p);
    llt_run(rt, nothing, NULL);
    usleep(20000); /* past the 20-us spin budget, whatever the scheduling delays */
    double c0 = cpu_seconds();
    usleep(300000);
    double used = cpu_seconds() - c0;
    /* Spinning workers would use ~0.3 s each; parked ones use nothing. */
    CHECK(used < 0.05, "%s P=%u: %.3f s of CPU while idle for 0.3 s (workers did not park)", alt, p, used);
    /* Every worker is parked: a thread made ready from outside must wake one (a lost
     * wake-up hangs here, and the watchdog fails the case). */
    CHECK(llt_run(rt, nothing, (void *)7) == (void *)7, "%s P=%u: llt_run on a parked runtime: wrong result", alt,
          p);
    llt_stop(rt);
}

/* ---- guard ---- */

static int overflow(int depth)
{
    volatile char frame[1024];
    frame[0] = (char)depth;
    if (depth > (1 << 30)) /* never: the guard page stops it first */
        return frame[0];
    return overflow(depth + 1) + frame[0];
}
static void *overflower(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)overflow(0);
}

static void test_guard(void)
{
    begin("guard", "local-readyq", 1);
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(1);
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        llt_runtime *rt = start("local-readyq", 1);
        llt_run(rt, overflower, NULL);
        _exit(0); /* not reached */
    }
    close(fds[1]);
    char out[4096];
    size_t n = 0;
    ssize_t k;
    while (n < sizeof out - 1 && (k = read(fds[0], out + n, sizeof out - 1 - n)) > 0)
        n += (size_t)k;
    out[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    /* The sanitizer's own SIGSEGV handler reports it. */
    CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "guard: the overflowing child exited normally");
#else
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "guard: child status 0x%x, expected death by SIGSEGV",
          status);
    CHECK(strstr(out, "stack overflow") && strstr(out, "guard page") && strstr(out, " 65536-byte stack"),
          "guard: no overflow report naming the 65536-byte stack on stderr: '%s'", out);
#endif
}

/* ---- badinput ---- */

static void expect_error(const char *alt, unsigned p, size_t stack, const char *spec, const char *value,
                         const char *valid)
{
    char err[256] = "";
    llt_config cfg = LLT_CONFIG_DEFAULT;
    cfg.alternative = alt;
    cfg.processors = p;
    cfg.stack_size = stack;
    cfg.lock_spec = spec;
    llt_runtime *rt = llt_start(&cfg, err, sizeof err);
    CHECK(rt == NULL, "llt_start accepted %s", value);
    if (rt)
        llt_stop(rt);
    CHECK(strstr(err, value) && strstr(err, valid) && !strchr(err, '\n'),
          "error for %s: '%s' (expected one line naming it and '%s')", value, err, valid);
}

static void test_badinput(void)
{
    expect_error("fastest", 1, LLT_DEFAULT_STACK, "tas", "'fastest'", "single-lock, multi-lock, local-freelist, idle-queue, local-readyq");
    expect_error("single-lock", 0, LLT_DEFAULT_STACK, "tas", "processors 0", "1..256");
    expect_error("single-lock", 100000, LLT_DEFAULT_STACK, "tas", "processors 100000", "1..256");
    expect_error("single-lock", 1, 100, "tas", "stack size 100", "16384..");
    expect_error("single-lock", 1, (size_t)1 << 40, "tas", "stack size 1099511627776", "16384..");
    expect_error("single-lock", 1, LLT_DEFAULT_STACK, "nosuchlock", "nosuchlock", "valid");
}

/* Each alternative runs the first cases at P = 1 and 2; the others run once. */
static const struct {
    const char *name;
    void (*run)(const char *alt, unsigned p);
} per_alternative[] = {
    {"once", test_once},     {"prodcons", test_prodcons}, {"mutex", test_mutex}, {"yields", test_yields},
    {"steals", test_steals}, {"stacks", test_stacks},     {"idle", test_idle},
};
static const struct {
    const char *name;
    void (*run)(void);
} run_once[] = {{"guard", test_guard}, {"badinput", test_badinput}};
#define NELEMS(a) (int)(sizeof(a) / sizeof((a)[0]))

static const char *cases[16]; /* the case names on the command line; none: all */
static int ncases;
static bool selected(const char *name)
{
    for (int c = 0; c < ncases; c++)
        if (strcmp(cases[c], name) == 0)
            return true;
    return ncases == 0;
}
static bool known(const char *name)
{
    for (int k = 0; k < NELEMS(per_alternative); k++)
        if (strcmp(per_alternative[k].name, name) == 0)
            return true;
    for (int k = 0; k < NELEMS(run_once); k++)
        if (strcmp(run_once[k].name, name) == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    signal(SIGALRM, on_alarm);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--lock") == 0 && i + 1 < argc)
            lock_spec = argv[++i];
        else if (ncases < 16 && known(argv[i]))
            cases[ncases++] = argv[i];
        else {
            fprintf(stderr, "test_threads_runtime: bad argument '%s' (valid: --quick, --lock SPEC, case names "
                            "once prodcons mutex yields steals stacks idle guard badinput)\n", argv[i]);
            return 2;
        }
    }
    for (unsigned a = 0; llt_alternative_name(a); a++)
        for (unsigned p = 1; p <= 2; p++) {
            const char *alt = llt_alternative_name(a);
            int before = failures;
            for (int k = 0; k < NELEMS(per_alternative); k++)
                if (selected(per_alternative[k].name))
                    per_alternative[k].run(alt, p);
            printf("%-15s P=%u %s\n", alt, p, failures == before ? "ok" : "FAILED");
            fflush(stdout);
        }
    for (int k = 0; k < NELEMS(run_once); k++)
        if (selected(run_once[k].name))
            run_once[k].run();
    return test_done("test_threads_runtime");
}
