/*
 * Fairness metrics.  Definitions:
 *   LWSS  (malthusian-locks.txt §1): the admission history is cut into disjoint
 *         abutting windows of W = 1000 admissions; LWSS of a window = number of
 *         distinct threads admitted in it; we report the mean over windows (a
 *         trailing partial window counts only if it is the only one).
 *   MTTR  (§1): time to reacquire = admissions since the thread last acquired
 *         (i - previous - 1; 31 for 32 threads in strict round robin, as in
 *         the paper's Figure 4); median over every admission that has a previous one.
 *   Both are computed by the library's locklab/fairness.h (src/metrics), which
 *   the interposer's profiler uses too.
 *   Gini  (§6): sum_ij |x_i - x_j| / (2 n^2 mean) of per-thread ops.
 *   RSTDDEV (§6): population standard deviation / mean of per-thread ops.
 *   Fairness factor (compact-numa-aware-locks.txt §7.1.1): sort per-thread
 *         ops in decreasing order; ops of the first half / all ops (with an
 *         odd count the middle thread counts half), 0.5 fair .. 1 unfair.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locklab/fairness.h"
#include "metrics.h"

/* Replay the history through the shared online computation (locklab/fairness.h). */
double metric_lwss(const uint16_t *a, size_t n, size_t window, int nthreads)
{
    ll_admit_thread *threads = calloc((size_t)nthreads, sizeof *threads);
    ll_admit_seq seq = {.window = window};
    for (size_t i = 0; i < n; i++)
        ll_admit_record(&seq, &threads[a[i]]);
    free(threads);
    return ll_admit_lwss(&seq);
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
    ll_admit_thread *threads = calloc((size_t)nthreads, sizeof *threads);
    ll_admit_seq seq = {.window = LWSS_WINDOW}; /* the windows are not used here */
    size_t cap = 1u << 20; /* distances >= cap are counted as cap */
    uint64_t *hist = calloc(cap + 1, sizeof *hist);
    for (size_t i = 0; i < n; i++) {
        uint64_t ttr = ll_admit_record(&seq, &threads[a[i]]);
        if (ttr != LL_NO_REACQUIRE)
            hist[ttr < cap ? ttr : cap]++;
    }
    double result = ll_hist_median(hist, cap + 1, NULL);
    free(hist);
    free(threads);
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
    out->max_min_ratio = metric_max_min(ops, nthreads);
}

double metric_max_min(const uint64_t *x, int n)
{
    uint64_t mx = 0, mn = UINT64_MAX;
    for (int t = 0; t < n; t++) {
        mx = x[t] > mx ? x[t] : mx;
        mn = x[t] < mn ? x[t] : mn;
    }
    return mn ? (double)mx / (double)mn : INFINITY;
}

double metric_max_min_json(const uint64_t *x, int n)
{
    double m = metric_max_min(x, n);
    return isinf(m) ? 0 : m;
}

void wait_hist_merge(wait_hist *into, const wait_hist *from)
{
    into->n += from->n;
    if (from->max_ns > into->max_ns)
        into->max_ns = from->max_ns;
    for (unsigned b = 0; b < WAIT_HIST_BUCKETS; b++)
        into->count[b] += from->count[b];
}

/* The upper bound of bucket b (wait_hist_bucket's inverse). */
static uint64_t wait_hist_upper(unsigned b)
{
    if (b < 16)
        return b;
    unsigned e = (b - 16u) / 8u + 4u, sub = (b - 16u) % 8u;
    return ((8ull + sub) << (e - 3u)) + (1ull << (e - 3u)) - 1u;
}

uint64_t wait_hist_percentile(const wait_hist *h, double q)
{
    if (h->n == 0)
        return 0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->n), seen = 0;
    if (rank == 0)
        rank = 1;
    for (unsigned b = 0; b < WAIT_HIST_BUCKETS; b++) {
        seen += h->count[b];
        if (seen >= rank) {
            uint64_t up = wait_hist_upper(b);
            return up < h->max_ns ? up : h->max_ns;
        }
    }
    return h->max_ns;
}
