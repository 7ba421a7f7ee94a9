/*
 * What the parts of the profiler's report share (private to them; the interposer sees
 * profile.h, the records are profile_data.h):
 *
 *   profile_config.c  the environment (LOCKLAB_PROFILE*), the snapshot signal, the fork
 *                     handler: the report's settings, lp_report
 *   profile_stats.c   one row of figures per record (totals, percentiles, fairness) and
 *                     the order of the rows
 *   profile_format.c  a report's text: JSON or a table
 *   profile_file.c    a file replaced whole or not at all (crash-safe)
 *   profile_report.c  the reports: at exit, in a fork()ed child, on the snapshot signal
 */
#ifndef LOCKLAB_INTERPOSE_PROFILE_REPORT_H
#define LOCKLAB_INTERPOSE_PROFILE_REPORT_H

#include <stdio.h>
#include <sys/types.h>

#include "profile_data.h"

/* The report's settings, from the environment (profile_config.c, lp_profile_init) and
 * lp_profile_set_config. */
typedef struct lp_report_config {
    const char *path; /* LOCKLAB_PROFILE as given ("%p" unexpanded), or "-" for stderr */
    int stderr_copy;  /* for "-": our own copy of fd 2, in case the program closes stderr before we report */
    bool json;
    long top;         /* records listed; 0: all */
    uint64_t start_ns;
    pid_t start_pid;
    char lock[128], cond[64], sem[64], morph[16];
} lp_report_config;
extern lp_report_config lp_report;

/* The report path with every "%p" replaced by the process id. */
void lp_report_expand_path(char *out, size_t len);

/* One record's figures, as the report lists them (profile_stats.c). */
typedef struct lp_row {
    lp_profile *p;
    uint64_t wait_ns; /* total, mutex holder-side or cond/sem atomic */
    uint64_t wait_max; /* mutex holder-side or cond/sem atomic */
    uint64_t wait_p99, wait_p999; /* of the merged wait histogram, at most wait_max */
    uint64_t hold_p99;            /* of the sampled hold times (0 before the first contention) */
    uint64_t acquisitions, contended, parks, threads, max_share, min_share;
    double lwss, mttr; /* -1: none yet */
} lp_row;

void lp_row_summarize(lp_profile *p, lp_row *r);
/* qsort's comparison: by total wait, then contended acquisitions, then acquisitions, largest first. */
int lp_row_order(const void *a, const void *b);

/* The report (profile_format.c): n records, the first listed of them in rows (sorted);
 * totals: passthrough objects, acquisitions, contended acquisitions. */
typedef struct lp_report_rows {
    lp_row *rows;
    size_t n, listed;
    uint64_t totals[3];
} lp_report_rows;
void lp_report_print(FILE *f, const lp_report_rows *r);

/* profile_file.c.  The directory a path names its file in ("." for a bare name). */
void lp_dir_of(const char *path, char *dir, size_t len);
/* Can lp_replace_file write path?  0, or the errno that says why not. */
int lp_path_writable(const char *path);
/* Write path whole through emit(f, arg), crash-safe (profile_file.c says how); 0, or -1
 * with errno set. */
int lp_replace_file(const char *path, void (*emit)(FILE *f, void *arg), void *arg);

#endif
