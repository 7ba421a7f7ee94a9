/* A lock chosen by its spec (locklab(7)) through the generic API: four threads
 * add to a plain counter under it.   ./spec_lock [SPEC]   (default mcs-stp) */
#include <locklab/locklab.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 100000 };
static ll_lock *lock;
static unsigned long counter; /* plain: the lock is what makes the increments exclusive */

static void *worker(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        ll_lock_acquire(lock);
        counter++;
        ll_lock_release(lock);
    }
    return arg;
}

int main(int argc, char **argv)
{
    char err[256];
    lock = ll_lock_create(argc > 1 ? argv[1] : "mcs-stp", err, sizeof err);
    if (!lock) { fprintf(stderr, "spec_lock: %s\n", err); return 2; }
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    printf("locklab %s, %s: counter %lu of %d\n", ll_version(), ll_lock_name(lock), counter, THREADS * ROUNDS);
    ll_lock_destroy(lock);
    return counter == (unsigned long)THREADS * ROUNDS ? 0 : 1;
}
