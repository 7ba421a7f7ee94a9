/*
 * Contention profiler of the interposer: per-lock statistics in the spirit of
 * mutrace and Linux lock_stat, plus fairness (per-thread shares, LWSS, MTTR).
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
 * LP_TRACKED_THREADS threads (later threads share one overflow slot), LWSS as
 * the mean number of distinct threads per window of 1000 admissions (as in
 * bench/metrics.c), MTTR as the median of the admissions between a thread's
 * consecutive admissions, from a histogram.
 *
 * Histograms are log-linear (4 sub-buckets per power of two): percentiles are
 * the upper bound of their bucket, at most 25% above the true value.
 *
 * Parks and wakes are the futex waits and wakes of the thread (ll_futex_counts),
 * attributed to the lock being acquired (waits since the thread's previous
 * profiler event) and to the lock it released last (wakes).
 */
#define _GNU_SOURCE
#include "profile.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "locklab/core.h"

#define LP_HIST_BUCKETS 256
#define LP_TRACKED_THREADS 256 /* thread ids 1..255 tracked, 0 = overflow */
#define LP_LWSS_WINDOW 1000

typedef struct lp_thread_share {
    uint64_t admissions;
    uint64_t last_admission; /* admission number of its previous admission + 1, 0 = none */
    uint64_t window_seen;    /* last LWSS window it was counted in + 1 */
} lp_thread_share;

typedef struct lp_detail {
    uint64_t wait_hist[LP_HIST_BUCKETS];
    uint64_t hold_hist[LP_HIST_BUCKETS];
    uint64_t mttr_hist[LP_HIST_BUCKETS];
    lp_thread_share share[LP_TRACKED_THREADS];
    uint64_t admissions; /* since the detail exists */
    uint64_t reacquisitions; /* samples in mttr_hist */
    uint64_t window_distinct, windows_done, distinct_sum;
} lp_detail;

struct lp_profile {
    lp_profile *next; /* list of every record (push-only) */
    const void *addr;
    const char *kind, *type;
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
};

bool lp_profiling;
static const char *report_path;
static int stderr_copy = -1; /* for "-": our own copy of fd 2, in case the program closes stderr before we report */
static bool report_json;
static long report_top = 20;
static int snapshot_signal;
static ll_atomic_u32 snapshot_requested;
static ll_atomic_u32 snapshots_written;
static ll_atomic_ptr all_profiles;
static ll_atomic_u32 next_thread_id;
static ll_atomic_u32 exit_report_done;
static uint64_t start_ns;
static pid_t start_pid;
static char config_lock[128] = "(not set)", config_cond[64] = "(not set)", config_sem[64] = "(not set)";

static __thread uint32_t my_id __attribute__((tls_model("initial-exec")));
static __thread uint64_t seen_waits __attribute__((tls_model("initial-exec")));
static __thread uint64_t seen_wakes __attribute__((tls_model("initial-exec")));
static __thread lp_profile *last_released __attribute__((tls_model("initial-exec")));

/* ---- memory: mmap-backed bump arena (no malloc: we may run inside it) ---- */

static ll_atomic_u32 arena_guard;
static char *arena_next, *arena_end;

static void *arena_alloc(size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    while (ll_xchg(&arena_guard, 1, LL_ACQUIRE) != 0) /* acquire: enter the arena's critical section */
        ll_pause();
    if ((size_t)(arena_end - arena_next) < bytes) {
        size_t chunk = bytes > (1u << 20) ? bytes : (1u << 20);
        void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            ll_store_release(&arena_guard, 0); /* release: leave the critical section */
            return NULL;
        }
        arena_next = (char *)p;
        arena_end = arena_next + chunk;
    }
    void *r = arena_next;
    arena_next += bytes;
    ll_store_release(&arena_guard, 0); /* release: leave the critical section */
    return r; /* zeroed: fresh anonymous memory */
}

/* ---- configuration ---- */

static int bad_env(const char *var, const char *value, const char *valid)
{
    fprintf(stderr, "locklab: bad %s '%s' (valid: %s)\n", var, value, valid);
    return -1;
}

static void on_snapshot_signal(int sig)
{
    (void)sig;
    ll_store_relaxed(&snapshot_requested, 1); /* relaxed: polled by the next profiled acquisition */
}

