/*
 * The interposer's contention profiler, recording half: the hooks of
 * profile.h that the interposer calls on every operation of a profiled
 * object (the hot path).  Records and who writes what: profile_data.h; the
 * configuration and the reports: profile_report.h.
 *
 * Parks and wakes are the futex waits and wakes of the thread (ll_futex_counts),
 * attributed to the lock being acquired (waits since the thread's previous
 * profiler event) and to the lock it released last (wakes).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>

#include "profile_data.h"

bool lp_profiling;
ll_atomic_ptr lp_all_profiles;
ll_atomic_u32 lp_snapshot_requested;
ll_atomic_u32 lp_idle_child;
static ll_atomic_u32 next_thread_id;
static ll_arena_pool wait_hist_pool = LL_ARENA_POOL(sizeof(lp_wait_hist), LL_CACHELINE, 0);

static __thread uint32_t my_id __attribute__((tls_model("initial-exec")));
static __thread uint64_t seen_waits __attribute__((tls_model("initial-exec")));
static __thread uint64_t seen_wakes __attribute__((tls_model("initial-exec")));
static __thread lp_profile *last_released __attribute__((tls_model("initial-exec")));

/* Records and details come from the core's arena (no malloc: we may run inside it), zeroed;
 * retired ones are reused (free lists: lp_profile_retire). */
static ll_arena_pool free_records = LL_ARENA_POOL(sizeof(lp_profile), LL_CACHELINE, offsetof(lp_profile, free_link));
static ll_arena_pool free_details = LL_ARENA_POOL(sizeof(lp_detail), LL_CACHELINE, offsetof(lp_detail, free_link));

static unsigned hist_bucket(uint64_t v)
{
    if (v < 8)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* v in [2^e, 2^(e+1)), e >= 3 */
    return e * 4 + (unsigned)((v >> (e - 2)) & 3);
}

/* Any use of a profiled object: a fork()ed child that makes one writes a report. */
static inline void note_use(void)
{
    if (LL_UNLIKELY(ll_load_relaxed(&lp_idle_child))) /* relaxed: a flag this process reads at exit */
        ll_store_relaxed(&lp_idle_child, 0);
}

static uint32_t thread_id(void)
{
    if (LL_UNLIKELY(my_id == 0))
        my_id = ll_faa(&next_thread_id, 1, LL_RELAXED) + 1; /* relaxed: only uniqueness matters */
    return my_id;
}

/* Futex waits since this thread's previous event go to p (may be NULL); wakes to the lock it released last. */
static uint64_t take_parks(void)
{
    uint64_t waits, wakes;
    ll_futex_counts(&waits, &wakes);
    uint64_t parks = waits - seen_waits;
    if (wakes != seen_wakes && last_released)
        ll_faa(&last_released->wakes, wakes - seen_wakes, LL_RELAXED); /* relaxed: a statistic */
    seen_waits = waits;
    seen_wakes = wakes;
    return parks;
}

/* Everything after the list links of a record, zeroed for its next object. */
static void clear_record(lp_profile *p)
{
    size_t from = offsetof(lp_profile, addr);
    memset((char *)p + from, 0, sizeof *p - from);
}

lp_profile *lp_profile_new(const void *addr, const char *kind, const char *type, bool passthrough, void *caller_pc)
{
    lp_profile *p = (lp_profile *)ll_arena_take(&free_records); /* a retired record: already listed */
    bool listed = p != NULL;
    if (listed)
        clear_record(p);
    else if (!(p = (lp_profile *)ll_arena_alloc(sizeof *p, LL_CACHELINE))) /* fresh (not a free one: it is listed) */
        return NULL;
    p->addr = addr;
    p->type = type;
    p->passthrough = passthrough;
    p->caller = caller_pc;
    p->kind = kind; /* last: a report walking the list meanwhile skips it until now */
    if (listed)
        return p;
    void *head = ll_load_relaxed(&lp_all_profiles); /* relaxed: the CAS below publishes */
    do
        p->next = (lp_profile *)head;
    while (!ll_cas(&lp_all_profiles, &head, p, LL_RELEASE)); /* release: p's fields before the report walks it */
    return p;
}

static lp_detail *detail_of(lp_profile *p)
{
    lp_detail *d = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: the holder wrote it (lock orders) */
    if (LL_UNLIKELY(!d)) {
        d = (lp_detail *)ll_arena_get(&free_details);
        if (d) {
            memset(d, 0, sizeof *d); /* a retired one holds its last object's counts */
            d->admit.window = LL_LWSS_WINDOW;
        }
        ll_store_release(&p->detail, d); /* release: initialised detail before a reporting thread reads it */
    }
    return d;
}

static bool no_init(void *block, void *ctx)
{
    (void)block;
    (void)ctx;
    return true;
}

/* Blocked waits of a condition variable or semaphore (any thread): its atomic histogram. */
static void record_any_wait(lp_profile *p, uint64_t wait_ns)
{
    lp_wait_hist *h = (lp_wait_hist *)ll_load_acquire(&p->any_wait_hist); /* acquire: pairs with ll_arena_install's release */
    if (LL_UNLIKELY(!h))
        h = (lp_wait_hist *)ll_arena_install(&wait_hist_pool, &p->any_wait_hist, no_init, NULL); /* one per object */
    if (h)
        ll_faa(&h->count[hist_bucket(wait_ns)], 1, LL_RELAXED); /* relaxed: a statistic */
}

/* ---- retiring records: per call site aggregates -------------------------------------- */
enum { AGGREGATE_SLOTS = 4096 }; /* call sites x kinds x types; beyond: counts of retired records are dropped */
/* Open addressing, under the arena's lock; each entry is published by one store of a complete
 * record, so a fork child whose arena another thread held at the fork keeps it (ll_arena_epoch). */
static lp_profile **aggregates;

/* The aggregate record for p's call site, kind and type (created on first use), or NULL. */
static lp_profile *aggregate_of(lp_profile *p)
{
    if (!aggregates && !(aggregates = (lp_profile **)ll_arena_alloc(AGGREGATE_SLOTS * sizeof *aggregates, LL_CACHELINE)))
        return NULL;
    uint64_t h = ((uint64_t)(uintptr_t)p->caller ^ (uint64_t)(uintptr_t)p->type) * 0x9E3779B97F4A7C15ull;
    for (uint32_t probe = 0; probe < AGGREGATE_SLOTS; probe++) {
        lp_profile **slot = &aggregates[((uint32_t)(h >> 40) + probe) & (AGGREGATE_SLOTS - 1)];
        lp_profile *a = *slot;
        if (a == NULL)
            return *slot = lp_profile_new(NULL, p->kind, p->type, p->passthrough, p->caller);
        if (a->caller == p->caller && a->kind == p->kind && a->type == p->type && a->passthrough == p->passthrough)
            return a;
    }
    return NULL;
}

static void add_hist(uint64_t *to, const uint64_t *from)
{
    for (unsigned b = 0; b < LP_HIST_BUCKETS; b++)
        to[b] += from[b];
}

