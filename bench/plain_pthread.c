/*
 * locklab-plain: a plain pthread program (no locklab code in it) for measuring
 * glibc's mutex against the interposer's locks on equal terms:
 *
 *   locklab-plain WORKLOAD THREADS SECONDS
 *     mutexbench  loop { lock; 4 PRNG steps and a store into a shared 4 KiB table;
 *                 unlock; uniform [0, 200) PRNG steps outside }   (TWA paper's MutexBench)
 *     randarray   loop { lock; 100 loads at random indexes of a shared 256 KiB array;
 *                 unlock; 400 loads at random indexes of a private 256 KiB array }
 *                 (Malthusian paper's RandArray, arrays sized like locklab-bench's on a 1 MiB L2)
 *     shape:CS:NCS[:LOCKS[:SLEEP_US]]
 *                 loop { pick one of LOCKS mutexes (default 1) at random; lock; CS PRNG steps,
 *                 each with a store into that mutex's shared 4 KiB table; unlock; NCS PRNG
 *                 steps; usleep(SLEEP_US) if SLEEP_US > 0 }: any critical and non-critical
 *                 section lengths (a step is about 2-3 ns; inside, a read-modify-write at a
 *                 random index), striped locks, threads that sleep
 *
 * The interval starts when every thread is created and released at once (start_gate.h), and
 * ends at the stop signal (the threads' way out, a wait for the lock included, is not in it).
 * Prints one line: ops_per_s=N max_min=R vcsw_per_op=V threads=T
 * (max_min: the most and least operations any thread completed; "inf" if one did none;
 *  vcsw_per_op: voluntary context switches of the whole process, thread creation and exits
 *  included, per operation).
 * Bad arguments: one line on stderr naming the value and the valid choices, exit 2.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "start_gate.h"

enum { SHARED_WORDS = 512, ARRAY_INTS = 64 * 1024 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t shared_table[SHARED_WORDS];
static uint32_t *shared_array;
static atomic_int stop;
static int randarray;

/* shape:CS:NCS:LOCKS:SLEEP_US: one mutex and one shared table per stripe, apart. */
typedef struct stripe {
    pthread_mutex_t lock;
    uint64_t table[SHARED_WORDS] __attribute__((aligned(128))); /* not on the mutex's line */
} stripe;
static int shape;
static long cs_steps, ncs_steps, stripes = 1, sleep_us;
static stripe *stripe_of;

typedef struct worker {
    pthread_t thread;
    uint64_t ops, seed, sink;
    uint32_t *private_array;
} worker;

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void *run_shape(worker *w)
{
    uint64_t rng = w->seed, ops = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        stripe *st = &stripe_of[stripes > 1 ? next(&rng) % (uint64_t)stripes : 0];
        pthread_mutex_lock(&st->lock);
        for (long i = 0; i < cs_steps; i++)
            st->table[next(&rng) % SHARED_WORDS] += rng;
        pthread_mutex_unlock(&st->lock);
        ops++;
        for (long i = 0; i < ncs_steps; i++)
            next(&rng);
        if (sleep_us > 0)
            usleep((useconds_t)sleep_us);
    }
    w->ops = ops;
    w->sink = rng;
    return NULL;
}

static void *run(void *arg)
{
    worker *w = (worker *)arg;
    start_gate_wait();
    if (shape)
        return run_shape(w);
    uint64_t rng = w->seed, sink = 0, ops = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        pthread_mutex_lock(&lock);
        if (randarray) {
            for (int i = 0; i < 100; i++)
                sink += shared_array[next(&rng) % ARRAY_INTS];
        } else {
            for (int i = 0; i < 4; i++)
                next(&rng);
            shared_table[rng % SHARED_WORDS] += rng;
        }
        pthread_mutex_unlock(&lock);
        ops++;
        if (randarray) {
            for (int i = 0; i < 400; i++)
                sink += w->private_array[next(&rng) % ARRAY_INTS];
        } else {
            for (uint64_t n = next(&rng) % 200; n > 0; n--)
                next(&rng);
        }
    }
    w->ops = ops;
    w->sink = sink + rng;
    return NULL;
}

static void usage_error(const char *what, const char *value, const char *valid)
{
    fprintf(stderr, "locklab-plain: bad %s '%s' (valid: %s)\n", what, value, valid);
    exit(2);
}

