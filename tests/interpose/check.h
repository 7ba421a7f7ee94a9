/* Tiny assertion helpers shared by the interposer's test programs. */
#ifndef LOCKLAB_TEST_INTERPOSE_CHECK_H
#define LOCKLAB_TEST_INTERPOSE_CHECK_H
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
#define CHECK(cond)                                                                           \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);          \
            check_failures++;                                                                 \
        }                                                                                     \
    } while (0)
#define CHECK_EQ(got, want)                                                                   \
    do {                                                                                      \
        long g_ = (long)(got), w_ = (long)(want);                                             \
        if (g_ != w_) {                                                                       \
            fprintf(stderr, "%s:%d: %s = %ld, want %ld\n", __FILE__, __LINE__, #got, g_, w_); \
            check_failures++;                                                                 \
        }                                                                                     \
    } while (0)

/* Fails the test unless pthread_mutex_lock, as this program calls it, is the
 * interposer's: a test that silently ran on glibc would prove nothing. */
static void require_interposed(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fname || !strstr(info.dli_fname, "liblocklab-preload")) {
        fprintf(stderr, "not running under liblocklab-preload.so (pthread_mutex_lock is in %s)\n",
                info.dli_fname ? info.dli_fname : "?");
        exit(1);
    }
}

static int check_done(const char *name)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

/* Thread start-up and deadlines shared with the other C tests (its CHECK is skipped: ours above). */
#include "../test_util.h"

/* An absolute deadline ms milliseconds from now on clock. */
static inline struct timespec in_ms(clockid_t clock, long ms) { return test_deadline(clock, ms * 1000000L); }
#endif
