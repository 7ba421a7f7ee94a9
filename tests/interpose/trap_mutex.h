/* Locking a pthread mutex where a failure has no one to report to (a malloc
 * replacement, a fork handler): it traps.  Shared by the interposer's test
 * libraries (malloc_lib.c, atfork_lib.c). */
#ifndef LOCKLAB_TEST_INTERPOSE_TRAP_MUTEX_H
#define LOCKLAB_TEST_INTERPOSE_TRAP_MUTEX_H
#include <pthread.h>

static inline void lock_or_trap(pthread_mutex_t *m)
{
    if (pthread_mutex_lock(m) != 0)
        __builtin_trap();
}
static inline void unlock_or_trap(pthread_mutex_t *m)
{
    if (pthread_mutex_unlock(m) != 0)
        __builtin_trap();
}
#endif