/* The fields of the workload shape:CS:NCS[:LOCKS[:SLEEP_US]]; a bad one exits 2. */
static void parse_shape(const char *workload)
{
    static const struct {
        const char *name, *valid;
        long *into, lo, hi;
    } fields[] = {
        {"critical section steps (shape:CS:...)", "an integer in 0..100000000", &cs_steps, 0, 100000000},
        {"non-critical section steps (shape:CS:NCS...)", "an integer in 0..100000000", &ncs_steps, 0, 100000000},
        {"lock count (shape:CS:NCS:LOCKS...)", "an integer in 1..4096", &stripes, 1, 4096},
        {"sleep (shape:CS:NCS:LOCKS:SLEEP_US)", "microseconds in 0..999999", &sleep_us, 0, 999999},
    };
    const char *p = workload + strlen("shape:");
    size_t n = 0;
    for (; n < sizeof fields / sizeof fields[0]; n++) {
        char *end = (char *)p;
        long v = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
        if (end == p || (*end != ':' && *end != '\0') || v < fields[n].lo || v > fields[n].hi) {
            char field[64];
            snprintf(field, sizeof field, "%.*s", (int)strcspn(p, ":"), p);
            usage_error(fields[n].name, field, fields[n].valid);
        }
        *fields[n].into = v;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    if (n == sizeof fields / sizeof fields[0])
        usage_error("workload", workload, "shape:CS:NCS[:LOCKS[:SLEEP_US]], at most four fields");
    if (n < 1)
        usage_error("workload", workload, "shape:CS:NCS[:LOCKS[:SLEEP_US]], at least CS and NCS");
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: locklab-plain mutexbench|randarray|shape:CS:NCS[:LOCKS[:SLEEP_US]] THREADS(1..4096) "
                        "SECONDS(0.01..3600)\n");
        return 2;
    }
    if (strcmp(argv[1], "randarray") == 0)
        randarray = 1;
    else if (strncmp(argv[1], "shape:", 6) == 0)
        shape = 1, parse_shape(argv[1]);
    else if (strcmp(argv[1], "mutexbench") != 0)
        usage_error("workload", argv[1], "mutexbench, randarray, shape:CS:NCS[:LOCKS[:SLEEP_US]]");
    char *end;
    long threads = strtol(argv[2], &end, 10);
    if (*end || end == argv[2] || threads < 1 || threads > 4096)
        usage_error("thread count", argv[2], "an integer in 1..4096");
    double seconds = strtod(argv[3], &end);
    if (*end || end == argv[3] || !(seconds >= 0.01 && seconds <= 3600))
        usage_error("duration", argv[3], "seconds in 0.01..3600");

    worker *ws = calloc((size_t)threads, sizeof *ws);
    shared_array = calloc(ARRAY_INTS, sizeof(uint32_t));
    if (shape && (stripe_of = aligned_alloc(_Alignof(stripe), sizeof(stripe) * (size_t)stripes)) != NULL) {
        memset(stripe_of, 0, sizeof(stripe) * (size_t)stripes);
        for (long i = 0; i < stripes; i++)
            pthread_mutex_init(&stripe_of[i].lock, NULL);
    }
    if (!ws || !shared_array || (shape && !stripe_of)) {
        fprintf(stderr, "locklab-plain: out of memory\n");
        return 1;
    }
    for (long i = 0; i < threads; i++) {
        ws[i].seed = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
        if (randarray && !(ws[i].private_array = calloc(ARRAY_INTS, sizeof(uint32_t)))) {
            fprintf(stderr, "locklab-plain: out of memory\n");
            return 1;
        }
    }
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    for (long i = 0; i < threads; i++)
        if (pthread_create(&ws[i].thread, NULL, run, &ws[i]) != 0) {
            fprintf(stderr, "locklab-plain: cannot start thread %ld of %ld\n", i + 1, threads);
            return 1;
        }
    struct timespec t0, t1, d = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    clock_gettime(CLOCK_MONOTONIC, &t0); /* before the gate opens: the woken workers may preempt us */
    start_gate_open();
    nanosleep(&d, NULL);
    atomic_store(&stop, 1);
    clock_gettime(CLOCK_MONOTONIC, &t1); /* the interval ends here: the workers' way out is not in it */
    uint64_t total = 0, most = 0, least = UINT64_MAX, sink = 0;
    for (long i = 0; i < threads; i++) {
        pthread_join(ws[i].thread, NULL);
        total += ws[i].ops;
        sink += ws[i].sink;
        most = ws[i].ops > most ? ws[i].ops : most;
        least = ws[i].ops < least ? ws[i].ops : least;
    }
    getrusage(RUSAGE_SELF, &after);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    long vcsw = after.ru_nvcsw - before.ru_nvcsw;
    char max_min[32];
    if (least == 0)
        snprintf(max_min, sizeof max_min, "inf");
    else
        snprintf(max_min, sizeof max_min, "%.3f", (double)most / (double)least);
    printf("ops_per_s=%.0f max_min=%s vcsw_per_op=%.5f threads=%ld%s\n", (double)total / wall, max_min,
           total ? (double)vcsw / (double)total : 0.0, threads, sink == 42 ? " " : "");
    return 0;
}
