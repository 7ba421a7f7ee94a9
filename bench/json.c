/* locklab-bench's JSON contract (docs/locklab-cli.md), shared with the simulator
 * (sim/main.c), which adds its own keys before the closing brace. */
#include <math.h>
#include <stdio.h>

#include "bench.h"

/* Whole numbers (counts) exactly, anything else with 6 significant digits. */
const char *bench_format_extra(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 9e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.6g", v);
    return buf;
}

void bench_print_json_fields(const bench_config *cfg, const bench_result *r, const fairness *f, bool oversubscribed,
                             const char *topology)
{
    char num[64];
    printf("{\"workload\":\"%s\",\"lock\":\"%s\",\"threads\":%d,\"duration_s\":%.6f,\"ops\":%llu,"
           "\"throughput_ops_s\":%.1f,\"per_thread_ops\":[",
           cfg->workload, cfg->lock_spec, cfg->threads, r->wall_s, (unsigned long long)r->ops, r->ops / r->wall_s);
    for (int t = 0; t < cfg->threads; t++)
        printf("%s%llu", t ? "," : "", (unsigned long long)r->per_thread_ops[t]);
    printf("],\"thread_sockets\":[");
    for (int t = 0; t < cfg->threads; t++)
        printf("%s%d", t ? "," : "", r->thread_socket[t]);
    /* No admission recorded (invalidation does not use the lock): the history metrics have no data. */
    if (r->logged == 0)
        printf("],\"lwss\":null,\"mttr\":null,");
    else
        printf("],\"lwss\":%.3f,\"mttr\":%.1f,", f->lwss, f->mttr);
    printf("\"gini\":%.5f,\"rstddev\":%.5f,\"fairness_factor\":%.5f,", f->gini, f->rstddev, f->fairness_factor);
    if (isinf(f->max_min_ratio))
        printf("\"max_min_ratio\":null,");
    else
        printf("\"max_min_ratio\":%.3f,", f->max_min_ratio);
    if (r->logged == 0)
        printf("\"socket_switches\":null,");
    else
        printf("\"socket_switches\":%.2f,", f->socket_switches);
    printf("\"topology\":\"%s\",\"vcsw\":%ld,\"ivcsw\":%ld,\"cpu_util\":%.3f,\"admissions_logged\":%zu,"
           "\"exclusion_ok\":%s",
           topology, r->vcsw, r->ivcsw, r->cpu_s / r->wall_s, r->logged,
           r->exclusion_ok ? "true" : "false");
    if (r->ns_per_pair > 0)
        printf(",\"ns_per_pair\":%.3f", r->ns_per_pair);
    int k = 0; /* named parameters by name (alternative), so that a row says what ran */
    for (const bench_param *p = cfg->params; p && p->key; p++, k++)
        if (bench_param_names(p->key))
            printf(",\"%s\":\"%s\"", p->key, bench_param_names(p->key)((unsigned)cfg->param[k]));
    for (int i = 0; i < r->nextra; i++)
        printf(",\"%s\":%s", r->extra[i].name, bench_format_extra(r->extra[i].value, num, sizeof num));
    if (cfg->spin_ns)
        printf(",\"spin_ns\":%llu", cfg->spin_ns);
    if (oversubscribed)
        printf(",\"spinning_oversubscribed\":true");
}