LL_INLINE uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* a += p (a: an aggregate, under the arena's lock; p: retired, nobody records into it). */
static void merge(lp_profile *a, lp_profile *p)
{
    a->merged++;
    a->acquisitions += p->acquisitions;
    a->contended += p->contended;
    a->owner_changes += p->owner_changes;
    a->wait_total_ns += p->wait_total_ns;
    a->wait_max_ns = max_u64(a->wait_max_ns, p->wait_max_ns);
    a->hold_total_ns += p->hold_total_ns;
    a->hold_max_ns = max_u64(a->hold_max_ns, p->hold_max_ns);
    a->hold_samples += p->hold_samples;
    a->parks += p->parks;
    ll_atomic_u64 *const to[] = {&a->trylock_failed, &a->passthrough_ops, &a->waits, &a->blocked_waits,
                                 &a->wait_ns_atomic, &a->wakes, &a->parks_atomic};
    ll_atomic_u64 *const from[] = {&p->trylock_failed, &p->passthrough_ops, &p->waits, &p->blocked_waits,
                                         &p->wait_ns_atomic, &p->wakes, &p->parks_atomic};
    for (size_t i = 0; i < sizeof to / sizeof to[0]; i++)
        ll_faa(to[i], ll_load_relaxed(from[i]), LL_RELAXED); /* relaxed (both): statistics */
    uint64_t wmax = ll_load_relaxed(&p->wait_max_atomic);     /* relaxed: a statistic */
    if (wmax > ll_load_relaxed(&a->wait_max_atomic))          /* relaxed: written under the arena's lock */
        ll_store_relaxed(&a->wait_max_atomic, wmax);          /* relaxed: a statistic */
    const lp_detail *pd = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: its holders are gone */
    lp_detail *ad = pd ? detail_of(a) : NULL;
    if (ad) {
        add_hist(ad->wait_hist, pd->wait_hist);
        add_hist(ad->hold_hist, pd->hold_hist);
        add_hist(ad->mttr_hist, pd->mttr_hist);
        for (int t = 0; t < LP_TRACKED_THREADS; t++)
            ad->share[t].admissions += pd->share[t].admissions;
        ad->reacquisitions += pd->reacquisitions;
    }
}

void lp_profile_retire(lp_profile *p)
{
    ll_arena_lock(); /* aggregates and free lists; recursive: destroy may already hold it */
    lp_profile *a = aggregate_of(p);
    if (a)
        merge(a, p);
    p->kind = NULL; /* skipped by the report from now on */
    lp_detail *d = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: its holders are gone */
    ll_store_relaxed(&p->detail, NULL);                      /* relaxed: a report may still read the old one */
    if (d)
        ll_arena_put(&free_details, d);
    void *wh = ll_load_relaxed(&p->any_wait_hist); /* relaxed: condition variables' and semaphores' (never retired) */
    ll_store_relaxed(&p->any_wait_hist, NULL);     /* relaxed: as above */
    if (wh)
        ll_arena_put(&wait_hist_pool, wh);
    if (last_released == p)
        last_released = NULL;
    ll_arena_put(&free_records, p);
    ll_arena_unlock();
}

static void record_admission(lp_detail *d, uint32_t id)
{
    bool tracked = id < LP_TRACKED_THREADS;
    lp_thread_share *s = &d->share[tracked ? id : 0];
    s->admissions++;
    uint64_t ttr = ll_admit_record(&d->admit, tracked ? &s->admit : NULL);
    if (ttr != LL_NO_REACQUIRE) {
        d->mttr_hist[hist_bucket(ttr)]++;
        d->reacquisitions++;
    }
}

void lp_profile_acquired(lp_profile *p, bool contended, uint64_t wait_ns)
{
    note_use();
    uint32_t id = thread_id();
    p->acquisitions++;
    if (p->last_owner != id) {
        p->owner_changes += p->last_owner != 0;
        p->last_owner = id;
    }
    lp_detail *d = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: written by a previous holder */
    if (contended) {
        p->contended++;
        p->wait_total_ns += wait_ns;
        if (wait_ns > p->wait_max_ns)
            p->wait_max_ns = wait_ns;
        d = detail_of(p);
        if (d)
            d->wait_hist[hist_bucket(wait_ns)]++;
        p->parks += take_parks();
    }
    if (d)
        record_admission(d, id);
    /* hold time: one acquisition in 64 (two clock reads inside the critical section are not free) */
    p->hold_started = (p->acquisitions & 63) == 0 ? ll_now_ns() : 0;
    if (LL_UNLIKELY(ll_load_relaxed(&lp_snapshot_requested))) /* relaxed: a hint set by the signal handler */
        lp_profile_snapshot();
}

void lp_profile_releasing(lp_profile *p)
{
    if (p->hold_started) {
        uint64_t hold = ll_now_ns() - p->hold_started;
        p->hold_started = 0;
        p->hold_total_ns += hold;
        p->hold_samples++;
        if (hold > p->hold_max_ns)
            p->hold_max_ns = hold;
        lp_detail *d = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: we hold the lock */
        if (d)
            d->hold_hist[hist_bucket(hold)]++;
    }
    last_released = p;
}

void lp_profile_waited(lp_profile *p, bool blocked, uint64_t wait_ns)
{
    note_use();
    ll_faa(&p->waits, 1, LL_RELAXED); /* relaxed: statistics, read at the report */
    if (blocked) {
        ll_faa(&p->blocked_waits, 1, LL_RELAXED);
        ll_faa(&p->wait_ns_atomic, wait_ns, LL_RELAXED);
        record_any_wait(p, wait_ns);
        uint64_t max = ll_load_relaxed(&p->wait_max_atomic);
        while (wait_ns > max && !ll_cas(&p->wait_max_atomic, &max, wait_ns, LL_RELAXED)) /* relaxed: a statistic */
            ;
        ll_faa(&p->parks_atomic, take_parks(), LL_RELAXED);
    }
    if (LL_UNLIKELY(ll_load_relaxed(&lp_snapshot_requested))) /* relaxed: a hint set by the signal handler */
        lp_profile_snapshot();
}

void lp_profile_trylock_failed(lp_profile *p)
{
    note_use();
    ll_faa(&p->trylock_failed, 1, LL_RELAXED); /* relaxed: a statistic */
}

void lp_profile_passthrough_op(lp_profile *p)
{
    note_use();
    ll_faa(&p->passthrough_ops, 1, LL_RELAXED); /* relaxed: a statistic */
}
