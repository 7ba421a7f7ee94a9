/*
 * The fork generation: incremented in the child of every fork(), where only the
 * forking thread exists.  A lock whose state records waiters (a queue, a
 * sleeping standby, spinners) can tag that state with the generation and
 * recognise it as stale in a child: those waiters are threads the child does
 * not have (acr.c); the interposer tags each mutex's owner word with it and
 * re-initialises, at its unlock in the child, the lock of a mutex held across
 * the fork (src/interpose/mutex_fork.c).  glibc's own mutex keeps no such
 * record, so a child may unlock a mutex that had waiters in the parent (the
 * pthread_atfork pattern); this lets our locks do the same.
 */
#include <pthread.h>
#include <unistd.h>

#include "locklab/core.h"

/* a line of its own: read on slow paths of every lock (acr, standby), never beside a hot word */
LL_ALIGNED(LL_SECTOR) ll_atomic_u32 ll_fork_generation;
static ll_atomic_u32 fork_pid; /* the forking process, while LL_FORK_PENDING is set */

/* Our prepare handler runs before any fork, whatever the order of registration: from here to our
 * parent or child handler, readers compare their pid with the forking one.  (The C library runs
 * the atfork handlers of one fork at a time, so the forks of two threads do not interleave here.) */
static void fork_prepare(void)
{
    ll_store_relaxed(&fork_pid, (uint32_t)getpid()); /* relaxed: published by the RMW's release below */
    uint32_t g = ll_load_relaxed(&ll_fork_generation); /* relaxed: only forks change it */
    while (!ll_cas(&ll_fork_generation, &g, g | LL_FORK_PENDING, LL_RELEASE)) /* release: fork_pid */
        ;
}
static void fork_parent(void)
{
    uint32_t g = ll_load_relaxed(&ll_fork_generation); /* relaxed: as above */
    while (!ll_cas(&ll_fork_generation, &g, g & ~LL_FORK_PENDING, LL_RELAXED)) /* relaxed: orders nothing */
        ;
}
static void fork_child(void)
{
    /* relaxed: the child is single-threaded here */
    ll_store_relaxed(&ll_fork_generation, ((ll_load_relaxed(&ll_fork_generation) & ~LL_FORK_PENDING) + 1) & ~LL_FORK_PENDING);
}

uint32_t ll_fork_generation_pending(uint32_t g)
{
    ll_fence(LL_ACQUIRE); /* acquire: fork_pid, stored before the bit (fork_prepare's release) */
    uint32_t base = g & ~LL_FORK_PENDING;
    if ((uint32_t)getpid() == ll_load_relaxed(&fork_pid)) /* relaxed: ordered by the fence */
        return base;                                      /* the forking process */
    return (base + 1) & ~LL_FORK_PENDING;                 /* a child whose fork_child has not run yet */
}

__attribute__((constructor)) static void register_fork_generation(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }
