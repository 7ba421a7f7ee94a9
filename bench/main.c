/*
 * locklab-bench — one measurement, or a side-by-side comparison.
 *
 *   locklab-bench --list [--verbose]
 *   locklab-bench --version      ("locklab VERSION", as `locklab --version`)
 *   locklab-bench --workloads
 *   locklab-bench WORKLOAD --lock SPEC [--lock SPEC ...] --threads N --duration S [--runs R]
 *                 [--param KEY=VALUE ...] [--json]
 *
 * With one --lock and --runs 1 it prints one result (one JSON object with
 * --json).  With several locks and/or runs, the runs are interleaved (run 1 of
 * every lock, then run 2, ...) so that machine noise hits all locks alike, and
 * a table of medians with min..max and the ratio to the first lock follows
 * (with --json: one JSON object per run, one per line).
 * Bad arguments: one line naming the value and the valid choices, exit 2.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "locklab/registry.h"
#include "locklab/rwlock.h"

#define MAX_LOCKS 64
#define MAX_THREADS 4096

static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "locklab-bench: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(2);
}

static void print_rw_spec(const char *spec, void *arg)
{
    (void)arg;
    printf("%s\n", spec);
}

static void print_spec(const char *spec, void *arg)
{
    int verbose = *(int *)arg;
    if (!verbose) {
        printf("%s\n", spec);
        return;
    }
    ll_spec s;
    char err[512];
    ll_spec_parse(spec, &s, err, sizeof err);
    char caps[128];
    printf("%-16s fifo=%-3s lock_bytes=%-5zu waiter_bytes=%-3zu caps=%s keys=", spec,
           strcmp(s.ops->fairness, "FIFO") == 0 ? "yes" : "no", s.ops->lock_bytes, s.ops->waiter_bytes,
           ll_lock_caps_format(s.ops->caps, caps, sizeof caps));
    int any = 0;
    for (const ll_param *p = s.ops->params; p && p->key; p++, any = 1)
        printf("%s%s[%llu..%llu,default %llu]", any ? "," : "", p->key, (unsigned long long)p->min,
               (unsigned long long)p->max, (unsigned long long)p->def);
    if (s.policy->has_budget)
        printf("%sspin_ns[default: measured park cost]", any++ ? "," : "");
    printf("%s  # %s; fairness: %s; source: %s\n", any ? "" : "-", s.ops->summary, s.ops->fairness, s.ops->source);
}

static const workload *find_workload(const char *name)
{
    for (int i = 0; workloads[i]; i++)
        if (strcmp(workloads[i]->name, name) == 0)
            return workloads[i];
    char valid[256] = "";
    for (int i = 0; workloads[i]; i++) {
        strcat(valid, i ? ", " : "");
        strcat(valid, workloads[i]->name);
    }
    die("unknown workload '%s' (valid: %s)", name, valid);
    return NULL;
}

/* A named parameter's valid names, comma separated. */
static const char *list_choices(const bench_param *p, char *buf, size_t len)
{
    buf[0] = '\0';
    bench_names_fn names = bench_param_names(p->key);
    for (unsigned i = 0; names(i); i++) {
        strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, names(i), len - strlen(buf) - 1);
    }
    return buf;
}

static void print_workloads(void)
{
    for (int i = 0; workloads[i]; i++) {
        printf("%-16s %s\n", workloads[i]->name, workloads[i]->summary);
        for (const bench_param *p = workloads[i]->params; p && p->key; p++) {
            if (bench_param_names(p->key)) {
                char valid[512];
                printf("  --param %s=%s  (one of: %s) %s\n", p->key, bench_param_names(p->key)((unsigned)p->def),
                       list_choices(p, valid, sizeof valid), p->help);
                continue;
            }
            printf("  --param %s=%.15g  (%.15g..%.15g%s) %s\n", p->key, p->def, p->min, p->max, p->integer ? ", integer" : "",
                   p->help);
        }
    }
}

