/*
 * A fixed-capacity LRU cache (uint32 key -> uint32 value) for the lrucache
 * workload (malthusian-locks.txt §6.9, after CEPH's SimpleLRU: a map plus a
 * recency list, the most recent entry at the front, the least recent trimmed
 * from the back).  SimpleLRU's map is a std::map (red-black tree); ours is a
 * chained hash table.  Entries live in a preallocated pool: lookups and
 * installs never call malloc.  Not thread-safe: the caller holds the lock.
 */
#ifndef LOCKLAB_BENCH_LRU_H
#define LOCKLAB_BENCH_LRU_H
#include <stddef.h>
#include <stdint.h>

typedef struct lru_entry {
    uint32_t key, value;
    uint32_t prev, next; /* recency list: prev is more recent; LRU_NIL ends */
    uint32_t chain;      /* next entry in the same hash bucket */
} lru_entry;

#define LRU_NIL UINT32_MAX

typedef struct lru_cache {
    lru_entry *entries; /* capacity entries */
    uint32_t *buckets;  /* nbuckets heads */
    uint32_t nbuckets;  /* a power of two, >= 2 * capacity */
    uint32_t capacity, size;
    uint32_t head, tail; /* most and least recently used */
} lru_cache;

int lru_init(lru_cache *c, uint32_t capacity); /* capacity >= 1; -1: out of memory */
void lru_destroy(lru_cache *c);
/* Hit: sets *value, moves the entry to the front, returns 1.  Miss: 0. */
int lru_get(lru_cache *c, uint32_t key, uint32_t *value);
/* Installs key at the front (updating it if present); evicts the least
 * recently used entry when full.  Returns 1 if an entry was evicted, else 0. */
int lru_put(lru_cache *c, uint32_t key, uint32_t value);
/* Checks the list links, the list length against size, that every entry is in
 * its bucket exactly once and keys are unique.  0 ok, -1 violated. */
int lru_check(const lru_cache *c);
/* Keys from most to least recent into keys[] (at most max); returns the count. */
uint32_t lru_keys(const lru_cache *c, uint32_t *keys, uint32_t max);
#endif
