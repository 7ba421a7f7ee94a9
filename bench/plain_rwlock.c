/*
 * locklab-plain-rwlock: a plain pthread_rwlock_t program (no locklab code), for glibc vs
 * the interposer side by side (bench/rwlock_default.sh, docs/rwlock.md).  T threads loop
 * { read with probability read_pct %: rdlock; read a 4-word record, check it; unlock;
 * else wrlock; rewrite the record; unlock; then a non-critical section of [0, 200)
 * PRNG steps } for S seconds, from when every thread is created (start_gate.h).  Prints one line:
 *   ops_s=N reads=R writes=W write_wait_max_ns=X read_wait_max_ns=Y bad=0
 *   locklab-plain-rwlock THREADS READ_PCT SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "start_gate.h"

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile uint64_t rec[4];
static atomic_int stop;
static int read_pct;

typedef struct {
    uint64_t reads, writes, wmax, rmax, bad;
    char pad[64];
} stats;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *body(void *arg)
{
    stats *s = (stats *)arg;
    start_gate_wait();
    uint64_t x = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull | 1;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t t0 = now_ns();
        if ((int)(x % 100) < read_pct) {
            pthread_rwlock_rdlock(&rw);
            uint64_t w = now_ns() - t0;
            s->rmax = w > s->rmax ? w : s->rmax;
            uint64_t a = rec[0];
            s->bad += rec[1] != a || rec[2] != a || rec[3] != a;
            pthread_rwlock_unlock(&rw);
            s->reads++;
        } else {
            pthread_rwlock_wrlock(&rw);
            uint64_t w = now_ns() - t0;
            s->wmax = w > s->wmax ? w : s->wmax;
            uint64_t a = rec[0] + 1;
            for (int i = 0; i < 4; i++)
                rec[i] = a;
            pthread_rwlock_unlock(&rw);
            s->writes++;
        }
        for (uint64_t n = (x >> 20) % 200; n > 0; n--)
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: locklab-plain-rwlock THREADS READ_PCT SECONDS\n");
        return 2;
    }
    int threads = atoi(argv[1]);
    read_pct = atoi(argv[2]);
    double seconds = atof(argv[3]);
    if (threads < 1 || threads > 4096 || read_pct < 0 || read_pct > 100 || !(seconds > 0)) {
        fprintf(stderr, "locklab-plain-rwlock: bad argument (valid: THREADS 1..4096, READ_PCT 0..100, SECONDS > 0)\n");
        return 2;
    }
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    stats *s = aligned_alloc(64, sizeof(stats) * (size_t)threads);
    for (int i = 0; i < threads; i++) {
        s[i] = (stats){0};
        pthread_create(&t[i], NULL, body, &s[i]);
    }
    uint64_t t0 = now_ns(); /* before the gate opens: the woken workers may preempt us */
    start_gate_open();
    struct timespec d = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&d, NULL);
    atomic_store(&stop, 1);
    double wall = (double)(now_ns() - t0) / 1e9;
    stats sum = {0};
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        sum.reads += s[i].reads, sum.writes += s[i].writes, sum.bad += s[i].bad;
        sum.wmax = s[i].wmax > sum.wmax ? s[i].wmax : sum.wmax;
        sum.rmax = s[i].rmax > sum.rmax ? s[i].rmax : sum.rmax;
    }
    printf("ops_s=%.0f reads=%llu writes=%llu write_wait_max_ns=%llu read_wait_max_ns=%llu bad=%llu\n",
           (double)(sum.reads + sum.writes) / wall, (unsigned long long)sum.reads, (unsigned long long)sum.writes,
           (unsigned long long)sum.wmax, (unsigned long long)sum.rmax, (unsigned long long)sum.bad);
    return sum.bad || rec[0] != sum.writes ? 1 : 0;
}
