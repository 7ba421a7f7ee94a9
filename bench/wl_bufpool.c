/*
 * bufpool — Malthusian paper §6.11: a central blocking pool of `buffers` (5)
 * buffers of `buffer_kb` KiB (1024), handed out LIFO from a stack protected
 * by the lock under test.  Each thread loops: take a buffer (waiting while the
 * pool is empty); swap `cs_touches` (500) random words between it and the
 * thread's private buffer of the same size; return it; update `ncs_touches`
 * (5000) random words of its private buffer.
 *
 * variant 0: waiting threads wait on a condition variable (not empty) over
 *            the pool lock; a return signals it (deferred to the unlock).
 * variant 1: a semaphore counts free buffers; threads wait on it and take
 *            the pool lock only to pop/push.
 * cond (0 fifo / 1 lifo-cr) and append_one_in set the discipline of the
 * condition variable or the semaphore.  CR here comes from the waiter list:
 * mostly-LIFO keeps few threads (and few private buffers) circulating.
 *
 * Every pool-lock acquisition (including re-acquisitions in a condition wait)
 * is an admission (an op).  Extras: acquisitions_per_s (buffers taken per
 * second), buffer_lwss (LWSS of the sequence of threads taking buffers),
 * lock_acquisitions_per_buffer, lost_buffers (buffers not back in the pool
 * at the end; must be 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_mutex.h"

enum { P_VARIANT, P_BUFFERS, P_BUFFER_KB, P_CS_TOUCHES, P_NCS_TOUCHES, P_COND, P_APPEND_ONE_IN };
static const bench_param params[] = {
    {"variant", "0: condition variable, 1: semaphore", 0, 0, 1, 1},
    {"buffers", "buffers in the pool", 5, 1, 4096, 1},
    {"buffer_kb", "size of each buffer (and of each private buffer), KiB", 1024, 1, 65536, 1},
    {"cs_touches", "random words swapped between the taken and the private buffer", 500, 0, 1e8, 1},
    {"ncs_touches", "random words of the private buffer updated after returning", 5000, 0, 1e8, 1},
    {"cond", "waiter discipline: 0 fifo, 1 lifo-cr", 0, 0, 1, 1},
    {"append_one_in", "lifo-cr: append a waiter with probability 1/append_one_in", 1000, 1, 4294967295.0, 1},
    {0},
};

#define TAKE_LOG_CAPACITY (16u << 20)

typedef struct bufpool {
    bench_mutex m;
    ll_cond not_empty; /* variant 0 */
    ll_sem free_units; /* variant 1 */
    int variant;
    uint64_t **stack; /* free buffers, LIFO; under m */
    size_t nfree, nbuffers, words;
    uint64_t **priv;  /* private buffer per thread */
    uint64_t cs_touches, ncs_touches;
    uint16_t *take_log; /* thread index per buffer taken; under m */
    uint64_t taken;     /* under m */
    int stopping;       /* under m, variant 0: a thread saw the interval end */
} bufpool;

/* Variant 0, holding m after a failed admission: let every waiter leave too. */
static void leave(bufpool *bp)
{
    bp->stopping = 1;
    ll_cond_broadcast(&bp->not_empty, &bp->m.deferred);
    bench_mutex_unlock(&bp->m);
}

/* Holding m: the pool's top buffer goes to thread t. */
static uint64_t *pop(bufpool *bp, bench_thread *t)
{
    if (bp->taken < TAKE_LOG_CAPACITY)
        bp->take_log[bp->taken] = (uint16_t)t->index;
    bp->taken++;
    return bp->stack[--bp->nfree];
}

/* A buffer, or NULL when the interval is over. */
static uint64_t *take(bufpool *bp, bench_thread *t)
{
    if (bp->variant == 1) {
        ll_sem_wait(&bp->free_units, CLOCK_MONOTONIC, NULL);
        bench_mutex_lock(&bp->m);
        if (!bench_admit(t)) {
            bench_mutex_unlock(&bp->m);
            ll_sem_post(&bp->free_units); /* the unit goes on to the next waiter, which leaves too */
            return NULL;
        }
        t->ops++;
        uint64_t *buf = pop(bp, t);
        bench_mutex_unlock(&bp->m);
        return buf;
    }
    bench_mutex_lock(&bp->m);
    if (!bench_admit(t)) {
        leave(bp);
        return NULL;
    }
    t->ops++;
    while (bp->nfree == 0 && !bp->stopping) {
        ll_cond_wait(&bp->not_empty, &bench_mutex_iface, &bp->m, CLOCK_MONOTONIC, NULL);
        if (!bench_admit(t)) { /* the re-acquisition is an admission too */
            leave(bp);
            return NULL;
        }
        t->ops++;
    }
    if (bp->stopping) {
        leave(bp);
        return NULL;
    }
    uint64_t *buf = pop(bp, t);
    bench_mutex_unlock(&bp->m);
    return buf;
}

