/*
 * ringwalker — malthusian-locks.txt §6.2 (RingWalker, Figure 5): core-level
 * DTLB pressure.  Every thread owns a ring of ring_elems (50) elements, each
 * on its own page; the NCS advances ncs_steps (50) elements along it, resuming
 * where the previous NCS stopped.  The CS advances cs_steps (10) elements
 * along one shared ring of shared_elems (50) elements, resuming where the
 * previous holder stopped.  A ring of N elements spans N cache lines and N
 * DTLB entries; each element sits at a random cache-line offset in its page
 * ("randomly colored") and the ring visits the pages in a random order, so
 * neither cache sets nor the next-page prefetcher hide the misses.
 *
 * Parameters: ring_elems (50), shared_elems (50), ncs_steps (50), cs_steps (10).
 * Extras: page_bytes.
 * Differs from the paper: the page is the base page of this machine (4 KiB on
 * x86-64; SPARC's was 8 KB), and the rings are kept off transparent huge pages
 * with madvise(MADV_NOHUGEPAGE).  The DTLB here (tens of L1 entries backed by
 * a large shared L2 TLB) differs from the SPARC core's 128 entries, so the
 * inflection sits elsewhere; lower or raise ring_elems to move it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

enum { P_RING_ELEMS, P_SHARED_ELEMS, P_NCS_STEPS, P_CS_STEPS };
static const bench_param params[] = {
    {"ring_elems", "elements (pages) in each thread's private ring", 50, 1, 1 << 20, 1},
    {"shared_elems", "elements (pages) in the shared ring", 50, 1, 1 << 20, 1},
    {"ncs_steps", "private-ring elements visited per NCS", 50, 0, 1e8, 1},
    {"cs_steps", "shared-ring elements visited per CS", 10, 0, 1e8, 1},
    {0},
};

typedef struct ring_elem {
    struct ring_elem *next;
} ring_elem;

typedef struct ringwalker_ctx {
    ring_elem *cs_position; /* protected by the lock under test */
    ring_elem **ring;       /* per thread: its NCS starting element */
    void **maps;            /* threads + 1 mappings (the last is the shared ring) */
    size_t page, ncs_steps, cs_steps;
} ringwalker_ctx;

/* Builds a ring of n elements over a fresh n-page mapping: random page order,
 * random line offset within each page.  Returns an element of it, NULL on failure. */
static ring_elem *make_ring(size_t n, size_t page, uint64_t *rng, void **map)
{
    char *base = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t *order = malloc(n * sizeof(size_t));
    ring_elem **elems = malloc(n * sizeof(ring_elem *));
    if (base == MAP_FAILED || !order || !elems) {
        free(order);
        free(elems);
        return NULL;
    }
    madvise(base, n * page, MADV_NOHUGEPAGE); /* one DTLB entry per element */
    *map = base;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        *rng = bench_xorshift(*rng);
        size_t j = (size_t)(((unsigned __int128)*rng * i) >> 64), tmp = order[i - 1];
        order[i - 1] = order[j];
        order[j] = tmp;
    }
    size_t lines = page / LL_CACHELINE;
    for (size_t i = 0; i < n; i++) {
        *rng = bench_xorshift(*rng);
        elems[i] = (ring_elem *)(base + order[i] * page + (*rng % lines) * LL_CACHELINE);
    }
    for (size_t i = 0; i < n; i++)
        elems[i]->next = elems[(i + 1) % n];
    ring_elem *start = elems[0];
    free(order);
    free(elems);
    return start;
}

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    ringwalker_ctx *c = t->sh->ctx;
    const size_t ncs_steps = c->ncs_steps, cs_steps = c->cs_steps;
    ring_elem *mine = c->ring[t->index];
    while (!bench_stopping(t)) {
        if (!bench_enter(t, lock))
            break;
        ring_elem *p = c->cs_position;
        for (size_t i = 0; i < cs_steps; i++)
            p = p->next;
        c->cs_position = p;
        ll_lock_release(lock);
        t->ops++;
        for (size_t i = 0; i < ncs_steps; i++)
            mine = mine->next;
        ll_compiler_barrier();
    }
    t->local = mine; /* keeps the NCS walk alive */
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    int n = cfg->threads;
    ringwalker_ctx c = {.page = (size_t)sysconf(_SC_PAGESIZE),
                        .ncs_steps = (size_t)cfg->param[P_NCS_STEPS],
                        .cs_steps = (size_t)cfg->param[P_CS_STEPS]};
    size_t ring_elems = (size_t)cfg->param[P_RING_ELEMS], shared_elems = (size_t)cfg->param[P_SHARED_ELEMS];
    bench_require_memory(cfg, ((double)ring_elems * n + (double)shared_elems) * (double)c.page, "its rings");
    c.ring = calloc((size_t)n, sizeof(ring_elem *));
    c.maps = calloc((size_t)n + 1, sizeof(void *));
    if (!c.ring || !c.maps)
        return -1;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (int t = 0; t < n; t++)
        if (!(c.ring[t] = make_ring(ring_elems, c.page, &rng, &c.maps[t])))
            return -1;
    if (!(c.cs_position = make_ring(shared_elems, c.page, &rng, &c.maps[n])))
        return -1;
    int rc = bench_run_threads(lock, cfg, out, &c, body);
    for (int t = 0; t < n; t++)
        munmap(c.maps[t], ring_elems * c.page);
    munmap(c.maps[n], shared_elems * c.page);
    free(c.ring);
    free(c.maps);
    if (rc != 0)
        return rc;
    bench_add_extra(out, "page_bytes", (double)c.page);
    return 0;
}

const workload wl_ringwalker = {"ringwalker",
                                "Malthusian 6.2: page-per-element rings, NCS 50 private steps, CS 10 shared steps",
                                params, run};
