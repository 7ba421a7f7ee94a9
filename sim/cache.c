/*
 * The simulator's caches and coherence (docs/simulator.md, "Caches and coherence",
 * "Memory-level parallelism", "Store buffer"): what a memory access costs the
 * running thread, and the workloads' plain data accesses (sim.h).
 *
 * Models: per-64-byte-line state (owner core, sharer cores, version, busy-until):
 *   load   hit in the core's own cache, else a transfer: from the owning core (within
 *          a socket `local`, across `remote`), else from a sharer (`local`; `llc_ns` with
 *          `inclusive`: the LLC answers) or the socket's LLC, else memory; the line is
 *          shared afterwards.  The workloads' independent data loads overlap, up to
 *          `mlp` in flight per thread; every other access retires after them.
 *   store/RMW  exclusive ownership: a transfer from the owner or the sharers
 *          (invalidating them), `rmw` extra for an atomic read-modify-write
 *   Requests to one line are serialised: a transfer starts when the previous one
 *   ends (busy_until), which is what makes N spinners re-reading a handed-over
 *   line cost N transfers (the ticket lock's collapse) -- unless the machine's
 *   directory broadcasts read fills: a read landing while a read fill to its socket
 *   is in flight gets the line when that fill ends, plus `fill`.
 *   A request is in flight for half a transfer before it reaches the holder, which
 *   keeps using the line until then (a releasing holder re-takes it first); the
 *   access takes effect when the request lands.  A plain store retires into the
 *   store buffer (the thread goes on; the line is fetched meanwhile) and stores
 *   commit in program order (x86-TSO); a locked instruction, a full fence or a
 *   system call waits for the buffer to drain.
 *   Capacity: a private cache per core and an LLC per socket, 8- and 16-way sets
 *   with round-robin replacement (approximately LRU), a line's sets a hash of the
 *   order in which lines were first touched (not of its address, which ASLR moves);
 *   a line evicted from a core leaves its sharers (an owner writes back).
 *   A write wakes the spinners asleep on the line (spin.c).
 *
 * Leaves out: weak-memory reorderings (values are sequentially consistent: the
 *   store buffer moves a store's cost, not its visibility); memory-level
 *   parallelism for anything but the workloads' independent loads; an inclusive
 *   LLC's back-invalidations (`inclusive` only lets the LLC answer a read of a line
 *   other cores hold clean); NUMA distance to memory (one `mem` latency);
 *   prefetchers, TLBs, bandwidth limits other than one transfer at a time per line.
 *
 * Host speed (docs/simulator.md, "Speed"): lines are found through a dense page map,
 * a line's state is 32 bytes up to 64 cores, the workloads hint their next
 * addresses (sim_host_prefetch), and evictions wait in a short queue while the host
 * fetches the evicted line's state; none of these changes a result.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* ---- lines -------------------------------------------------------------------------------- */
/* Line number -> index + 1, in pages of PAGE_LINES lines (256 KiB of addresses, 16 KiB of slots):
 * a page's slots are dense, so a workload's arrays cost 4 bytes of map per line
 * and neighbouring lines share the host's cache; the pages themselves are few and
 * found by a small open-addressed table (one entry remembered). */
enum { PAGE_BITS = 12, PAGE_LINES = 1 << PAGE_BITS };
static uint32_t hash_page(uintptr_t page) { return (uint32_t)((page * 0x9E3779B97F4A7C15ull) >> 40); }

void page_table_grow(void)
{
    uint32_t cap = E.page_mask ? (E.page_mask + 1) * 2 : 64;
    linepage *old = E.pages;
    uint32_t oldcap = E.page_mask ? E.page_mask + 1 : 0;
    E.pages = xcalloc(cap, sizeof(linepage));
    E.page_mask = cap - 1;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].slots) {
            uint32_t h = hash_page(old[i].page) & E.page_mask;
            while (E.pages[h].slots)
                h = (h + 1) & E.page_mask;
            E.pages[h] = old[i];
        }
    free(old);
}

/* page's entry in the table (slots NULL: not seen yet, and this is where it goes). */
static inline linepage *page_entry(uintptr_t page)
{
    uint32_t h = hash_page(page) & E.page_mask;
    while (E.pages[h].slots && E.pages[h].page != page)
        h = (h + 1) & E.page_mask;
    return &E.pages[h];
}

static uint32_t *page_slots(uintptr_t page)
{
    if (E.last_slots && E.last_page == page)
        return E.last_slots;
    linepage *e = page_entry(page);
    if (!e->slots) {
        *e = (linepage){page, xcalloc(PAGE_LINES, sizeof(uint32_t))};
        if (++E.npages * 2 > E.page_mask) {
            page_table_grow();
            e = page_entry(page);
        }
    }
    E.last_page = page;
    return E.last_slots = e->slots;
}

/* Where line_of will find p's line index (NULL: a page not seen yet; no event, no
 * allocation). */
static inline uint32_t *slot_of(const void *p)
{
    uintptr_t a = (uintptr_t)p >> 6, page = a >> PAGE_BITS;
    uint32_t *slots = E.last_slots && E.last_page == page ? E.last_slots : page_entry(page)->slots;
    return slots ? &slots[a & (PAGE_LINES - 1)] : NULL;
}

sline *line_of(const void *p, uint32_t *index)
{
    uintptr_t a = (uintptr_t)p >> 6;
    uint32_t *slot = &page_slots(a >> PAGE_BITS)[a & (PAGE_LINES - 1)];
    if (*slot) {
        *index = *slot - 1;
        return line_at(*slot - 1);
    }
    if (E.nlines == E.caplines) {
        E.caplines = E.caplines ? E.caplines * 2 : 1024;
        unsigned char *grown = aligned_alloc(64, (size_t)E.caplines * E.line_stride);
        if (!grown) {
            fprintf(stderr, "locklab-sim: out of memory for %u cache lines\n", E.caplines);
            exit(1);
        }
        if (E.nlines)
            memcpy(grown, E.line_mem, (size_t)E.nlines * E.line_stride);
        free(E.line_mem);
        E.line_mem = grown;
    }
    sline *l = line_at(E.nlines);
    memset(l, 0, E.line_stride);
    l->owner = -1;
    *slot = E.nlines + 1;
    *index = E.nlines++;
    return l;
}

static inline bool has_core(const sline *l, int k) { return (l->sharers[k >> 6] >> (k & 63)) & 1; }
static inline void add_core(sline *l, int k)
{
    l->sharers[k >> 6] |= 1ull << (k & 63);
}
static inline void drop_core(sline *l, int k)
{
    l->sharers[k >> 6] &= ~(1ull << (k & 63));
    if (l->owner == k)
        l->owner = -1; /* written back to the LLC */
}
static inline int core_socket(int k) { return k % E.m->sockets; }

/* ---- caches and transfers ------------------------------------------------------------------ */
/* A line's cache sets are a hash of its index (the order in which lines were first
 * touched), not of its address: addresses change from run to run (ASLR: the heap, the
 * workloads' mappings), and a run must be a function of its seed.  Both are as good a
 * spread as the physical addresses a real cache indexes by. */
static inline uint32_t set_of(uint32_t li, uint64_t salt, uint32_t sets)
{
    return (uint32_t)((((uint64_t)li + 1) * salt) >> 40) % sets;
}

static inline size_t priv_set(int k, uint32_t li)
{
    return (size_t)k * E.priv_sets + set_of(li, 0x9E3779B97F4A7C15ull, E.priv_sets);
}

static inline size_t llc_set(int s, uint32_t li)
{
    return (size_t)s * E.llc_sets + set_of(li, 0xC2B2AE3D27D4EB4Full, E.llc_sets);
}

