/*
 * randarray — malthusian-locks.txt §6.1 (RandArray, Figures 3 and 4).
 * T threads loop { acquire; CS: cs_loads (100) loads at uniform random indexes
 * of a shared array of 32-bit ints; release; NCS: ncs_loads (400) loads at
 * random indexes of the thread's private array }.  Random indexes defeat the
 * hardware prefetchers; every loaded value is summed so no load can be elided.
 *
 * Array sizes.  The paper uses 1 MB arrays against an 8 MB LLC, so the summed
 * footprint of the shared array and the circulating threads' private arrays
 * outgrows the cache at about 7 circulating threads.  On this class of machine
 * (2 vCPUs, a per-core L2, an L3 shared with the whole host) the cache the
 * circulating threads compete for is the per-core L2: threads time-sliced on a
 * core evict each other's arrays there.  So private_ints=0 / shared_ints=0
 * (the defaults) size each array at a quarter of the L2 read from sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index*: level 2, type Data or Unified);
 * a core then holds the shared array and up to 3 private arrays, and cache
 * pressure grows once more than about 3 threads per core circulate.  Without
 * sysfs the L2 is taken as 1 MiB (extra l2_from_sysfs = 0).
 *
 * Parameters: private_ints, shared_ints (0 = auto), ncs_loads (400),
 * cs_loads (100), cs_stores (0; 1 makes every CS access a load+store, which
 * adds coherence traffic the paper deliberately avoided).
 * Extras: l2_kib, l2_from_sysfs (1: read from sysfs; 0: the 1 MiB fallback),
 * private_kib, shared_kib (array sizes in use).
 * Differs from the paper: 4 KiB pages unless the kernel backs the arrays with
 * transparent huge pages (requested with madvise; the paper used large pages);
 * xorshift64 instead of the paper's generator; sizes tied to L2, not the LLC.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench.h"

enum { P_PRIVATE_INTS, P_SHARED_INTS, P_NCS_LOADS, P_CS_LOADS, P_CS_STORES };
static const bench_param params[] = {
    {"private_ints", "32-bit ints per private array (0: L2/4 from sysfs)", 0, 0, 1 << 28, 1},
    {"shared_ints", "32-bit ints in the shared array (0: L2/4 from sysfs)", 0, 0, 1 << 28, 1},
    {"ncs_loads", "random loads from the private array per NCS", 400, 0, 1e8, 1},
    {"cs_loads", "random loads from the shared array per CS", 100, 0, 1e8, 1},
    {"cs_stores", "1: each CS access is a load+store (increment)", 0, 0, 1, 1},
    {0},
};

#define L2_FALLBACK_BYTES (1u << 20)

typedef struct randarray_ctx {
    uint32_t *shared;
    uint32_t **priv; /* one array per thread */
    uint64_t shared_ints, private_ints, ncs_loads, cs_loads;
    int cs_stores;
} randarray_ctx;

/* "2048K" -> 2097152; 0 if malformed. */
static uint64_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t scale = *end == 'K' ? 1024 : *end == 'M' ? 1 << 20 : *end == 'G' ? 1 << 30 : 1;
    return end == s ? 0 : v * scale;
}

static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok ? 0 : -1;
}

/* Size in bytes of cpu0's level-2 data or unified cache; 0 if sysfs does not say. */
static uint64_t l2_bytes_from_sysfs(void)
{
    for (int i = 0; i < 16; i++) {
        char path[128], level[16], type[32], size[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_line(path, level, sizeof level) != 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_line(path, type, sizeof type) != 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_line(path, size, sizeof size) != 0)
            continue;
        if (strcmp(level, "2") == 0 && (strcmp(type, "Unified") == 0 || strcmp(type, "Data") == 0))
            return parse_size(size);
    }
    return 0;
}

