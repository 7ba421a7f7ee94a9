/* Per-thread key sets shared by keymap and lrucache (keysets.h). */
#include <stdlib.h>

#include "keysets.h"

int bench_keysets_init(bench_keysets *k, int threads, uint32_t size, uint32_t key_range, double replace_pct)
{
    double p = replace_pct / 100.0;
    k->threads = threads;
    k->size = size;
    k->key_range = key_range;
    k->replace_threshold = p >= 1.0 ? UINT64_MAX : (uint64_t)(p * 18446744073709551616.0);
    k->sets = calloc((size_t)threads, sizeof(uint32_t *));
    if (!k->sets)
        return -1;
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    for (int t = 0; t < threads; t++) {
        if (!(k->sets[t] = malloc(size * sizeof(uint32_t)))) {
            bench_keysets_free(k);
            return -1;
        }
        for (uint32_t i = 0; i < size; i++) {
            rng = bench_xorshift(rng);
            k->sets[t][i] = (uint32_t)(((unsigned __int128)rng * key_range) >> 64);
        }
    }
    return 0;
}

void bench_keysets_free(bench_keysets *k)
{
    for (int t = 0; k->sets && t < k->threads; t++)
        free(k->sets[t]);
    free(k->sets);
    k->sets = NULL;
}
