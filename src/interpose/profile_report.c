/*
 * The interposer's contention profiler, reporting half: the configuration
 * from the environment (profile.h) and the reports, in JSON or as a table, to
 * a file or stderr, at exit, in a fork()ed child that used a profiled object,
 * and on the snapshot signal.  Records: profile_data.h; recording: profile.c.
 *
 * A report file is never written in place: a new file is created next to it
 * (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600), written, fsync'ed, and renamed over
 * the path, and the directory is fsync'ed.  A process killed while writing
 * leaves the previous report intact (and a PATH.tmp-PID-N file), a machine
 * that crashes leaves the previous report or the new one (never an empty or
 * partial file under the path: the data reaches the disk before the rename),
 * and a symlink at the path is replaced, never followed.  An existing path
 * that is no regular file (/dev/null, a FIFO) is written in place, as a shell
 * redirection would: renamed over, a device node would become a regular file.
 * 0600: the report lists the addresses of the program's objects (what ASLR
 * hides) and its path, so only its owner reads it unless told otherwise
 * (chmod, or a directory's default ACL, which the kernel applies).
 * Whether the path can be written is checked at start-up (lp_profile_init).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "profile_data.h"

static const char *report_path;
static int stderr_copy = -1; /* for "-": our own copy of fd 2, in case the program closes stderr before we report */
static bool report_json;
static long report_top = 20;
static int snapshot_signal;
static ll_atomic_u32 snapshots_written;
static ll_atomic_u32 exit_report_done;
static uint64_t start_ns;
static pid_t start_pid;
static char config_lock[128] = "(not set)", config_cond[64] = "(not set)", config_sem[64] = "(not set)",
            config_morph[16] = "(not set)";

/* ---- configuration ---- */

static int bad_env(const char *var, const char *value, const char *valid)
{
    char echo[65];
    fprintf(stderr, "locklab: bad %s '%s' (valid: %s)\n", var, ll_elide(value, 64, echo, sizeof echo), valid);
    return -1;
}

static void expand_path(char *out, size_t len);

/* The directory a report path names its file in ("." for a bare name). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, len, ".");
    else /* "/name": the root directory */
        snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* The report path can be written: its directory exists and is writable, and the
 * path is not a directory; or it is a device or a FIFO we may write (written in
 * place: write_file).  Else one line and -1 (checked once, at start-up). */
