/* A malloc replacement that takes a pthread spinlock around glibc's malloc
 * (run_tests.sh malloc): the interposer's configuration calls malloc (fopen), so
 * that spinlock is taken while the interposer configures itself, before
 * LOCKLAB_SPIN is parsed; the calls made then must be served (spin.c, enter), and
 * the program must run normally afterwards, on the inline and on an out-of-line
 * LOCKLAB_SPIN. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static pthread_spinlock_t spin;
static int ready;

/* ready first: listed after the interposer, this constructor runs first, and its
 * pthread_spin_init configures the interposer, whose mallocs then take the spinlock
 * (served without touching it).  Only for the interposer: glibc's x86-64 spinlock is
 * 1 when free, so under glibc alone the zeroed one would be held. */
__attribute__((constructor)) static void init(void)
{
    ready = 1;
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
}

#define UNDER_SPINLOCK(expr)                                                                         \
    __extension__({                                                                                  \
        if (ready)                                                                                   \
            pthread_spin_lock(&spin);                                                                \
        __typeof__(expr) r_ = (expr);                                                                \
        if (ready)                                                                                   \
            pthread_spin_unlock(&spin);                                                              \
        r_;                                                                                          \
    })

void *malloc(size_t n) { return UNDER_SPINLOCK(__libc_malloc(n)); }
void *calloc(size_t n, size_t size) { return UNDER_SPINLOCK(__libc_calloc(n, size)); }
void *realloc(void *old, size_t n) { return UNDER_SPINLOCK(__libc_realloc(old, n)); }
void free(void *p)
{
    if (ready)
        pthread_spin_lock(&spin);
    __libc_free(p);
    if (ready)
        pthread_spin_unlock(&spin);
}
