/*
 * Machine descriptions of the simulator: the presets (with where their numbers
 * come from) and the parser of --machine (docs/simulator.md, "Machines").
 *
 *   --machine PRESET | [PRESET,]key=value[,key=value...]
 * A description without a preset starts from "generic" and must give sockets and
 * cores.  Keys: sockets, cores (per socket), smt (hardware threads per core),
 * hit, local, remote, fill, rmw, pause, llc_ns, mem, step, syscall, spinq (ns),
 * l2 (KiB per core), llc (MiB per socket), slice, tick, wake, switch (us),
 * smt_share (the share of a core's pipeline a busy hardware thread gets while its
 * siblings are busy too, 0.01..1), mlp (data loads a thread keeps in flight, 1..64),
 * inclusive (1: the LLC answers a read of a clean line other cores share).
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
/* One machine's numbers, by name (the keys of --machine, in ns unless said). */
#define MACHINE(...) {__VA_ARGS__}
/* The CNA paper's two boxes (cna-2s, cna-4s): the same 18-core Haswell parts and the same
 * estimates; they differ in sockets, remote and mem only. */
#define CNA_HASWELL                                                                                            \
    .cores = 18, .smt = 2, .hit_ns = 1, .local_ns = 45, .fill_ns = 10, .rmw_ns = 8, .pause_ns = 4, .llc_ns = 20, \
    .step_ns = 1.5, .l2_kb = 256, .llc_mb = 45, .slice_us = 3000, .tick_us = 0, .wake_us = 25, .switch_us = 2,  \
    .syscall_ns = 400, .spinq_ns = 1000, .smt_share = 1, .mlp = 1, .inclusive = 1