static int check_report_path(void)
{
    char path[4096], dir[4096];
    expand_path(path, sizeof path);
    dir_of(path, dir, sizeof dir);
    struct stat st;
    int e = 0;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
        e = access(path, W_OK) != 0 ? errno : 0;
    else if (stat(dir, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        e = errno;
    else if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
        e = EISDIR;
    if (e == 0)
        return 0;
    char echo[257];
    fprintf(stderr, "locklab: bad LOCKLAB_PROFILE '%s': cannot write a report there (%s; valid: a file in an "
                    "existing, writable directory, or - for stderr)\n", ll_elide(report_path, 256, echo, sizeof echo),
            strerror(e));
    return -1;
}

static void on_fork_child(void)
{
    ll_store_relaxed(&lp_idle_child, 1); /* relaxed: one thread in the child */
}

static void on_snapshot_signal(int sig)
{
    (void)sig;
    ll_store_relaxed(&lp_snapshot_requested, 1); /* relaxed: polled by the next profiled acquisition */
}

int lp_profile_init(void)
{
    const char *path = lp_env("LOCKLAB_PROFILE"); /* env.h: empty = unset; nothing in secure-execution mode */
    const char *format = lp_env("LOCKLAB_PROFILE_FORMAT");
    const char *top = lp_env("LOCKLAB_PROFILE_TOP");
    const char *sig = lp_env("LOCKLAB_PROFILE_SIGNAL");
    if (!path)
        return 0;
    if (strchr(path, '\n'))
        return bad_env("LOCKLAB_PROFILE", path, "a file path, or - for stderr");
    report_json = strlen(path) > 5 && strcmp(path + strlen(path) - 5, ".json") == 0;
    if (format) {
        if (strcmp(format, "json") == 0)
            report_json = true;
        else if (strcmp(format, "table") == 0)
            report_json = false;
        else
            return bad_env("LOCKLAB_PROFILE_FORMAT", format, "json, table");
    }
    if (top) {
        char *end;
        errno = 0;
        long n = strtol(top, &end, 10);
        if (*end || errno || n < 0 || n > 1000000)
            return bad_env("LOCKLAB_PROFILE_TOP", top, "0 (all) or a count in 1..1000000");
        report_top = n;
    }
    if (sig) {
        static const struct { const char *name; int sig; } names[] = {{"USR1", SIGUSR1}, {"USR2", SIGUSR2},
                                                                       {"HUP", SIGHUP}};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(sig, names[i].name) == 0 || (strncmp(sig, "SIG", 3) == 0 && strcmp(sig + 3, names[i].name) == 0))
                snapshot_signal = names[i].sig;
        if (!snapshot_signal)
            return bad_env("LOCKLAB_PROFILE_SIGNAL", sig, "USR1, USR2, HUP");
        struct sigaction sa = {.sa_handler = on_snapshot_signal, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(snapshot_signal, &sa, NULL);
    }
    report_path = path; /* before check_report_path: it expands it */
    if (strcmp(path, "-") == 0)
        stderr_copy = fcntl(2, F_DUPFD_CLOEXEC, 10);
    else if (check_report_path() != 0)
        return -1;
    start_ns = ll_now_ns();
    start_pid = getpid();
    lp_profiling = true;
    pthread_atfork(NULL, NULL, on_fork_child);
    atexit(lp_profile_write);
    return 0;
}

void lp_profile_set_config(const char *lock_spec, const char *cond, const char *morph, const char *sem)
{
    snprintf(config_morph, sizeof config_morph, "%s", morph ? morph : "(default)");
    snprintf(config_lock, sizeof config_lock, "%s", lock_spec ? lock_spec : "(default)");
    snprintf(config_cond, sizeof config_cond, "%s", cond ? cond : "(default)");
    snprintf(config_sem, sizeof config_sem, "%s", sem ? sem : "(default)");
}

/* ---- the report ---- */

/* Upper bound of a histogram bucket's values (profile.c: hist_bucket). */
static uint64_t hist_upper(size_t b)
{
    if (b < 8)
        return b;
    unsigned e = (unsigned)b / 4, sub = (unsigned)b % 4;
    return ((uint64_t)(5 + sub) << (e - 2)) - 1;
}

static uint64_t hist_percentile(const uint64_t *h, double q)
{
    uint64_t total = 0;
    for (unsigned b = 0; b < LP_HIST_BUCKETS; b++)
        total += h[b];
    if (total == 0)
        return 0;
    uint64_t rank = (uint64_t)(q * (double)(total - 1)) + 1, seen = 0;
    for (unsigned b = 0; b < LP_HIST_BUCKETS; b++)
        if ((seen += h[b]) >= rank)
            return hist_upper(b);
    return 0;
}

/* The wait histogram of p: the holder-side one (mutexes) plus the atomic one (cond, sem). */
static void wait_hist(lp_profile *p, uint64_t *h)
{
    lp_detail *d = (lp_detail *)ll_load_acquire(&p->detail); /* acquire: pairs with the release in detail_of */
    lp_wait_hist *a = (lp_wait_hist *)ll_load_acquire(&p->any_wait_hist); /* acquire: pairs with ll_arena_install */
    for (unsigned b = 0; b < LP_HIST_BUCKETS; b++)
        h[b] = (d ? d->wait_hist[b] : 0) + (a ? ll_load_relaxed(&a->count[b]) : 0); /* relaxed: statistics */
}

typedef struct lp_row {
    lp_profile *p;
    uint64_t wait_ns; /* total, mutex holder-side or cond/sem atomic */
    uint64_t wait_max; /* mutex holder-side or cond/sem atomic */
    uint64_t wait_p99, wait_p999; /* of the merged wait histogram (wait_hist), at most wait_max */
    uint64_t acquisitions, contended, parks, threads, max_share, min_share;
    double lwss, mttr;
} lp_row;

static void summarize(lp_profile *p, lp_row *r)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->acquisitions = p->acquisitions + ll_load_relaxed(&p->waits);                /* relaxed: statistics */
    r->contended = p->contended + ll_load_relaxed(&p->blocked_waits);              /* relaxed: statistics */
    r->wait_ns = p->wait_total_ns + ll_load_relaxed(&p->wait_ns_atomic);           /* relaxed: statistics */
    r->parks = p->parks + ll_load_relaxed(&p->parks_atomic);                       /* relaxed: statistics */
    uint64_t any_max = ll_load_relaxed(&p->wait_max_atomic); /* relaxed: a statistic */
    r->wait_max = p->wait_max_ns > any_max ? p->wait_max_ns : any_max;
    uint64_t h[LP_HIST_BUCKETS];
    wait_hist(p, h);
    r->wait_p99 = hist_percentile(h, 0.99);
    r->wait_p999 = hist_percentile(h, 0.999);
    if (r->wait_p99 > r->wait_max) /* a bucket's upper bound, beyond what was seen */
        r->wait_p99 = r->wait_max;
    if (r->wait_p999 > r->wait_max)
        r->wait_p999 = r->wait_max;
    lp_detail *d = (lp_detail *)ll_load_acquire(&p->detail); /* acquire: pairs with the release in detail_of */
    r->lwss = r->mttr = -1;
    if (!d)
        return;
    r->min_share = UINT64_MAX;
    for (int t = 1; t < LP_TRACKED_THREADS; t++) {
        uint64_t a = d->share[t].admissions;
        if (!a)
            continue;
        r->threads++;
        if (a > r->max_share)
            r->max_share = a;
        if (a < r->min_share)
            r->min_share = a;
    }
    if (!r->threads)
        r->min_share = 0;
    if (d->admit.windows_done) /* null until one full window */
        r->lwss = ll_admit_lwss(&d->admit);
    if (d->reacquisitions)
        r->mttr = ll_hist_median(d->mttr_hist, LP_HIST_BUCKETS, hist_upper);
}

static int by_wait_then_acquisitions(const void *a, const void *b)
{
    const lp_row *x = (const lp_row *)a, *y = (const lp_row *)b;
    if (x->wait_ns != y->wait_ns)
        return x->wait_ns < y->wait_ns ? 1 : -1;
    if (x->contended != y->contended)
        return x->contended < y->contended ? 1 : -1;
    return x->acquisitions < y->acquisitions ? 1 : x->acquisitions > y->acquisitions ? -1 : 0;
}

static void describe_caller(void *pc, char *out, size_t len)
{
    Dl_info info;
    if (!pc || !dladdr(pc, &info) || !info.dli_fname) {
        snprintf(out, len, "%p", pc);
        return;
    }
    const char *file = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname;
    if (info.dli_sname)
        snprintf(out, len, "%s+0x%lx (%s)", info.dli_sname, (unsigned long)((char *)pc - (char *)info.dli_saddr), file);
    else
        snprintf(out, len, "%s+0x%lx", file, (unsigned long)((char *)pc - (char *)info.dli_fbase));
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void program_name(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    if (n <= 0)
        snprintf(out, len, "%s", program_invocation_name);
}

static void write_json(FILE *f, lp_row *rows, size_t n, size_t listed, const uint64_t *totals)
{
    char prog[512], where[512];
    program_name(prog, sizeof prog);
    fprintf(f, "{\"format\":\"locklab-profile\",\"version\":1,\"program\":");
    json_string(f, prog);
    fprintf(f, ",\"pid\":%d,\"run_time_s\":%.6f,\"cpus\":%ld,\"glibc\":\"%s\",\"lock\":", (int)getpid(),
            (double)(ll_now_ns() - start_ns) / 1e9, sysconf(_SC_NPROCESSORS_ONLN), gnu_get_libc_version());
    json_string(f, config_lock);
    fprintf(f, ",\"cond\":");
    json_string(f, config_cond);
    fprintf(f, ",\"cond_morph\":");
    json_string(f, config_morph);
    fprintf(f, ",\"sem\":");
    json_string(f, config_sem);
    fprintf(f, ",\"objects\":%zu,\"passthrough_objects\":%llu,\"acquisitions\":%llu,\"contended\":%llu,"
               "\"listed\":%zu,\"locks\":[",
            n, (unsigned long long)totals[0], (unsigned long long)totals[1], (unsigned long long)totals[2], listed);
    for (size_t i = 0; i < listed; i++) {
        lp_row *r = &rows[i];
        lp_profile *p = r->p;
        lp_detail *d = (lp_detail *)ll_load_acquire(&p->detail); /* acquire: pairs with the release in detail_of */
        describe_caller(p->caller, where, sizeof where);
        fprintf(f, "%s\n{\"address\":\"%p\",\"merged\":%llu,\"kind\":\"%s\",\"type\":\"%s\",\"passthrough\":%s,"
                   "\"first_use\":",
                i ? "," : "", p->addr, (unsigned long long)p->merged, p->kind, p->type, p->passthrough ? "true" : "false");
        json_string(f, where);
        fprintf(f,
                ",\"acquisitions\":%llu,\"contended\":%llu,\"contended_pct\":%.3f,\"owner_changes\":%llu,"
                "\"trylock_failed\":%llu,\"passthrough_ops\":%llu,\"parks\":%llu,\"wakes\":%llu,"
                "\"wait_total_ns\":%llu,\"wait_mean_ns\":%.1f,\"wait_max_ns\":%llu,\"wait_p99_ns\":%llu,\"wait_p999_ns\":%llu,"
                "\"hold_samples\":%llu,\"hold_mean_ns\":%.1f,\"hold_max_ns\":%llu,\"hold_p99_ns\":%llu,"
                "\"threads\":%llu,\"max_thread_share\":%llu,\"min_thread_share\":%llu,",
                (unsigned long long)r->acquisitions, (unsigned long long)r->contended,
                r->acquisitions ? 100.0 * (double)r->contended / (double)r->acquisitions : 0.0,
                (unsigned long long)p->owner_changes, (unsigned long long)ll_load_relaxed(&p->trylock_failed),
                (unsigned long long)ll_load_relaxed(&p->passthrough_ops), (unsigned long long)r->parks,
                (unsigned long long)ll_load_relaxed(&p->wakes), /* relaxed (all three): statistics */
                (unsigned long long)r->wait_ns, r->contended ? (double)r->wait_ns / (double)r->contended : 0.0,
                (unsigned long long)r->wait_max, (unsigned long long)r->wait_p99, (unsigned long long)r->wait_p999,
                (unsigned long long)p->hold_samples,
                p->hold_samples ? (double)p->hold_total_ns / (double)p->hold_samples : 0.0,
                (unsigned long long)p->hold_max_ns, (unsigned long long)(d ? hist_percentile(d->hold_hist, 0.99) : 0),
                (unsigned long long)r->threads, (unsigned long long)r->max_share, (unsigned long long)r->min_share);
        if (r->min_share) /* the per-thread max/min of admissions, over the threads that acquired it */
            fprintf(f, "\"thread_max_min\":%.3f,", (double)r->max_share / (double)r->min_share);
        else
            fprintf(f, "\"thread_max_min\":null,");
        if (r->lwss >= 0)
            fprintf(f, "\"lwss\":%.2f,", r->lwss);
        else
            fprintf(f, "\"lwss\":null,");
        if (r->mttr >= 0)
            fprintf(f, "\"mttr\":%.0f}", r->mttr);
        else
            fprintf(f, "\"mttr\":null}");
    }
    fprintf(f, "\n]}\n");
}

static void fmt_ns(char *out, size_t len, double ns)
{
    if (ns < 1e3)
        snprintf(out, len, "%.0fns", ns);
    else if (ns < 1e6)
        snprintf(out, len, "%.1fus", ns / 1e3);
    else if (ns < 1e9)
        snprintf(out, len, "%.1fms", ns / 1e6);
    else
        snprintf(out, len, "%.2fs", ns / 1e9);
}

static void write_table(FILE *f, lp_row *rows, size_t n, size_t listed, const uint64_t *totals)
{
    char prog[512], where[512];
    program_name(prog, sizeof prog);
    fprintf(f, "locklab profile v1: %s (pid %d), %.2f s, %ld CPUs, glibc %s\n", prog, (int)getpid(),
            (double)(ll_now_ns() - start_ns) / 1e9, sysconf(_SC_NPROCESSORS_ONLN), gnu_get_libc_version());
    fprintf(f, "lock %s, cond %s (morph %s), sem %s; %zu objects (%llu passed through to glibc), %llu acquisitions, "
               "%llu contended; top %zu by total wait\n",
            config_lock, config_cond, config_morph, config_sem, n, (unsigned long long)totals[0], (unsigned long long)totals[1],
            (unsigned long long)totals[2], listed);
    fprintf(f, "%3s %-18s %-6s %-10s %11s %7s %9s %9s %9s %9s %9s %9s %9s %9s %6s %6s %7s  %s\n", "#", "address",
            "kind", "type", "acquired", "cont%", "changes", "wait", "wait_avg", "wait_p99", "wait_p999", "wait_max",
            "hold_avg", "hold_max", "thr", "lwss", "max/min", "first use");
    for (size_t i = 0; i < listed; i++) {
        lp_row *r = &rows[i];
        lp_profile *p = r->p;
        char w[16], wa[16], wp[16], wp3[16], wm[16], ha[16], hm[16], lw[16], mm[16];
        fmt_ns(w, sizeof w, (double)r->wait_ns);
        fmt_ns(wa, sizeof wa, r->contended ? (double)r->wait_ns / (double)r->contended : 0);
        fmt_ns(wp, sizeof wp, (double)r->wait_p99);
        fmt_ns(wp3, sizeof wp3, (double)r->wait_p999);
        fmt_ns(wm, sizeof wm, (double)r->wait_max);
        fmt_ns(ha, sizeof ha, p->hold_samples ? (double)p->hold_total_ns / (double)p->hold_samples : 0);
        fmt_ns(hm, sizeof hm, (double)p->hold_max_ns);
        snprintf(lw, sizeof lw, r->lwss >= 0 ? "%.1f" : "-", r->lwss);
        snprintf(mm, sizeof mm, r->min_share ? "%.1f" : "-", r->min_share ? (double)r->max_share / (double)r->min_share : 0);
        describe_caller(p->caller, where, sizeof where);
        char addr[32];
        if (p->merged) /* a call site's aggregate of destroyed objects */
            snprintf(addr, sizeof addr, "%llu destroyed", (unsigned long long)p->merged);
        else
            snprintf(addr, sizeof addr, "%p", p->addr);
        fprintf(f, "%3zu %-18s %-6s %-10s %11llu %6.2f%% %9llu %9s %9s %9s %9s %9s %9s %9s %6llu %6s %7s  %s\n", i + 1,
                addr, p->kind, p->passthrough ? "passthru" : p->type, (unsigned long long)r->acquisitions,
                r->acquisitions ? 100.0 * (double)r->contended / (double)r->acquisitions : 0.0,
                (unsigned long long)p->owner_changes, w, wa, wp, wp3, wm, ha, hm, (unsigned long long)r->threads, lw,
                mm, where);
    }
}

static void print_report(FILE *f, lp_row *rows, size_t n, size_t listed, const uint64_t *totals)
{
    if (report_json)
        write_json(f, rows, n, listed, totals);
    else
        write_table(f, rows, n, listed, totals);
}

/* Make a rename in path's directory durable (fsync of the directory; best effort: a
 * file system that cannot sync a directory has nothing more to do). */
static void sync_dir_of(const char *path)
{
    char dir[4200];
    dir_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* path, opened for writing in place if it is an existing file that is not a regular one
 * (a character device such as /dev/null, a FIFO: renaming over it would put a regular
 * file in its place); else -1.  Never a symlink (O_NOFOLLOW), never created. */
static int open_special(const char *path)
{
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The report into a new file next to path (PATH.tmp-PID-N: O_EXCL and O_NOFOLLOW,
 * so nothing that exists is opened, a symlink least of all), synced to disk, then
 * renamed over path and the rename synced (see the header comment): after a crash
 * of the machine the path holds the previous report or the new one, whole. */
static void write_file(const char *path, lp_row *rows, size_t n, size_t listed, const uint64_t *totals)
{
    char tmp[4200];
    int fd = open_special(path);
    bool in_place = fd >= 0;
    for (unsigned k = 0; fd < 0 && k < 100; k++) {
        snprintf(tmp, sizeof tmp, "%s.tmp-%d-%u", path, (int)getpid(), k);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int failed = f == NULL;
    if (f) {
        print_report(f, rows, n, listed, totals);
        failed = fflush(f) != 0 || ferror(f);
        failed = failed || (!in_place && fsync(fd) != 0); /* the data before the rename that publishes it */
        failed |= fclose(f) != 0;
        failed = failed || (!in_place && rename(tmp, path) != 0);
        if (!failed && !in_place)
            sync_dir_of(path);
    } else if (fd >= 0) {
        close(fd);
    }
    if (failed) {
        fprintf(stderr, "locklab: cannot write the profile to '%s': %s\n", path, strerror(errno));
        if (fd >= 0 && !in_place)
            unlink(tmp);
    }
}

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
    uint64_t totals[3] = {0, 0, 0}; /* passthrough objects, acquisitions, contended */
    size_t i = 0;
    for (lp_profile *p = (lp_profile *)ll_load_acquire(&lp_all_profiles); p && i < n; p = p->next) { /* acquire: as above */
        if (p->kind == NULL)
            continue;
        summarize(p, &rows[i]);
        totals[0] += p->passthrough;
        totals[1] += rows[i].acquisitions;
        totals[2] += rows[i].contended;
        i++;
    }
    n = i; /* records retired since the count */
    if (n)
        qsort(rows, n, sizeof *rows, by_wait_then_acquisitions);
    size_t listed = report_top == 0 || (size_t)report_top > n ? n : (size_t)report_top;
    if (strcmp(path, "-") == 0) {
        FILE *f = stderr_copy >= 0 ? fdopen(dup(stderr_copy), "w") : NULL;
        if (f) {
            print_report(f, rows, n, listed, totals);
            fclose(f);
        }
    } else {
        write_file(path, rows, n, listed, totals);
    }
    if (rows)
        munmap(rows, n * sizeof(lp_row));
}

/* The report path with every "%p" replaced by the process id. */
static void expand_path(char *out, size_t len)
{
    size_t o = 0;
    for (const char *c = report_path; *c && o + 1 < len; c++) {
        if (c[0] == '%' && c[1] == 'p') {
            o += (size_t)snprintf(out + o, len - o, "%d", (int)getpid());
            c++;
        } else {
            out[o++] = *c;
        }
    }
    out[o < len ? o : len - 1] = '\0';
}

void lp_profile_snapshot(void)
{
    if (ll_xchg(&lp_snapshot_requested, 0, LL_RELAXED) == 0) /* relaxed: one thread claims the request */
        return;
    unsigned k = ll_faa(&snapshots_written, 1, LL_RELAXED) + 1; /* relaxed: numbering only */
    char path[4096];
    expand_path(path, sizeof path);
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
    expand_path(path, sizeof path);
    if (getpid() != start_pid && strcmp(report_path, "-") != 0 && !strstr(report_path, "%p"))
        snprintf(path + strlen(path), sizeof path - strlen(path), ".%d", (int)getpid()); /* a fork()ed child */
    write_report(path);
}
