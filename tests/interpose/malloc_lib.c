/* A malloc replacement that, like jemalloc's, takes a pthread mutex on every
 * call (run_tests.sh malloc): the interposer's own configuration calls malloc
 * (fopen of sysfs files), so this lock is taken re-entrantly while the
 * interposer configures itself.  Memory comes from glibc's allocator. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "trap_mutex.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static pthread_mutex_t arena_mutex = PTHREAD_MUTEX_INITIALIZER;

/* expr, evaluated holding arena_mutex. */
#define UNDER_ARENA_MUTEX(expr)                                                                      \
    __extension__({                                                                                  \
        lock_or_trap(&arena_mutex);                                                                  \
        __typeof__(expr) r_ = (expr);                                                                \
        unlock_or_trap(&arena_mutex);                                                                \
        r_;                                                                                          \
    })

void *malloc(size_t n) { return UNDER_ARENA_MUTEX(__libc_malloc(n)); }
void *calloc(size_t n, size_t size) { return UNDER_ARENA_MUTEX(__libc_calloc(n, size)); }
void *realloc(void *old, size_t n) { return UNDER_ARENA_MUTEX(__libc_realloc(old, n)); }
void *memalign(size_t align, size_t n) { return UNDER_ARENA_MUTEX(__libc_memalign(align, n)); }
void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
int posix_memalign(void **out, size_t align, size_t n)
{
    void *p = memalign(align, n);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}
void free(void *p)
{
    lock_or_trap(&arena_mutex);
    __libc_free(p);
    unlock_or_trap(&arena_mutex);
}