/* Returns 0 when the interval is over (the buffer is back in the pool either way). */
static int give_back(bufpool *bp, bench_thread *t, uint64_t *buf)
{
    bench_mutex_lock(&bp->m);
    int admitted = bench_admit(t);
    bp->stack[bp->nfree++] = buf;
    if (bp->variant == 1) {
        bench_mutex_unlock(&bp->m);
        ll_sem_post(&bp->free_units);
    } else if (!admitted) {
        leave(bp); /* also wakes the waiters, one of which gets this buffer or leaves */
    } else {
        ll_cond_signal(&bp->not_empty, &bp->m.deferred);
        bench_mutex_unlock(&bp->m);
    }
    if (admitted)
        t->ops++;
    return admitted;
}

static void body(bench_thread *t)
{
    bufpool *bp = (bufpool *)t->sh->ctx;
    uint64_t *mine = bp->priv[t->index];
    for (;;) { /* leave through take/give_back only: they pass the end on to the waiters */
        uint64_t *buf = take(bp, t);
        if (!buf)
            return;
        for (uint64_t i = 0; i < bp->cs_touches; i++) {
            uint64_t k = bench_rand_below(t, bp->words), tmp = buf[k];
            buf[k] = mine[k];
            mine[k] = tmp;
        }
        if (!give_back(bp, t, buf))
            return;
        for (uint64_t i = 0; i < bp->ncs_touches; i++)
            mine[bench_rand_below(t, bp->words)] += t->rng;
    }
}

static uint64_t *alloc_buffer(size_t words)
{
    uint64_t *b = malloc(words * sizeof(uint64_t));
    if (b)
        memset(b, 0x5a, words * sizeof(uint64_t)); /* touched before the interval */
    return b;
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    bufpool bp = {0};
    int n = cfg->threads;
    bp.m.lock = lock;
    bp.variant = (int)cfg->param[P_VARIANT];
    bp.nbuffers = (size_t)cfg->param[P_BUFFERS];
    bp.words = (size_t)cfg->param[P_BUFFER_KB] * 1024 / sizeof(uint64_t);
    bp.cs_touches = (uint64_t)cfg->param[P_CS_TOUCHES];
    bp.ncs_touches = (uint64_t)cfg->param[P_NCS_TOUCHES];
    bp.stack = calloc(bp.nbuffers, sizeof(uint64_t *));
    bp.priv = calloc((size_t)n, sizeof(uint64_t *));
    bp.take_log = malloc(TAKE_LOG_CAPACITY * sizeof(uint16_t));
    if (!bp.stack || !bp.priv || !bp.take_log)
        return -1;
    for (size_t i = 0; i < bp.nbuffers; i++)
        if (!(bp.stack[bp.nfree++] = alloc_buffer(bp.words)))
            return -1;
    for (int i = 0; i < n; i++)
        if (!(bp.priv[i] = alloc_buffer(bp.words)))
            return -1;
    ll_sync_config sc = bench_sync_config(cfg->param[P_COND], cfg->param[P_APPEND_ONE_IN]);
    ll_cond_init(&bp.not_empty, &sc);
    ll_sem_init(&bp.free_units, (unsigned)bp.nbuffers, &sc);
    if (bench_run_threads(lock, cfg, out, &bp, body) != 0)
        return -1;
    ll_cond_destroy(&bp.not_empty);
    double lost = (double)bp.nbuffers - (double)bp.nfree;
    if (bp.variant == 1)
        lost += (double)bp.nbuffers - (double)ll_sem_getvalue(&bp.free_units); /* units must match too */
    ll_sem_destroy(&bp.free_units);
    size_t logged = bp.taken < TAKE_LOG_CAPACITY ? bp.taken : TAKE_LOG_CAPACITY;
    bench_add_extra(out, "acquisitions_per_s", (double)bp.taken / out->wall_s);
    bench_add_extra(out, "buffer_lwss", metric_lwss(bp.take_log, logged, LWSS_WINDOW, n));
    bench_add_extra(out, "lock_acquisitions_per_buffer", bp.taken ? (double)out->ops / (double)bp.taken : 0);
    bench_add_extra(out, "lost_buffers", lost);
    for (size_t i = 0; i < bp.nfree; i++)
        free(bp.stack[i]);
    for (int i = 0; i < n; i++)
        free(bp.priv[i]);
    free(bp.stack);
    free(bp.priv);
    free(bp.take_log);
    return 0;
}

const workload wl_bufpool = {"bufpool", "Malthusian 6.11: blocking pool of 5 x 1 MiB buffers, condvar or semaphore",
                             params, run};
