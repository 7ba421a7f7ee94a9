/*
 * How many CPUs this process can really use at once: the smaller of its
 * affinity mask (sched_getaffinity, which taskset and cpusets shrink) and
 * its cgroup v2 CPU quota (cpu.max "QUOTA PERIOD", rounded up; "max" means
 * no quota), read once.  Concurrency-restricting locks size the set of
 * threads they let run to this figure (acr.c: its arrival spinners).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locklab/core.h"

static int cpus_available, cpus_placeable;
static pthread_once_t cpus_once = PTHREAD_ONCE_INIT;

/* The cgroup (v2) of this process, from /proc/self/cgroup ("0::/path"); false if none. */
static bool own_cgroup_path(char *out, size_t outlen)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            found = snprintf(out, outlen, "/sys/fs/cgroup%s", line + 3) < (int)outlen;
        }
    fclose(f);
    return found;
}

/* CPUs granted by the quota of the cgroup at dir and its ancestors (the tightest), or 0 if unlimited. */
static int quota_cpus(char *dir)
{
    int best = 0;
    for (;;) {
        char path[600];
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        FILE *f = fopen(path, "r");
        if (f) {
            char quota[32];
            unsigned long long period = 0;
            if (fscanf(f, "%31s %llu", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0) {
                unsigned long long q = strtoull(quota, NULL, 10);
                int n = (int)((q + period - 1) / period);
                if (n >= 1 && (best == 0 || n < best))
                    best = n;
            }
            fclose(f);
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash <= dir + strlen("/sys/fs/cgroup"))
            return best;
        *slash = '\0';
    }
}

static void measure_body(void)
{
    int n = ll_ncpus();
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 1 && CPU_COUNT(&set) < n)
        n = CPU_COUNT(&set);
    cpus_placeable = n < 1 ? 1 : n;
    char dir[520];
    if (own_cgroup_path(dir, sizeof dir)) {
        int q = quota_cpus(dir);
        if (q >= 1 && q < n)
            n = q;
    }
    cpus_available = n < 1 ? 1 : n;
}

static void measure(void) { ll_without_cancel(measure_body); } /* a lock's first use may run it */

int ll_cpus_available(void)
{
    pthread_once(&cpus_once, measure);
    return cpus_available;
}

int ll_cpus_placeable(void)
{
    pthread_once(&cpus_once, measure);
    return cpus_placeable;
}
