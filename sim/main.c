/*
 * locklab-sim: the execution-driven simulator (docs/simulator.md).
 *
 *   locklab-sim WORKLOAD --lock SPEC --threads N --machine DESC|PRESET --duration SIM_SECONDS
 *               [--seed N] [--json] [--param KEY=VALUE]... [--runs R]
 *   locklab-sim --explore N --lock SPEC|BROKEN [--threads N] [--machine M] [--seed N]
 *               [--acquisitions K] [--explore-steps S] [--expect-fail] [--verbose]
 *   locklab-sim --list | --list-presets | --workloads | --help
 *
 * WORKLOAD: mutexbench, randarray (locklab-bench's parameters).  The lock sources
 * run unchanged against the simulator's atomics backend; the output (--json) is
 * locklab-bench's JSON contract plus "simulated", "machine", "seed", "sim_events",
 * "sim_mem_ops", "sim_events_per_s" and "host_seconds".  Runs r = 0.. use seeds
 * seed + r.  Exit: 0, 1 (a run hung, deadlocked or violated mutual exclusion),
 * 2 bad input.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore.h"
#include "locklab/registry.h"
#include "locklab/rwlock.h"
#include "simwl.h"

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "locklab-sim: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static double host_clock(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double parse_num(const char *opt, const char *v, double lo, double hi, bool integer)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!v[0] || *end || errno || !(x >= lo && x <= hi) || (integer && x != floor(x)))
        die("bad value '%s' for %s (valid: %s in %.15g..%.15g)", v, opt, integer ? "an integer" : "a number", lo, hi);
    return x;
}

static const sim_workload *find_workload(const char *name)
{
    char valid[256] = "";
    for (const sim_workload *w = sim_workloads; w->bench; w++) {
        if (strcmp(w->bench->name, name) == 0)
            return w;
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", valid[0] ? ", " : "", w->bench->name);
    }
    die("unknown workload '%s' (valid: %s)", name, valid);
    return NULL;
}

/* --param KEY=VALUE against the workload's table (locklab-bench's rules); defaults for the rest. */
static void apply_params(const sim_workload *w, char **given, int ngiven, double *values)
{
    char valid[512] = "";
    int n = 0, seen[BENCH_MAX_PARAMS] = {0};
    for (const bench_param *p = w->bench->params; p && p->key; p++) {
        values[n++] = p->def;
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", valid[0] ? ", " : "", p->key);
    }
    for (int g = 0; g < ngiven; g++) {
        const char *eq = strchr(given[g], '=');
        if (!eq || eq == given[g])
            die("malformed --param '%s' (valid: KEY=VALUE with KEY one of: %s)", given[g], valid);
        int i = 0;
        const bench_param *p = w->bench->params;
        for (; p->key; p++, i++)
            if (strlen(p->key) == (size_t)(eq - given[g]) && strncmp(p->key, given[g], (size_t)(eq - given[g])) == 0)
                break;
        if (!p->key)
            die("%s has no parameter '%.*s' (valid: %s)", w->bench->name, (int)(eq - given[g]), given[g], valid);
        if (seen[i]++)
            die("--param %s given twice (valid: each KEY once)", p->key);
        char opt[80];
        snprintf(opt, sizeof opt, "--param %s", p->key);
        values[i] = parse_num(opt, eq + 1, p->min, p->max, p->integer);
    }
}

/* locklab-bench's JSON (bench/json.c) and the simulator's keys. */
static void print_json(const wl_run *r, const sim_config *cfg, const bench_config *bc, bool oversubscribed,
                       const bench_result *res, const fairness *f, double host_s, double cpu_s)
{
    char topology[32];
    snprintf(topology, sizeof topology, "sockets=%d", cfg->machine->sockets);
    bench_print_json_fields(bc, res, f, oversubscribed, topology);
    printf(",\"simulated\":true,\"machine\":");
    sim_machine_json(cfg->machine, stdout);
    printf(",\"seed\":%llu,\"sim_events\":%llu,\"sim_mem_ops\":%llu,\"sim_events_per_s\":%.0f,\"host_seconds\":%.3f,"
           "\"host_cpu_seconds\":%.3f",
           (unsigned long long)cfg->seed, (unsigned long long)r->stats.events, (unsigned long long)r->stats.mem_ops,
           host_s > 0 ? r->stats.events / host_s : 0, host_s, cpu_s);
    printf(",\"sim_outcome\":\"%s\"}\n", r->outcome == SIM_DONE ? "done" : r->outcome == SIM_DEADLOCK ? "deadlock"
                                                                                                 : "no_progress");
    fflush(stdout);
}