/* --param KEY=VALUE against the workload's table; defaults for the rest. */
static void apply_params(const workload *w, const char *const *given, int ngiven, double *values)
{
    int n = 0, seen[BENCH_MAX_PARAMS] = {0};
    for (const bench_param *p = w->params; p && p->key; p++)
        values[n++] = p->def;
    for (int g = 0; g < ngiven; g++) {
        const char *eq = strchr(given[g], '=');
        char valid[512] = "";
        for (const bench_param *p = w->params; p && p->key; p++) {
            strcat(valid, valid[0] ? ", " : "");
            strncat(valid, p->key, sizeof valid - strlen(valid) - 3);
        }
        if (!eq || eq == given[g])
            die("malformed --param '%s' (valid: KEY=VALUE with KEY one of: %s)", given[g], valid[0] ? valid : "none");
        int i = 0;
        const bench_param *p = w->params;
        for (; p && p->key; p++, i++)
            if (strlen(p->key) == (size_t)(eq - given[g]) && strncmp(p->key, given[g], (size_t)(eq - given[g])) == 0)
                break;
        if (!p || !p->key) {
            char why[600];
            snprintf(why, sizeof why, "%s has no parameter '%%.%ds' (valid: %%s)", w->name, (int)(eq - given[g]));
            fprintf(stderr, "locklab-bench: ");
            fprintf(stderr, why, given[g], valid[0] ? valid : "none");
            fputc('\n', stderr);
            exit(2);
        }
        if (seen[i]++)
            die("--param %s given twice (valid: each KEY once)%s", p->key, "");
        bench_names_fn names = bench_param_names(p->key);
        if (names) {
            unsigned c = 0;
            while (names(c) && strcmp(names(c), eq + 1) != 0)
                c++;
            if (!names(c)) {
                char names[512];
                fprintf(stderr, "locklab-bench: bad value '%s' for --param %s (valid: %s)\n", eq + 1, p->key,
                        list_choices(p, names, sizeof names));
                exit(2);
            }
            values[i] = c;
            continue;
        }
        char *end;
        errno = 0;
        double x = strtod(eq + 1, &end);
        if (eq[1] == '\0' || *end || errno || !(x >= p->min && x <= p->max) || (p->integer && x != (double)(long long)x)) {
            fprintf(stderr, "locklab-bench: bad value '%s' for --param %s (valid: %s in %.15g..%.15g)\n", eq + 1, p->key,
                    p->integer ? "an integer" : "a number", p->min, p->max);
            exit(2);
        }
        values[i] = x;
    }
}

static long parse_int(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (v[0] == '\0' || *end || errno || x < lo || x > hi) {
        char range[64];
        snprintf(range, sizeof range, "an integer in %ld..%ld", lo, hi);
        fprintf(stderr, "locklab-bench: bad value '%s' for %s (valid: %s)\n", v, opt, range);
        exit(2);
    }
    return x;
}

static double parse_seconds(const char *opt, const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (v[0] == '\0' || *end || errno || !(x >= 0.001 && x <= 3600))
        die("bad value '%s' for %s (valid: seconds in 0.001..3600)", v, opt);
    return x;
}

/* A lock that never parks, run by more threads than the CPUs this process may use:
 * handovers can wait for a preempted spinner (a time slice each).  Such rows are
 * marked (JSON key spinning_oversubscribed, a line in the human output, "!" in tables). */
static bool spinning_oversubscribed(const ll_lock *lock, int threads)
{
    return lock && ll_lock_never_parks(lock) && threads > ll_cpus_available();
}
#define OVERSUBSCRIBED_NOTE "never parks, more threads than CPUs: handovers may wait a time slice"

static void print_json(const bench_config *cfg, const bench_result *r, const fairness *f, bool oversubscribed)
{
    bench_print_json_fields(cfg, r, f, oversubscribed, ll_topology_describe());
    printf("}\n");
    fflush(stdout);
}

static void print_human(const bench_config *cfg, const bench_result *r, const fairness *f, bool oversubscribed)
{
    char num[64];
    printf("%s lock=%s threads=%d duration=%.3fs ops=%llu throughput=%.0f ops/s\n", cfg->workload, cfg->lock_spec,
           cfg->threads, r->wall_s, (unsigned long long)r->ops, r->ops / r->wall_s);
    if (r->ns_per_pair > 0)
        printf("  ns per acquire+release pair: %.2f\n", r->ns_per_pair);
    if (r->logged == 0)
        printf("  lwss, mttr, socket_switches: no admissions recorded\n  gini=%.4f rstddev=%.4f fairness_factor=%.4f"
               " max/min=%.2f\n", f->gini, f->rstddev, f->fairness_factor, f->max_min_ratio);
    else
        printf("  lwss=%.2f mttr=%.1f gini=%.4f rstddev=%.4f fairness_factor=%.4f max/min=%.2f"
               " socket_switches=%.1f/1000\n", f->lwss, f->mttr, f->gini, f->rstddev, f->fairness_factor,
               f->max_min_ratio, f->socket_switches);
    for (int i = 0; i < r->nextra; i++)
        printf("%s%s=%s%s", i ? " " : "  ", r->extra[i].name, bench_format_extra(r->extra[i].value, num, sizeof num),
               i + 1 == r->nextra ? "\n" : "");
    if (cfg->spin_ns)
        printf("  spin budget: %llu ns\n", cfg->spin_ns);
    printf("  vcsw=%ld ivcsw=%ld cpu_util=%.2fx exclusion=%s\n", r->vcsw, r->ivcsw, r->cpu_s / r->wall_s,
           r->exclusion_ok ? "ok" : "VIOLATED");
    if (oversubscribed)
        printf("  ! %s (%d threads, %d CPUs)\n", OVERSUBSCRIBED_NOTE, cfg->threads, ll_cpus_available());
}

