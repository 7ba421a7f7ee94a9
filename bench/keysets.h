/*
 * Per-thread key sets (Malthusian paper §6.8 keymap, §6.9 LRUCache): each
 * thread draws its keys from a private set of `size` keys taken uniformly from
 * [0, key_range); with probability replace_pct/100 an operation first replaces
 * the chosen entry by a fresh key, so the sets drift slowly over the run.
 */
#ifndef LOCKLAB_BENCH_KEYSETS_H
#define LOCKLAB_BENCH_KEYSETS_H
#include <stdint.h>

#include "bench.h"

typedef struct bench_keysets {
    uint32_t **sets; /* one per thread */
    int threads;
    uint32_t size, key_range;
    uint64_t replace_threshold; /* replace when a 64-bit draw is below this */
} bench_keysets;

/* 0, or -1 out of memory (whatever was allocated is freed). */
/* The key-set parameters of a workload's table (keymap, lrucache): each thread's
 * key-set size and how often an operation first replaces an entry (default REPLACE_PCT). */
#define BENCH_KEYSET_PARAMS(REPLACE_PCT)                                                                 \
    {"keyset", "keys in each thread's key set", 1000, 1, 1 << 24, 1},                                  \
    {"replace_pct", "percent of operations that first replace the key-set entry", REPLACE_PCT, 0, 100, 0}

int bench_keysets_init(bench_keysets *k, int threads, uint32_t size, uint32_t key_range, double replace_pct);
void bench_keysets_free(bench_keysets *k);

/* The next key of a thread whose set is keys (k->sets[index]), advancing its generator. */
static inline uint32_t bench_keysets_next(const bench_keysets *k, uint32_t *keys, uint64_t *rng)
{
    *rng = bench_xorshift(*rng);
    uint32_t *slot = &keys[((unsigned __int128)*rng * k->size) >> 64];
    *rng = bench_xorshift(*rng);
    if (*rng < k->replace_threshold) {
        *rng = bench_xorshift(*rng);
        *slot = (uint32_t)(((unsigned __int128)*rng * k->key_range) >> 64);
    }
    return *slot;
}

#endif