/* An eviction from a core's cache clears the core's copy in the evicted line's state,
 * a random line's on large working sets, so a host cache miss.  The eviction waits
 * in a short queue while the host fetches that state, and is applied when the queue
 * needs its place, or before any access to the evicted line (settle_evictions): no
 * access sees the line otherwise than at once, so the run is the same. */
static void apply_eviction(uint32_t slot)
{
    drop_core(line_at(E.evicted_line[slot] - 1), E.evicted_core[slot]);
    E.evicted_line[slot] = 0;
    E.evict_pending--;
}

static inline void settle_evictions(uint32_t li)
{
    for (uint32_t i = 0; E.evict_pending && i < EVICT_DELAY; i++)
        if (E.evicted_line[i] == li + 1)
            apply_eviction(i);
}

/* Line li enters core k's private cache (evicting another line of its set). */
static void priv_insert(int k, uint32_t li)
{
    size_t set = priv_set(k, li);
    uint32_t *ways = &E.priv[set * PWAYS];
    for (int w = 0; w < PWAYS; w++)
        if (ways[w] == li + 1)
            return;
    uint8_t *rr = &E.priv_rr[set];
    uint32_t victim = ways[*rr];
    if (victim) {
        uint32_t slot = E.evict_next;
        E.evict_next = (slot + 1) % EVICT_DELAY;
        if (E.evicted_line[slot])
            apply_eviction(slot);
        E.evicted_line[slot] = victim;
        E.evicted_core[slot] = (int16_t)k;
        E.evict_pending++;
        __builtin_prefetch(line_at(victim - 1), 1);
    }
    ways[*rr] = li + 1;
    *rr = (uint8_t)((*rr + 1) % PWAYS);
}

/* Is line li in socket s's LLC?  Inserts it if not. */
static bool llc_lookup(int s, uint32_t li)
{
    E.st.llc_accesses++;
    size_t set = llc_set(s, li);
    uint32_t *ways = &E.llc[set * LWAYS];
    for (int w = 0; w < LWAYS; w++)
        if (ways[w] == li + 1)
            return true;
    E.st.llc_misses++;
    uint8_t *rr = &E.llc_rr[set];
    ways[*rr] = li + 1;
    *rr = (uint8_t)((*rr + 1) % LWAYS);
    return false;
}

/* What it costs core k to get line l from elsewhere (it has no copy, or needs the
 * others' copies invalidated when exclusive). */
static uint64_t fetch_cost(sline *l, uint32_t li, int k, bool exclusive)
{
    int s = core_socket(k);
    if (l->owner >= 0 && l->owner != k)
        return core_socket(l->owner) == s ? E.c_local : E.c_remote;
    bool local = false, remote = false;
    for (uint32_t w = 0; w < E.sharer_words && (local + remote) < 2; w++)
        for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
            int o = (int)w * 64 + __builtin_ctzll(b);
            if (o == k)
                continue;
            if (core_socket(o) == s)
                local = true;
            else
                remote = true;
        }
    if (exclusive && has_core(l, k)) /* an upgrade: invalidations only */
        return remote ? E.c_remote : local ? E.c_local : E.c_hit;
    if (local && !exclusive && E.m->inclusive) { /* a clean copy: the inclusive LLC answers */
        E.st.llc_accesses++;
        return E.c_llc;
    }
    if (local)
        return E.c_local;
    if (llc_lookup(s, li))
        return E.c_llc;
    return remote ? E.c_remote : E.c_mem;
}

/* Core k's fetch of line l (exclusive: for a write), asked at now with flight of it
 * already spent on the request: it starts once the line is free and costs what
 * fetch_cost says; the line is busy until it is done.  Returns when it is done. */
static uint64_t fetch(sline *l, uint32_t li, int k, bool exclusive, uint64_t now, uint64_t flight)
{
    uint64_t start = now > l->busy_until ? now : l->busy_until;
    uint64_t cost = fetch_cost(l, li, k, exclusive);
    l->busy_until = start + (cost > flight ? cost - flight : 0);
    return l->busy_until;
}

