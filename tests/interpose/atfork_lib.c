/* A library whose fork handler locks a mutex it has never locked before (many
 * libraries lock their own mutexes around fork).  Loaded before the
 * interposer runs its constructor (run_tests.sh fork), its handler is
 * registered first and so runs after the interposer's own prepare handler. */
#define _GNU_SOURCE
#include <pthread.h>

static pthread_mutex_t fork_mutex = PTHREAD_MUTEX_INITIALIZER;

static void lock_fork_mutex(void)
{
    if (pthread_mutex_lock(&fork_mutex) != 0)
        __builtin_trap();
}
static void unlock_fork_mutex(void)
{
    if (pthread_mutex_unlock(&fork_mutex) != 0)
        __builtin_trap();
}

__attribute__((constructor)) static void atfork_lib_init(void)
{
    pthread_atfork(lock_fork_mutex, unlock_fork_mutex, unlock_fork_mutex);
}
