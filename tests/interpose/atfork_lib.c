/* A library whose fork handler locks a mutex it has never locked before (many
 * libraries lock their own mutexes around fork).  Loaded before the
 * interposer runs its constructor (run_tests.sh fork), its handler is
 * registered first and so runs after the interposer's own prepare handler,
 * and its child handler before the interposer's child handlers.
 *
 * It also guards an rwlock across fork, when a program asks (test_rwlock
 * atfork): atfork_lib_rwlock_mode 'r' read-locks it in the prepare handler, 'w'
 * write-locks it; the parent and child handlers unlock it.  0 (the default):
 * the rwlock is left alone. */
#define _GNU_SOURCE
#include <pthread.h>

#include "trap_mutex.h"

/* Exported: test_fork atfork-contended has threads of its own contend for it. */
pthread_mutex_t atfork_lib_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Exported: test_rwlock atfork sets the mode and uses the rwlock. */
pthread_rwlock_t atfork_lib_rwlock = PTHREAD_RWLOCK_INITIALIZER;
volatile char atfork_lib_rwlock_mode;

static void lock_fork_locks(void)
{
    lock_or_trap(&atfork_lib_mutex);
    char mode = atfork_lib_rwlock_mode;
    if ((mode == 'r' && pthread_rwlock_rdlock(&atfork_lib_rwlock) != 0) ||
        (mode == 'w' && pthread_rwlock_wrlock(&atfork_lib_rwlock) != 0))
        __builtin_trap();
}
static void unlock_fork_locks(void)
{
    if (atfork_lib_rwlock_mode != 0 && pthread_rwlock_unlock(&atfork_lib_rwlock) != 0)
        __builtin_trap();
    unlock_or_trap(&atfork_lib_mutex);
}

__attribute__((constructor)) static void atfork_lib_init(void)
{
    pthread_atfork(lock_fork_locks, unlock_fork_locks, unlock_fork_locks);
}
