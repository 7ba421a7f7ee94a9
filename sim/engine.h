/*
 * The simulator engine's private header: what its files share (docs/simulator.md).
 *
 *   engine.c           a run: set-up, the simulated threads' entry, tear-down, and the
 *                      calls the workloads make that are not memory accesses
 *   sched.c            the order of events: the heap of threads by local clock, the
 *                      coroutine switch, the scheduling point before a shared operation
 *   os.c               the operating system: CPUs and run queues, time slices and
 *                      preemption, wake-ups, futexes, sched_yield, sleeps, the clock
 *   cache.c            caches and coherence: line states, transfers, private caches and
 *                      LLCs, the store buffer, the workloads' data accesses
 *   spin.c             spinning: a PAUSE after an unchanged loop iteration sleeps until
 *                      a line it read is written
 *   atomics_backend.c  the verbs of include/locklab/atomics.h as events (atomics_backend.h)
 *
 * One run at a time: all state is in E (defined in engine.c, set up and freed by
 * sim_run), its fields grouped by the file that owns them.  Not for the workloads,
 * which see sim.h only.
 */
#ifndef LOCKLAB_SIM_ENGINE_H
#define LOCKLAB_SIM_ENGINE_H

#include "llt_arch.h"
#include "sim.h"
/* ---- threads, CPUs ------------------------------------------------------------------ */
enum tstate { T_RUNNING, T_READY, T_BLOCKED, T_TIMED, T_DONE };
enum { MAX_READS = 4, STACK_BYTES = 256 << 10, CLOCKLESS_SLEEPS = 256, MAX_MLP = 64, HINT_LAG = 2 };
#define FOREVER (UINT64_MAX / 2)

typedef struct sthread {
    llt_ctx ctx;
    char *stack;
    int index, cpu, heap_pos;
    enum tstate state;
    bool spinsleep;         /* RUNNING, asleep on unchanged lines until key or a write */
    bool timed_out;
    uint64_t time;          /* local clock, ps */
    uint64_t sb_until;      /* its store buffer has drained by then (the last plain store's line is owned) */
    const void *hints[HINT_LAG]; /* the last addresses sim_host_prefetch was given, a ring */
    uint32_t hint_next;          /* the ring's oldest entry */
    uint64_t loads_until;   /* its overlapped data loads (sim_data_load, mlp > 1) have all completed by then */
    uint64_t miss_done[MAX_MLP]; /* the completion times of its last mlp data loads, a ring */
    uint32_t miss_next;          /* the ring's oldest entry */
    uint64_t key, tie;      /* heap order: (key, tie) */
    uint64_t ready_ps;      /* READY: not before */
    uint64_t run_start;     /* when it got its CPU (busy time) */
    struct sthread *rq_next;
    /* futex */
    const void *fword;
    struct sthread *fnext;
    /* spin detection: lines read since the last PAUSE, and in the iteration before */
    uint32_t nreads, pnreads, sleep_gen;
    uint32_t sleeps_since_clock; /* spin sleeps since the thread last read the clock */
    bool wrote, overflow;
    uint32_t read_line[MAX_READS], pread_line[MAX_READS];
    uint32_t read_ver[MAX_READS], pread_ver[MAX_READS];
} sthread;

typedef struct scpu {
    sthread *cur;
    sthread *rq_head, *rq_tail;
    int socket, core, nready;
    uint64_t slice_end;
} scpu;

/* ---- lines -------------------------------------------------------------------------- */
#define MAX_CORES 256
typedef struct watcher {
    uint32_t thread, gen;
} watcher;
/* A simulated line's state: 32 bytes on machines of up to 64 cores, 64 up to 256 (the
 * sharer bitmap has a word per 64 cores), so that RandArray's hundreds of thousands of
 * lines fit the host's caches as far as they can, and no state straddles two host lines. */
typedef struct sline {
    uint64_t busy_until; /* the latest transfer of the line ends then */
    uint32_t version;    /* stores so far (a reader's check compares equality only) */
    uint32_t watch;      /* its spinners: index + 1 in E.watch, 0 = none yet */
    int16_t owner;       /* core holding it modified/exclusive, or -1 */
    int16_t fill_socket; /* the socket of the latest transfer ... */
    bool read_fill;      /* ... if it was a read (a shared fill others of its socket may join) */
    uint64_t sharers[];  /* E.sharer_words words: bit k = core k has a copy */
} sline;
_Static_assert(sizeof(sline) + 8 <= 32 && sizeof(sline) + MAX_CORES / 8 <= 64, "line state sizes");
/* The spinners asleep on a line (lock words only: a side table keeps the state small). */
typedef struct watchlist {
    watcher *w;
    uint32_t n, cap;
} watchlist;
typedef struct {
    uintptr_t page;  /* line number >> PAGE_BITS */
    uint32_t *slots; /* its lines' index + 1, 0 = not seen yet */
} linepage;

enum { PWAYS = 8, LWAYS = 16, FBUCKETS = 1024, EVICT_DELAY = 8 };