static const preset presets[] = {
    {"this",
     "this machine: 1 socket, 2 CPUs (calibrated: locklab model calibrate, 2026-11-24)",
     /* lscpu here: 1 socket, 2 cores, 1 thread per core, L2 2 MiB per core, L3 480 MiB (the host's).
      * Calibrated (results/calibration.json, `locklab model calibrate` on the quiet machine):
      * step 1.45 ns; rmw: the uncontended tas pair (an exchange and a store hitting the cache)
      * 6.3 ns, so 4 ns; wake-up 27 us (futex ping-pong on 2 CPUs), switch 1 us (the same on one
      * CPU).  local: c = 36 ns is a writer's extra cost per add with a reader on its line, a
      * lower bound of a transfer (the adds between two of the reader's steals hit; the reader
      * steals about every other add, its own load taking a transfer): 2c = 70 ns.  The mcs
      * hand-over (h = 187 ns) is two transfers, a PAUSE residual and the stamp's transfer and
      * two clock reads: consistent with 40-70 ns.  pause: 140 cycles (Intel since Skylake-SP)
      * at about 2.8 GHz, 50 ns.  Scheduler: run length of two CPU-bound threads on one CPU
      * 3.98 ms median; CONFIG_HZ=250 (/proc/config.gz), kernel 6.18 (EEVDF): preemption at 4-ms
      * ticks (aligned across CPUs) once a thread has used its base slice, 0.75 ms x (1 + log2 2)
      * = 1.5 ms (the kernel's default; this kernel has no /sys/kernel/debug/sched to read it
      * from, and /proc/sys/kernel has no sched_*granularity* keys since EEVDF).  llc_ns, mem:
      * estimates.  mlp 10: an out-of-order core keeps that many of RandArray's independent loads
      * in flight (Intel cores have 10-12 line fill buffers since Skylake; a probe of random
      * independent against dependent loads over an L3-resident array gave about 20 on the AMD
      * host); with 1, a thread back on its CPU after a switch takes its cold
      * cache's misses one by one and oversubscribed RandArray collapses as the machine does not. */
     MACHINE(.name = "this", .sockets = 1, .cores = 2, .smt = 1, .hit_ns = 1, .local_ns = 70, .remote_ns = 70,
             .fill_ns = 10, .rmw_ns = 4, .pause_ns = 50, .llc_ns = 20, .mem_ns = 90, .step_ns = 1.45,
             .l2_kb = 2048, .llc_mb = 480, .slice_us = 1500, .tick_us = 4000, .wake_us = 27, .switch_us = 1,
             .syscall_ns = 400, .spinq_ns = 1000, .smt_share = 1, .mlp = 10,
             .source = "lscpu (1 socket, 2 cores, L2 2 MiB, L3 480 MiB); results/calibration.json (transfer 2c = 70 "
                       "ns, step 1.45 ns, tas pair 6.3 ns, wake-up 27 us, switch 1 us, run length 4 ms); "
                       "CONFIG_HZ=250, EEVDF base slice 1.5 ms; pause 140 cycles; mlp 10 (fill buffers); "
                       "llc, mem estimated")},
    {"cna-2s",
     "CNA paper's 2-socket box: 2 x Xeon E5-2699 v3, 18 cores, 2-way SMT (72 CPUs)",
     /* CNA paper §7: "two Intel Xeon E5-2699 v3 sockets featuring 18 hyperthreaded cores each
      * (72 logical CPUs in total)".  LLC 45 MB per socket, L2 256 KB per core: Intel ARK
      * (E5-2699 v3).  Latencies: Haswell-EP figures of Molka et al. (ICPP 2015), rounded.
      * fill: a read joining a read fill in flight costs half an L3 hit (the line is clean in
      * the L3 by then; the caching agent answers it without another snoop), an estimate.
      * inclusive: Haswell-EP's L3 is inclusive of the cores' caches (Intel's optimization
      * manual), so a line other cores hold clean is read from it at an L3 hit. */
     MACHINE(.name = "cna-2s", .sockets = 2, .remote_ns = 120, .mem_ns = 90, CNA_HASWELL,
             .source = "CNA paper sec. 7 (2 x E5-2699 v3, 18 cores, HT, 72 CPUs); LLC 45 MB, L2 256 KB: Intel ARK; "
                       "latencies: Molka et al. ICPP 2015 (Haswell-EP), rounded")},
    {"cna-4s",
     "CNA paper's 4-socket box: 4 x Xeon E7-8895 v3, 18 cores, 2-way SMT (144 CPUs)",
     /* CNA paper §7: "four Intel Xeon E7-8895 v3 sockets featuring 144 logical CPUs in total";
      * the paper attributes CNA's larger gain there to "a larger cost of a remote cache miss".
      * LLC 45 MB per socket: Intel ARK (E7-8895 v3).  Remote: Haswell-EX 4-socket
      * (QPI, up to two hops), estimated 1.5x the 2-socket figure.  L3 inclusive (Haswell). */
     MACHINE(.name = "cna-4s", .sockets = 4, .remote_ns = 180, .mem_ns = 100, CNA_HASWELL,
             .source = "CNA paper sec. 7 (4 x E7-8895 v3, 144 CPUs); LLC 45 MB: Intel ARK; remote 1.5x the "
                       "2-socket estimate")},
    {"slides-48",
     "the slides' 48-core AMD box: 8 dies x 6 cores (4 x Opteron 6172, 2.4 GHz), no SMT",
     /* scalable-locking-slides.txt:158 ("Benchmark setup": "48 core (8 x 6-core 2.4GHz AMD
      * Opteron)"; a die of 6 cores is a socket here, as it has its own L3 and memory).  The
      * slides' latencies: a line transfer "120 ~ 420 cycles" (:442), i.e. 50 ns within a die
      * and at most 175 ns across; remote is the range's midpoint, 270 cycles (112 ns), an
      * assumption (the slides give only the range).  "Directory responds to each cache line
      * request in turn" / "Reply read request one by one" (:737, :659): no broadcast of a read
      * fill, each further reader costs a transfer (fill = remote).  The micro-benchmark's
      * "400-cycle serial section" (:759) is 100 steps: 4 cycles (1.67 ns) per step.  L2 512 KB
      * per core and L3 6 MB per die (5 MB usable with HT Assist): AMD's Opteron 6100 data.  The
      * other costs are estimates for a K10 core. */
     MACHINE(.name = "slides-48", .sockets = 8, .cores = 6, .smt = 1, .hit_ns = 1.25, .local_ns = 50,
             .remote_ns = 112, .fill_ns = 112, .rmw_ns = 8, .pause_ns = 4, .llc_ns = 20, .mem_ns = 100,
             .step_ns = 1.67, .l2_kb = 512, .llc_mb = 5, .slice_us = 3000, .tick_us = 0, .wake_us = 25,
             .switch_us = 2, .syscall_ns = 400, .spinq_ns = 1000, .smt_share = 1, .mlp = 1,
             .source = "scalable-locking-slides.txt (8 x 6-core 2.4 GHz Opteron; transfer 120-420 cycles, remote "
                       "the midpoint (assumed); directory answers reads one by one; 400-cycle serial section); "
                       "L2 512 KB, L3 5 MB usable: AMD Opteron 6100; other costs estimated")},
    {"malthusian-t5",
     "Malthusian paper's SPARC T5 (one socket online: 16 cores x 8 strands = 128 CPUs, 8 MB LLC)",
     /* Malthusian paper §6: "Oracle SPARC T5-2 ... 3.6 GHz ... 16 cores, and each core has 2
      * pipelines supporting 8 logical CPUs ... 8MB unified L3 LLC ... 128KB L2 unified cache",
      * second socket offline (128 CPUs), Solaris 5.11.  Wake-up: "latencies of more than 30000
      * cycles" (8.3 us at 3.6 GHz); unpark costs the caller "more than 9000 cycles" (2.5 us).
      * smt_share: "each core has 2 pipelines supporting 8 logical CPUs ... If there is only one
      * active CPU on a core, both pipelines promptly and automatically fuse" (§6,
      * malthusian-locks.txt:221): 2 pipelines' worth for 8 strands, 0.25.  mlp 8: the S3 core
      * executes out of order, and RandArray's loads do not depend on each other; with an L3 hit
      * of 25 ns (an estimate) one thread then runs at about 0.6 M ops/s and 5 threads at 3.4x
      * that, the paper's "peak at about N=5 ... slightly more than 3 times that of a single
      * thread" (:243) (6-8 loads in flight: an estimate fitted to that shape, not a published
      * figure).  inclusive: the L3 answers a read of a line other cores hold clean (an assumption
      * for the T5; without it 5 threads reach only 2.7x one).  slice 100 ms: Solaris's
      * time-sharing class (ts_dptbl(4), default table) gives a CPU-bound thread quanta of 40 ms
      * (after the once-a-second boost of a waiting thread) to 200 ms (the lowest levels, where a
      * thread that uses up its quanta sinks); 100 ms is within that range, not derived.
      * spinq 125 ns: a spin-then-park budget (8.3 us) is seen within 64 x spinq = 8 us.  The
      * cache latencies are estimates (not given by the paper). */
     MACHINE(.name = "malthusian-t5", .sockets = 1, .cores = 16, .smt = 8, .hit_ns = 1, .local_ns = 50,
             .remote_ns = 50, .fill_ns = 12, .rmw_ns = 10, .pause_ns = 3, .llc_ns = 25, .mem_ns = 110, .step_ns = 1,
             .l2_kb = 128, .llc_mb = 8, .slice_us = 100000, .tick_us = 0, .wake_us = 8.3, .switch_us = 2,
             .syscall_ns = 2500, .spinq_ns = 125, .smt_share = 0.25, .mlp = 8, .inclusive = 1,
             .source = "Malthusian paper sec. 6 (T5, 16 cores x 8 strands on 2 pipelines a core, 8 MB L3, 128 KB "
                       "L2, 3.6 GHz, wake-up 30000 cycles, unpark 9000 cycles, Solaris: slice from ts_dptbl(4)); "
                       "mlp fitted to the paper's 1-to-5-thread speedup; cache latencies estimated")},
};
enum { NPRESETS = sizeof presets / sizeof presets[0] };

