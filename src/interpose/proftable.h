/*
 * Profile records of objects that have no room for a pointer to one:
 * condition variables and semaphores (their bytes are all in use) and glibc's
 * own mutexes (passthrough).  Used only when profiling (LOCKLAB_PROFILE):
 * never on a path of a non-profiled run, and never for the mutexes locklab
 * manages, whose record hangs off their lock object (slab.h).
 *
 * A fixed open-addressing table keyed by the object's address, mmap'd at
 * first use, insert-only and lock-free (a CAS claims a slot; the claimer
 * creates the record; others wait for it).  Records are per address: an
 * object destroyed and re-created at the same address keeps its record.
 * When the table is full (LP_PROFTABLE_SLOTS objects), further objects are
 * not profiled (lp_proftable_get returns NULL; counted in the report header
 * of LOCKLAB_VERBOSE).
 */
#ifndef LOCKLAB_INTERPOSE_PROFTABLE_H
#define LOCKLAB_INTERPOSE_PROFTABLE_H

#include <stdbool.h>

#include "config.h"
#include "profile.h"

#define LP_PROFTABLE_SLOTS (1u << 16)

/* The record of the object at addr, created (kind, type, passthrough, pc) at
 * the first call for that address; NULL when the table is full. */
lp_profile *lp_proftable_get(const void *addr, const char *kind, const char *type, bool passthrough, void *pc);

/* The record of the object at addr if one exists and is complete, else NULL: it never
 * creates a record nor waits for one being created, so a signal handler may call it (its
 * thread may be the one creating it: sem_post, sem.c). */
lp_profile *lp_proftable_find(const void *addr);

/* The record of a condition variable or semaphore (kind "cond" or "sem") when
 * profiling, for its callers' profile_of: type "pshared" when it is glibc's
 * (glibc, which counts this call as a passthrough op), else the name of its
 * discipline (cfg). */
LL_INLINE lp_profile *lp_proftable_sync(const void *obj, const char *kind, bool glibc, const ll_sync_config *cfg,
                                        void *pc)
{
    lp_profile *p = lp_proftable_get(obj, kind, glibc ? "pshared" : lp_discipline_name(cfg), glibc, pc);
    if (p && glibc)
        lp_profile_passthrough_op(p);
    return p;
}

#endif
