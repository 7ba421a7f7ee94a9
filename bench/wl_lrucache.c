/*
 * lrucache — malthusian-locks.txt §6.9 (Figure 12).  keymap (§6.8) with the
 * shared map replaced by a shared LRU cache (bench/lru.c: hash map + recency
 * list) of capacity (10000) entries behind the lock.  Each thread has a key
 * set of keyset (1000) keys from [0, key_range) (1000000).  Loop: acquire;
 * pick a random key-set slot; with probability replace_pct% (1) put a fresh
 * random key there; look the key up in the cache (a hit moves it to the
 * front); on a miss install key -> key, evicting the least recently used
 * entry when full; release; NCS: ncs_steps (1000) PRNG steps.  Threads compete
 * for occupancy of the software cache: fewer circulating threads, fewer misses.
 * Before the interval the cache is warmed with the threads' key sets.
 *
 * Parameters: capacity, key_range, keyset, replace_pct, ncs_steps.
 * Extras: hit_rate (hits / lookups over the admitted operations of the interval).
 * Differs from the paper: CEPH's SimpleLRU keys a std::map (red-black tree);
 * ours a chained hash table, so a miss costs less than there.
 */
#include <stdlib.h>

#include "bench.h"
#include "keysets.h"
#include "lru.h"

enum { P_CAPACITY, P_KEY_RANGE, P_KEYSET, P_REPLACE_PCT, P_NCS_STEPS };
static const bench_param params[] = {
    {"capacity", "entries the shared LRU cache holds", 10000, 1, 1 << 26, 1},
    {"key_range", "keys are drawn from [0, key_range)", 1000000, 1, 1 << 30, 1},
    BENCH_KEYSET_PARAMS(1),
    BENCH_NCS_STEPS_PARAM,
    {0},
};

typedef struct lrucache_ctx {
    lru_cache cache; /* protected by the lock under test */
    bench_keysets keys;
    uint64_t *hits; /* per thread, written once at the end */
    uint64_t ncs_steps;
} lrucache_ctx;

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    lrucache_ctx *c = t->sh->ctx;
    uint32_t *keys = c->keys.sets[t->index];
    const uint64_t ncs_steps = c->ncs_steps;
    uint64_t rng = t->rng, hits = 0, sum = 0;
    while (!bench_stopping(t)) {
        if (!bench_enter(t, lock))
            break;
        uint32_t key = bench_keysets_next(&c->keys, keys, &rng);
        uint32_t value;
        if (lru_get(&c->cache, key, &value)) {
            hits++;
            sum += value;
        } else
            lru_put(&c->cache, key, key);
        ll_lock_release(lock);
        t->ops++;
        for (uint64_t i = 0; i < ncs_steps; i++)
            rng = bench_xorshift(rng);
    }
    c->hits[t->index] = hits;
    t->rng = rng ^ sum; /* keeps the loops alive */
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    lrucache_ctx c = {.ncs_steps = (uint64_t)cfg->param[P_NCS_STEPS]};
    uint32_t keyset = (uint32_t)cfg->param[P_KEYSET];
    bench_require_memory(cfg, cfg->param[P_CAPACITY] * (sizeof(lru_entry) + 4 * sizeof(uint32_t)) +
                                  (double)keyset * sizeof(uint32_t) * cfg->threads,
                         "its cache and key sets");
    c.hits = calloc((size_t)cfg->threads, sizeof(uint64_t));
    if (!c.hits || lru_init(&c.cache, (uint32_t)cfg->param[P_CAPACITY]) != 0 ||
        bench_keysets_init(&c.keys, cfg->threads, keyset, (uint32_t)cfg->param[P_KEY_RANGE], cfg->param[P_REPLACE_PCT]) != 0)
        return -1;
    for (uint32_t i = 0; i < keyset; i++) /* warm the cache: key sets interleaved, the last ones stay */
        for (int t = 0; t < cfg->threads; t++)
            lru_put(&c.cache, c.keys.sets[t][i], c.keys.sets[t][i]);
    int rc = bench_run_threads(lock, cfg, out, &c, body);
    uint64_t hits = 0;
    for (int t = 0; t < cfg->threads; t++)
        hits += c.hits[t];
    bench_keysets_free(&c.keys);
    free(c.hits);
    lru_destroy(&c.cache);
    if (rc != 0)
        return rc;
    bench_add_extra(out, "hit_rate", out->ops ? (double)hits / (double)out->ops : 0);
    return 0;
}

const workload wl_lrucache = {"lrucache", "Malthusian 6.9: shared LRU cache (10000 entries), per-thread key sets",
                              params, run};