/* How long core k's request for line l travels before it reaches the core(s) that
 * must give the line up (half a transfer: the other half brings the data back), or
 * 0 when nobody has to: a load of a line no core holds modified, a write of a line
 * no other core has.  Until the request lands, those cores keep using their copy. */
static uint64_t request_flight(const sline *l, int k, enum access kind)
{
    int s = core_socket(k);
    if (l->owner >= 0)
        return l->owner == k ? 0 : (core_socket(l->owner) == s ? E.c_local : E.c_remote) / 2;
    if (kind == LOAD)
        return 0;
    uint64_t far = 0;
    for (uint32_t w = 0; w < E.sharer_words && far < E.c_remote; w++)
        for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
            int o = (int)w * 64 + __builtin_ctzll(b);
            uint64_t c = o == k ? 0 : core_socket(o) == s ? E.c_local : E.c_remote;
            far = c > far ? c : far;
        }
    return far / 2;
}

/* Core of the running thread accesses p at its time: add the cost.
 * A transfer is not an instantaneous loss of ownership: the request is in flight
 * for half the transfer, during which the holder keeps the line (its own loads and
 * stores are hits, and come first); the access takes effect when the request lands
 * (its value is read then) and the data needs the other half to come back.
 * Read fills are broadcast: a load whose request lands while a read fill of the
 * line to its socket is in flight gets its shared copy when that fill ends, plus
 * the directory's `fill` occupancy per extra reader (the full transfer on a machine whose directory
 * answers reads one by one, the slides' Opteron). */
static uint64_t access(const void *p, enum access kind) /* returns when it took effect */
{
    sthread *me = E.cur;
    int k = E.cpus[me->cpu].core;
    uint32_t li;
    sline *l = line_of(p, &li);
    E.st.mem_ops++;
    settle_evictions(li);
    uint64_t flight = 0;
    if (kind == RMW && me->sb_until > me->time) /* a locked instruction drains the store buffer first */
        me->time = me->sb_until;
    if (!E.cfg->explore && (kind == LOAD ? !has_core(l, k) : kind == RMW && l->owner != k)) {
        flight = request_flight(l, k, kind);
        if (flight) {
            me->time += flight;
            give_way(me);
            settle_evictions(li); /* others' accesses may have evicted it ... */
            l = line_at(li);      /* ... and moved the line array */
        }
    }
    uint64_t now = me->time, done;
    if (kind == LOAD) {
        if (has_core(l, k)) {
            done = now + E.c_hit;
        } else if (l->read_fill && now < l->busy_until && l->fill_socket == core_socket(k)) {
            /* joins the read fill in flight to its socket */
            done = l->busy_until + E.c_fill;
            l->busy_until = done;
            add_core(l, k);
            priv_insert(k, li);
            l = line_at(li);
        } else {
            done = fetch(l, li, k, false, now, flight);
            l->read_fill = true;
            l->fill_socket = (int16_t)core_socket(k);
            if (l->owner >= 0) { /* the owner keeps a shared copy */
                add_core(l, l->owner);
                l->owner = -1;
            }
            add_core(l, k);
            priv_insert(k, li);
            l = line_at(li);
        }
        if (me->nreads < MAX_READS) {
            me->read_line[me->nreads] = li;
            me->read_ver[me->nreads++] = l->version;
        } else {
            me->overflow = true;
        }
    } else {
        if (l->owner == k) {
            done = now + E.c_hit;
        } else {
            done = fetch(l, li, k, true, now, flight);
            l->read_fill = false;
            memset(l->sharers, 0, E.sharer_words * sizeof(uint64_t));
            add_core(l, k);
            l->owner = (int16_t)k;
            priv_insert(k, li);
            l = line_at(li);
        }
        if (kind == RMW)
            done += E.c_rmw;
        if (kind == STORE && done < me->sb_until && !E.cfg->explore) {
            /* x86-TSO: stores commit in program order, so this one is seen (its spinners
             * woken, its line handed on) only once the earlier ones in the buffer have
             * committed: a release store waits for the critical section's stores */
            done = me->sb_until;
            if (l->busy_until < done)
                l->busy_until = done;
        }
        l->version++;
        me->wrote = true;
        wake_watchers(l, done);
        if (kind == STORE && !E.cfg->explore) { /* retired into the store buffer: the thread goes on */
            me->sb_until = done; /* in order: done >= the earlier stores' commits (above) */
            done = now + E.c_hit;
        }
    }
    me->time = done;
    return now;
}

