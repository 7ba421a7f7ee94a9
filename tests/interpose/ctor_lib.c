/* A library whose constructor uses mutexes, possibly before the interposer's
 * constructor ran (test_preconstructor loads it first or second in LD_PRELOAD). */
#define _GNU_SOURCE
#include <pthread.h>

static pthread_mutex_t ctor_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
int ctor_lib_result = -1;

__attribute__((constructor)) static void ctor_lib_init(void)
{
    int bad = 0;
    bad |= pthread_mutex_lock(&ctor_mutex) != 0;
    bad |= pthread_mutex_lock(&ctor_mutex) != 0;
    bad |= pthread_mutex_unlock(&ctor_mutex) != 0;
    bad |= pthread_mutex_unlock(&ctor_mutex) != 0;
    bad |= pthread_mutex_unlock(&ctor_mutex) == 0; /* EPERM expected: proves recursive semantics */
    pthread_mutex_t m;
    bad |= pthread_mutex_init(&m, NULL) != 0;
    bad |= pthread_mutex_lock(&m) != 0;
    bad |= pthread_mutex_trylock(&m) == 0;
    bad |= pthread_mutex_unlock(&m) != 0;
    bad |= pthread_mutex_destroy(&m) != 0;
    ctor_lib_result = bad;
}