int lp_profile_init(void)
{
    const char *path = getenv("LOCKLAB_PROFILE");
    const char *format = getenv("LOCKLAB_PROFILE_FORMAT");
    const char *top = getenv("LOCKLAB_PROFILE_TOP");
    const char *sig = getenv("LOCKLAB_PROFILE_SIGNAL");
    if (!path)
        return 0;
    if (path[0] == '\0' || strchr(path, '\n'))
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
        if (top[0] == '\0' || *end || errno || n < 0 || n > 1000000)
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
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_snapshot_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(snapshot_signal, &sa, NULL);
    }
    report_path = path;
    if (strcmp(path, "-") == 0)
        stderr_copy = fcntl(2, F_DUPFD_CLOEXEC, 10);
    start_ns = ll_now_ns();
    start_pid = getpid();
    lp_profiling = true;
    atexit(lp_profile_write);
    return 0;
}

void lp_profile_set_config(const char *lock_spec, const char *cond, const char *sem)
{
    snprintf(config_lock, sizeof config_lock, "%s", lock_spec ? lock_spec : "(default)");
    snprintf(config_cond, sizeof config_cond, "%s", cond ? cond : "(default)");
    snprintf(config_sem, sizeof config_sem, "%s", sem ? sem : "(default)");
}

/* ---- recording ---- */

static unsigned hist_bucket(uint64_t v)
{
    if (v < 8)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* v in [2^e, 2^(e+1)), e >= 3 */
    return e * 4 + (unsigned)((v >> (e - 2)) & 3);
}

