/*
 * The lightweight-thread runtime: P worker pthreads, each a scheduler loop
 *
 *     t = start()            the alternative's ready queue (and a stack if t is new)
 *     if none: t = idle()    steal (local-readyq), spin rt->spin_ns, park
 *     switch to t            ... until a thread of this worker finds nothing ready
 *     run the post-switch action it left (put it in a queue, release a guard, ...)
 *
 * Threads switch among themselves directly: a thread that yields, blocks, joins
 * or exits takes the next ready thread itself (start, or requeue for a yield)
 * and switches straight to it (llt_leave), leaving a post-switch action that
 * the next context runs first (llt_after_switch); it falls back to the
 * scheduler context only when nothing is ready.
 *
 * and the thread life cycle of the paper's Table 2.1: creation (control block
 * with the function and argument, no stack yet: the paper's optimisation),
 * startup (a stack from the free list, context built on it), finish (stack and,
 * unless joinable, control block back to the free lists).  Which structures are
 * shared and how they are locked is the alternative's (alt_*.c).
 *
 * Stacks: mmap'd (MAP_NORESERVE: pages are touched as used), a PROT_NONE guard
 * page below, the descriptor (llt_stack) at the top; recycled through the free
 * lists, never unmapped before llt_stop.  A thread that runs into the guard page
 * gets SIGSEGV; when the program has no SIGSEGV handler of its own, the
 * runtime's (on a per-worker signal stack) first prints one line naming the
 * overflow and the stack size, then the default action kills the process.
 */
#define _GNU_SOURCE /* pthread_getattr_np */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "locklab/registry.h"
#include "runtime.h"

static const llt_alt_ops *const alternatives[] = {
    &llt_alt_single_lock, &llt_alt_multi_lock, &llt_alt_local_freelist, &llt_alt_idle_queue, &llt_alt_local_readyq,
    NULL,
};

const char *llt_alternative_name(unsigned i)
{
    return i < sizeof alternatives / sizeof *alternatives - 1 ? alternatives[i]->name : NULL;
}

static __thread llt_worker *tls_worker;

__attribute__((noinline)) llt_worker *llt_worker_self(void)
{
    __asm__ __volatile__("" ::: "memory"); /* never treated as pure: re-read after every switch */
    return tls_worker;
}

LL_COLD static void die(const char *what)
{
    fprintf(stderr, "locklab threads: %s\n", what);
    abort();
}

ll_lock *llt_lock_new(llt_runtime *rt)
{
    char err[256];
    ll_lock *l = ll_lock_create(rt->lock_spec, err, sizeof err);
    if (!l)
        die(err);
    return l;
}

int llt_alt_alloc(llt_runtime *rt, size_t shared_bytes, size_t proc_bytes)
{
    void *shared = NULL, *procs = NULL;
    if (posix_memalign(&shared, LL_SECTOR, shared_bytes) != 0)
        return -1;
    if (proc_bytes && posix_memalign(&procs, LL_SECTOR, proc_bytes * rt->nworkers) != 0) {
        free(shared);
        return -1;
    }
    memset(shared, 0, shared_bytes);
    if (procs)
        memset(procs, 0, proc_bytes * rt->nworkers);
    for (unsigned i = 0; i < rt->nworkers; i++)
        rt->workers[i].alt = procs ? (char *)procs + proc_bytes * i : NULL;
    rt->alt = shared;
    return 0;
}

void llt_alt_free(llt_runtime *rt)
{
    free(rt->workers[0].alt);
    free(rt->alt);
}

/* ---- memory: control blocks and stacks, kept until llt_stop ---- */

typedef struct block_batch {
    struct block_batch *next;
} block_batch;

