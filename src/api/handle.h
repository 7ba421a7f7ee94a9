/* The generic handles, ll_lock (lock.c) and ll_rwlock (rwlock.c): the algorithm's ops, the
 * wait policy, the spec's name, and last the algorithm's state, as large and as aligned as
 * its placement asks.  Both are made by the same two steps (lock.c):
 *
 *   ll_handle_alloc   the handle's memory for the parsed spec s: `head` bytes (the
 *                     handle without its state), then the state, zeroed, aligned for
 *                     both; *pl the state's placement.  NULL with err ("out of memory
 *                     creating <what> '<spec>'").
 *   ll_handle_place   after the caller has set the ops: the spec's name copied into
 *                     name[128], the state placed (its wait policy *wp); h, or NULL with
 *                     err and h freed when the algorithm's init fails.
 *
 * And their lists (ll_lock_list, ll_rwlock_list): ll_specs_of calls fn for every spec
 * (without keys) of the algorithm ops: its name, with each waiting policy it supports.
 */
#ifndef LOCKLAB_API_HANDLE_H
#define LOCKLAB_API_HANDLE_H
#include "locklab/registry.h"

void *ll_handle_alloc(const ll_spec *s, size_t head, size_t head_align, const char *what, const char *spec,
                      ll_placement *pl, char *err, size_t errlen);
void *ll_handle_place(void *h, const ll_placement *pl, char *name, void *state, ll_wait_policy *wp, char *err,
                      size_t errlen);
void ll_specs_of(const ll_lock_ops *ops, void (*fn)(const char *spec, void *arg), void *arg);
/* The handle's direct verbs (ll_lock_ops.direct_acquire, direct_release: the interposer's
 * path), or its plain ones and the owner store where it has none: for the validator, which
 * runs them as the interposer does, with an owner word of its own. */
struct ll_lock;
int ll_lock_direct_acquire(struct ll_lock *l, ll_atomic_u64 *owner, uint64_t id);
int ll_lock_direct_release(struct ll_lock *l);
#endif
