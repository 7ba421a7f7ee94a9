/*
 * locklab-sim internals (docs/simulator.md): the machine model (machine.c), the
 * discrete-event engine (engine.c, a run; sched.c, os.c, cache.c, spin.c and
 * atomics_backend.c behind it, with engine.h their private header), the
 * environment core.h asks for (env.c), the workloads (workloads.c) and schedule
 * exploration (explore.c).
 *
 * Time is in picoseconds (uint64_t: 213 days), costs are given in nanoseconds.
 */
#ifndef LOCKLAB_SIM_H
#define LOCKLAB_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "locklab/core.h"

#define SIM_PS_PER_NS 1000u
#define SIM_MAX_THREADS 1024

/* ---- machine (machine.c) ------------------------------------------------------------ */
typedef struct sim_machine {
    char name[64];      /* preset name, or "custom" */
    int sockets, cores, smt; /* cores per socket, hardware threads per core */
    double hit_ns;      /* load/store hitting the core's own cache */
    double local_ns;    /* cache-line transfer within a socket (incl. invalidations) */
    double remote_ns;   /* transfer across sockets */
    double fill_ns;     /* a read joining a read fill of the line in flight: the directory's occupancy */
    double rmw_ns;      /* extra cost of an atomic read-modify-write (and of a full fence) */
    double pause_ns;    /* one PAUSE */
    double llc_ns;      /* miss in the private cache, hit in the socket's LLC */
    double mem_ns;      /* miss in the LLC: memory */
    double step_ns;     /* one PRNG step of the workloads (plain computation) */
    double l2_kb;       /* private cache per core */
    double llc_mb;      /* last-level cache per socket */
    double slice_us;    /* scheduler time slice (a CPU-bound thread's run before it may be preempted) */
    double tick_us;     /* scheduler tick: preemption happens at ticks (0: exactly at the slice's end) */
    double wake_us;     /* futex wake-up to running (an idle CPU) */
    double switch_us;   /* context switch */
    double syscall_ns;  /* a futex call or a sched_yield that does not switch */
    double spinq_ns;    /* a spinner on an unchanged line sleeps at most this long per PAUSE */
    double smt_share;   /* pipeline share of a busy hardware thread whose core's siblings are busy (1: none lost) */
    int mlp;            /* independent data loads a thread keeps in flight (the workloads' array loads; 1: one at a time) */
    int inclusive;      /* 1: the LLC answers a read of a line other cores of the socket hold clean (as an
                           inclusive LLC does; inclusion itself is not modelled) */
    char source[512];   /* where the numbers come from (presets) */
} sim_machine;

/* Parse DESC (key=value,...; sockets and cores required) or a preset name into *m.
 * Returns 0, or -1 with one line in err naming the bad value and the valid choices. */
int sim_machine_parse(const char *desc, sim_machine *m, char *err, size_t errlen);
void sim_machine_list_presets(FILE *out);
void sim_machine_json(const sim_machine *m, FILE *out);
static inline int sim_machine_hwthreads(const sim_machine *m) { return m->sockets * m->cores * m->smt; }

/* ---- engine (engine.c, cache.c for the data accesses) ------------------------------- */
typedef struct sim_config {
    const sim_machine *machine;
    int threads;
    uint64_t seed;
    uint64_t end_ps;        /* stop flag set at this simulated time (0: never) */
    uint64_t drain_ps;      /* after end_ps: threads still running then are a livelock/hang */
    /* exploration: schedule randomly at every atomic operation instead of by time */
    bool explore;
    uint64_t max_steps;     /* exploration: atomic operations before "no progress" */
} sim_config;

typedef void (*sim_body)(int index, void *arg);

typedef enum sim_outcome {
    SIM_DONE,      /* every thread returned */
    SIM_DEADLOCK,  /* threads left, all blocked for ever (a lost wake-up) */
    SIM_NO_PROGRESS, /* drain time or step bound exceeded */
    SIM_FAILED,    /* a body called sim_fail (a violation) */
} sim_outcome;

typedef struct sim_stats {
    uint64_t events;       /* simulated operations (memory, pause, futex, clock) */
    uint64_t mem_ops;      /* simulated memory operations (atomics and workload data) */
    uint64_t switches;     /* simulated context switches (scheduler) */
    uint64_t parks, wakes; /* futex waits that blocked, futex wakes that woke someone */
    uint64_t vcsw, ivcsw;  /* voluntary (blocking) and involuntary (preemption) switches */
    uint64_t busy_ps;      /* CPU time used by the threads */
    uint64_t end_ps;       /* simulated time at the end */
    uint64_t llc_misses, llc_accesses;
    int blocked;           /* threads left blocked or running when the run ended */
} sim_stats;

/* Run body(i, arg) on cfg->threads simulated threads until they all return (or the
 * outcome says why not).  Not reentrant; one run at a time. */
sim_outcome sim_run(const sim_config *cfg, sim_body body, void *arg, sim_stats *stats);

/* For bodies: */
uint64_t sim_now_ps(void);           /* the calling thread's simulated time */
bool sim_stopping(void);             /* has the run's end time passed? (a load of the stop line) */
void sim_compute(double ns);         /* plain computation: time passes, nothing shared */
void sim_host_prefetch(const void *p); /* a hint, no event: p is loaded soon (the host's cache) */
void sim_data_load(const void *p, bool independent); /* a plain load of memory others may share;
                                      independent: no later access needs its value, so it may
                                      overlap others (the machine's mlp) */
void sim_data_store(void *p);        /* a plain store */
void sim_preempt_point(void);        /* exploration: a scheduling point (a no-op otherwise) */
void sim_yield_point(void);          /* a scheduling point without a memory access: earlier threads run first */
int sim_thread_socket(void);         /* socket of the calling thread's current CPU */
int sim_thread_index(void);
void sim_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* ends the run: SIM_FAILED */
const char *sim_fail_message(void);

/* TLS of the simulated threads (tls.c): make sure threads donors exist, then load
 * simulated thread index's thread pointer (-1: the main thread's). */
void sim_tls_prepare(int threads);
void sim_tls_set(int index);

/* Per-thread context of core.h (env.c) for simulated thread i. */
ll_thread *sim_env_thread(int i);
void sim_env_reset(int threads, uint64_t seed);
extern const sim_machine *sim_env_machine;

#endif
