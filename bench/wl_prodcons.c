/*
 * prodcons — Malthusian paper §6.7 (the COZ producer_consumer benchmark): a
 * bounded queue (capacity 10000) protected by the lock under test, with two
 * condition variables over it (not full, not empty).  `consumers` threads (3)
 * loop taking messages; the other threads loop putting them.  Producers wait
 * while the queue is full, consumers while it is empty; each put signals
 * not-empty and each take signals not-full (deferred to the unlock: wait
 * morphing).  No work outside the critical sections.
 *
 * Every acquisition of the lock, including each re-acquisition inside a
 * condition wait, is an admission (an op): throughput_ops_s counts lock
 * acquisitions.  Extras: messages_per_s; lock_acquisitions_per_message (the
 * paper: 3 under FIFO — the producer's futile acquisition before it waits —
 * and 2 in CR's "fast flow"); lost_messages = produced - consumed - queued
 * (must be 0).
 * Params: capacity, consumers, cond (0 fifo / 1 lifo-cr), append_one_in (LIFO-CR).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "bench_mutex.h"

enum { P_CAPACITY, P_CONSUMERS, P_COND, P_APPEND_ONE_IN };
static const bench_param params[] = {
    {"capacity", "queue bound (messages)", 10000, 1, 1e8, 1},
    {"consumers", "consumer threads; the other threads produce", 3, 1, 4095, 1},
    {"cond", "condition-variable discipline: 0 fifo, 1 lifo-cr", 0, 0, 1, 1},
    {"append_one_in", "lifo-cr: append a waiter with probability 1/append_one_in", 1000, 1, 4294967295.0, 1},
    {0},
};

typedef struct prodcons {
    bench_mutex m;
    ll_cond not_full, not_empty;
    uint64_t *ring;
    uint64_t capacity, head, count; /* under m */
    uint64_t produced, consumed;    /* under m */
    int consumers;
    int stopping; /* under m: a thread saw the interval end; everyone leaves */
} prodcons;

/* Called holding m after a failed admission: make every waiter leave too. */
static void leave(prodcons *pc)
{
    pc->stopping = 1;
    ll_cond_broadcast(&pc->not_full, &pc->m.deferred);
    ll_cond_broadcast(&pc->not_empty, &pc->m.deferred);
    bench_mutex_unlock(&pc->m);
}

static void body(bench_thread *t)
{
    prodcons *pc = (prodcons *)t->sh->ctx;
    int consumer = t->index < pc->consumers;
    uint64_t next = (uint64_t)t->index << 40; /* a producer's message ids */
    for (;;) { /* the only way out is leave(): a thread waiting for us must learn that we left */
        bench_mutex_lock(&pc->m);
        if (!bench_admit(t)) {
            leave(pc);
            return;
        }
        t->ops++;
        ll_cond *wait_on = consumer ? &pc->not_empty : &pc->not_full;
        while (!pc->stopping && (consumer ? pc->count == 0 : pc->count == pc->capacity)) {
            ll_cond_wait(wait_on, &bench_mutex_iface, &pc->m, CLOCK_MONOTONIC, NULL);
            if (!bench_admit(t)) { /* the re-acquisition is an admission too */
                leave(pc);
                return;
            }
            t->ops++;
        }
        if (pc->stopping) {
            leave(pc);
            return;
        }
        if (consumer) {
            pc->head = pc->head + 1 == pc->capacity ? 0 : pc->head + 1;
            pc->count--;
            pc->consumed++;
            ll_cond_signal(&pc->not_full, &pc->m.deferred);
        } else {
            uint64_t tail = pc->head + pc->count;
            pc->ring[tail >= pc->capacity ? tail - pc->capacity : tail] = next++;
            pc->count++;
            pc->produced++;
            ll_cond_signal(&pc->not_empty, &pc->m.deferred);
        }
        bench_mutex_unlock(&pc->m);
    }
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    prodcons pc = {0};
    pc.consumers = (int)cfg->param[P_CONSUMERS];
    if (cfg->threads <= pc.consumers) {
        fprintf(stderr,
                "locklab-bench: bad value '%d' for --threads (valid: prodcons needs more threads than consumers=%d)\n",
                cfg->threads, pc.consumers);
        exit(2);
    }
    pc.m.lock = lock;
    pc.capacity = (uint64_t)cfg->param[P_CAPACITY];
    pc.ring = calloc(pc.capacity, sizeof(uint64_t));
    if (!pc.ring)
        return -1;
    ll_sync_config sc = bench_sync_config(cfg->param[P_COND], cfg->param[P_APPEND_ONE_IN]);
    ll_cond_init(&pc.not_full, &sc);
    ll_cond_init(&pc.not_empty, &sc);
    if (bench_run_threads(lock, cfg, out, &pc, body) != 0)
        return -1;
    ll_cond_destroy(&pc.not_full);
    ll_cond_destroy(&pc.not_empty);
    free(pc.ring);
    bench_add_extra(out, "messages_per_s", (double)pc.consumed / out->wall_s);
    bench_add_extra(out, "lock_acquisitions_per_message", pc.consumed ? (double)out->ops / (double)pc.consumed : 0);
    bench_add_extra(out, "lost_messages", (double)pc.produced - (double)pc.consumed - (double)pc.count);
    bench_add_extra(out, "producers", cfg->threads - pc.consumers);
    return 0;
}

const workload wl_prodcons = {"prodcons", "Malthusian 6.7: bounded queue, 2 condvars, 3 consumers, N-3 producers",
                              params, run};
