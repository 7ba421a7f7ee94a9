/* An expert header (locklab/mcs.h): a statically initialised MCS lock, the
 * caller's own queue nodes and an explicit waiting policy (park: sleep in the
 * kernel at once).  Four threads add to a plain counter under it. */
#include <locklab/mcs.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 100000 };
static ll_mcs_lock lock = LL_MCS_INITIALIZER;
static ll_wait_policy park = LL_WAIT_POLICY_INIT(ll_wait_park);
static unsigned long counter; /* plain: the lock is what makes the increments exclusive */

static void *worker(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        ll_mcs_node me; /* valid from acquire until its release returns */
        ll_mcs_acquire(&lock, &me, &park);
        counter++;
        ll_mcs_release(&lock, &me, &park);
    }
    return arg;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    printf("mcs-park (static): counter %lu of %d, lock %s\n", counter, THREADS * ROUNDS,
           ll_mcs_is_locked(&lock) ? "held" : "free");
    return counter == (unsigned long)THREADS * ROUNDS && !ll_mcs_is_locked(&lock) ? 0 : 1;
}
