/*
 * The profiler's reports: every live record summarised (profile_stats.c), sorted, the
 * top LOCKLAB_PROFILE_TOP formatted (profile_format.c) to stderr's copy or to a file
 * replaced whole (profile_file.c).  Written at exit (once per process; a fork()ed child
 * that used a profiled object writes PATH.<pid> unless the path has "%p", one that used
 * none writes nothing) and, on the snapshot signal, to PATH.snapN by the next thread that
 * takes a profiled lock.  The rows are mmap'ed, not malloc'ed: the report may run inside
 * a malloc that locks a mutex.  The parts and what they share: profile_report.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile_report.h"

static ll_atomic_u32 snapshots_written;
static ll_atomic_u32 exit_report_done;

static void emit(FILE *f, void *rows) { lp_report_print(f, (const lp_report_rows *)rows); }

static void write_report(const char *path)
{
    size_t n = 0;
    for (lp_profile *p = (lp_profile *)ll_load_acquire(&lp_all_profiles); p; p = p->next) /* acquire: pairs with the CAS in lp_profile_new */
        n += p->kind != NULL; /* NULL: retired (profile_data.h) */
    lp_row *rows = n ? (lp_row *)mmap(NULL, n * sizeof(lp_row), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                      -1, 0)
                     : NULL;
    if (rows == MAP_FAILED)
        return;
    lp_report_rows r = {rows, 0, 0, {0, 0, 0}};
    for (lp_profile *p = (lp_profile *)ll_load_acquire(&lp_all_profiles); p && r.n < n; p = p->next) { /* acquire: as above */
        if (p->kind == NULL)
            continue;
        lp_row_summarize(p, &rows[r.n]);
        r.totals[0] += p->passthrough;
        r.totals[1] += rows[r.n].acquisitions;
        r.totals[2] += rows[r.n].contended;
        r.n++;
    }
    /* r.n < n: records retired since the count */
    if (r.n)
        qsort(rows, r.n, sizeof *rows, lp_row_order);
    r.listed = lp_report.top == 0 || (size_t)lp_report.top > r.n ? r.n : (size_t)lp_report.top;
    if (strcmp(path, "-") == 0) {
        FILE *f = lp_report.stderr_copy >= 0 ? fdopen(dup(lp_report.stderr_copy), "w") : NULL;
        if (f) {
            lp_report_print(f, &r);
            fclose(f);
        }
    } else if (lp_replace_file(path, emit, &r) != 0) {
        fprintf(stderr, "locklab: cannot write the profile to '%s': %s\n", path, strerror(errno));
    }
    if (rows)
        munmap(rows, n * sizeof(lp_row));
}

void lp_profile_snapshot(void)
{
    if (ll_xchg(&lp_snapshot_requested, 0, LL_RELAXED) == 0) /* relaxed: one thread claims the request */
        return;
    unsigned k = ll_faa(&snapshots_written, 1, LL_RELAXED) + 1; /* relaxed: numbering only */
    char path[4096];
    lp_report_expand_path(path, sizeof path);
    if (strcmp(path, "-") != 0)
        snprintf(path + strlen(path), sizeof path - strlen(path), ".snap%u", k);
    write_report(path);
}

void lp_profile_write(void)
{
    if (!lp_profiling || ll_xchg(&exit_report_done, 1, LL_RELAXED) != 0) /* relaxed: once per process */
        return;
    if (ll_load_relaxed(&lp_idle_child)) /* relaxed: set and cleared by this process's threads, all joined or gone */
        return; /* a fork()ed child that used no profiled object: its report would repeat the parent's */
    char path[4096];
    lp_report_expand_path(path, sizeof path);
    if (getpid() != lp_report.start_pid && strcmp(lp_report.path, "-") != 0 && !strstr(lp_report.path, "%p"))
        snprintf(path + strlen(path), sizeof path - strlen(path), ".%d", (int)getpid()); /* a fork()ed child */
    write_report(path);
}