enum access { LOAD, STORE, RMW };

/* ---- engine state (one run at a time) ----------------------------------------------- */
struct engine {
    /* the run (engine.c) */
    const sim_config *cfg;
    const sim_machine *m;
    sim_body body;
    void *arg;
    sthread *threads;
    int nthreads, live;
    /* the CPUs (os.c) */
    scpu *cpus;
    int ncpus, ncores;
    /* the order of events (sched.c) */
    sthread **heap; /* the threads that can run, by (key, tie) */
    int heap_n;
    /* SMT (os.c and spin.c count, sim_compute shares) */
    int *core_busy; /* per core: threads running there and not asleep in a spin (SMT competition) */
    double smt_pipes; /* smt x smt_share: the pipelines' worth a core's busy threads share */
    int mlp;          /* data loads a thread keeps in flight (cache.c's sim_data_load) */
    /* the running thread and the run's state (sched.c) */
    sthread *cur;
    llt_ctx main_ctx;
    uint64_t rng;
    bool stopped, aborted;
    uint64_t limit_ps; /* end + drain: a thread past it means the run does not end */
    sim_outcome outcome;
    sim_stats st; /* counted by every file */
    /* costs, ps (engine.c, from the machine) */
    uint64_t c_hit, c_local, c_remote, c_fill, c_rmw, c_pause, c_llc, c_mem, c_slice, c_tick, c_wake, c_switch, c_sys, c_spinq,
        c_clock;
    /* lines, found by line_of's page map (cache.c) */
    unsigned char *line_mem; /* the lines' states, line_stride bytes each (line_at) */
    uint32_t nlines, caplines, line_stride, sharer_words;
    watchlist *watch; /* spin.c: the spinners asleep on a line */
    uint32_t nwatch, capwatch;
    linepage *pages; /* line_of's map */
    uint32_t page_mask, npages;
    uintptr_t last_page;
    uint32_t *last_slots;
    /* caches: private per core (PWAYS), LLC per socket (LWAYS); entries are line index + 1 */
    uint32_t *priv, *llc;
    uint32_t priv_sets, llc_sets;
    uint8_t *priv_rr, *llc_rr;
    /* evictions not yet applied to the evicted line's state (priv_insert) */
    uint32_t evicted_line[EVICT_DELAY]; /* line index + 1, 0 = free */
    int16_t evicted_core[EVICT_DELAY];
    uint32_t evict_next, evict_pending;
    /* futex buckets (os.c) */
    sthread **fbucket;
    /* the stop line (sched.c stores it at the run's end, sim_stopping loads it) */
    uint32_t stop_word;
    char fail_msg[512];
};
extern struct engine E;

static inline uint64_t ps_of(double ns) { return (uint64_t)(ns * SIM_PS_PER_NS + 0.5); }
static inline uint64_t rnd(void)
{
    uint64_t x = E.rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return E.rng = x;
}

/* Outside a run (a lock's init from main): an atomic verb is no event. */
#define OUTSIDE_RUN() (E.cur == NULL)

/* ---- engine.c ------------------------------------------------------------------------ */
void *xcalloc(size_t n, size_t size); /* calloc, or exit on failure */

/* ---- sched.c ------------------------------------------------------------------------- */
void heap_push(sthread *t, uint64_t key);
void heap_remove(sthread *t);
void heap_lower(sthread *t, uint64_t key); /* decrease t's key */
void switch_to(sthread *next);             /* NULL: the main context */
void end_run(sim_outcome o) __attribute__((noreturn));
void reschedule(void);
void sync_point(void);
void give_way(sthread *me);

/* ---- os.c ---------------------------------------------------------------------------- */
uint64_t at_tick(uint64_t t);
void cpu_release(sthread *t, uint64_t now);
void make_runnable(sthread *t, uint64_t at, bool woken);
void maybe_preempt(sthread *me);
void timer_fires(sthread *n);

/* ---- cache.c ------------------------------------------------------------------------- */
void page_table_grow(void);
sline *line_of(const void *p, uint32_t *index);
static inline sline *line_at(uint32_t li) { return (sline *)(E.line_mem + (size_t)li * E.line_stride); }
void access_line(const void *p, enum access kind);
void store_everywhere(uint32_t *p, uint32_t v);

/* Every access but an overlapped data load (sim_data_load) retires after the data
 * loads before it have completed: the core retires in program order.  The clock
 * jumps, so threads whose clocks are earlier run first (a store is visible at once). */
static inline void retire_loads(sthread *me)
{
    if (me->loads_until > me->time) {
        me->time = me->loads_until;
        give_way(me);
    }
}

/* A full fence, a locked instruction or a system call waits for the store buffer. */
static inline void drain(sthread *me)
{
    retire_loads(me);
    if (me->sb_until > me->time)
        me->time = me->sb_until;
}

/* ---- spin.c -------------------------------------------------------------------------- */
void wake_watchers(sline *l, uint64_t at);
void spin_pause(sthread *me);

#endif
