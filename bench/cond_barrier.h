/*
 * A barrier as plain pthread code writes it: a mutex, an arrival counter and one condition
 * variable.  The last thread to arrive starts the next generation and broadcasts; the others
 * wait until the generation changes.  Shared by locklab-plain-cond's barrier, which times it
 * (bench/plain_cond.c), and the interposer's broadcast-storm test, which checks it
 * (tests/interpose/test_condsem.c).  Plain pthread code: no locklab in it.
 */
#ifndef LOCKLAB_BENCH_COND_BARRIER_H
#define LOCKLAB_BENCH_COND_BARRIER_H

#include <pthread.h>

typedef struct cond_barrier {
    pthread_mutex_t *m;
    pthread_cond_t *c;
    int threads;     /* how many pass each barrier */
    int arrived;     /* under *m: in this generation so far */
    long generation; /* under *m: barriers passed */
} cond_barrier;

/* Returns once b->threads callers (this one among them) have arrived. */
static inline void cond_barrier_wait(cond_barrier *b)
{
    pthread_mutex_lock(b->m);
    long generation = b->generation;
    if (++b->arrived == b->threads) { /* last one in: next generation, wake all */
        b->arrived = 0;
        b->generation++;
        pthread_cond_broadcast(b->c);
    } else {
        while (b->generation == generation)
            pthread_cond_wait(b->c, b->m);
    }
    pthread_mutex_unlock(b->m);
}

#endif
