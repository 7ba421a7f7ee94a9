/* Fixed-capacity LRU cache: chained hash table + doubly linked recency list
 * over one entry array (see lru.h). */
#include "lru.h"

#include <stdlib.h>

static uint32_t bucket_of(const lru_cache *c, uint32_t key)
{
    return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (c->nbuckets - 1);
}

int lru_init(lru_cache *c, uint32_t capacity)
{
    c->capacity = capacity;
    c->size = 0;
    c->head = c->tail = LRU_NIL;
    c->nbuckets = 2;
    while (c->nbuckets < 2 * capacity)
        c->nbuckets *= 2;
    c->entries = malloc((size_t)capacity * sizeof(lru_entry));
    c->buckets = malloc((size_t)c->nbuckets * sizeof(uint32_t));
    if (!c->entries || !c->buckets) {
        lru_destroy(c);
        return -1;
    }
    for (uint32_t b = 0; b < c->nbuckets; b++)
        c->buckets[b] = LRU_NIL;
    return 0;
}

void lru_destroy(lru_cache *c)
{
    free(c->entries);
    free(c->buckets);
    c->entries = NULL;
    c->buckets = NULL;
}

static uint32_t find(const lru_cache *c, uint32_t key)
{
    uint32_t i = c->buckets[bucket_of(c, key)];
    while (i != LRU_NIL && c->entries[i].key != key)
        i = c->entries[i].chain;
    return i;
}

static void unlink_list(lru_cache *c, uint32_t i)
{
    lru_entry *e = &c->entries[i];
    if (e->prev != LRU_NIL)
        c->entries[e->prev].next = e->next;
    else
        c->head = e->next;
    if (e->next != LRU_NIL)
        c->entries[e->next].prev = e->prev;
    else
        c->tail = e->prev;
}

static void push_front(lru_cache *c, uint32_t i)
{
    lru_entry *e = &c->entries[i];
    e->prev = LRU_NIL;
    e->next = c->head;
    if (c->head != LRU_NIL)
        c->entries[c->head].prev = i;
    c->head = i;
    if (c->tail == LRU_NIL)
        c->tail = i;
}

static void unlink_bucket(lru_cache *c, uint32_t i)
{
    uint32_t *link = &c->buckets[bucket_of(c, c->entries[i].key)];
    while (*link != i)
        link = &c->entries[*link].chain;
    *link = c->entries[i].chain;
}

int lru_get(lru_cache *c, uint32_t key, uint32_t *value)
{
    uint32_t i = find(c, key);
    if (i == LRU_NIL)
        return 0;
    if (c->head != i) {
        unlink_list(c, i);
        push_front(c, i);
    }
    *value = c->entries[i].value;
    return 1;
}

int lru_put(lru_cache *c, uint32_t key, uint32_t value)
{
    uint32_t i = find(c, key);
    int evicted = 0;
    if (i != LRU_NIL) {
        unlink_list(c, i);
    } else {
        if (c->size == c->capacity) { /* reuse the least recently used entry */
            i = c->tail;
            unlink_list(c, i);
            unlink_bucket(c, i);
            evicted = 1;
        } else {
            i = c->size++;
        }
        uint32_t b = bucket_of(c, key);
        c->entries[i].key = key;
        c->entries[i].chain = c->buckets[b];
        c->buckets[b] = i;
    }
    c->entries[i].value = value;
    push_front(c, i);
    return evicted;
}

int lru_check(const lru_cache *c)
{
    uint32_t n = 0, prev = LRU_NIL;
    for (uint32_t i = c->head; i != LRU_NIL; i = c->entries[i].next) {
        if (i >= c->size || c->entries[i].prev != prev || ++n > c->size)
            return -1;
        if (find(c, c->entries[i].key) != i) /* reachable through its bucket, and the first with its key */
            return -1;
        prev = i;
    }
    if (n != c->size || c->tail != prev)
        return -1;
    uint32_t chained = 0;
    for (uint32_t b = 0; b < c->nbuckets; b++)
        for (uint32_t i = c->buckets[b]; i != LRU_NIL; i = c->entries[i].chain) {
            if (i >= c->size || bucket_of(c, c->entries[i].key) != b || ++chained > c->size)
                return -1;
        }
    return chained == c->size ? 0 : -1;
}

uint32_t lru_keys(const lru_cache *c, uint32_t *keys, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = c->head; i != LRU_NIL && n < max; i = c->entries[i].next)
        keys[n++] = c->entries[i].key;
    return n;
}
