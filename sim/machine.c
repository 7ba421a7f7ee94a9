/*
 * Machine descriptions of the simulator: the presets (with where their numbers
 * come from) and the parser of --machine (docs/simulator.md, "Machines").
 *
 *   --machine PRESET | [PRESET,]key=value[,key=value...]
 * A description without a preset starts from "generic" and must give sockets and
 * cores.  Keys: sockets, cores (per socket), smt (hardware threads per core),
 * hit, local, remote, rmw, pause, llc_ns, mem, step, syscall, spinq (ns),
 * l2 (KiB per core), llc (MiB per socket), slice, wake, switch (us).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

typedef struct preset {
    const char *name, *description;
    sim_machine m;
} preset;

/* Latencies the papers do not give are public figures, rounded: Molka, Hackenberg,
 * Schöne, "Main Memory and Cache Performance of Intel Sandy Bridge and AMD Bulldozer"
 * (MSPC 2014) and Molka et al., "Cache Coherence Protocol and Memory Performance of
 * the Intel Haswell-EP Architecture" (ICPP 2015) report, for Haswell-EP, an L3 hit
 * of about 20 ns, a line owned by another core of the socket about 40-50 ns, by a core
 * of the other socket about 100-130 ns, local memory about 90 ns.  These are
 * estimates from those publications as recalled, not re-measured here; docs/simulator.md. */
static const preset presets[] = {
    {"this",
     "this machine: 1 socket, 2 CPUs (estimates, not calibrated)",
     /* lscpu here: 1 socket, 2 cores, 1 thread per core, L2 2 MiB per core, L3 480 MiB (the
      * host's).  Latencies are estimates for a recent Xeon core (PAUSE about 140 cycles since
      * Skylake-SP), not calibrated: docs/simulator.md "Validation" compares with locklab-bench.
      * wake: docs/design.md "Waiting" (20-35 us wake-to-run measured on this machine);
      * slice: CFS, 6 ms latency shared by 2 runnable threads. */
     {"this", 1, 2, 1, 1, 60, 60, 10, 40, 20, 90, 1.5, 2048, 480, 3000, 25, 2, 400, 1000,
      "lscpu (1 socket, 2 cores, L2 2 MiB, L3 480 MiB); wake-up 20-35 us (docs/design.md); latencies estimated"}},
    {"cna-2s",
     "CNA paper's 2-socket box: 2 x Xeon E5-2699 v3, 18 cores, 2-way SMT (72 CPUs)",
     /* CNA paper §7: "two Intel Xeon E5-2699 v3 sockets featuring 18 hyperthreaded cores each
      * (72 logical CPUs in total)".  LLC 45 MB per socket, L2 256 KB per core: Intel ARK
      * (E5-2699 v3).  Latencies: Haswell-EP figures of Molka et al. (ICPP 2015), rounded. */
     {"cna-2s", 2, 18, 2, 1, 45, 120, 8, 4, 20, 90, 1.5, 256, 45, 3000, 25, 2, 400, 1000,
      "CNA paper sec. 7 (2 x E5-2699 v3, 18 cores, HT, 72 CPUs); LLC 45 MB, L2 256 KB: Intel ARK; "
      "latencies: Molka et al. ICPP 2015 (Haswell-EP), rounded"}},
    {"cna-4s",
     "CNA paper's 4-socket box: 4 x Xeon E7-8895 v3, 18 cores, 2-way SMT (144 CPUs)",
     /* CNA paper §7: "four Intel Xeon E7-8895 v3 sockets featuring 144 logical CPUs in total";
      * the paper attributes CNA's larger gain there to "a larger cost of a remote cache miss".
      * LLC 45 MB per socket: Intel ARK (E7-8895 v3).  Remote: Haswell-EX 4-socket
      * (QPI, up to two hops), estimated 1.5x the 2-socket figure. */
     {"cna-4s", 4, 18, 2, 1, 45, 180, 8, 4, 20, 100, 1.5, 256, 45, 3000, 25, 2, 400, 1000,
      "CNA paper sec. 7 (4 x E7-8895 v3, 144 CPUs); LLC 45 MB: Intel ARK; remote 1.5x the 2-socket estimate"}},
    {"malthusian-t5",
     "Malthusian paper's SPARC T5 (one socket online: 16 cores x 8 strands = 128 CPUs, 8 MB LLC)",
     /* Malthusian paper §6: "Oracle SPARC T5-2 ... 3.6 GHz ... 16 cores, and each core has 2
      * pipelines supporting 8 logical CPUs ... 8MB unified L3 LLC ... 128KB L2 unified cache",
      * second socket offline (128 CPUs).  Wake-up: "latencies of more than 30000 cycles"
      * (8.3 us at 3.6 GHz); unpark costs the caller "more than 9000 cycles" (2.5 us).  The
      * cache latencies are estimates (not given by the paper). */
     {"malthusian-t5", 1, 16, 8, 1, 50, 50, 10, 3, 25, 110, 1, 128, 8, 3000, 8.3, 2, 2500, 1000,
      "Malthusian paper sec. 6 (T5, 16 cores x 8 strands, 8 MB L3, 128 KB L2, 3.6 GHz, wake-up 30000 "
      "cycles, unpark 9000 cycles); cache latencies estimated"}},
};
enum { NPRESETS = sizeof presets / sizeof presets[0] };

/* The start of a description without a preset: like "this" but for the topology. */
static const sim_machine generic = {"custom", 0, 0, 1, 1, 50, 120, 10, 10, 20, 90, 1.5, 1024, 32, 3000, 25, 2,
                                    400, 1000, "custom description (unset keys: generic x86 estimates)"};

void sim_machine_list_presets(FILE *out)
{
    for (int i = 0; i < NPRESETS; i++)
        fprintf(out, "%s\t%s\n", presets[i].name, presets[i].description);
}