static inline uint64_t index_below(uint64_t rng, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)rng * n) >> 64);
}

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    const randarray_ctx *c = t->sh->ctx;
    uint32_t *shared = c->shared;
    const uint32_t *priv = c->priv[t->index];
    const uint64_t shared_ints = c->shared_ints, private_ints = c->private_ints;
    const uint64_t cs_loads = c->cs_loads, ncs_loads = c->ncs_loads;
    const int cs_stores = c->cs_stores;
    uint64_t rng = t->rng, sum = 0;
    while (!bench_stopping(t)) {
        if (!bench_enter(t, lock))
            break;
        for (uint64_t i = 0; i < cs_loads; i++) {
            rng = bench_xorshift(rng);
            uint32_t *slot = &shared[index_below(rng, shared_ints)];
            sum += *slot;
            if (cs_stores)
                *slot += 1;
        }
        ll_lock_release(lock);
        t->ops++;
        for (uint64_t i = 0; i < ncs_loads; i++) {
            rng = bench_xorshift(rng);
            sum += priv[index_below(rng, private_ints)];
        }
    }
    t->rng = rng ^ sum; /* keeps the loads alive */
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    uint64_t sysfs_l2 = l2_bytes_from_sysfs();
    uint64_t l2 = sysfs_l2 ? sysfs_l2 : L2_FALLBACK_BYTES;
    uint64_t auto_ints = l2 / 4 / sizeof(uint32_t);
    randarray_ctx c = {
        .private_ints = cfg->param[P_PRIVATE_INTS] > 0 ? (uint64_t)cfg->param[P_PRIVATE_INTS] : auto_ints,
        .shared_ints = cfg->param[P_SHARED_INTS] > 0 ? (uint64_t)cfg->param[P_SHARED_INTS] : auto_ints,
        .ncs_loads = (uint64_t)cfg->param[P_NCS_LOADS],
        .cs_loads = (uint64_t)cfg->param[P_CS_LOADS],
        .cs_stores = cfg->param[P_CS_STORES] != 0,
    };
    /* One mapping for all arrays, each rounded up to whole pages. */
    size_t page = 4096;
    size_t shared_span = (c.shared_ints * sizeof(uint32_t) + page - 1) / page * page;
    size_t private_span = (c.private_ints * sizeof(uint32_t) + page - 1) / page * page;
    size_t total = shared_span + private_span * (size_t)cfg->threads;
    bench_require_memory(cfg, (double)shared_span + (double)private_span * cfg->threads, "its arrays");
    char *region = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    c.priv = calloc((size_t)cfg->threads, sizeof(uint32_t *));
    if (region == MAP_FAILED || !c.priv)
        return -1;
    madvise(region, total, MADV_HUGEPAGE); /* best effort: the paper put the arrays on large pages */
    c.shared = (uint32_t *)region;
    uint64_t fill = 0x2545F4914F6CDD1Dull;
    for (uint64_t i = 0; i < c.shared_ints; i++)
        c.shared[i] = (uint32_t)(fill = bench_xorshift(fill));
    for (int t = 0; t < cfg->threads; t++) {
        c.priv[t] = (uint32_t *)(region + shared_span + private_span * (size_t)t);
        for (uint64_t i = 0; i < c.private_ints; i++) /* touches every page before the interval */
            c.priv[t][i] = (uint32_t)(fill = bench_xorshift(fill));
    }
    int rc = bench_run_threads(lock, cfg, out, &c, body);
    munmap(region, total);
    free(c.priv);
    if (rc != 0)
        return rc;
    bench_add_extra(out, "l2_kib", (double)l2 / 1024);
    bench_add_extra(out, "l2_from_sysfs", sysfs_l2 != 0);
    bench_add_extra(out, "private_kib", (double)(c.private_ints * sizeof(uint32_t)) / 1024);
    bench_add_extra(out, "shared_kib", (double)(c.shared_ints * sizeof(uint32_t)) / 1024);
    return 0;
}

const workload wl_randarray = {"randarray",
                               "Malthusian 6.1: CS 100 random loads of a shared array, NCS 400 of a private one",
                               params, run};