LL_COLD llt_thread *llt_cb_fresh(llt_runtime *rt, unsigned n)
{
    size_t head = (sizeof(block_batch) + LL_CACHELINE - 1) & ~(size_t)(LL_CACHELINE - 1);
    size_t cb = (sizeof(llt_thread) + LL_CACHELINE - 1) & ~(size_t)(LL_CACHELINE - 1);
    void *mem = NULL;
    if (posix_memalign(&mem, LL_CACHELINE, head + cb * n) != 0)
        die("out of memory for control blocks");
    memset(mem, 0, head + cb * n);
    block_batch *b = (block_batch *)mem;
    void *old = ll_load_relaxed(&rt->all_blocks); /* relaxed: the CAS below re-checks */
    do
        b->next = (block_batch *)old;
    while (!ll_cas(&rt->all_blocks, &old, b, LL_RELAXED)); /* relaxed: read only by llt_stop, after joining the workers */
    llt_thread *first = NULL;
    for (unsigned i = n; i-- > 0;) {
        llt_thread *t = (llt_thread *)((char *)mem + head + cb * i);
        t->next = first;
        first = t;
    }
    return first;
}

LL_COLD llt_stack *llt_stack_fresh(llt_runtime *rt)
{
    size_t map_bytes = rt->page + rt->stack_bytes;
    char *map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                     -1, 0);
    if (map == MAP_FAILED)
        die("out of memory for stacks (mmap failed)");
    if (mprotect(map, rt->page, PROT_NONE) != 0)
        die("cannot protect a stack's guard page (mprotect failed)");
    uintptr_t top = (uintptr_t)map + map_bytes;
    llt_stack *s = (llt_stack *)((top - sizeof(llt_stack)) & ~(uintptr_t)(LL_CACHELINE - 1));
    s->map = map;
    s->map_bytes = map_bytes;
    s->lo = map + rt->page;
    s->bytes = (size_t)((char *)s - s->lo);
    s->next = NULL;
    void *old = ll_load_relaxed(&rt->all_stacks); /* relaxed: the CAS below re-checks */
    do
        s->all_next = (llt_stack *)old;
    while (!ll_cas(&rt->all_stacks, &old, s, LL_RELAXED)); /* relaxed: read by llt_stop after the joins, and by the
                                                             * SIGSEGV report on the faulting thread's own stack */
    return s;
}

/* ---- idle workers: spin, then park ---- */

bool llt_spin_until(llt_runtime *rt, bool (*done)(void *), void *ctx)
{
    uint64_t deadline = 0;
    for (unsigned i = 1;; i++) {
        if (done(ctx))
            return true;
        ll_pause();
        if ((i & 63) == 0) {
            uint64_t now = ll_now_ns();
            if (deadline == 0)
                deadline = now + rt->spin_ns;
            else if (now >= deadline)
                return done(ctx);
        }
    }
}

static bool work_or_stop(void *ctx)
{
    llt_worker *w = (llt_worker *)ctx;
    return w->rt->ops->has_work(w, false) || llt_stopping(w->rt);
}

/*
 * The wake-up protocol (no lost wake-up, and no fence on the ready path).  An
 * idle worker announces itself (idle_parked, sleepers), then reads every queue
 * it could take from under that queue's lock, and only then parks.  A waker
 * pushes under the queue's lock and afterwards reads sleepers and idle_parked.
 * Either the waker's critical section came first, and the idler's locked read
 * sees the thread; or the idler's came first, and the announcement, made
 * before it released the lock, happens-before the waker's reads (lock order):
 * the waker unparks it.  That unpark may come before the idler is asleep: the
 * parker's own protocol covers it (ll_parker_unpark's fence against park's).
 */
llt_thread *llt_idle_wait(llt_worker *w)
{
    llt_runtime *rt = w->rt;
    if (llt_spin_until(rt, work_or_stop, w))
        return NULL;
    /* relaxed, both: published to wakers by the queue locks the check below takes */
    ll_store_relaxed(&w->idle_parked, 1);
    ll_faa(&rt->sleepers, 1, LL_RELAXED);
    if (!rt->ops->has_work(w, true) && !llt_stopping(rt))
        ll_parker_park_until(w->parker, work_or_stop, w);
    ll_faa(&rt->sleepers, (uint32_t)-1, LL_RELAXED); /* relaxed: a hint for wakers; a stale 1 costs a scan */
    ll_store_relaxed(&w->idle_parked, 0); /* relaxed: a hint; a waker that still sees 1 wakes us spuriously */
    return NULL;
}