/* The running thread's access of p: it retires after the data loads before it
 * (retire_loads), then access. */
void access_line(const void *p, enum access kind)
{
    retire_loads(E.cur);
    access(p, kind);
}

/* The engine's stop store (sched.c, at the run's end): the harness's store of the
 * stop flag, every copy invalidated at once and its spinners woken, no event and no
 * cost to the running thread. */
void store_everywhere(uint32_t *p, uint32_t v)
{
    uint32_t li;
    sline *l = line_of(p, &li);
    settle_evictions(li);
    memset(l->sharers, 0, E.sharer_words * sizeof(uint64_t));
    l->owner = -1;
    l->version++;
    wake_watchers(l, E.cur->time);
    *p = v;
}

/* ---- the workloads' data accesses (sim.h) ------------------------------------------------- */
/* The host's memory latency bounds the simulator on large working sets, and a load's
 * state is found in two dependent steps (the page map's slot, then the line's state):
 * a workload hints each address 2 x HINT_LAG loads ahead (workloads.c, RA_AHEAD).
 * The host loads the hint's slot at once, and HINT_LAG hints later, its slot there
 * by then, the line's state and the sets of the core's cache and of the LLC that
 * its fill would look up. */
void sim_host_prefetch(const void *p)
{
    sthread *me = E.cur;
    if (!me)
        return;
    const void **oldest = &me->hints[me->hint_next];
    me->hint_next = (me->hint_next + 1) % HINT_LAG;
    uint32_t *li = *oldest ? slot_of(*oldest) : NULL;
    if (li && *li) {
        int k = E.cpus[me->cpu].core;
        size_t set = priv_set(k, *li - 1);
        __builtin_prefetch(line_at(*li - 1), 1);
        __builtin_prefetch(&E.priv[set * PWAYS], 1);
        __builtin_prefetch(&E.priv_rr[set], 1);
        __builtin_prefetch(&E.llc[llc_set(core_socket(k), *li - 1) * LWAYS], 1);
    }
    if ((li = slot_of(p)))
        __builtin_prefetch(li);
    *oldest = p;
}

/* A workload's data load.  An independent one (no later access needs its value: the
 * workloads' array loads) may overlap others: an out-of-order core keeps up to mlp
 * of them in flight.  It issues when the window has a free slot (the load mlp back
 * has completed) and costs the thread a hit; the line's own state (transfer,
 * serialisation, LLC) is as for any load.  Every other access retires after the
 * independent loads before it (retire_loads), a dependent load included. */
void sim_data_load(const void *p, bool independent)
{
    sthread *me = E.cur;
    if (!independent || E.mlp <= 1 || E.cfg->explore) {
        sync_point();
        access_line(p, LOAD);
        return;
    }
    uint64_t *slot = &me->miss_done[me->miss_next];
    if (*slot > me->time) /* the window is full: wait for its oldest load */
        me->time = *slot;
    sync_point();
    uint64_t effect = access(p, LOAD);
    *slot = me->time;
    me->miss_next = (me->miss_next + 1) % (uint32_t)E.mlp;
    if (me->time > me->loads_until)
        me->loads_until = me->time;
    /* the thread goes on a hit after the load took effect: not earlier, since others may
     * have run up to then (a request in flight gives way) */
    if (me->time > effect + E.c_hit)
        me->time = effect + E.c_hit;
}
void sim_data_store(void *p)
{
    sync_point();
    access_line(p, STORE);
}
