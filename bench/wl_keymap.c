/*
 * keymap — malthusian-locks.txt §6.8 (Figure 11).  One shared hash map from
 * key to counter holds every key of [0, key_range), inserted before the
 * interval.  Each thread has a key set of keyset (1000) random keys.  Loop:
 * acquire; pick a random slot of the thread's key set; with probability
 * replace_pct% (10) put a fresh random key from [0, key_range) into that slot;
 * increment the map's value for the slot's key; release; NCS: ncs_steps
 * (1000) PRNG steps.  Models server threads with per-session keys: some
 * temporal reuse within a thread, little sharing of map regions between threads.
 *
 * The map is our own open-addressing table (linear probing, multiplicative
 * hash, power-of-two capacity >= 2 * key_range, 8-byte slots).
 * Parameters: key_range (1000000), keyset (1000), replace_pct (10), ncs_steps (1000).
 * Extras: map_kib (the table's size).
 * Differs from the paper: std::unordered_map<int,int> with 10^7 keys there;
 * here a flat table and 10^6 keys by default (16 MiB, already 8x this
 * machine's L2; key_range=10000000 gives the paper's size), xorshift64 for mt19937.
 */
#include <stdlib.h>

#include "bench.h"
#include "keysets.h"

enum { P_KEY_RANGE, P_KEYSET, P_REPLACE_PCT, P_NCS_STEPS };
static const bench_param params[] = {
    {"key_range", "keys are drawn from [0, key_range); all are in the map", 1000000, 1, 1 << 28, 1},
    BENCH_KEYSET_PARAMS(10),
    BENCH_NCS_STEPS_PARAM,
    {0},
};

typedef struct keymap_slot {
    uint32_t key_plus_one; /* 0: empty */
    uint32_t value;
} keymap_slot;

typedef struct keymap_ctx {
    keymap_slot *slots;
    uint64_t mask;       /* capacity - 1 */
    bench_keysets keys;
    uint64_t ncs_steps;
} keymap_ctx;

/* The slot holding key, claimed for it if absent (the table never fills: capacity >= 2 * key_range). */
static inline keymap_slot *slot_for(const keymap_ctx *c, uint32_t key)
{
    uint64_t i = ((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20;
    for (;; i++) {
        keymap_slot *s = &c->slots[i & c->mask];
        if (s->key_plus_one == key + 1)
            return s;
        if (s->key_plus_one == 0) {
            s->key_plus_one = key + 1;
            s->value = 0;
            return s;
        }
    }
}

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    const keymap_ctx *c = t->sh->ctx;
    uint32_t *keys = c->keys.sets[t->index];
    const uint64_t ncs_steps = c->ncs_steps;
    uint64_t rng = t->rng, sum = 0;
    while (!bench_stopping(t)) {
        if (!bench_enter(t, lock))
            break;
        uint32_t key = bench_keysets_next(&c->keys, keys, &rng);
        sum += ++slot_for(c, key)->value;
        ll_lock_release(lock);
        t->ops++;
        for (uint64_t i = 0; i < ncs_steps; i++)
            rng = bench_xorshift(rng);
    }
    t->rng = rng ^ sum; /* keeps the loops alive */
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    keymap_ctx c = {.ncs_steps = (uint64_t)cfg->param[P_NCS_STEPS]};
    uint32_t keyset = (uint32_t)cfg->param[P_KEYSET], key_range = (uint32_t)cfg->param[P_KEY_RANGE];
    uint64_t capacity = 2;
    while (capacity < 2 * (uint64_t)key_range)
        capacity *= 2;
    c.mask = capacity - 1;
    bench_require_memory(cfg, (double)capacity * sizeof(keymap_slot) + (double)keyset * sizeof(uint32_t) * cfg->threads,
                         "its map and key sets");
    c.slots = calloc(capacity, sizeof(keymap_slot));
    if (!c.slots || bench_keysets_init(&c.keys, cfg->threads, keyset, key_range, cfg->param[P_REPLACE_PCT]) != 0)
        return -1;
    for (uint32_t k = 0; k < key_range; k++)
        slot_for(&c, k);
    int rc = bench_run_threads(lock, cfg, out, &c, body);
    bench_keysets_free(&c.keys);
    free(c.slots);
    if (rc != 0)
        return rc;
    bench_add_extra(out, "map_kib", (double)(capacity * sizeof(keymap_slot)) / 1024);
    return 0;
}

const workload wl_keymap = {"keymap", "Malthusian 6.8: shared hash map of 1e6 keys, per-thread key sets, NCS 1000",
                            params, run};
