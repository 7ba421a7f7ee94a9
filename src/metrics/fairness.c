/* LWSS and MTTR of an admission sequence (include/locklab/fairness.h). */
#include "locklab/fairness.h"

double ll_admit_lwss(const ll_admit_seq *s)
{
    if (s->windows_done)
        return (double)s->distinct_sum / (double)s->windows_done;
    return (double)s->window_distinct; /* no full window: the partial one (0 if empty) */
}

double ll_hist_median(const uint64_t *hist, size_t buckets, uint64_t (*value)(size_t bucket))
{
    uint64_t count = 0;
    for (size_t b = 0; b < buckets; b++)
        count += hist[b];
    if (count == 0)
        return 0;
    uint64_t lo_rank = (count - 1) / 2, hi_rank = count / 2, seen = 0;
    double lo = -1, hi = -1;
    for (size_t b = 0; b < buckets && hi < 0; b++) {
        seen += hist[b];
        double v = value ? (double)value(b) : (double)b;
        if (lo < 0 && seen > lo_rank)
            lo = v;
        if (seen > hi_rank)
            hi = v;
    }
    return (lo + hi) / 2;
}