static void print_spec(const char *spec, void *arg)
{
    (void)arg;
    printf("%s\n", spec);
}

static void usage(void)
{
    printf("usage: locklab-sim WORKLOAD --lock SPEC --threads N --machine DESC|PRESET --duration SIM_SECONDS\n"
           "                   [--seed N] [--json] [--param KEY=VALUE]... [--runs R]\n"
           "       locklab-sim --explore N --lock SPEC|BROKEN [--threads N] [--machine M] [--seed N]\n"
           "                   [--acquisitions K] [--explore-steps S] [--expect-fail] [--verbose]\n"
           "       locklab-sim --list | --list-presets | --workloads\n"
           "DESC: PRESET | [PRESET,]sockets=S,cores=C[,smt=K,hit=NS,local=NS,remote=NS,rmw=NS,pause=NS,llc_ns=NS,\n"
           "      mem=NS,step=NS,syscall=NS,spinq=NS,l2=KB,llc=MB,slice=US,wake=US,switch=US]  (docs/simulator.md)\n");
}

int main(int argc, char **argv)
{
    const char *wname = NULL, *lock = NULL, *machine_desc = "this";
    char *params[BENCH_MAX_PARAMS * 2];
    int nparams = 0, threads = 1, runs = 1;
    double duration = 0.01;
    uint64_t seed = 1;
    bool json = false, expect_fail = false, verbose = false, threads_given = false;
    unsigned explore = 0, acquisitions = 3;
    uint64_t explore_steps = 200000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = strcmp(a, "--lock") == 0 || strcmp(a, "--threads") == 0 || strcmp(a, "--machine") == 0 ||
                     strcmp(a, "--duration") == 0 || strcmp(a, "--seed") == 0 || strcmp(a, "--param") == 0 ||
                     strcmp(a, "--runs") == 0 || strcmp(a, "--explore") == 0 || strcmp(a, "--acquisitions") == 0 ||
                     strcmp(a, "--explore-steps") == 0;
        if (takes && !v)
            die("%s needs a value (see --help)", a);
        if (strcmp(a, "--lock") == 0)
            lock = argv[++i];
        else if (strcmp(a, "--threads") == 0) {
            threads = (int)parse_num(a, argv[++i], 1, SIM_MAX_THREADS, true);
            threads_given = true;
        } else if (strcmp(a, "--machine") == 0)
            machine_desc = argv[++i];
        else if (strcmp(a, "--duration") == 0)
            duration = parse_num(a, argv[++i], 1e-6, 3600, false);
        else if (strcmp(a, "--seed") == 0)
            seed = (uint64_t)parse_num(a, argv[++i], 0, 9007199254740992.0, true);
        else if (strcmp(a, "--param") == 0) {
            if (nparams == BENCH_MAX_PARAMS * 2)
                die("too many --param (valid: at most %d)", BENCH_MAX_PARAMS * 2);
            params[nparams++] = argv[++i];
        } else if (strcmp(a, "--runs") == 0)
            runs = (int)parse_num(a, argv[++i], 1, 1000, true);
        else if (strcmp(a, "--explore") == 0)
            explore = (unsigned)parse_num(a, argv[++i], 1, 1e9, true);
        else if (strcmp(a, "--acquisitions") == 0)
            acquisitions = (unsigned)parse_num(a, argv[++i], 1, 1000, true);
        else if (strcmp(a, "--explore-steps") == 0)
            explore_steps = (uint64_t)parse_num(a, argv[++i], 100, 1e12, true);
        else if (strcmp(a, "--json") == 0)
            json = true;
        else if (strcmp(a, "--expect-fail") == 0)
            expect_fail = true;
        else if (strcmp(a, "--verbose") == 0)
            verbose = true;
        else if (strcmp(a, "--list") == 0) {
            ll_lock_list(print_spec, NULL);
            return 0;
        } else if (strcmp(a, "--list-presets") == 0) {
            sim_machine_list_presets(stdout);
            return 0;
        } else if (strcmp(a, "--workloads") == 0) {
            for (const sim_workload *w = sim_workloads; w->bench; w++)
                printf("%-16s %s\n", w->bench->name, w->bench->summary);
            return 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            return 0;
        } else if (a[0] == '-' || wname)
            die("bad argument '%s' (valid: WORKLOAD, --lock, --threads, --machine, --duration, --seed, --json, --param, "
                "--runs, --explore, --acquisitions, --explore-steps, --expect-fail, --verbose, --list, --list-presets, "
                "--workloads, --help)", a);
        else
            wname = a;
    }
    char err[1024];
    sim_machine m;
    if (sim_machine_parse(machine_desc, &m, err, sizeof err) != 0)
        die("%s", err);
    sim_env_machine = &m;
    if (!lock)
        die("no --lock given (valid: a locklab-bench spec, see locklab-bench --list)");
    if (explore) {
        explore_options o = {lock, &m, threads_given ? threads : 3, explore, acquisitions, seed, explore_steps,
                             expect_fail, verbose};
        if (o.threads < 2)
            die("bad value '%d' for --threads with --explore (valid: 2..%d)", o.threads, SIM_MAX_THREADS);
        return sim_explore(&o);
    }
    if (!wname)
        die("no workload given (valid: see --workloads)");
    const sim_workload *w = find_workload(wname);
    double values[BENCH_MAX_PARAMS];
    apply_params(w, params, nparams, values);
    ll_spec spec;
    if (w->rwlock ? ll_rwlock_spec_parse(lock, &spec, err, sizeof err) : ll_spec_parse(lock, &spec, err, sizeof err))
        die("%s", err);
    int status = 0;
    for (int run = 0; run < runs; run++) {
        ll_lock *l = w->rwlock ? NULL : ll_lock_create(lock, err, sizeof err);
        if (!l && !w->rwlock)
            die("%s", err);
        const char *lname = l ? ll_lock_name(l) : lock;
        wl_run r;
        memset(&r, 0, sizeof r);
        r.workload = w;
        r.machine = &m;
        r.lock = l;
        r.spec = lock;
        r.param = values;
        uint64_t end_ps = (uint64_t)(duration * 1e12);
        /* after the interval, the threads must leave within 10x the interval (at least 1 simulated s) */
        uint64_t drain_ps = end_ps * 10 > 1000000000000ull ? end_ps * 10 : 1000000000000ull;
        sim_config cfg = {&m, threads, seed + (uint64_t)run, end_ps, drain_ps, false, 0};
        bench_result res;
        double t0 = host_clock(CLOCK_MONOTONIC), c0 = host_clock(CLOCK_THREAD_CPUTIME_ID);
        if (sim_workload_run(&r, &cfg, &res) != 0) {
            fprintf(stderr, "locklab-sim: out of memory\n");
            return 1;
        }
        double host_s = host_clock(CLOCK_MONOTONIC) - t0, cpu_s = host_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
        fairness f;
        fairness_compute(res.admissions, res.logged, res.per_thread_ops, threads, res.thread_socket, &f);
        bool over = l && ll_lock_never_parks(l) && threads > sim_machine_hwthreads(&m);
        if (json) {
            bench_config bc = {w->bench->name, w->bench->params, lname, l ? ll_lock_spin_ns(l) : 0, threads, duration,
                               {0}, 1};
            memcpy(bc.param, values, sizeof values);
            print_json(&r, &cfg, &bc, over, &res, &f, host_s, cpu_s);
        } else {
            printf("%s lock=%s threads=%d machine=%s simulated=%.6fs ops=%llu throughput=%.0f ops/s\n", w->bench->name,
                   lname, threads, m.name, res.wall_s, (unsigned long long)res.ops, res.ops / res.wall_s);
            printf("  fairness_factor=%.4f gini=%.4f vcsw=%ld ivcsw=%ld cpu_util=%.2f exclusion=%s\n",
                   f.fairness_factor, f.gini, res.vcsw, res.ivcsw, res.cpu_s / res.wall_s,
                   res.exclusion_ok ? "ok" : "VIOLATED");
            printf("  host %.3fs (CPU %.3fs), %llu events, %llu memory operations (%.3g per CPU second)\n", host_s,
                   cpu_s, (unsigned long long)r.stats.events, (unsigned long long)r.stats.mem_ops,
                   cpu_s > 0 ? r.stats.mem_ops / cpu_s : 0);
        }
        if (r.outcome != SIM_DONE) {
            fprintf(stderr, "locklab-sim: %s under %s: %s (%d threads had not finished %.3g simulated seconds after "
                            "the interval)\n", w->bench->name, lname,
                    r.outcome == SIM_DEADLOCK ? "deadlock, threads blocked for ever" : "no progress",
                    r.stats.blocked, (double)drain_ps / 1e12);
            status = 1;
        }
        if (!res.exclusion_ok) {
            fprintf(stderr, "locklab-sim: MUTUAL EXCLUSION VIOLATED under %s\n", lname);
            status = 1;
        }
        bench_result_free(&res);
        /* the lock is not destroyed: a run cut short may leave threads inside it */
    }
    return status;
}