/* Unpark one worker that announced it idles (llt_idle_wait), asleep or about to be. */
void llt_wake_one(llt_runtime *rt)
{
    for (unsigned i = 0; i < rt->nworkers; i++)
        if (ll_load_relaxed(&rt->workers[i].idle_parked)) { /* relaxed: see llt_idle_wait's protocol */
            ll_parker_unpark(rt->workers[i].parker);
            return;
        }
}

/* ---- switching ---- */

/* fresh: to has never run (llt_prepare just built it). */
LL_INLINE void llt_switch(llt_exec *from, llt_exec *to, bool exiting, bool fresh)
{
    llt_san_leave(&from->san, &to->san, exiting);
    if (fresh)
        llt_ctx_switch_new(&from->ctx, &to->ctx);
    else
        llt_ctx_switch(&from->ctx, &to->ctx);
    llt_san_enter(&from->san);
}

/* First thing in a context that was switched to: the post-switch action the
 * previous context on this worker left, if any. */
LL_INLINE void llt_after_switch(llt_worker *w)
{
    ll_lock *unlock = w->unlock;
    void (*after)(void *) = w->after;
    if (unlock) {
        w->unlock = NULL;
        ll_lock_release(unlock);
    } else if (after) {
        w->after = NULL;
        after(w->after_arg);
    }
}

static void thread_entry(void *arg);

/* A thread about to run for the first time gets its initial context: true if so. */
__attribute__((noinline)) static void llt_prepare_fresh(llt_thread *t)
{
    t->fresh = false;
    llt_san_init_thread(&t->exec.san, t->stack->lo, t->stack->bytes);
    llt_ctx_init(&t->exec.ctx, t->stack->lo, t->stack->bytes, thread_entry, t);
}
LL_INLINE bool llt_prepare(llt_thread *t)
{
    if (!t->fresh)
        return false;
    llt_prepare_fresh(t);
    return true;
}

/* The calling thread me leaves the CPU of worker w: switch to next (a ready thread
 * with a stack) or, if NULL, to w's scheduler.  The context switched to first,
 * once me's registers are saved, releases unlock if not NULL, else runs
 * after(arg) if not NULL (the post-switch action).  Returns when me is resumed
 * (on any worker). */
LL_INLINE void llt_leave(llt_worker *w, llt_thread *me, llt_thread *next, ll_lock *unlock, void (*after)(void *),
                         void *arg, bool exiting)
{
    w->unlock = unlock;
    w->after = after;
    w->after_arg = arg;
    w->current = next;
    llt_exec *to = &w->sched;
    bool fresh = false;
    if (next) {
        fresh = llt_prepare(next);
        next->worker = w;
        to = &next->exec;
    }
    llt_switch(&me->exec, to, exiting, fresh);
    llt_after_switch(me->worker); /* maybe another worker now: set by the one that resumed me */
}

/* Leave the CPU for the next ready thread of w's alternative (or the scheduler). */
static void llt_suspend(ll_lock *unlock, void (*after)(void *), void *arg)
{
    llt_worker *w = llt_worker_self();
    llt_leave(w, w->current, w->rt->ops->start(w), unlock, after, arg, false);
}

/* Post-switch action of llt_exit: t's registers are dead, its stack free. */
static void finish_after(void *arg)
{
    llt_thread *t = (llt_thread *)arg;
    llt_runtime *rt = t->rt;
    llt_worker *w = llt_worker_self();
    llt_san_destroy_thread(&t->exec.san);
    llt_stack *s = t->stack;
    ll_parker *ext = t->ext_parker; /* read before DONE: the waiter may free t at once */
    /* acq_rel: releases result to the joiner; acquires the joiner's or detacher's mark. */
    void *waiter = ll_xchg(&t->join, LLT_JOIN_DONE, LL_ACQ_REL);
    if (waiter == LLT_JOIN_DETACHED) {
        rt->ops->finish(w, s, t);
        return;
    }
    rt->ops->finish(w, s, NULL);
    if (waiter == LLT_JOIN_EXTERNAL)
        ll_parker_unpark(ext);
    else if (waiter != LLT_JOIN_NONE)
        rt->ops->ready(rt, w, (llt_thread *)waiter);
}