/* Upper bound of a bucket's values. */
static uint64_t hist_upper(unsigned b)
{
    if (b < 8)
        return b;
    unsigned e = b / 4, sub = b % 4;
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

static uint32_t thread_id(void)
{
    if (LL_UNLIKELY(my_id == 0))
        my_id = ll_faa(&next_thread_id, 1, LL_RELAXED) + 1; /* relaxed: only uniqueness matters */
    return my_id;
}

/* Futex waits since this thread's previous event go to p (may be NULL); wakes to the lock it released last. */
static uint64_t take_parks(void)
{
    uint64_t waits, wakes;
    ll_futex_counts(&waits, &wakes);
    uint64_t parks = waits - seen_waits;
    if (wakes != seen_wakes && last_released)
        ll_faa(&last_released->wakes, wakes - seen_wakes, LL_RELAXED); /* relaxed: a statistic */
    seen_waits = waits;
    seen_wakes = wakes;
    return parks;
}

static void maybe_snapshot(void);

lp_profile *lp_profile_new(const void *addr, const char *kind, const char *type, bool passthrough, void *caller_pc)
{
    lp_profile *p = (lp_profile *)arena_alloc(sizeof *p);
    if (!p)
        return NULL;
    p->addr = addr;
    p->kind = kind;
    p->type = type;
    p->passthrough = passthrough;
    p->caller = caller_pc;
    void *head = ll_load_relaxed(&all_profiles); /* relaxed: the CAS below publishes */
    do
        p->next = (lp_profile *)head;
    while (!ll_cas(&all_profiles, &head, p, LL_RELEASE)); /* release: p's fields before the report walks it */
    return p;
}

static lp_detail *detail_of(lp_profile *p)
{
    lp_detail *d = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: the holder wrote it (lock orders) */
    if (LL_UNLIKELY(!d)) {
        d = (lp_detail *)arena_alloc(sizeof *d);
        ll_store_release(&p->detail, d); /* release: zeroed detail before a reporting thread reads it */
    }
    return d;
}

static void record_admission(lp_detail *d, uint32_t id)
{
    lp_thread_share *s = &d->share[id < LP_TRACKED_THREADS ? id : 0];
    uint64_t n = d->admissions++;
    s->admissions++;
    if (id < LP_TRACKED_THREADS) {
        if (s->last_admission) {
            d->mttr_hist[hist_bucket(n - s->last_admission)]++;
            d->reacquisitions++;
        }
        s->last_admission = n + 1;
        uint64_t window = n / LP_LWSS_WINDOW + 1;
        if (s->window_seen != window) {
            s->window_seen = window;
            d->window_distinct++;
        }
    }
    if ((n + 1) % LP_LWSS_WINDOW == 0) {
        d->distinct_sum += d->window_distinct;
        d->windows_done++;
        d->window_distinct = 0;
    }
}

void lp_profile_acquired(lp_profile *p, bool contended, uint64_t wait_ns)
{
    uint32_t id = thread_id();
    p->acquisitions++;
    if (p->last_owner != id) {
        p->owner_changes += p->last_owner != 0;
        p->last_owner = id;
    }
    lp_detail *d = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: written by a previous holder */
    if (contended) {
        p->contended++;
        p->wait_total_ns += wait_ns;
        if (wait_ns > p->wait_max_ns)
            p->wait_max_ns = wait_ns;
        d = detail_of(p);
        if (d)
            d->wait_hist[hist_bucket(wait_ns)]++;
        p->parks += take_parks();
    }
    if (d)
        record_admission(d, id);
    /* hold time: one acquisition in 64 (two clock reads inside the critical section are not free) */
    p->hold_started = (p->acquisitions & 63) == 0 ? ll_now_ns() : 0;
    if (LL_UNLIKELY(ll_load_relaxed(&snapshot_requested))) /* relaxed: a hint set by the signal handler */
        maybe_snapshot();
}

void lp_profile_releasing(lp_profile *p)
{
    if (p->hold_started) {
        uint64_t hold = ll_now_ns() - p->hold_started;
        p->hold_started = 0;
        p->hold_total_ns += hold;
        p->hold_samples++;
        if (hold > p->hold_max_ns)
            p->hold_max_ns = hold;
        lp_detail *d = (lp_detail *)ll_load_relaxed(&p->detail); /* relaxed: we hold the lock */
        if (d)
            d->hold_hist[hist_bucket(hold)]++;
    }
    last_released = p;
}

void lp_profile_waited(lp_profile *p, bool blocked, uint64_t wait_ns)
{
    ll_faa(&p->waits, 1, LL_RELAXED); /* relaxed: statistics, read at the report */
    if (blocked) {
        ll_faa(&p->blocked_waits, 1, LL_RELAXED);
        ll_faa(&p->wait_ns_atomic, wait_ns, LL_RELAXED);
        uint64_t max = ll_load_relaxed(&p->wait_max_atomic);
        while (wait_ns > max && !ll_cas(&p->wait_max_atomic, &max, wait_ns, LL_RELAXED)) /* relaxed: a statistic */
            ;
        ll_faa(&p->parks_atomic, take_parks(), LL_RELAXED);
    }
    if (LL_UNLIKELY(ll_load_relaxed(&snapshot_requested))) /* relaxed: a hint set by the signal handler */
        maybe_snapshot();
}

void lp_profile_trylock_failed(lp_profile *p)
{
    ll_faa(&p->trylock_failed, 1, LL_RELAXED); /* relaxed: a statistic */
}

void lp_profile_passthrough_op(lp_profile *p)
{
    ll_faa(&p->passthrough_ops, 1, LL_RELAXED); /* relaxed: a statistic */
}

/* ---- the report ---- */

typedef struct lp_row {
    lp_profile *p;
    uint64_t wait_ns; /* total, mutex holder-side or cond/sem atomic */
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
    if (d->windows_done)
        r->lwss = (double)d->distinct_sum / (double)d->windows_done;
    if (d->reacquisitions)
        r->mttr = (double)hist_percentile(d->mttr_hist, 0.5);
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
        fprintf(f, "%s\n{\"address\":\"%p\",\"kind\":\"%s\",\"type\":\"%s\",\"passthrough\":%s,\"first_use\":",
                i ? "," : "", p->addr, p->kind, p->type, p->passthrough ? "true" : "false");
        json_string(f, where);
        fprintf(f,
                ",\"acquisitions\":%llu,\"contended\":%llu,\"contended_pct\":%.3f,\"owner_changes\":%llu,"
                "\"trylock_failed\":%llu,\"passthrough_ops\":%llu,\"parks\":%llu,\"wakes\":%llu,"
                "\"wait_total_ns\":%llu,\"wait_mean_ns\":%.1f,\"wait_max_ns\":%llu,\"wait_p99_ns\":%llu,"
                "\"hold_samples\":%llu,\"hold_mean_ns\":%.1f,\"hold_max_ns\":%llu,\"hold_p99_ns\":%llu,"
                "\"threads\":%llu,\"max_thread_share\":%llu,\"min_thread_share\":%llu,",
                (unsigned long long)r->acquisitions, (unsigned long long)r->contended,
                r->acquisitions ? 100.0 * (double)r->contended / (double)r->acquisitions : 0.0,
                (unsigned long long)p->owner_changes, (unsigned long long)ll_load_relaxed(&p->trylock_failed),
                (unsigned long long)ll_load_relaxed(&p->passthrough_ops), (unsigned long long)r->parks,
                (unsigned long long)ll_load_relaxed(&p->wakes), /* relaxed (all three): statistics */
                (unsigned long long)r->wait_ns, r->contended ? (double)r->wait_ns / (double)r->contended : 0.0,
                (unsigned long long)(p->wait_max_ns > ll_load_relaxed(&p->wait_max_atomic) ? p->wait_max_ns : ll_load_relaxed(&p->wait_max_atomic)), (unsigned long long)(d ? hist_percentile(d->wait_hist, 0.99) : 0),
                (unsigned long long)p->hold_samples,
                p->hold_samples ? (double)p->hold_total_ns / (double)p->hold_samples : 0.0,
                (unsigned long long)p->hold_max_ns, (unsigned long long)(d ? hist_percentile(d->hold_hist, 0.99) : 0),
                (unsigned long long)r->threads, (unsigned long long)r->max_share, (unsigned long long)r->min_share);
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
    fprintf(f, "lock %s, cond %s, sem %s; %zu objects (%llu passed through to glibc), %llu acquisitions, "
               "%llu contended; top %zu by total wait\n",
            config_lock, config_cond, config_sem, n, (unsigned long long)totals[0], (unsigned long long)totals[1],
            (unsigned long long)totals[2], listed);
    fprintf(f, "%3s %-18s %-6s %-10s %11s %7s %9s %9s %9s %9s %9s %9s %6s %6s %7s  %s\n", "#", "address", "kind",
            "type", "acquired", "cont%", "changes", "wait", "wait_avg", "wait_p99", "hold_avg", "hold_max", "thr",
            "lwss", "max/min", "first use");
    for (size_t i = 0; i < listed; i++) {
        lp_row *r = &rows[i];
        lp_profile *p = r->p;
        lp_detail *d = (lp_detail *)ll_load_acquire(&p->detail); /* acquire: pairs with the release in detail_of */
        char w[16], wa[16], wp[16], ha[16], hm[16], lw[16], mm[16];
        fmt_ns(w, sizeof w, (double)r->wait_ns);
        fmt_ns(wa, sizeof wa, r->contended ? (double)r->wait_ns / (double)r->contended : 0);
        fmt_ns(wp, sizeof wp, d ? (double)hist_percentile(d->wait_hist, 0.99) : 0);
        fmt_ns(ha, sizeof ha, p->hold_samples ? (double)p->hold_total_ns / (double)p->hold_samples : 0);
        fmt_ns(hm, sizeof hm, (double)p->hold_max_ns);
        snprintf(lw, sizeof lw, r->lwss >= 0 ? "%.1f" : "-", r->lwss);
        snprintf(mm, sizeof mm, r->min_share ? "%.1f" : "-", r->min_share ? (double)r->max_share / (double)r->min_share : 0);
        describe_caller(p->caller, where, sizeof where);
        fprintf(f, "%3zu %-18p %-6s %-10s %11llu %6.2f%% %9llu %9s %9s %9s %9s %9s %6llu %6s %7s  %s\n", i + 1,
                p->addr, p->kind, p->passthrough ? "passthru" : p->type, (unsigned long long)r->acquisitions,
                r->acquisitions ? 100.0 * (double)r->contended / (double)r->acquisitions : 0.0,
                (unsigned long long)p->owner_changes, w, wa, wp, ha, hm, (unsigned long long)r->threads, lw, mm,
                where);
    }
}

static void write_report(const char *path)
{
    size_t n = 0;
    for (lp_profile *p = (lp_profile *)ll_load_acquire(&all_profiles); p; p = p->next) /* acquire: pairs with the CAS in lp_profile_new */
        n++;
    lp_row *rows = n ? (lp_row *)mmap(NULL, n * sizeof(lp_row), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                      -1, 0)
                     : NULL;
    if (rows == MAP_FAILED)
        return;
    uint64_t totals[3] = {0, 0, 0}; /* passthrough objects, acquisitions, contended */
    size_t i = 0;
    for (lp_profile *p = (lp_profile *)ll_load_acquire(&all_profiles); p && i < n; p = p->next, i++) { /* acquire: as above */
        summarize(p, &rows[i]);
        totals[0] += p->passthrough;
        totals[1] += rows[i].acquisitions;
        totals[2] += rows[i].contended;
    }
    if (n)
        qsort(rows, n, sizeof *rows, by_wait_then_acquisitions);
    size_t listed = report_top == 0 || (size_t)report_top > n ? n : (size_t)report_top;
    FILE *f = strcmp(path, "-") != 0 ? fopen(path, "w") : stderr_copy >= 0 ? fdopen(dup(stderr_copy), "w") : NULL;
    if (!f) {
        fprintf(stderr, "locklab: cannot write the profile to '%s': %s\n", path, strerror(errno));
    } else {
        if (report_json)
            write_json(f, rows, n, listed, totals);
        else
            write_table(f, rows, n, listed, totals);
        fclose(f);
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

static void maybe_snapshot(void)
{
    if (ll_xchg(&snapshot_requested, 0, LL_RELAXED) == 0) /* relaxed: one thread claims the request */
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
    char path[4096];
    expand_path(path, sizeof path);
    if (getpid() != start_pid && strcmp(report_path, "-") != 0 && !strstr(report_path, "%p"))
        snprintf(path + strlen(path), sizeof path - strlen(path), ".%d", (int)getpid()); /* a fork()ed child */
    write_report(path);
}
