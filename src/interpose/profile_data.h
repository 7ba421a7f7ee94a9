/*
 * The profiler's records (profile.h), shared by its two halves:
 *   profile.c         recording: the hooks the interposer calls, the hot path
 *   profile_*.c       configuration (environment, signal) and the reports
 *                     (statistics, JSON or table, files, snapshots, the one at
 *                     exit): profile_report.h lists the files
 *
 * Who writes what:
 *   - counters of a mutual-exclusion object (acquisitions, contended, owner
 *     changes, wait/hold totals, histograms, per-thread shares) are written by
 *     the lock holder inside its critical section: plain stores, the lock
 *     under test orders them;
 *   - counters any thread may bump (trylock failures, passthrough calls,
 *     waits on condition variables and semaphores, wakes) are atomic;
 *   - the report reads everything without locks: a snapshot taken while
 *     threads run is approximate, the one at exit is exact for joined threads.
 *
 * Fairness is measured from the first contended acquisition on (the detail
 * block is allocated then): per-thread admission counts for up to
 * LP_TRACKED_THREADS threads (later threads share one overflow slot), LWSS
 * and MTTR as locklab-bench computes them (locklab/fairness.h: windows of
 * 1000 admissions; MTTR the median of a log-linear histogram here).
 *
 * Records of destroyed mutexes (and of mutexes dropped without a destroy,
 * slab.h) are retired (lp_profile_retire): their counts are added to the
 * aggregate record of their call site (first use), kind and type (address
 * NULL, `merged` of them), and the record and its detail go to free lists
 * for the next mutexes, so that memory stays flat under any create/destroy
 * pattern.  A retired record stays on the list (kind NULL: skipped).
 * Aggregates are updated under the arena's lock.  The aggregate has no LWSS
 * (windows of different objects do not add up); its shares add per thread.
 *
 * Histograms are log-linear (4 sub-buckets per power of two): percentiles are
 * the upper bound of their bucket, at most 25% above the true value.  Wait
 * times of mutual-exclusion objects go to the detail's wait_hist (holder-side);
 * the blocked waits of condition variables and semaphores, which any thread
 * records, to the atomic any_wait_hist (created at the first blocked wait);
 * the report merges the two.
 */
#ifndef LOCKLAB_INTERPOSE_PROFILE_DATA_H
#define LOCKLAB_INTERPOSE_PROFILE_DATA_H

#include "locklab/core.h"
#include "locklab/fairness.h"
#include "profile.h"

#define LP_HIST_BUCKETS 256
#define LP_TRACKED_THREADS 256 /* thread ids 1..255 tracked, 0 = overflow */

typedef struct lp_thread_share {
    uint64_t admissions;
    ll_admit_thread admit; /* LWSS/MTTR state (tracked threads only) */
} lp_thread_share;

typedef struct lp_detail {
    uint64_t wait_hist[LP_HIST_BUCKETS];
    uint64_t hold_hist[LP_HIST_BUCKETS];
    uint64_t mttr_hist[LP_HIST_BUCKETS];
    lp_thread_share share[LP_TRACKED_THREADS];
    ll_admit_seq admit;      /* admissions since the detail exists, LWSS windows */
    uint64_t reacquisitions; /* samples in mttr_hist */
    void *free_link;         /* the free list of retired details */
} lp_detail;

struct lp_profile {
    lp_profile *next;  /* list of every record (push-only: a retired record stays, skipped, until reused) */
    void *free_link;   /* the free list of retired records (lp_profile_retire) */
    const void *addr;  /* NULL for a call site's aggregate */
    const char *kind;  /* NULL while retired (the report skips it) */
    const char *type;
    uint64_t merged;   /* a call site's aggregate: how many retired records it holds */
    void *caller;
    bool passthrough;
    /* written by the holder */
    uint64_t acquisitions, contended, owner_changes;
    uint64_t wait_total_ns, wait_max_ns;
    uint64_t hold_total_ns, hold_max_ns, hold_samples;
    uint64_t hold_started; /* ll_now_ns() when this hold is timed, else 0 */
    uint64_t parks;
    uint32_t last_owner;
    ll_atomic_ptr detail; /* lp_detail *, created by the holder at the first contention */
    /* written by anyone */
    ll_atomic_u64 trylock_failed, passthrough_ops, waits, blocked_waits, wait_ns_atomic, wait_max_atomic, wakes,
        parks_atomic;
    ll_atomic_ptr any_wait_hist; /* lp_wait_hist *: blocked waits (cond, sem), created at the first */
};

typedef struct lp_wait_hist {
    ll_atomic_u64 count[LP_HIST_BUCKETS];
} lp_wait_hist;

extern ll_atomic_ptr lp_all_profiles;           /* lp_profile *: the newest record, linked by next */
extern ll_atomic_u32 lp_snapshot_requested;     /* set by the snapshot signal's handler */
/* 1 in a fork()ed child until it uses a profiled object (set by the report's
 * fork handler, cleared by the hooks): such a child writes no report. */
extern ll_atomic_u32 lp_idle_child;

/* Write a snapshot if one was requested (claims the request; profile_report.c). */
void lp_profile_snapshot(void);

#endif
