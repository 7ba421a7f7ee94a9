/* Throughput-independent fairness metrics over an admission history. */
#ifndef LOCKLAB_BENCH_METRICS_H
#define LOCKLAB_BENCH_METRICS_H
#include <stddef.h>
#include <stdint.h>

#include "locklab/fairness.h"

#define LWSS_WINDOW LL_LWSS_WINDOW

typedef struct fairness {
    double lwss;            /* mean distinct threads per disjoint window of LWSS_WINDOW admissions */
    double mttr;            /* median admissions between a thread's consecutive admissions */
    double gini;            /* Gini coefficient of per-thread ops: 0 fair .. 1 unfair */
    double rstddev;         /* population stddev / mean of per-thread ops */
    double fairness_factor; /* CNA paper: ops of the busier half / all ops: 0.5 fair .. 1 unfair */
    double max_min_ratio;   /* most / fewest ops of any thread (inf if a thread did none) */
    double socket_switches; /* admissions whose socket differs from the previous one, per 1000 */
} fairness;

/* admissions[i] = thread index admitted i-th (0 <= index < nthreads);
 * thread_socket[t] = socket of thread t (may be NULL: all on one socket). */
void fairness_compute(const uint16_t *admissions, size_t n, const uint64_t *per_thread_ops, int nthreads,
                      const int *thread_socket, fairness *out);

double metric_lwss(const uint16_t *admissions, size_t n, size_t window, int nthreads);
double metric_mttr(const uint16_t *admissions, size_t n, int nthreads);
double metric_gini(const uint64_t *x, int n);
double metric_rstddev(const uint64_t *x, int n);
double metric_fairness_factor(const uint64_t *x, int n);
double metric_socket_switches(const uint16_t *admissions, size_t n, const int *thread_socket);
double metric_max_min(const uint64_t *x, int n);      /* most / fewest; INFINITY if one is 0 */
double metric_max_min_json(const uint64_t *x, int n); /* the same, 0 for INFINITY (JSON extras) */
double median_of(double *v, size_t n); /* sorts v */

/* Acquisition waits (ns from the acquire call to its return): a log-linear histogram, exact
 * below 16 ns, then 8 sub-buckets per power of two, so a percentile (the upper bound of its
 * bucket, at most the largest wait seen) is at most 12.5% above the true value. */
#define WAIT_HIST_BUCKETS 512
typedef struct wait_hist {
    uint64_t n, max_ns;
    uint64_t count[WAIT_HIST_BUCKETS];
} wait_hist;
static inline unsigned wait_hist_bucket(uint64_t ns)
{
    if (ns < 16)
        return (unsigned)ns;
    unsigned e = 63u - (unsigned)__builtin_clzll(ns); /* >= 4 */
    return 16u + (e - 4u) * 8u + (unsigned)((ns >> (e - 3u)) & 7u);
}
static inline void wait_hist_add(wait_hist *h, uint64_t ns)
{
    h->n++;
    h->count[wait_hist_bucket(ns)]++;
    if (ns > h->max_ns)
        h->max_ns = ns;
}
void wait_hist_merge(wait_hist *into, const wait_hist *from);
uint64_t wait_hist_percentile(const wait_hist *h, double q); /* q in (0, 1]; 0 if empty */

#endif
