/* A malloc replacement that, like jemalloc's, takes a pthread mutex on every
 * call (run_tests.sh malloc): the interposer's own configuration calls malloc
 * (fopen of sysfs files), so this lock is taken re-entrantly while the
 * interposer configures itself.  Memory comes from glibc's allocator. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static pthread_mutex_t arena_mutex = PTHREAD_MUTEX_INITIALIZER;

static void enter(void)
{
    if (pthread_mutex_lock(&arena_mutex) != 0)
        __builtin_trap();
}
static void leave(void)
{
    if (pthread_mutex_unlock(&arena_mutex) != 0)
        __builtin_trap();
}

void *malloc(size_t n)
{
    enter();
    void *p = __libc_malloc(n);
    leave();
    return p;
}
void *calloc(size_t n, size_t size)
{
    enter();
    void *p = __libc_calloc(n, size);
    leave();
    return p;
}
void *realloc(void *old, size_t n)
{
    enter();
    void *p = __libc_realloc(old, n);
    leave();
    return p;
}
void *memalign(size_t align, size_t n)
{
    enter();
    void *p = __libc_memalign(align, n);
    leave();
    return p;
}
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
    enter();
    __libc_free(p);
    leave();
}
