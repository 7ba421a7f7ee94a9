/*
 * What one park/unpark costs a waiter (core.h: ll_park_cost_ns), measured once
 * per process at first use; the default spin budget of the stp and astp
 * waiting policies and of loiter.
 *
 * Two threads, pinned to two different CPUs when the process may use two (a
 * lock handover usually wakes a thread on another CPU), ping-pong through
 * futexes.  One period = two park->unpark->run latencies; the cost is the
 * median of period/2 over the samples, i.e. what one park costs a waiter
 * over spinning.  Pinning keeps the figure stable: unpinned, the pair
 * sometimes shares a CPU and measures a direct switch (~2 us) instead.
 */
#ifndef _GNU_SOURCE /* g++ predefines it */
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "locklab/core.h"

enum { PINGS = 64, WARMUP = 8, MIN_NS = 1000, MAX_NS = 200000 };
static uint64_t cost_ns;
static pthread_once_t measure_once = PTHREAD_ONCE_INIT;

typedef struct pingpong {
    ll_atomic_u32 ping, pong;
    int cpu[2];
    uint64_t period[PINGS];
} pingpong;

static void wait_for(ll_atomic_u32 *w, uint32_t value)
{
    uint32_t v;
    /* at least value: a failed start stores PINGS to let the partner run out */
    while ((v = ll_load_acquire(w)) < value) /* pairs with the partner's release store */
        ll_futex_wait(w, v);
}

static void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* best effort */
}

static void *ponger(void *arg)
{
    pingpong *pp = (pingpong *)arg;
    pin(pp->cpu[1]);
    for (uint32_t i = 1; i <= PINGS; i++) {
        wait_for(&pp->ping, i);
        ll_store_release(&pp->pong, i); /* publish the reply before waking */
        ll_futex_wake(&pp->pong, 1);
    }
    return NULL;
}

static void *pinger(void *arg)
{
    pingpong *pp = (pingpong *)arg;
    pin(pp->cpu[0]);
    for (uint32_t i = 1; i <= PINGS; i++) {
        uint64_t t0 = ll_now_ns();
        ll_store_release(&pp->ping, i); /* publish the ping before waking */
        ll_futex_wake(&pp->ping, 1);
        wait_for(&pp->pong, i);
        pp->period[i - 1] = ll_now_ns() - t0;
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void measure_body(void)
{
    static pingpong pp; /* zeroed; used once */
    pp.cpu[0] = pp.cpu[1] = -1;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) >= 2)
        for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; c++)
            if (CPU_ISSET(c, &allowed))
                pp.cpu[k++] = c;
    cost_ns = 20000; /* fallback if the threads cannot be started */
    pthread_t a, b;
    if (pthread_create(&b, NULL, ponger, &pp) != 0)
        return;
    if (pthread_create(&a, NULL, pinger, &pp) != 0) {
        ll_store_release(&pp.ping, PINGS); /* let the ponger run out */
        ll_futex_wake(&pp.ping, 1);
        pthread_join(b, NULL);
        return;
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    qsort(pp.period + WARMUP, PINGS - WARMUP, sizeof(uint64_t), cmp_u64);
    uint64_t one_way = pp.period[WARMUP + (PINGS - WARMUP) / 2] / 2;
    cost_ns = one_way < MIN_NS ? MIN_NS : one_way > MAX_NS ? MAX_NS : one_way;
}

static void measure(void) { ll_without_cancel(measure_body); } /* a lock's first use may run it */

uint64_t ll_park_cost_ns(void)
{
    pthread_once(&measure_once, measure);
    return cost_ns;
}