__attribute__((noreturn)) void llt_exit(void *result)
{
    llt_worker *w = llt_worker_self();
    llt_thread *me = w->current;
    me->result = result;
    llt_leave(w, me, w->rt->ops->start(w), NULL, finish_after, me, true);
    die("a finished thread was resumed");
    __builtin_unreachable();
}

static void thread_entry(void *arg)
{
    llt_san_first_enter();
    llt_thread *t = (llt_thread *)arg;
    llt_after_switch(t->worker);
    llt_exit(t->fn(t->arg));
}

/* The scheduler context runs t until a thread of this worker finds nothing ready. */
static void run(llt_worker *w, llt_thread *t)
{
    bool fresh = llt_prepare(t);
    w->current = t;
    t->worker = w;
    llt_switch(&w->sched, &t->exec, false, fresh);
    llt_after_switch(w); /* the scheduler never leaves its worker */
}

/* ---- guard-page reports ---- */

static ll_atomic_u32 segv_installed;

/* Writes "PREFIX<n>SUFFIX\n" to stderr with async-signal-safe calls only. */
static void write_report(size_t n)
{
    static const char prefix[] = "locklab threads: stack overflow: a lightweight thread ran into the guard page "
                                 "below its ";
    static const char suffix[] = "-byte stack (llt_config.stack_size)\n";
    char digits[24];
    size_t k = sizeof digits;
    do
        digits[--k] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    (void)!write(2, prefix, sizeof prefix - 1);
    (void)!write(2, digits + k, sizeof digits - k);
    (void)!write(2, suffix, sizeof suffix - 1);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    llt_worker *w = tls_worker;
    llt_thread *t = w ? w->current : NULL;
    char *addr = (char *)si->si_addr;
    if (t && t->stack && addr >= (char *)t->stack->map && addr < t->stack->lo)
        write_report(t->rt->stack_bytes);
    signal(sig, SIG_DFL); /* returning re-executes the access: the default action ends the process */
}

/* Once per process, if SIGSEGV has no handler yet (the program's or a sanitizer's). */
static void install_segv_report(void)
{
    uint32_t expected = 0;
    if (!ll_cas(&segv_installed, &expected, 1, LL_RELAXED)) /* relaxed: only makes installation once-only */
        return;
    struct sigaction old;
    if (sigaction(SIGSEGV, NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
}

/* ---- workers ---- */

static void *worker_main(void *arg)
{
    llt_worker *w = (llt_worker *)arg;
    llt_runtime *rt = w->rt;
    tls_worker = w;
    w->parker = ll_self()->parker;
    pthread_attr_t attr;
    void *stack_lo = NULL;
    size_t stack_size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &stack_lo, &stack_size);
        pthread_attr_destroy(&attr);
    }
    llt_san_init_worker(&w->sched.san, stack_lo, stack_size);
    stack_t ss = {.ss_sp = w->altstack, .ss_flags = 0, .ss_size = 64 << 10};
    sigaltstack(&ss, NULL);
    ll_faa(&rt->started, 1, LL_RELEASE); /* release: publishes w->parker to llt_start's waiter */
    while (!llt_stopping(rt)) {
        llt_thread *t = rt->ops->start(w);
        if (!t)
            t = rt->ops->idle(w);
        if (t)
            run(w, t);
    }
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    tls_worker = NULL;
    return NULL;
}

static const char *valid_alternatives(char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned i = 0; alternatives[i]; i++) {
        strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, alternatives[i]->name, len - strlen(buf) - 1);
    }
    return buf;
}

