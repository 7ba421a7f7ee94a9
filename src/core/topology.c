/*
 * CPU -> socket topology.
 *
 * Real: /sys/devices/system/cpu/cpuN/topology/physical_package_id, package ids
 * renumbered densely.  Virtual (LOCKLAB_TOPOLOGY), so NUMA code paths run on
 * a one-socket machine:
 *   sockets=N          threads are assigned round-robin to N sockets in the
 *                      order they first use locklab (1 <= N <= 64)
 *   cpus=L0/L1/...     socket i is the CPU list Li (e.g. cpus=0/1 or
 *                      cpus=0-3,8/4-7); a thread's socket follows its CPU
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locklab/core.h"

#define MAX_CPUS 4096
#define MAX_SOCKETS 64

static int ncpus;
static int nsockets = 1;
static int virtual_rr;                 /* N for sockets=N, else 0 */
static short cpu_socket[MAX_CPUS];     /* current mapping (real or cpus=) */
static short real_socket[MAX_CPUS];
static int real_nsockets = 1;
static char description[64] = "real:1";
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void read_real_topology_body(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    ncpus = n < 1 ? 1 : n > MAX_CPUS ? MAX_CPUS : (int)n;
    int ids[MAX_SOCKETS], nids = 0;
    for (int cpu = 0; cpu < ncpus; cpu++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
        int pkg = 0;
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%d", &pkg) != 1)
                pkg = 0;
            fclose(f);
        }
        int dense = 0;
        while (dense < nids && ids[dense] != pkg)
            dense++;
        if (dense == nids && nids < MAX_SOCKETS)
            ids[nids++] = pkg;
        real_socket[cpu] = (short)(dense < MAX_SOCKETS ? dense : 0);
    }
    real_nsockets = nids ? nids : 1;
    memcpy(cpu_socket, real_socket, sizeof cpu_socket);
    nsockets = real_nsockets;
    snprintf(description, sizeof description, "real:%d", real_nsockets);
}

/* sysfs reads (cancellation points), which a lock's first use may run */
static void read_real_topology(void) { ll_without_cancel(read_real_topology_body); }

static const char valid_forms[] = "valid: unset, sockets=N (1..64), cpus=LIST/LIST/... (e.g. cpus=0/1 or cpus=0-3/4-7)";

/* Parse a CPU list "0-3,8" into socket s of map; returns 0 or -1. */
static int parse_cpu_list(const char *s, const char *end, short *map, int socket)
{
    if (s == end)
        return -1;
    while (s < end) {
        char *e;
        errno = 0;
        long a = strtol(s, &e, 10), b = a;
        if (e == s || errno || a < 0 || a >= ncpus)
            return -1;
        s = e;
        if (s < end && *s == '-') {
            b = strtol(++s, &e, 10);
            if (e == s || b < a || b >= ncpus)
                return -1;
            s = e;
        }
        for (long c = a; c <= b; c++)
            map[c] = (short)socket;
        if (s < end && *s != ',')
            return -1;
        if (s < end)
            s++;
    }
    return 0;
}

int ll_topology_configure(const char *value, char *err, size_t errlen)
{
    pthread_once(&real_once, read_real_topology);
    if (value == NULL || *value == '\0') {
        virtual_rr = 0;
        memcpy(cpu_socket, real_socket, sizeof cpu_socket);
        nsockets = real_nsockets;
        snprintf(description, sizeof description, "real:%d", real_nsockets);
        return 0;
    }
    if (strncmp(value, "sockets=", 8) == 0) {
        char *e;
        errno = 0;
        long n = strtol(value + 8, &e, 10);
        if (e != value + 8 && *e == '\0' && !errno && n >= 1 && n <= MAX_SOCKETS) {
            virtual_rr = (int)n;
            nsockets = (int)n;
            snprintf(description, sizeof description, "sockets=%ld", n);
            return 0;
        }
    } else if (strncmp(value, "cpus=", 5) == 0) {
        static short map[MAX_CPUS];
        for (int c = 0; c < MAX_CPUS; c++)
            map[c] = -1;
        int socket = 0;
        const char *s = value + 5;
        int ok = 1;
        for (;;) {
            const char *end = strchr(s, '/');
            if (!end)
                end = s + strlen(s);
            if (socket >= MAX_SOCKETS || parse_cpu_list(s, end, map, socket) != 0) {
                ok = 0;
                break;
            }
            socket++;
            if (*end == '\0')
                break;
            s = end + 1;
        }
        for (int c = 0; ok && c < ncpus; c++)
            if (map[c] < 0)
                ok = 0; /* every CPU must belong to a socket */
        if (ok) {
            virtual_rr = 0;
            memcpy(cpu_socket, map, sizeof cpu_socket);
            nsockets = socket;
            snprintf(description, sizeof description, "cpus:%d", socket);
            return 0;
        }
    }
    char echo[65];
    snprintf(err, errlen, "bad LOCKLAB_TOPOLOGY '%s' (%s; this machine has CPUs 0-%d)", ll_elide(value, 64, echo, sizeof echo),
             valid_forms, ncpus - 1);
    return -1;
}

int ll_topology_init_from_env(char *err, size_t errlen)
{
    return ll_topology_configure(getenv("LOCKLAB_TOPOLOGY"), err, errlen);
}

int ll_topology_sockets(void)
{
    pthread_once(&real_once, read_real_topology);
    return nsockets;
}

const char *ll_topology_describe(void)
{
    pthread_once(&real_once, read_real_topology);
    return description;
}

int ll_ncpus(void)
{
    pthread_once(&real_once, read_real_topology);
    return ncpus;
}

int ll_cpu_socket(int cpu)
{
    pthread_once(&real_once, read_real_topology);
    return cpu >= 0 && cpu < ncpus ? real_socket[cpu] : 0;
}

int ll_current_socket(void)
{
    int n = virtual_rr;
    if (n > 0)
        return (int)(ll_self()->index % (uint32_t)n);
    pthread_once(&real_once, read_real_topology);
    int cpu = sched_getcpu();
    return cpu >= 0 && cpu < ncpus ? cpu_socket[cpu] : 0;
}