typedef struct key {
    const char *name;
    size_t offset;
    double min, max;
    bool integer;
} key;
#define K(n, f, lo, hi, i) {n, offsetof(sim_machine, f), lo, hi, i}
static const key keys[] = {
    K("sockets", sockets, 1, 16, true), K("cores", cores, 1, 256, true),   K("smt", smt, 1, 16, true),
    K("hit", hit_ns, 0, 1e6, false),    K("local", local_ns, 0, 1e6, false), K("remote", remote_ns, 0, 1e6, false),
    K("rmw", rmw_ns, 0, 1e6, false),    K("pause", pause_ns, 0, 1e6, false), K("llc_ns", llc_ns, 0, 1e6, false),
    K("mem", mem_ns, 0, 1e6, false),    K("step", step_ns, 0, 1e6, false),   K("syscall", syscall_ns, 0, 1e9, false),
    K("spinq", spinq_ns, 1, 1e9, false), K("l2", l2_kb, 1, 1 << 20, false),  K("llc", llc_mb, 0.0625, 1 << 16, false),
    K("slice", slice_us, 1, 1e7, false), K("wake", wake_us, 0, 1e7, false),  K("switch", switch_us, 0, 1e7, false),
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

static const char *key_list(void)
{
    static char buf[512];
    buf[0] = '\0';
    for (int i = 0; i < NKEYS; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", keys[i].name);
    return buf;
}

static const char *preset_list(void)
{
    static char buf[256];
    buf[0] = '\0';
    for (int i = 0; i < NPRESETS; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", presets[i].name);
    return buf;
}

int sim_machine_parse(const char *desc, sim_machine *m, char *err, size_t errlen)
{
    char buf[1024], shown[200];
    ll_elide(desc, 120, shown, sizeof shown);
    if (strlen(desc) >= sizeof buf) {
        snprintf(err, errlen, "bad --machine '%s': too long (valid: a preset (%s) or sockets=S,cores=C[,key=value...])",
                 shown, preset_list());
        return -1;
    }
    strcpy(buf, desc);
    *m = generic;
    bool have_sockets = false, have_cores = false, first = true;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), first = false) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            int i = 0;
            while (i < NPRESETS && strcmp(presets[i].name, tok) != 0)
                i++;
            if (!first || i == NPRESETS) {
                snprintf(err, errlen, "unknown machine preset '%.60s' in --machine '%s' (valid: %s; or "
                         "sockets=S,cores=C[,key=value...], a preset first to start from)", tok, shown, preset_list());
                return -1;
            }
            *m = presets[i].m;
            have_sockets = have_cores = true;
            continue;
        }
        *eq = '\0';
        const key *k = NULL;
        for (int i = 0; i < NKEYS; i++)
            if (strcmp(keys[i].name, tok) == 0)
                k = &keys[i];
        if (!k) {
            snprintf(err, errlen, "bad --machine '%s': unknown key '%.40s' (valid: %s)", shown, tok, key_list());
            return -1;
        }
        char *end;
        errno = 0;
        double v = strtod(eq + 1, &end);
        if (eq[1] == '\0' || *end || errno || !(v >= k->min && v <= k->max) || (k->integer && v != floor(v))) {
            snprintf(err, errlen, "bad --machine '%s': bad value '%.40s' for %s (valid: %s in %g..%g)", shown, eq + 1,
                     k->name, k->integer ? "an integer" : "a number", k->min, k->max);
            return -1;
        }
        if (k->integer)
            *(int *)((char *)m + k->offset) = (int)v;
        else
            *(double *)((char *)m + k->offset) = v;
        have_sockets |= strcmp(k->name, "sockets") == 0;
        have_cores |= strcmp(k->name, "cores") == 0;
    }
    if (!have_sockets || !have_cores) {
        snprintf(err, errlen, "bad --machine '%s': sockets and cores are required (valid: a preset (%s) or "
                 "sockets=S,cores=C[,key=value...])", shown, preset_list());
        return -1;
    }
    if (m->sockets * m->cores > 256 || m->sockets * m->cores * m->smt > 4096) {
        snprintf(err, errlen, "bad --machine '%s': %d sockets x %d cores x %d smt is too large (valid: at most 256 cores "
                 "and 4096 hardware threads)", shown, m->sockets, m->cores, m->smt);
        return -1;
    }
    if (strchr(desc, '=') && strcmp(m->name, "custom") != 0)
        snprintf(m->name + strlen(m->name), sizeof m->name - strlen(m->name), "+overrides");
    return 0;
}

void sim_machine_json(const sim_machine *m, FILE *out)
{
    fprintf(out, "{\"name\":\"%s\",\"sockets\":%d,\"cores\":%d,\"smt\":%d,\"cpus\":%d,\"hit_ns\":%g,\"local_ns\":%g,"
                 "\"remote_ns\":%g,\"rmw_ns\":%g,\"pause_ns\":%g,\"llc_ns\":%g,\"mem_ns\":%g,\"step_ns\":%g,\"l2_kb\":%g,"
                 "\"llc_mb\":%g,\"slice_us\":%g,\"wake_us\":%g,\"switch_us\":%g,\"syscall_ns\":%g,\"spinq_ns\":%g,"
                 "\"source\":\"%s\"}",
            m->name, m->sockets, m->cores, m->smt, sim_machine_hwthreads(m), m->hit_ns, m->local_ns, m->remote_ns,
            m->rmw_ns, m->pause_ns, m->llc_ns, m->mem_ns, m->step_ns, m->l2_kb, m->llc_mb, m->slice_us, m->wake_us,
            m->switch_us, m->syscall_ns, m->spinq_ns, m->source);
}
