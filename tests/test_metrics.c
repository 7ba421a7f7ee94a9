/* Fairness metrics on admission sequences and distributions with known answers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "metrics.h"

static int passed, failed;
static void near(double got, double want, const char *what)
{
    int ok = fabs(got - want) < 1e-9 || (isinf(got) && isinf(want));
    printf("%s %s: got %.6f want %.6f\n", ok ? "ok  " : "FAIL", what, got, want);
    ok ? passed++ : failed++;
}

int main(void)
{
    /* Malthusian paper §1: A B C A B C D A E; LWSS of admissions 0-5 is 3. */
    enum { A, B, C, D, E };
    const uint16_t seq[] = {A, B, C, A, B, C, D, A, E};
    near(metric_lwss(seq, 6, 6, 5), 3, "LWSS of A B C A B C (window 6)");
    near(metric_lwss(seq, 9, 9, 5), 5, "LWSS of the whole sequence (window 9)");
    near(metric_lwss(seq, 9, 3, 5), (3 + 3 + 3) / 3.0, "mean LWSS, windows of 3: ABC ABC DAE");
    near(metric_lwss(seq, 8, 3, 5), 3, "trailing partial window ignored");
    /* TTRs: A@3:2, B@4:2, C@5:2, A@7:3 -> median of {2,2,2,3} = 2 */
    near(metric_mttr(seq, 9, 5), 2, "MTTR of A B C A B C D A E");
    /* Strict round robin over 32 threads: MTTR 31, LWSS 32 (paper Figure 4, MCS). */
    uint16_t *rr = malloc(32000 * sizeof *rr);
    for (int i = 0; i < 32000; i++)
        rr[i] = (uint16_t)(i % 32);
    near(metric_mttr(rr, 32000, 32), 31, "MTTR round robin 32");
    near(metric_lwss(rr, 32000, 1000, 32), 32, "LWSS round robin 32");
    int sockets[32];
    for (int t = 0; t < 32; t++)
        sockets[t] = t % 2;
    near(metric_socket_switches(rr, 32000, sockets), 1000, "socket switches, alternating sockets");
    for (int t = 0; t < 32; t++)
        sockets[t] = t / 16;
    near(metric_socket_switches(rr, 32000, sockets), 1000.0 * (2 * 1000 - 1) / 31999, "socket switches, halves");
    free(rr);
    /* One thread only: every TTR is 0. */
    const uint16_t solo[] = {0, 0, 0, 0};
    near(metric_mttr(solo, 4, 1), 0, "MTTR single thread");
    near(metric_lwss(solo, 4, 1000, 1), 1, "LWSS single thread");

    const uint64_t fair[] = {100, 100, 100, 100};
    const uint64_t one[] = {400, 0, 0, 0};
    const uint64_t mixed[] = {1, 2, 3, 4};
    near(metric_gini(fair, 4), 0, "Gini fair");
    near(metric_gini(one, 4), 0.75, "Gini one-takes-all, n=4: (n-1)/n");
    near(metric_gini(mixed, 4), 0.25, "Gini 1,2,3,4");
    near(metric_rstddev(fair, 4), 0, "RSTDDEV fair");
    near(metric_rstddev(mixed, 4), sqrt(1.25) / 2.5, "RSTDDEV 1,2,3,4");
    near(metric_fairness_factor(fair, 4), 0.5, "fairness factor fair");
    near(metric_fairness_factor(one, 4), 1.0, "fairness factor one-takes-all");
    near(metric_fairness_factor(mixed, 4), 0.7, "fairness factor 1,2,3,4: (4+3)/10");
    const uint64_t odd[] = {10, 10, 10};
    near(metric_fairness_factor(odd, 3), 0.5, "fairness factor fair, odd count");

    fairness f; /* A B C A B C: thread indices below nthreads (4), as fairness_compute requires */
    fairness_compute(seq, 6, mixed, 4, NULL, &f);
    near(f.max_min_ratio, 4, "max/min ratio");
    fairness_compute(seq, 6, one, 4, NULL, &f);
    near(f.max_min_ratio, INFINITY, "max/min ratio with a starved thread");

    /* Acquisition waits: exact below 16 ns, then within 12.5% (the bucket's upper bound), never
     * above the largest wait; merged histograms add. */
    static wait_hist w, w2;
    for (uint64_t ns = 0; ns < 16; ns++)
        near(wait_hist_bucket(ns), (double)ns, "wait bucket exact below 16");
    near(wait_hist_bucket(16), 16, "wait bucket 16");
    near(wait_hist_bucket(17), 16, "wait bucket 17 (16..17 share one)");
    near(wait_hist_bucket(18), 17, "wait bucket 18");
    near(wait_hist_bucket(UINT64_MAX), WAIT_HIST_BUCKETS - 17, "wait bucket of the largest value");
    for (uint64_t i = 1; i <= 1000; i++)
        wait_hist_add(&w, i * 100); /* 100 .. 100000 ns */
    near((double)w.max_ns, 100000, "wait max");
    uint64_t p99 = wait_hist_percentile(&w, 0.99), p999 = wait_hist_percentile(&w, 0.999);
    near(p99 >= 99000 && p99 <= 99000 * 1.125, 1, "wait p99 within 12.5% above 99000");
    near(p999 >= 99900 && p999 <= 100000, 1, "wait p99.9 within the bucket, at most the max");
    near((double)wait_hist_percentile(&w2, 0.99), 0, "wait p99 of nothing");
    wait_hist_add(&w2, 5000000);
    wait_hist_merge(&w, &w2);
    near((double)w.n, 1001, "merged wait count");
    near((double)wait_hist_percentile(&w, 1.0), 5000000, "merged wait max is the p100");
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