typedef struct summary { double value[256], max_min[256], vcsw_per_op[256]; int n; } summary;

static void median_spread(const double *v, int n, double *med, double *lo, double *hi)
{
    double tmp[256];
    memcpy(tmp, v, (size_t)n * sizeof *v);
    *med = median_of(tmp, (size_t)n);
    *lo = tmp[0];
    *hi = tmp[n - 1];
}

int main(int argc, char **argv)
{
    const char *locks[MAX_LOCKS], *params[BENCH_MAX_PARAMS * 4];
    int nparams = 0, nlocks = 0, threads = 1, runs = 1, json = 0, list = 0, verbose = 0, list_workloads = 0, waits = 0;
    double duration = 1.0;
    const char *wname = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0)
            list = 1;
        else if (strcmp(a, "--list-rwlocks") == 0)
            list = 2;
        else if (strcmp(a, "--workloads") == 0)
            list_workloads = 1;
        else if (strcmp(a, "--verbose") == 0)
            verbose = 1;
        else if (strcmp(a, "--json") == 0)
            json = 1;
        else if (strcmp(a, "--waits") == 0)
            waits = 1;
        else if (strcmp(a, "--version") == 0) {
            printf("locklab %s\n", ll_version());
            return 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: locklab-bench --list [--verbose] | --list-rwlocks\n"
                   "       locklab-bench --version\n"
                   "       locklab-bench --workloads\n"
                   "       locklab-bench WORKLOAD --lock SPEC [--lock SPEC ...] [--threads N] [--duration S]"
                   " [--runs R] [--param KEY=VALUE ...] [--waits] [--json]\n");
            return 0;
        } else if (strcmp(a, "--lock") == 0 || strcmp(a, "--threads") == 0 || strcmp(a, "--duration") == 0 ||
                   strcmp(a, "--runs") == 0 || strcmp(a, "--param") == 0) {
            if (!next)
                die("option %s needs a value%s", a, "");
            i++;
            if (strcmp(a, "--lock") == 0) {
                if (nlocks == MAX_LOCKS)
                    die("too many --lock options (max %s)%s", "64", "");
                locks[nlocks++] = next;
            } else if (strcmp(a, "--param") == 0) {
                if (nparams == BENCH_MAX_PARAMS * 4)
                    die("too many --param options (max %s)%s", "64", "");
                params[nparams++] = next;
            } else if (strcmp(a, "--threads") == 0)
                threads = (int)parse_int(a, next, 1, MAX_THREADS);
            else if (strcmp(a, "--runs") == 0)
                runs = (int)parse_int(a, next, 1, 256);
            else
                duration = parse_seconds(a, next);
        } else if (a[0] == '-')
            die("unknown option '%s' (valid: --list, --verbose, --workloads, --lock, --threads, --duration, --runs, "
                "--param, --waits, --json%s)", a, ", --list-rwlocks, --version, --help");
        else if (!wname)
            wname = a;
        else
            die("unexpected argument '%s' (workload already given as '%s')", a, wname);
    }
    char err[1024];
    if (ll_topology_init_from_env(err, sizeof err) != 0) {
        fprintf(stderr, "locklab-bench: %s\n", err);
        return 2;
    }
    if (list == 2) {
        ll_rwlock_list(print_rw_spec, NULL);
        return 0;
    }
    if (list) {
        ll_lock_list(print_spec, &verbose);
        return 0;
    }
    if (list_workloads) {
        print_workloads();
        return 0;
    }
    if (!wname)
        die("no workload given (valid: see --workloads; or --list)%s%s", "", "");
    const workload *w = find_workload(wname);
    double param_values[BENCH_MAX_PARAMS];
    apply_params(w, params, nparams, param_values);
    if (nlocks == 0)
        die("no --lock given (see --list for valid specs)%s%s", "", "");
    ll_lock *handles[MAX_LOCKS];
    static char rw_names[MAX_LOCKS][128];
    bool rw = strcmp(w->name, "rwbench") == 0; /* its --lock specs are rwlock specs (rwlock.h) */
    for (int l = 0; l < nlocks; l++) {
        if (rw) {
            ll_spec s;
            if (ll_rwlock_spec_parse(locks[l], &s, err, sizeof err) != 0) {
                fprintf(stderr, "locklab-bench: %s\n", err);
                return 2;
            }
            snprintf(rw_names[l], sizeof rw_names[l], "%s", s.name);
            handles[l] = NULL;
            continue;
        }
        handles[l] = ll_lock_create(locks[l], err, sizeof err);
        if (!handles[l]) {
            fprintf(stderr, "locklab-bench: %s\n", err);
            return 2;
        }
    }
    static summary sums[MAX_LOCKS];
    int violated = 0;
    for (int r = 0; r < runs; r++) {
        for (int l = 0; l < nlocks; l++) {
            bench_config cfg = {w->name, w->params, rw ? rw_names[l] : ll_lock_name(handles[l]),
                                rw ? 0 : ll_lock_spin_ns(handles[l]), threads, duration, {0}, waits};
            memcpy(cfg.param, param_values, sizeof param_values);
            cfg.waits = waits;
            bench_result res;
            int rc = w->run(handles[l], &cfg, &res);
            if (rc == BENCH_REFUSED) /* the workload printed its one line */
                return 2;
            if (rc != 0) {
                fprintf(stderr, "locklab-bench: out of memory\n");
                return 1;
            }
            fairness f;
            fairness_compute(res.admissions, res.logged, res.per_thread_ops, threads, res.thread_socket, &f);
            bool oversubscribed = spinning_oversubscribed(handles[l], threads);
            if (json)
                print_json(&cfg, &res, &f, oversubscribed);
            else if (runs == 1 && nlocks == 1)
                print_human(&cfg, &res, &f, oversubscribed);
            violated |= !res.exclusion_ok;
            summary *s = &sums[l];
            s->value[s->n] = res.ns_per_pair > 0 ? res.ns_per_pair : res.ops / res.wall_s;
            s->max_min[s->n] = f.max_min_ratio;
            s->vcsw_per_op[s->n] = res.ops ? (double)res.vcsw / (double)res.ops : 0;
            s->n++;
            bench_result_free(&res);
        }
    }
    if (!json && (runs > 1 || nlocks > 1)) {
        int ns = strcmp(w->name, "uncontended") == 0;
        printf("%s, %d thread(s), %.2fs x %d run(s), interleaved; median [min..max]\n", w->name, threads, duration,
               runs);
        printf("%-28s %12s %25s %9s %12s %10s\n", "lock", ns ? "ns/pair" : "ops/s", "spread", "ratio", "max/min ops",
               "vcsw/op");
        double base = 0;
        bool marked = false;
        for (int l = 0; l < nlocks; l++) {
            double med, lo, hi, mm, mlo, mhi, vc, vlo, vhi;
            median_spread(sums[l].value, sums[l].n, &med, &lo, &hi);
            median_spread(sums[l].max_min, sums[l].n, &mm, &mlo, &mhi);
            median_spread(sums[l].vcsw_per_op, sums[l].n, &vc, &vlo, &vhi);
            if (l == 0)
                base = med;
            char spread[64];
            snprintf(spread, sizeof spread, ns ? "[%.2f..%.2f]" : "[%.3g..%.3g]", lo, hi);
            char name[160];
            bool mark = spinning_oversubscribed(handles[l], threads);
            marked |= mark;
            snprintf(name, sizeof name, "%s%s", rw ? rw_names[l] : ll_lock_name(handles[l]), mark ? " !" : "");
            printf(ns ? "%-28s %12.2f %25s %8.2fx %12.3g %10.4f\n" : "%-28s %12.4g %25s %8.2fx %12.3g %10.4f\n",
                   name, med, spread, base > 0 ? med / base : 0, mm, vc);
        }
        printf("ratio = median / median of %s\n", rw ? rw_names[0] : ll_lock_name(handles[0]));
        if (marked)
            printf("! %s (%d threads, %d CPUs)\n", OVERSUBSCRIBED_NOTE, threads, ll_cpus_available());
    }
    for (int l = 0; l < nlocks; l++)
        ll_lock_destroy(handles[l]);
    if (violated) {
        fprintf(stderr, "locklab-bench: MUTUAL EXCLUSION VIOLATED (admission counter mismatch)\n");
        return 3;
    }
    return 0;
}
