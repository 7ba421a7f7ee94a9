/* A library whose fork handler locks a mutex it has never locked before (many
 * libraries lock their own mutexes around fork).  Loaded before the
 * interposer runs its constructor (run_tests.sh fork), its handler is
 * registered first and so runs after the interposer's own prepare handler. */
#define _GNU_SOURCE
#include <pthread.h>

#include "trap_mutex.h"

/* Exported: test_fork atfork-contended has threads of its own contend for it. */
pthread_mutex_t atfork_lib_mutex = PTHREAD_MUTEX_INITIALIZER;

static void lock_fork_mutex(void) { lock_or_trap(&atfork_lib_mutex); }
static void unlock_fork_mutex(void) { unlock_or_trap(&atfork_lib_mutex); }

__attribute__((constructor)) static void atfork_lib_init(void)
{
    pthread_atfork(lock_fork_mutex, unlock_fork_mutex, unlock_fork_mutex);
}
