/* Helpers shared by the C and C++ tests: starting and joining threads, deadlines,
 * and the one set of checks.  Header-only and free of locklab: the
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
 *   test_before(clock, &deadline)        true while that clock has not reached deadline
 *   test_now_ns()                        CLOCK_MONOTONIC in nanoseconds
 *   test_sleep_us(us), test_sleep_ms(ms) sleeps that long (the rest again after a signal)
 *   test_on_signal(sig, fn, flags)       sigaction: fn handles sig, with sa_flags = flags
 *   CHECK(cond[, fmt, ...])              on failure: counts it in `failures`, prints
 *                                        "FAIL file:line: cond" and the message, if any,
 *                                        on stderr, and carries on
 *   REQUIRE(cond[, fmt, ...])            the same, then exit(1): for a failure after
 *                                        which the test cannot go on (it would hang or
 *                                        print the same failure thousands of times)
 *   CHECK_EQ(got, want)                  CHECK(got == want) that prints both as longs
 *   test_done(name)                      main's exit status from `failures`, with a line
 */
#ifndef LOCKLAB_TEST_UTIL_H
#define LOCKLAB_TEST_UTIL_H
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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

static inline bool test_before(clockid_t clock, const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return now.tv_sec < deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec < deadline->tv_nsec);
}

static inline uint64_t test_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void test_sleep_us(long us)
{
    struct timespec t = {us / 1000000, (us % 1000000) * 1000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static inline void test_sleep_ms(long ms) { test_sleep_us(ms * 1000L); }

static inline void test_on_signal(int sig, void (*fn)(int), int flags)
{
    struct sigaction sa = {};
    sa.sa_handler = fn; /* not designated: C++ (test_cxx.cpp) includes this too */
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* ---- checks ---------------------------------------------------------------------------- */
static int failures __attribute__((unused)); /* counted by CHECK, CHECK_EQ and REQUIRE */

static inline void test_check_failed(const char *file, int line, const char *cond)
{
    fprintf(stderr, "FAIL %s:%d: %s\n", file, line, cond);
    failures++;
}

static inline __attribute__((format(printf, 1, 2))) void test_check_why(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("     ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

#define CHECK(c, ...)                                                                                  \
    do {                                                                                               \
        if (!(c)) {                                                                                    \
            test_check_failed(__FILE__, __LINE__, #c);                                                 \
            __VA_OPT__(test_check_why(__VA_ARGS__);)                                                   \
        }                                                                                              \
    } while (0)
#define REQUIRE(c, ...)                                                                                \
    do {                                                                                               \
        if (!(c)) {                                                                                    \
            test_check_failed(__FILE__, __LINE__, #c);                                                 \
            __VA_OPT__(test_check_why(__VA_ARGS__);)                                                   \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)
#define CHECK_EQ(got, want)                                                                            \
    do {                                                                                               \
        long g_ = (long)(got), w_ = (long)(want);                                                      \
        if (g_ != w_) {                                                                                \
            test_check_failed(__FILE__, __LINE__, #got " == " #want);                                  \
            test_check_why("%s = %ld, want %ld", #got, g_, w_);                                        \
        }                                                                                              \
    } while (0)

/* The end of main: "name: ok" on stdout and 0, or "name: N check(s) failed" on stderr and 1. */
static inline int test_done(const char *name)
{
    if (failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}
#endif
