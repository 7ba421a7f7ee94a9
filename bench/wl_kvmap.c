/*
 * kvmap — compact-numa-aware-locks.txt §7.1.1 (the CNA key-value map
 * microbenchmark).  A key-value map on an AVL tree (bench/avl.c) behind one
 * lock, pre-filled with key_range/2 distinct random keys from [0, key_range)
 * (1024).  Each operation, keys uniform in the range: lookup_pct% (80) are
 * lookups, the rest updates, half inserts and half removes.  Between
 * operations, external_work (0) PRNG steps model the paper's external work
 * (a pseudo-random number calculation loop).
 *
 * Parameters: key_range (1024), lookup_pct (80), external_work (0).
 * Extras: tree_size (keys in the tree after the interval).
 * exclusion_ok additionally requires the tree to pass its invariant check
 * (order, balance, heights, size) after the interval.
 * Differs from the paper: the operation mix and external work are drawn with
 * xorshift64; the node pool is preallocated (no malloc in the critical section).
 */
#include <stdlib.h>

#include "avl.h"
#include "bench.h"

enum { P_KEY_RANGE, P_LOOKUP_PCT, P_EXTERNAL_WORK };
static const bench_param params[] = {
    {"key_range", "keys are drawn uniformly from [0, key_range)", 1024, 2, 1 << 24, 1},
    {"lookup_pct", "percent of operations that are lookups (the rest: half inserts, half removes)", 80, 0, 100, 0},
    {"external_work", "PRNG steps between operations, outside the lock", 0, 0, 1e8, 1},
    {0},
};

typedef struct kvmap_ctx {
    avl_tree tree; /* protected by the lock under test */
    uint64_t key_range, external_work;
    uint64_t lookup_below, insert_below; /* thresholds on a 64-bit draw */
} kvmap_ctx;

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    kvmap_ctx *c = t->sh->ctx;
    const uint64_t key_range = c->key_range, external_work = c->external_work;
    const uint64_t lookup_below = c->lookup_below, insert_below = c->insert_below;
    uint64_t rng = t->rng, sum = 0;
    while (!bench_stopping(t)) {
        rng = bench_xorshift(rng);
        uint64_t op = rng;
        rng = bench_xorshift(rng);
        uint32_t key = (uint32_t)(((unsigned __int128)rng * key_range) >> 64);
        if (!bench_enter(t, lock))
            break;
        uint32_t value = 0;
        if (op < lookup_below)
            sum += (uint64_t)avl_find(&c->tree, key, &value) + value;
        else if (op < insert_below)
            sum += (uint64_t)avl_insert(&c->tree, key, key);
        else
            sum += (uint64_t)avl_remove(&c->tree, key);
        ll_lock_release(lock);
        t->ops++;
        for (uint64_t i = 0; i < external_work; i++)
            rng = bench_xorshift(rng);
    }
    t->rng = rng ^ sum; /* keeps the loops alive */
}

static uint64_t fraction_threshold(double f)
{
    return f >= 1.0 ? UINT64_MAX : (uint64_t)(f * 18446744073709551616.0);
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    kvmap_ctx c = {.key_range = (uint64_t)cfg->param[P_KEY_RANGE],
                   .external_work = (uint64_t)cfg->param[P_EXTERNAL_WORK]};
    double lookup = cfg->param[P_LOOKUP_PCT] / 100.0;
    c.lookup_below = fraction_threshold(lookup);
    c.insert_below = fraction_threshold(lookup + (1.0 - lookup) / 2);
    if (avl_init(&c.tree, c.key_range) != 0)
        return -1;
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    while (c.tree.size < c.key_range / 2) {
        rng = bench_xorshift(rng);
        avl_insert(&c.tree, (uint32_t)(((unsigned __int128)rng * c.key_range) >> 64), 0);
    }
    int rc = bench_run_threads(lock, cfg, out, &c, body);
    if (rc == 0) {
        out->exclusion_ok &= avl_check(&c.tree) >= 0;
        bench_add_extra(out, "tree_size", (double)c.tree.size);
    }
    avl_destroy(&c.tree);
    return rc;
}

const workload wl_kvmap = {"kvmap", "CNA 7.1.1: AVL tree map, keys [0,1024), 80% lookups, 10% inserts, 10% removes",
                           params, run};
