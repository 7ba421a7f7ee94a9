/* The reader-writer locks: the one list of algorithms, the per-thread set of read-held
 * locks, and the generic handle (include/locklab/rwlock.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "locklab/rwlock.h"
#include "handle.h"
#include "rw_held.h"

static const ll_rwlock_ops *const rwlocks[] = {
    &ll_rwlock_pft, &ll_rwlock_readpref, &ll_rwlock_rwgate, &ll_rwlock_bravo, &ll_rwlock_numarw, &ll_rwlock_pthread, &ll_rwlock_bravo_pthread, NULL,
};

const ll_rwlock_ops *ll_rwlock_algorithm(size_t i)
{
    return i < sizeof rwlocks / sizeof rwlocks[0] ? rwlocks[i] : NULL;
}

const ll_rwlock_ops *ll_rwlock_find(const char *name)
{
    for (size_t i = 0; rwlocks[i]; i++)
        if (strcmp(rwlocks[i]->desc->name, name) == 0)
            return rwlocks[i];
    return NULL;
}

const ll_rwlock_ops *ll_rwlock_of(const ll_lock_ops *desc)
{
    for (size_t i = 0; rwlocks[i]; i++)
        if (rwlocks[i]->desc == desc)
            return rwlocks[i];
    return NULL;
}

static const ll_lock_ops *desc_at(size_t i)
{
    const ll_rwlock_ops *rw = ll_rwlock_algorithm(i);
    return rw ? rw->desc : NULL;
}

int ll_rwlock_spec_parse(const char *spec, ll_spec *out, char *err, size_t errlen)
{
    return ll_spec_parse_among(desc_at, "rwlock", spec, out, err, errlen);
}

void ll_rwlock_list(void (*fn)(const char *spec, void *arg), void *arg)
{
    for (size_t i = 0; rwlocks[i]; i++)
        ll_specs_of(rwlocks[i]->desc, fn, arg);
}

/* ---- the calling thread's read-held locks ------------------------------------------------
 * The set's layout and its inline common cases: rw_held.h.  Overflow chunks are mapped (mmap:
 * never malloc, which the interposer may be serving from inside a malloc replacement) and
 * unmapped when their last entry goes; a thread that exits still holding more than
 * LL_RW_HELD_INLINE read locks (its locks stay read-held for ever) leaves its chunks mapped.
 * Removal moves the newest entry into the hole, so the order is only roughly recent. */
typedef ll_rw_held_entry held;
typedef struct ll_rw_held_chunk {
    struct ll_rw_held_chunk *below; /* the chunk filled before this one; NULL: the inline array is below */
    uint32_t n;
    held e[(4096 - 2 * sizeof(void *)) / sizeof(held)];
} held_chunk;
LL_STATIC_ASSERT(sizeof(held_chunk) <= 4096, "an overflow chunk is one page");
#define CHUNK_ENTRIES (sizeof(((held_chunk *)0)->e) / sizeof(held))
__thread ll_rw_held_set ll_rw_held_tls __attribute__((tls_model("initial-exec")));

static LL_COLD held *find_in_chunks(const void *lock)
{
    for (held_chunk *c = ll_rw_held_tls.top; c; c = c->below)
        for (uint32_t i = c->n; i-- > 0;)
            if (c->e[i].lock == lock)
                return &c->e[i];
    return NULL;
}

/* A lock is in the set at most once: the array first (where it usually is), then the chunks. */
static held *find_held(const void *lock)
{
    for (uint32_t i = ll_rw_held_tls.n; i-- > 0;)
        if (ll_rw_held_tls.e[i].lock == lock)
            return &ll_rw_held_tls.e[i];
    return LL_UNLIKELY(ll_rw_held_tls.top != NULL) ? find_in_chunks(lock) : NULL;
}

/* Move the newest entry into h (an entry of the set) and shrink the set by one (1). */
static __attribute__((noinline)) int remove_with_chunks(held *h)
{
    held_chunk *c = ll_rw_held_tls.top;
    *h = c->e[--c->n];
    if (c->n == 0) {
        ll_rw_held_tls.top = c->below;
        munmap(c, sizeof *c);
    }
    return 1;
}
LL_INLINE int remove_held(held *h)
{
    if (LL_UNLIKELY(ll_rw_held_tls.top != NULL))
        return remove_with_chunks(h);
    *h = ll_rw_held_tls.e[--ll_rw_held_tls.n];
    return 1;
}

bool ll_rw_held_reenter(const void *lock)
{
    if (LL_LIKELY(ll_rw_held_tls.n == 0))
        return false;
    held *h = find_held(lock);
    if (!h)
        return false;
    h->count++;
    return true;
}

/* The array is full: the next entry's place in the top chunk, a new one if that is full
 * (NULL: no memory for it). */
static LL_COLD held *overflow_slot(void)
{
    held_chunk *c = ll_rw_held_tls.top;
    if (c == NULL || c->n == CHUNK_ENTRIES) {
        void *m = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        held_chunk *fresh = (held_chunk *)m; /* zeroed: n = 0 */
        fresh->below = c;
        ll_rw_held_tls.top = c = fresh;
    }
    return &c->e[c->n++];
}

bool ll_rw_held_add(const void *lock, uintptr_t token)
{
    held *h;
    if (LL_LIKELY(ll_rw_held_tls.n < LL_RW_HELD_INLINE))
        h = &ll_rw_held_tls.e[ll_rw_held_tls.n++];
    else if ((h = overflow_slot()) == NULL)
        return false;
    h->lock = lock;
    h->token = token;
    h->count = 0;
    return true;
}

