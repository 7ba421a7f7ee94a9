/* Address -> profile record, for objects without room for a pointer (proftable.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "locklab/core.h"
#include "proftable.h"

typedef struct slot {
    ll_atomic_ptr addr;    /* NULL: free; claimed once by CAS */
    ll_atomic_ptr profile; /* set by the claimer once the record exists */
} slot;

static ll_atomic_ptr table; /* slot[LP_PROFTABLE_SLOTS], mmap'd at first use */
static char no_record;      /* a slot's profile when lp_profile_new failed (out of memory) */

static slot *table_slots(void)
{
    slot *t = (slot *)ll_load_acquire(&table); /* acquire: pairs with the CAS below; zeroed pages */
    if (LL_LIKELY(t != NULL))
        return t;
    void *mem = mmap(NULL, LP_PROFTABLE_SLOTS * sizeof(slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    void *expected = NULL;
    if (ll_cas(&table, &expected, mem, LL_ACQ_REL)) /* release: publish; acquire (failure): the winner's table */
        return (slot *)mem;
    munmap(mem, LP_PROFTABLE_SLOTS * sizeof(slot));
    return (slot *)expected;
}

static lp_profile *await_profile(slot *s)
{
    lp_profile *p;
    uint32_t turns = 0;
    while ((p = (lp_profile *)ll_load_acquire(&s->profile)) == NULL) /* acquire: pairs with the claimer's release */
        ll_yield_turn(&turns);
    return p == (lp_profile *)(void *)&no_record ? NULL : p;
}

/* addr's probe-th slot: linear probing from a multiplicative hash of the address. */
static inline slot *probe_slot(slot *t, const void *addr, uint32_t probe)
{
    uint64_t h = ((uint64_t)(uintptr_t)addr >> 3) * 0x9E3779B97F4A7C15ull;
    return &t[((uint32_t)(h >> 48) + probe) & (LP_PROFTABLE_SLOTS - 1)];
}

/* addr's slot in t: the one that holds addr, or else the first empty one on its probe path
 * (*key NULL then), or NULL when every slot holds another address.  *key: the slot's address. */
static slot *find_slot(slot *t, const void *addr, void **key)
{
    for (uint32_t probe = 0; probe < LP_PROFTABLE_SLOTS; probe++) {
        slot *s = probe_slot(t, addr, probe);
        *key = ll_load_acquire(&s->addr); /* acquire: pairs with the claiming CAS */
        if (*key == addr || *key == NULL)
            return s;
    }
    return NULL;
}

lp_profile *lp_proftable_get(const void *addr, const char *kind, const char *type, bool passthrough, void *pc)
{
    slot *t = table_slots();
    if (t == NULL)
        return NULL;
    void *key;
    slot *s;
    while ((s = find_slot(t, addr, &key)) != NULL) {
        if (key == NULL && ll_cas(&s->addr, &key, (void *)addr, LL_ACQ_REL)) { /* acq_rel: claim; see competing claims */
            lp_profile *p = lp_profile_new(addr, kind, type, passthrough, pc);
            ll_store_release(&s->profile, p ? (void *)p : (void *)&no_record); /* release: the record is complete */
            return p;
        }
        if (key == addr)
            return await_profile(s);
        /* another address claimed that slot first: look again (slots are never freed) */
    }
    return NULL;
}

lp_profile *lp_proftable_find(const void *addr)
{
    slot *t = (slot *)ll_load_acquire(&table); /* acquire: pairs with table_slots' CAS; no table: no record */
    if (t == NULL)
        return NULL;
    void *key;
    slot *s = find_slot(t, addr, &key);
    if (s == NULL || key == NULL)
        return NULL; /* slots are claimed in probe order and never freed: addr has none */
    /* acquire: pairs with the claimer's release; NULL while the claimer creates it */
    lp_profile *p = (lp_profile *)ll_load_acquire(&s->profile);
    return p == (lp_profile *)(void *)&no_record ? NULL : p;
}
