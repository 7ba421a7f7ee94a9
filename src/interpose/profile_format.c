/*
 * The profiler's report as text: JSON (format "locklab-profile", version 1: what
 * python/locklab/profiler.py reads) or a table, from the rows profile_stats.c made.  The
 * header names the program, its run time, the CPUs, glibc and the configuration
 * (profile_config.c); each listed record its first use as symbol+offset (library) where
 * dladdr knows it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <string.h>
#include <unistd.h>

#include "profile_report.h"

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

static void write_json(FILE *f, const lp_report_rows *rs)
{
    const uint64_t *totals = rs->totals;
    char prog[512], where[512];
    program_name(prog, sizeof prog);
    fprintf(f, "{\"format\":\"locklab-profile\",\"version\":1,\"program\":");
    json_string(f, prog);
    fprintf(f, ",\"pid\":%d,\"run_time_s\":%.6f,\"cpus\":%ld,\"glibc\":\"%s\",\"lock\":", (int)getpid(),
            (double)(ll_now_ns() - lp_report.start_ns) / 1e9, sysconf(_SC_NPROCESSORS_ONLN), gnu_get_libc_version());
    json_string(f, lp_report.lock);
    fprintf(f, ",\"cond\":");
    json_string(f, lp_report.cond);
    fprintf(f, ",\"cond_morph\":");
    json_string(f, lp_report.morph);
    fprintf(f, ",\"sem\":");
    json_string(f, lp_report.sem);
    fprintf(f, ",\"objects\":%zu,\"passthrough_objects\":%llu,\"acquisitions\":%llu,\"contended\":%llu,"
               "\"listed\":%zu,\"locks\":[",
            rs->n, (unsigned long long)totals[0], (unsigned long long)totals[1], (unsigned long long)totals[2], rs->listed);
    for (size_t i = 0; i < rs->listed; i++) {
        const lp_row *r = &rs->rows[i];
        lp_profile *p = r->p;
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
                (unsigned long long)p->hold_max_ns, (unsigned long long)r->hold_p99,
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

static void write_table(FILE *f, const lp_report_rows *rs)
{
    const uint64_t *totals = rs->totals;
    char prog[512], where[512];
    program_name(prog, sizeof prog);
    fprintf(f, "locklab profile v1: %s (pid %d), %.2f s, %ld CPUs, glibc %s\n", prog, (int)getpid(),
            (double)(ll_now_ns() - lp_report.start_ns) / 1e9, sysconf(_SC_NPROCESSORS_ONLN), gnu_get_libc_version());
    fprintf(f, "lock %s, cond %s (morph %s), sem %s; %zu objects (%llu passed through to glibc), %llu acquisitions, "
               "%llu contended; top %zu by total wait\n",
            lp_report.lock, lp_report.cond, lp_report.morph, lp_report.sem, rs->n, (unsigned long long)totals[0],
            (unsigned long long)totals[1], (unsigned long long)totals[2], rs->listed);
    fprintf(f, "%3s %-18s %-6s %-10s %11s %7s %9s %9s %9s %9s %9s %9s %9s %9s %6s %6s %7s  %s\n", "#", "address",
            "kind", "type", "acquired", "cont%", "changes", "wait", "wait_avg", "wait_p99", "wait_p999", "wait_max",
            "hold_avg", "hold_max", "thr", "lwss", "max/min", "first use");
    for (size_t i = 0; i < rs->listed; i++) {
        const lp_row *r = &rs->rows[i];
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

void lp_report_print(FILE *f, const lp_report_rows *r)
{
    if (lp_report.json)
        write_json(f, r);
    else
        write_table(f, r);
}
