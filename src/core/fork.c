/*
 * The fork generation: incremented in the child of every fork(), where only the
 * forking thread exists.  A lock whose state records waiters (a queue, a
 * sleeping standby, spinners) can tag that state with the generation and
 * recognise it as stale in a child: those waiters are threads the child does
 * not have (acr.c); the interposer tags each mutex's owner word with it and
 * re-initialises, at its unlock in the child, the lock of a mutex held across
 * the fork (src/interpose/mutex.c, "fork").  glibc's own mutex keeps no such
 * record, so a child may unlock a mutex that had waiters in the parent (the
 * pthread_atfork pattern); this lets our locks do the same.
 */
#include <pthread.h>

#include "locklab/core.h"

/* a line of its own: read on slow paths of every lock (acr, standby), never beside a hot word */
LL_ALIGNED(LL_SECTOR) ll_atomic_u32 ll_fork_generation;

static void fork_child(void)
{
    ll_faa(&ll_fork_generation, 1, LL_RELAXED); /* relaxed: the child is single-threaded here */
}

__attribute__((constructor)) static void register_fork_generation(void) { pthread_atfork(NULL, NULL, fork_child); }
