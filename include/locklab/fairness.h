/*
 * Fairness of an admission sequence (the order in which a lock admitted
 * threads), computed as the sequence goes: LWSS and MTTR as defined in
 * malthusian-locks.txt §1.  One implementation for locklab-bench
 * (bench/metrics.c, over a recorded history) and the interposer's profiler
 * (src/interpose/profile.c, online, per lock); src/metrics/fairness.c.
 *
 *   LWSS  the sequence is cut into disjoint abutting windows of `window`
 *         admissions; LWSS of a window = the number of distinct threads
 *         admitted in it; the mean over the full windows (the partial window
 *         counts only if there is no full one).
 *   MTTR  time to reacquire = admissions of other threads since the thread's
 *         previous admission (31 for 32 threads in strict round robin); the
 *         median over every admission that has a previous one.
 */
#ifndef LOCKLAB_FAIRNESS_H
#define LOCKLAB_FAIRNESS_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

LL_API_BEGIN

#define LL_LWSS_WINDOW 1000 /* the papers' window */
#define LL_NO_REACQUIRE UINT64_MAX

/* What the sequence remembers of one thread; zero-initialised. */
typedef struct ll_admit_thread {
    uint64_t last;   /* 1 + position of its previous admission, 0 = none */
    uint64_t window; /* 1 + the index of the last window it was counted in */
} ll_admit_thread;

/* The sequence; zero-initialised but for window. */
typedef struct ll_admit_seq {
    uint64_t window;     /* LWSS window length, > 0 */
    uint64_t admissions; /* so far */
    uint64_t in_window;  /* admissions in the current window */
    uint64_t window_distinct, windows_done, distinct_sum;
} ll_admit_seq;

/* Record the next admission, of thread t (NULL: a thread not tracked, which
 * counts as an admission but is not counted in LWSS or MTTR).  Returns t's time
 * to reacquire, or LL_NO_REACQUIRE for its first admission (or t NULL).
 * No division: the profiler calls this on its hot path. */
static inline uint64_t ll_admit_record(ll_admit_seq *s, ll_admit_thread *t)
{
    uint64_t n = s->admissions++, ttr = LL_NO_REACQUIRE;
    if (t) {
        if (t->last)
            ttr = n - t->last;
        t->last = n + 1;
        if (t->window != s->windows_done + 1) { /* first time in the current window */
            t->window = s->windows_done + 1;
            s->window_distinct++;
        }
    }
    if (++s->in_window == s->window) {
        s->distinct_sum += s->window_distinct;
        s->windows_done++;
        s->window_distinct = 0;
        s->in_window = 0;
    }
    return ttr;
}

/* LWSS of the sequence so far (0 if empty). */
double ll_admit_lwss(const ll_admit_seq *s);

/* The median of the values counted in a histogram (hist[b] = how many values
 * fell in bucket b): the mean of the values at ranks (count-1)/2 and count/2,
 * each read as value(b) of its bucket (NULL: the bucket index itself).  0 if
 * the histogram is empty.  MTTR is the median of the times to reacquire. */
double ll_hist_median(const uint64_t *hist, size_t buckets, uint64_t (*value)(size_t bucket));

LL_API_END
#endif /* LOCKLAB_FAIRNESS_H */