/* The start of a description without a preset: like "this" but for the topology. */
static const sim_machine generic = MACHINE(
    .name = "custom", .sockets = 0, .cores = 0, .smt = 1, .hit_ns = 1, .local_ns = 50, .remote_ns = 120, .fill_ns = 10,
    .rmw_ns = 10, .pause_ns = 10, .llc_ns = 20, .mem_ns = 90, .step_ns = 1.5, .l2_kb = 1024, .llc_mb = 32,
    .slice_us = 3000, .tick_us = 0, .wake_us = 25, .switch_us = 2, .syscall_ns = 400, .spinq_ns = 1000, .smt_share = 1, .mlp = 1,
    .source = "custom description (unset keys: generic x86 estimates)");

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
    K("fill", fill_ns, 0, 1e6, false),   K("tick", tick_us, 0, 1e7, false),   K("smt_share", smt_share, 0.01, 1, false),
    K("mlp", mlp, 1, 64, true),          K("inclusive", inclusive, 0, 1, true),
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

/* The names of a table's n entries, comma-separated into buf: the first entry's at *first, the
 * next ones stride bytes apart (as qsort's size). */
static const char *name_list(char *buf, size_t size, const char *const *first, size_t stride, int n)
{
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *name = *(const char *const *)((const char *)first + (size_t)i * stride);
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", name);
    }
    return buf;
}

static const char *key_list(void)
{
    static char buf[512];
    return name_list(buf, sizeof buf, &keys[0].name, sizeof keys[0], NKEYS);
}

static const char *preset_list(void)
{
    static char buf[256];
    return name_list(buf, sizeof buf, &presets[0].name, sizeof presets[0], NPRESETS);
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
                 "\"fill_ns\":%g,\"tick_us\":%g,\"smt_share\":%g,\"mlp\":%d,\"inclusive\":%d,\"source\":\"%s\"}",
            m->name, m->sockets, m->cores, m->smt, sim_machine_hwthreads(m), m->hit_ns, m->local_ns, m->remote_ns,
            m->rmw_ns, m->pause_ns, m->llc_ns, m->mem_ns, m->step_ns, m->l2_kb, m->llc_mb, m->slice_us, m->wake_us,
            m->switch_us, m->syscall_ns, m->spinq_ns, m->fill_ns, m->tick_us, m->smt_share, m->mlp, m->inclusive,
            m->source);
}