llt_runtime *llt_start(const llt_config *cfg, char *err, size_t errlen)
{
    const llt_alt_ops *ops = NULL;
    for (unsigned i = 0; alternatives[i] && cfg->alternative; i++)
        if (strcmp(alternatives[i]->name, cfg->alternative) == 0)
            ops = alternatives[i];
    char valid[160];
    if (!ops) {
        snprintf(err, errlen, "unknown thread alternative '%s' (valid: %s)",
                 cfg->alternative ? cfg->alternative : "(null)", valid_alternatives(valid, sizeof valid));
        return NULL;
    }
    if (cfg->processors < 1 || cfg->processors > LLT_MAX_PROCESSORS) {
        snprintf(err, errlen, "bad number of processors %u (valid: 1..%u)", cfg->processors, LLT_MAX_PROCESSORS);
        return NULL;
    }
    if (cfg->stack_size < LLT_MIN_STACK || cfg->stack_size > LLT_MAX_STACK) {
        snprintf(err, errlen, "bad stack size %zu (valid: %u..%zu bytes)", cfg->stack_size, LLT_MIN_STACK,
                 LLT_MAX_STACK);
        return NULL;
    }
    if (cfg->spin_ns > 1000000000u) {
        snprintf(err, errlen, "bad idle spin budget %llu ns (valid: 0..1000000000)",
                 (unsigned long long)cfg->spin_ns);
        return NULL;
    }
    const char *spec = cfg->lock_spec ? cfg->lock_spec : "backoff";
    ll_spec parsed;
    if (ll_spec_parse(spec, &parsed, err, errlen) != 0)
        return NULL;
    if (strlen(spec) >= sizeof ((llt_runtime *)0)->lock_spec) {
        snprintf(err, errlen, "lock spec '%s' too long (valid: under 128 characters)", spec);
        return NULL;
    }
    llt_runtime *rt = NULL;
    if (posix_memalign((void **)&rt, LL_SECTOR, sizeof *rt) != 0) {
        snprintf(err, errlen, "out of memory starting the thread runtime");
        return NULL;
    }
    memset(rt, 0, sizeof *rt);
    rt->ops = ops;
    rt->nworkers = cfg->processors;
    rt->page = (size_t)sysconf(_SC_PAGESIZE);
    rt->stack_bytes = (cfg->stack_size + rt->page - 1) & ~(rt->page - 1);
    rt->spin_ns = cfg->spin_ns;
    strcpy(rt->lock_spec, spec);
    if (posix_memalign((void **)&rt->workers, LL_SECTOR, sizeof(llt_worker) * rt->nworkers) != 0) {
        free(rt);
        snprintf(err, errlen, "out of memory starting the thread runtime");
        return NULL;
    }
    memset(rt->workers, 0, sizeof(llt_worker) * rt->nworkers);
    for (unsigned i = 0; i < rt->nworkers; i++) {
        rt->workers[i].rt = rt;
        rt->workers[i].index = i;
    }
    if (ops->init(rt) != 0) {
        snprintf(err, errlen, "out of memory starting the thread runtime");
        free(rt->workers);
        free(rt);
        return NULL;
    }
    install_segv_report();
    for (unsigned i = 0; i < rt->nworkers; i++) {
        llt_worker *w = &rt->workers[i];
        w->altstack = malloc(64 << 10);
        if (!w->altstack || pthread_create(&w->tid, NULL, worker_main, w) != 0)
            die("cannot start a worker pthread");
    }
    while (ll_load_acquire(&rt->started) != rt->nworkers) /* acquire: pairs with each worker's release increment */
        ll_yield();
    return rt;
}

static bool root_done(void *ctx)
{
    llt_thread *t = (llt_thread *)ctx;
    return ll_load_acquire(&t->join) == LLT_JOIN_DONE; /* acquire: pairs with finish_after's xchg (result) */
}

void *llt_run(llt_runtime *rt, llt_fn fn, void *arg)
{
    llt_thread *t = NULL;
    if (posix_memalign((void **)&t, LL_CACHELINE, sizeof *t) != 0)
        die("out of memory for a control block");
    memset(t, 0, sizeof *t);
    llt_cb_init(t, rt, fn, arg);
    ll_store_relaxed(&t->join, LLT_JOIN_EXTERNAL); /* relaxed: published by the ready queue's lock */
    t->ext_parker = ll_self()->parker;
    rt->ops->ready(rt, NULL, t);
    ll_parker_park_until(t->ext_parker, root_done, t);
    void *result = t->result;
    free(t);
    return result;
}

