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
double median_of(double *v, size_t n); /* sorts v */

#endif
