/* The calling thread's set of read-held locks (include/locklab/rwlock.h, "Recursive
 * readers"): its layout, and the common cases of ll_rw_held_{reenter,add,drop} inline for
 * the interposer's read path (src/interpose/rwlock.c), whose uncontended read pair they
 * dominate otherwise.  The rest, and the public functions, in src/api/rwlock.c.
 *
 * An inline array of LL_RW_HELD_INLINE entries, most recent last: a thread rarely holds more
 * than one or two read locks, so a scan from the end finds the lock in one or two compares,
 * and a thread that holds none pays one load.  Past the array, overflow chunks of a page
 * each, stacked newest first: every chunk below the top one is full and the top one holds
 * at least one entry, so the newest entry is the top chunk's last (or the array's, with no
 * chunk). */
#ifndef LOCKLAB_SRC_API_RW_HELD_H
#define LOCKLAB_SRC_API_RW_HELD_H

#include "locklab/rwlock.h"

typedef struct ll_rw_held_entry {
    const void *lock;
    uintptr_t token;
    uint32_t count; /* re-entries beyond the first hold */
} ll_rw_held_entry;

struct ll_rw_held_chunk;
typedef struct ll_rw_held_set {
    uint32_t n;                   /* entries in e; LL_RW_HELD_INLINE whenever top != NULL */
    struct ll_rw_held_chunk *top; /* the newest overflow chunk, NULL if none */
    ll_rw_held_entry e[LL_RW_HELD_INLINE];
} ll_rw_held_set;
/* Hidden (the library is built -fvisibility=hidden): each library that holds src/api/rwlock.c
 * has its own. */
extern __thread ll_rw_held_set ll_rw_held_tls __attribute__((tls_model("initial-exec")));

/* ll_rw_held_reenter: a thread that holds no read lock answers with one load. */
LL_INLINE bool ll_rw_held_reenter_inline(const void *lock)
{
    return LL_UNLIKELY(ll_rw_held_tls.n != 0) && ll_rw_held_reenter(lock);
}

/* ll_rw_held_by_me: as reenter. */
LL_INLINE bool ll_rw_held_by_me_inline(const void *lock)
{
    return LL_UNLIKELY(ll_rw_held_tls.n != 0) && ll_rw_held_by_me(lock);
}

/* ll_rw_held_add: a free slot in the inline array is filled here. */
LL_INLINE bool ll_rw_held_add_inline(const void *lock, uintptr_t token)
{
    uint32_t n = ll_rw_held_tls.n;
    if (LL_UNLIKELY(n >= LL_RW_HELD_INLINE))
        return ll_rw_held_add(lock, token);
    ll_rw_held_entry *h = &ll_rw_held_tls.e[n];
    h->lock = lock;
    h->token = token;
    h->count = 0;
    ll_rw_held_tls.n = n + 1;
    return true;
}

/* The last hold of the newest entry of the inline array (no overflow), if it is lock's:
 * dropped, *token, true; else false and nothing changed. */
LL_INLINE bool ll_rw_held_pop_newest(const void *lock, uintptr_t *token)
{
    uint32_t n = ll_rw_held_tls.n;
    if (n == 0 || ll_rw_held_tls.top != NULL)
        return false;
    ll_rw_held_entry *h = &ll_rw_held_tls.e[n - 1];
    if (h->lock != lock || h->count != 0)
        return false;
    *token = h->token;
    ll_rw_held_tls.n = n - 1;
    return true;
}

/* ll_rw_held_drop: the newest entry's last hold here; anything else (a re-entry, an older
 * entry, overflow, none) by the function. */
LL_INLINE int ll_rw_held_drop_inline(const void *lock, uintptr_t *token)
{
    return LL_LIKELY(ll_rw_held_pop_newest(lock, token)) ? 1 : ll_rw_held_drop(lock, token);
}

#endif /* LOCKLAB_SRC_API_RW_HELD_H */