void llt_stop(llt_runtime *rt)
{
    ll_store_release(&rt->stop, 1); /* release: pairs with llt_stopping */
    for (unsigned i = 0; i < rt->nworkers; i++)
        ll_parker_unpark(rt->workers[i].parker);
    for (unsigned i = 0; i < rt->nworkers; i++) {
        pthread_join(rt->workers[i].tid, NULL);
        free(rt->workers[i].altstack);
    }
    rt->ops->destroy(rt);
    for (llt_stack *s = ll_load_relaxed(&rt->all_stacks), *n; s; s = n) { /* relaxed: the workers are joined */
        n = s->all_next;
        munmap(s->map, s->map_bytes);
    }
    for (block_batch *b = ll_load_relaxed(&rt->all_blocks), *n; b; b = n) { /* relaxed: the workers are joined */
        n = b->next;
        free(b);
    }
    free(rt->workers);
    free(rt);
}

/* ---- the thread API ---- */

llt_thread *llt_create(llt_fn fn, void *arg)
{
    llt_worker *w = llt_worker_self();
    if (LL_UNLIKELY(!w))
        die("llt_create called outside a lightweight thread (use llt_run)");
    return w->rt->ops->create(w, fn, arg);
}

/* Post-switch action of llt_join: register as t's joiner, or, if t already finished, be ready again. */
static void join_after(void *arg)
{
    llt_thread *me = (llt_thread *)arg, *t = me->join_target;
    void *expected = LLT_JOIN_NONE;
    /* acq_rel: on success publishes me to the finisher; on failure acquires t's result. */
    if (!ll_cas(&t->join, &expected, me, LL_ACQ_REL))
        me->rt->ops->ready(me->rt, llt_worker_self(), me);
}

void *llt_join(llt_thread *t)
{
    if (ll_load_acquire(&t->join) != LLT_JOIN_DONE) { /* acquire: pairs with finish_after's xchg (result) */
        llt_thread *me = llt_self();
        me->join_target = t;
        llt_suspend(NULL, join_after, me);
        /* Readied by finish_after (after its DONE) or by join_after (having seen DONE). */
        (void)ll_load_acquire(&t->join); /* acquire: pairs with finish_after's xchg (result) */
    }
    void *result = t->result;
    llt_worker *w = llt_worker_self();
    w->rt->ops->release(w, t);
    return result;
}

void llt_detach(llt_thread *t)
{
    /* acq_rel: publishes the mark to the finisher; acquires DONE (t's last writes) to free it. */
    if (ll_xchg(&t->join, LLT_JOIN_DETACHED, LL_ACQ_REL) == LLT_JOIN_DONE) {
        llt_worker *w = llt_worker_self();
        w->rt->ops->release(w, t);
    }
}

void llt_yield(void)
{
    llt_worker *w = llt_worker_self();
    llt_thread *me = w->current;
    ll_lock *lock = w->yield_lock;
    llt_thread *next = llt_requeue_locked(lock, w->yield_q, me);
    if (!next) /* nothing else is ready: carry on */
        return;
    if (LL_UNLIKELY(!next->stack))
        w->rt->ops->give_stack(w, next);
    llt_leave(w, me, next, lock, NULL, NULL, false);
}

llt_thread *llt_self(void)
{
    llt_worker *w = llt_worker_self();
    return w ? w->current : NULL;
}

llt_runtime *llt_current(void)
{
    llt_worker *w = llt_worker_self();
    return w ? w->rt : NULL;
}

int llt_processor(void)
{
    llt_worker *w = llt_worker_self();
    return w ? (int)w->index : -1;
}

unsigned llt_processors(const llt_runtime *rt) { return rt->nworkers; }
const char *llt_alternative(const llt_runtime *rt) { return rt->ops->name; }

void llt_block(ll_lock *guard) { llt_suspend(guard, NULL, NULL); }
