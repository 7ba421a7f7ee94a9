/* Helpers shared by the C tests: starting and joining threads, deadlines, and
 * a CHECK that counts failures.  Header-only and free of locklab: the
 * interposer's test programs (tests/interpose, which never link locklab) use
 * it too.
 *
 *   test_start(&t, fn, arg)              one thread; a test that cannot start its
 *                                        threads proves nothing: exit 1
 *   test_start_n(t, n, fn, args, stride) n threads into t[0..n-1]; thread i gets
 *                                        args + i * stride (stride 0: all get args;
 *                                        args NULL, stride 1: thread i gets (void *)i)
 *   test_join_n(t, n)                    joins t[0..n-1]
 *   test_run_threads(n, fn, args, stride) start n threads as above and join them all
 *   test_deadline(clock, ns)             now + ns on that clock, as an absolute timespec
 *   CHECK(cond, fmt, ...)                counts a failure in `failures` and prints the
 *                                        message (unless the test brought its own CHECK,
 *                                        as tests/interpose/check.h does)
 *   test_finish(fail_fmt, ok_line)       main's exit status from `failures`, with a line
 */
#ifndef LOCKLAB_TEST_UTIL_H
#define LOCKLAB_TEST_UTIL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void *(*test_thread_fn)(void *);

static inline void test_start(pthread_t *t, test_thread_fn fn, void *arg)
{
    if (pthread_create(t, NULL, fn, arg) != 0) {
        perror("pthread_create");
        exit(1);
    }
}

static inline void test_start_n(pthread_t *t, int n, test_thread_fn fn, void *args, size_t stride)
{
    for (int i = 0; i < n; i++)
        test_start(&t[i], fn, (void *)((uintptr_t)args + (uintptr_t)i * stride));
}

static inline void test_join_n(const pthread_t *t, int n)
{
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static inline void test_run_threads(int n, test_thread_fn fn, void *args, size_t stride)
{
    pthread_t *t = (pthread_t *)malloc(sizeof(pthread_t) * (size_t)n);
    if (!t) {
        perror("malloc");
        exit(1);
    }
    test_start_n(t, n, fn, args, stride);
    test_join_n(t, n);
    free(t);
}

static inline struct timespec test_deadline(clockid_t clock, long ns)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    ts.tv_sec += ns / 1000000000L;
    ts.tv_nsec += ns % 1000000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    } else if (ts.tv_nsec < 0) {
        ts.tv_sec--;
        ts.tv_nsec += 1000000000L;
    }
    return ts;
}

#ifndef CHECK
static int failures __attribute__((unused)); /* counted by CHECK */
#define CHECK(c, ...)                                                                                  \
    do {                                                                                               \
        if (!(c)) {                                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                       \
            fprintf(stderr, __VA_ARGS__);                                                              \
            fprintf(stderr, "\n");                                                                     \
            failures++;                                                                                \
        }                                                                                              \
    } while (0)

/* The end of main: with failures, fail_fmt (one %d: their count) on stderr and 1;
 * else ok_line on stdout and 0. */
static inline __attribute__((format(printf, 1, 0))) int test_finish(const char *fail_fmt, const char *ok_line)
{
    if (failures) {
        fprintf(stderr, fail_fmt, failures);
        return 1;
    }
    puts(ok_line);
    return 0;
}
#endif
#endif