int ll_rw_held_drop(const void *lock, uintptr_t *token)
{
    held *h = find_held(lock);
    if (!h)
        return -1;
    if (LL_UNLIKELY(h->count > 0)) { /* a re-entry's release (unlikely: keeps the last release's path hot) */
        h->count--;
        return 0;
    }
    *token = h->token;
    return remove_held(h);
}

const void *ll_rw_held_find(bool (*pred)(const void *lock, void *arg), void *arg)
{
    for (uint32_t i = 0; i < ll_rw_held_tls.n; i++)
        if (pred(ll_rw_held_tls.e[i].lock, arg))
            return ll_rw_held_tls.e[i].lock;
    for (held_chunk *c = ll_rw_held_tls.top; c; c = c->below)
        for (uint32_t i = 0; i < c->n; i++)
            if (pred(c->e[i].lock, arg))
                return c->e[i].lock;
    return NULL;
}

bool ll_rw_held_by_me(const void *lock) { return ll_rw_held_tls.n != 0 && find_held(lock) != NULL; }

bool ll_rw_held_retoken(const void *lock, uintptr_t token)
{
    held *h = ll_rw_held_tls.n != 0 ? find_held(lock) : NULL;
    if (h)
        h->token = token;
    return h != NULL;
}

void ll_rw_held_forget(const void *lock)
{
    held *h;
    while ((h = find_held(lock)) != NULL)
        remove_held(h);
}

/* ---- the generic handle ------------------------------------------------------------------ */
struct ll_rwlock {
    const ll_rwlock_ops *ops;
    ll_wait_policy wp;
    char name[128];
    LL_ALIGNED(LL_SECTOR) unsigned char state[];
};

ll_rwlock *ll_rwlock_create(const char *spec, char *err, size_t errlen)
{
    ll_spec s;
    ll_placement pl;
    if (ll_rwlock_spec_parse(spec, &s, err, errlen) != 0)
        return NULL;
    ll_rwlock *l =
        (ll_rwlock *)ll_handle_alloc(&s, sizeof(ll_rwlock), LL_ALIGNOF(ll_rwlock), "rwlock", spec, &pl, err, errlen);
    if (!l)
        return NULL;
    l->ops = ll_rwlock_of(s.ops);
    return (ll_rwlock *)ll_handle_place(l, &pl, l->name, l->state, &l->wp, err, errlen);
}

void ll_rwlock_destroy(ll_rwlock *l)
{
    if (!l)
        return;
    if (l->ops->desc->destroy)
        l->ops->desc->destroy(l->state);
    free(l);
}

/* A first read hold: record it (true).  Out of memory for the set (a thread past
 * LL_RW_HELD_INLINE read holds whose overflow page cannot be mapped) the hold cannot be
 * recorded, and an unrecorded hold's release could not find its token: so it is given back
 * (false).  rdlock has no error to answer: one line, then abort; the try and timed forms
 * answer false (the interposer answers EAGAIN). */
static bool first_hold(ll_rwlock *l, uintptr_t token)
{
    if (LL_LIKELY(ll_rw_held_add_inline(l, token)))
        return true;
    l->ops->read_release(l->state, &l->wp, token);
    return false;
}

void ll_rwlock_rdlock(ll_rwlock *l)
{
    if (ll_rw_held_reenter_inline(l))
        return;
    if (!first_hold(l, l->ops->read_acquire(l->state, &l->wp))) {
        fprintf(stderr, "locklab: out of memory for the calling thread's read-held set (rwlock %s)\n", l->name);
        abort();
    }
}

bool ll_rwlock_tryrdlock(ll_rwlock *l)
{
    uintptr_t t;
    if (ll_rw_held_reenter_inline(l))
        return true;
    return l->ops->read_try(l->state, &l->wp, &t) && first_hold(l, t);
}

bool ll_rwlock_rdlock_for(ll_rwlock *l, unsigned long long timeout_ns)
{
    uintptr_t t;
    if (ll_rw_held_reenter_inline(l))
        return true;
    uint64_t deadline = ll_now_ns() + timeout_ns;
    bool ok = ll_deadline_passed(deadline) ? l->ops->read_try(l->state, &l->wp, &t)
                                           : l->ops->read_acquire_until(l->state, &l->wp, deadline, &t);
    return ok && first_hold(l, t);
}

void ll_rwlock_rdunlock(ll_rwlock *l)
{
    uintptr_t t;
    if (ll_rw_held_drop_inline(l, &t) == 1)
        l->ops->read_release(l->state, &l->wp, t);
}

void ll_rwlock_wrlock(ll_rwlock *l) { l->ops->write_acquire(l->state, &l->wp); }
bool ll_rwlock_trywrlock(ll_rwlock *l) { return l->ops->write_try(l->state, &l->wp); }
bool ll_rwlock_wrlock_for(ll_rwlock *l, unsigned long long timeout_ns)
{
    uint64_t deadline = ll_now_ns() + timeout_ns;
    return ll_deadline_passed(deadline) ? l->ops->write_try(l->state, &l->wp)
                                        : l->ops->write_acquire_until(l->state, &l->wp, deadline);
}
void ll_rwlock_wrunlock(ll_rwlock *l) { l->ops->write_release(l->state, &l->wp); }
const char *ll_rwlock_name(const ll_rwlock *l) { return l->name; }
