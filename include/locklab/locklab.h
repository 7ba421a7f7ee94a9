/*
 * locklab: scalable mutual-exclusion locks with pluggable waiting policies.
 *
 * Generic API: create a lock from a spec string and use it like a mutex.
 *
 *   char err[256];
 *   ll_lock *l = ll_lock_create("mcs-stp:spin_ns=20000", err, sizeof err);
 *   if (!l) { fprintf(stderr, "%s\n", err); exit(2); }
 *   ll_lock_acquire(l); ... ll_lock_release(l);
 *   ll_lock_destroy(l);
 *
 * Spec grammar:  ALGO[-POLICY][:KEY=VALUE[,KEY=VALUE...]]
 *   ALGO    tas ttas backoff ticket ticket-pb anderson clh mcs k42 twa mcscr lifocr loiter
 *           acr cna hmcs mcscrn fissile shfl hemlock reciprocating parkinglot pthread
 *           pthread-adaptive (`locklab-bench --list`)
 *   POLICY  spin (default) yield park stp astp   (see wait.h; not every lock
 *           supports every policy: `locklab-bench --list` shows the valid specs)
 *   KEYS    per algorithm and policy (`locklab-bench --list --verbose`)
 *
 * A thread may hold any number of locks and release them in any order: queue
 * nodes are taken from a per-thread cache and remembered by the lock while held.
 * Per-algorithm headers (locklab/mcs.h, ...) expose the algorithms directly,
 * with explicit queue nodes and static initialisers, for experts.
 */
#ifndef LOCKLAB_H
#define LOCKLAB_H

#include <stdbool.h>
#include <stddef.h>

#include "api.h"

LL_API_BEGIN

typedef struct ll_lock ll_lock;

/* NULL on bad spec, with a one-line message in err naming the bad value and the valid choices. */
ll_lock *ll_lock_create(const char *spec, char *err, size_t errlen);
void ll_lock_destroy(ll_lock *lock);
void ll_lock_acquire(ll_lock *lock);
/* true if acquired; every lock in locklab supports it. */
bool ll_lock_try_acquire(ll_lock *lock);
void ll_lock_release(ll_lock *lock);
/* Acquire, or give up after timeout_ns: true if acquired.  The caller waits as
 * ll_lock_acquire's waiters do (queued, same policy) and leaves at the deadline
 * (each lock's header, "Timed acquire"); a lock without a timed acquire of its own
 * (a peer's) polls try_acquire. */
bool ll_lock_acquire_for(ll_lock *lock, unsigned long long timeout_ns);
/* Canonical spec of the lock, e.g. "mcs-stp:spin_ns=35000". */
const char *ll_lock_name(const ll_lock *lock);
/* Spin budget of its waiting policy in ns (stp: fixed, astp: upper bound), 0 if none. */
unsigned long long ll_lock_spin_ns(const ll_lock *lock);
/* True if the lock never blocks in the kernel (it spins or yields): with more
 * threads than CPUs it may wait a time slice per handover (ll_spec_never_parks). */
bool ll_lock_never_parks(const ll_lock *lock);

/* The library's version, "MAJOR.MINOR.PATCH" (LOCKLAB_VERSION in locklab/version.h at compile time). */
const char *ll_version(void);

/* Every accepted lock spec (without keys), in registry order: calls fn for each. */
void ll_lock_list(void (*fn)(const char *spec, void *arg), void *arg);

LL_API_END
#endif /* LOCKLAB_H */
