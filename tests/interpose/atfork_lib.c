/* A library whose fork handler locks a mutex it has never locked before (many
 * libraries lock their own mutexes around fork).  Loaded before the
 * interposer runs its constructor (run_tests.sh fork), its handler is
 * registered first and so runs after the interposer's own prepare handler. */
#define _GNU_SOURCE
#include <pthread.h>

#include "trap_mutex.h"

static pthread_mutex_t fork_mutex = PTHREAD_MUTEX_INITIALIZER;

static void lock_fork_mutex(void) { lock_or_trap(&fork_mutex); }
static void unlock_fork_mutex(void) { unlock_or_trap(&fork_mutex); }

__attribute__((constructor)) static void atfork_lib_init(void)
{
    pthread_atfork(lock_fork_mutex, unlock_fork_mutex, unlock_fork_mutex);
}
