/* Out-of-line lock objects from the core's arena, and the registry that recycles
 * the objects of mutexes dropped without a destroy (slab.h). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "config.h"
#include "slab.h"

size_t lp_slab_hdr_offset;
static ll_arena_pool objects; /* set by lp_slab_init */

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

void lp_slab_init(void)
{
    lp_slab_hdr_offset = round_up(lp_cfg.ops->state_bytes, _Alignof(lp_objhdr));
    size_t stride = round_up(lp_slab_hdr_offset + sizeof(lp_objhdr), LL_SECTOR);
    ll_arena_pool pool = LL_ARENA_POOL(stride, LL_SECTOR, lp_slab_hdr_offset + offsetof(lp_objhdr, link));
    objects = pool;
}

size_t lp_slab_object_bytes(void) { return objects.bytes; }

/* ---- the registry: objects in use, by slot ----------------------------------------------
 * A hash table of chains through lp_objhdr.link (an object in use is on no free list),
 * under the arena's lock.  It doubles when it holds twice as many objects as buckets; the
 * old bucket arrays stay in the arena (at most as much again as the last one).  A fork
 * child whose arena was taken by another thread at the fork discards it (a half-done
 * insertion or doubling; ll_arena_epoch): the objects then in use are no longer
 * registered, so one of them dropped without a destroy stays allocated. */
enum { FIRST_BUCKETS = 1024 };
static void **buckets;
static size_t nbuckets, nregistered;
static uint32_t registry_epoch; /* the arena's epoch the table belongs to */

/* Under the arena's lock, before any use of the table. */
static void registry_current(void)
{
    if (LL_UNLIKELY(registry_epoch != ll_arena_epoch())) {
        buckets = NULL;
        nbuckets = nregistered = 0;
        registry_epoch = ll_arena_epoch();
    }
}

static size_t bucket_of(const ll_atomic_ptr *slot, size_t n)
{
    return (size_t)(((uint64_t)(uintptr_t)slot >> 3) * 0x9E3779B97F4A7C15ull >> 32) & (n - 1);
}

static bool grow(void)
{
    size_t n = nbuckets ? nbuckets * 2 : FIRST_BUCKETS;
    void **b = (void **)ll_arena_alloc(n * sizeof *b, LL_CACHELINE);
    if (b == NULL)
        return nbuckets != 0; /* out of memory: keep the table we have (longer chains) */
    for (size_t i = 0; i < nbuckets; i++)
        for (void *obj = buckets[i], *next; obj; obj = next) {
            lp_objhdr *h = lp_hdr(obj);
            next = h->link;
            size_t k = bucket_of(h->slot, n);
            h->link = b[k];
            b[k] = obj;
        }
    buckets = b;
    nbuckets = n;
    return true;
}

/* Unlink and return the object registered for slot, or NULL. */
static void *registry_take(const ll_atomic_ptr *slot)
{
    registry_current();
    if (nbuckets == 0)
        return NULL;
    for (void **link = &buckets[bucket_of(slot, nbuckets)]; *link; link = &lp_hdr(*link)->link) {
        lp_objhdr *h = lp_hdr(*link);
        if (h->slot == slot) {
            void *obj = *link;
            *link = h->link;
            nregistered--;
            return obj;
        }
    }
    return NULL;
}

static void registry_add(void *obj, ll_atomic_ptr *slot)
{
    registry_current();
    if ((nregistered >= 2 * nbuckets && !grow()) || nbuckets == 0) {
        lp_hdr(obj)->slot = NULL; /* no table (out of memory): not recycled if dropped */
        return;
    }
    lp_objhdr *h = lp_hdr(obj);
    size_t k = bucket_of(slot, nbuckets);
    h->slot = slot;
    h->link = buckets[k];
    buckets[k] = obj;
    nregistered++;
}

/* ---- install, put ---------------------------------------------------------------------- */
typedef struct install_ctx {
    ll_atomic_ptr *slot;
    bool (*init)(void *obj, void *ctx);
    void (*retire)(void *obj);
    void *ctx;
} install_ctx;

/* Under the arena's lock, for a slot that is NULL: an object still registered for
 * it belongs to a mutex that the program dropped without destroying it (zeroed,
 * re-initialised, freed and allocated again at the same address), and whose
 * memory now holds a new mutex: that object is retired and recycled. */
static bool init_registered(void *obj, void *arg)
{
    install_ctx *c = (install_ctx *)arg;
    void *dropped = registry_take(c->slot);
    if (dropped) {
        c->retire(dropped);
        ll_arena_put(&objects, dropped);
    }
    if (!c->init(obj, c->ctx))
        return false;
    registry_add(obj, c->slot);
    return true;
}

ll_atomic_u64 lp_slab_fallbacks;

/* One line, once per process (unless LOCKLAB_QUIET): a mutex runs on the fallback lock. */
static LL_COLD void say_fallback(void)
{
    static ll_atomic_u32 said;
    if (lp_cfg.quiet || ll_xchg(&said, 1, LL_RELAXED) != 0) /* relaxed: only one thread may print */
        return;
    lp_say("liblocklab-preload: out of memory for a lock object: such mutexes run on an inline "
           "standby lock instead of %s (count: LOCKLAB_VERBOSE=1)\n",
           lp_cfg.spec); /* no stdio buffer: malloc is what just failed */
}

void *lp_slab_install(ll_atomic_ptr *slot, bool (*init)(void *obj, void *ctx), void (*retire)(void *obj), void *ctx,
                      bool fallback)
{
    /* This thread's context first, outside the arena's lock: init may need it
     * (a lock whose state holds a queue node), and creating it calls
     * pthread_setspecific, which may call malloc. */
    ll_self();
    install_ctx c = {slot, init, retire, ctx};
    if (!fallback)
        return ll_arena_install(&objects, slot, init_registered, &c);
    ll_arena_lock(); /* recursive: held across the install, so no installer can race the marker */
    void *obj = ll_arena_install(&objects, slot, init_registered, &c);
    if (obj == NULL && (obj = ll_load_relaxed(slot)) == NULL) { /* relaxed: under the arena's lock */
        obj = (void *)LP_OBJ_FALLBACK;
        ll_store_release(slot, obj); /* release: nothing to publish (the fallback state is the mutex's zeros) */
        ll_faa(&lp_slab_fallbacks, 1, LL_RELAXED); /* relaxed: a statistic */
    }
    ll_arena_unlock();
    if (obj == (void *)LP_OBJ_FALLBACK)
        say_fallback();
    return obj;
}

bool lp_slab_spare(void)
{
    void *obj = ll_arena_get(&objects); /* a free object, or a fresh one */
    if (obj == NULL)
        return false;
    ll_arena_put(&objects, obj); /* back on the free list, first: the next install takes it */
    return true;
}

void lp_slab_put(void *obj, void (*retire)(void *obj))
{
    ll_arena_lock();
    lp_objhdr *h = lp_hdr(obj);
    if (h->slot)
        registry_take(h->slot);
    retire(obj);
    ll_arena_put(&objects, obj);
    ll_arena_unlock();
}
