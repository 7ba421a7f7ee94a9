/*
 * Fairness metrics.  Definitions:
 *   LWSS  (malthusian-locks.txt §1): the admission history is cut into disjoint
 *         abutting windows of W = 1000 admissions; LWSS of a window = number of
 *         distinct threads admitted in it; we report the mean over windows (a
 *         trailing partial window counts only if it is the only one).
 *   MTTR  (§1): time to reacquire = admissions since the thread last acquired
 *         (i - previous - 1; 31 for 32 threads in strict round robin, as in
 *         the paper's Figure 4); median over every admission that has a previous one.
 *   Gini  (§6): sum_ij |x_i - x_j| / (2 n^2 mean) of per-thread ops.
 *   RSTDDEV (§6): population standard deviation / mean of per-thread ops.
 *   Fairness factor (compact-numa-aware-locks.txt §7.1.1): sort per-thread
 *         ops in decreasing order; ops of the first half / all ops (with an
 *         odd count the middle thread counts half), 0.5 fair .. 1 unfair.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

double metric_lwss(const uint16_t *a, size_t n, size_t window, int nthreads)
{
    if (n == 0)
        return 0;
    unsigned char *seen = calloc((size_t)nthreads, 1);
    size_t windows = n >= window ? n / window : 1;
    size_t len = n >= window ? window : n;
    double total = 0;
    for (size_t w = 0; w < windows; w++) {
        memset(seen, 0, (size_t)nthreads);
        int distinct = 0;
        for (size_t i = w * len; i < (w + 1) * len; i++)
            if (!seen[a[i]]) {
                seen[a[i]] = 1;
                distinct++;
            }
        total += distinct;
    }
    free(seen);
    return total / (double)windows;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double median_of(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double metric_mttr(const uint16_t *a, size_t n, int nthreads)
{
    /* Histogram of reacquire distances: exact median without storing n doubles. */
    size_t *last = malloc((size_t)nthreads * sizeof *last);
    for (int t = 0; t < nthreads; t++)
        last[t] = SIZE_MAX;
    size_t cap = 1u << 20, count = 0; /* distances >= cap are counted as cap */
    uint32_t *hist = calloc(cap + 1, sizeof *hist);
    for (size_t i = 0; i < n; i++) {
        size_t prev = last[a[i]];
        last[a[i]] = i;
        if (prev == SIZE_MAX)
            continue;
        size_t ttr = i - prev - 1;
        hist[ttr < cap ? ttr : cap]++;
        count++;
    }
    double result = 0;
    if (count) {
        /* Median: average of the values at ranks (count-1)/2 and count/2. */
        size_t lo_rank = (count - 1) / 2, hi_rank = count / 2, seen = 0;
        double lo = -1, hi = -1;
        for (size_t v = 0; v <= cap && hi < 0; v++) {
            seen += hist[v];
            if (lo < 0 && seen > lo_rank)
                lo = (double)v;
            if (seen > hi_rank)
                hi = (double)v;
        }
        result = (lo + hi) / 2;
    }
    free(hist);
    free(last);
    return result;
}

static double mean_of(const uint64_t *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)x[i];
    return n ? s / n : 0;
}

static int cmp_u64_desc(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a < b) - (a > b);
}

double metric_gini(const uint64_t *x, int n)
{
    double mean = mean_of(x, n);
    if (n == 0 || mean == 0)
        return 0;
    /* With x sorted decreasing, sum_ij |xi - xj| = 2 * sum_i x_i * (n - 1 - 2i). */
    uint64_t *s = malloc((size_t)n * sizeof *s);
    memcpy(s, x, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_u64_desc);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += (double)s[i] * (double)(n - 1 - 2 * i);
    free(s);
    return 2 * sum / (2.0 * n * n * mean);
}

double metric_rstddev(const uint64_t *x, int n)
{
    double mean = mean_of(x, n);
    if (n == 0 || mean == 0)
        return 0;
    double var = 0;
    for (int i = 0; i < n; i++)
        var += ((double)x[i] - mean) * ((double)x[i] - mean);
    return sqrt(var / n) / mean;
}

double metric_fairness_factor(const uint64_t *x, int n)
{
    uint64_t *s = malloc((size_t)(n ? n : 1) * sizeof *s);
    memcpy(s, x, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_u64_desc);
    double total = 0, top = 0;
    for (int i = 0; i < n; i++) {
        total += (double)s[i];
        if (i < n / 2)
            top += (double)s[i];
    }
    if (n % 2)
        top += (double)s[n / 2] / 2;
    free(s);
    return total > 0 ? top / total : 0.5;
}

double metric_socket_switches(const uint16_t *a, size_t n, const int *thread_socket)
{
    if (n < 2 || thread_socket == NULL)
        return 0;
    size_t switches = 0;
    for (size_t i = 1; i < n; i++)
        switches += thread_socket[a[i]] != thread_socket[a[i - 1]];
    return 1000.0 * (double)switches / (double)(n - 1);
}

void fairness_compute(const uint16_t *admissions, size_t n, const uint64_t *ops, int nthreads,
                      const int *thread_socket, fairness *out)
{
    out->lwss = metric_lwss(admissions, n, LWSS_WINDOW, nthreads);
    out->mttr = metric_mttr(admissions, n, nthreads);
    out->gini = metric_gini(ops, nthreads);
    out->rstddev = metric_rstddev(ops, nthreads);
    out->fairness_factor = metric_fairness_factor(ops, nthreads);
    out->socket_switches = metric_socket_switches(admissions, n, thread_socket);
    uint64_t mx = 0, mn = UINT64_MAX;
    for (int t = 0; t < nthreads; t++) {
        mx = ops[t] > mx ? ops[t] : mx;
        mn = ops[t] < mn ? ops[t] : mn;
    }
    out->max_min_ratio = mn ? (double)mx / (double)mn : INFINITY;
}
