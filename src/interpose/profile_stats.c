/*
 * The profiler's figures: one row per record (profile_report.h, lp_row), read without locks
 * from the counters profile.c keeps (profile_data.h: a snapshot taken while threads run is
 * approximate), and the order in which the report lists the rows.
 *
 * Percentiles come from the log-linear histograms (4 sub-buckets per power of two): each is
 * the upper bound of its bucket, at most 25% above the true value, and never above the
 * maximum seen.  A mutex's waits are in its detail (holder-side), a condition variable's
 * and a semaphore's in the atomic any_wait_hist; a row merges the two.  Fairness (threads,
 * their largest and smallest share, LWSS, MTTR) exists from the first contended acquisition
 * on, when the detail is allocated.
 */
#include <string.h>

#include "profile_report.h"

/* Upper bound of a histogram bucket's values (profile.c: hist_bucket). */
static uint64_t hist_upper(size_t b)
{
    if (b < 8)
        return b;
    unsigned e = (unsigned)b / 4, sub = (unsigned)b % 4;
    return ((uint64_t)(5 + sub) << (e - 2)) - 1;
}

static uint64_t hist_percentile(const uint64_t *h, double q)
{
    uint64_t total = 0;
    for (unsigned b = 0; b < LP_HIST_BUCKETS; b++)
        total += h[b];
    if (total == 0)
        return 0;
    uint64_t rank = (uint64_t)(q * (double)(total - 1)) + 1, seen = 0;
    for (unsigned b = 0; b < LP_HIST_BUCKETS; b++)
        if ((seen += h[b]) >= rank)
            return hist_upper(b);
    return 0;
}

/* The wait histogram of p: the holder-side one (mutexes) plus the atomic one (cond, sem). */
static void wait_hist(lp_profile *p, uint64_t *h)
{
    lp_detail *d = (lp_detail *)ll_load_acquire(&p->detail); /* acquire: pairs with the release in detail_of */
    lp_wait_hist *a = (lp_wait_hist *)ll_load_acquire(&p->any_wait_hist); /* acquire: pairs with ll_arena_install */
    for (unsigned b = 0; b < LP_HIST_BUCKETS; b++)
        h[b] = (d ? d->wait_hist[b] : 0) + (a ? ll_load_relaxed(&a->count[b]) : 0); /* relaxed: statistics */
}

void lp_row_summarize(lp_profile *p, lp_row *r)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->acquisitions = p->acquisitions + ll_load_relaxed(&p->waits);                /* relaxed: statistics */
    r->contended = p->contended + ll_load_relaxed(&p->blocked_waits);              /* relaxed: statistics */
    r->wait_ns = p->wait_total_ns + ll_load_relaxed(&p->wait_ns_atomic);           /* relaxed: statistics */
    r->parks = p->parks + ll_load_relaxed(&p->parks_atomic);                       /* relaxed: statistics */
    uint64_t any_max = ll_load_relaxed(&p->wait_max_atomic); /* relaxed: a statistic */
    r->wait_max = p->wait_max_ns > any_max ? p->wait_max_ns : any_max;
    uint64_t h[LP_HIST_BUCKETS];
    wait_hist(p, h);
    r->wait_p99 = hist_percentile(h, 0.99);
    r->wait_p999 = hist_percentile(h, 0.999);
    if (r->wait_p99 > r->wait_max) /* a bucket's upper bound, beyond what was seen */
        r->wait_p99 = r->wait_max;
    if (r->wait_p999 > r->wait_max)
        r->wait_p999 = r->wait_max;
    lp_detail *d = (lp_detail *)ll_load_acquire(&p->detail); /* acquire: pairs with the release in detail_of */
    r->lwss = r->mttr = -1;
    if (!d)
        return;
    r->hold_p99 = hist_percentile(d->hold_hist, 0.99);
    r->min_share = UINT64_MAX;
    for (int t = 1; t < LP_TRACKED_THREADS; t++) {
        uint64_t a = d->share[t].admissions;
        if (!a)
            continue;
        r->threads++;
        if (a > r->max_share)
            r->max_share = a;
        if (a < r->min_share)
            r->min_share = a;
    }
    if (!r->threads)
        r->min_share = 0;
    if (d->admit.windows_done) /* null until one full window */
        r->lwss = ll_admit_lwss(&d->admit);
    if (d->reacquisitions)
        r->mttr = ll_hist_median(d->mttr_hist, LP_HIST_BUCKETS, hist_upper);
}

int lp_row_order(const void *a, const void *b)
{
    const lp_row *x = (const lp_row *)a, *y = (const lp_row *)b;
    if (x->wait_ns != y->wait_ns)
        return x->wait_ns < y->wait_ns ? 1 : -1;
    if (x->contended != y->contended)
        return x->contended < y->contended ? 1 : -1;
    return x->acquisitions < y->acquisitions ? 1 : x->acquisitions > y->acquisitions ? -1 : 0;
}
