/*
 * The simulator's discrete-event engine (docs/simulator.md).
 *
 * Simulated threads are coroutines on their own stacks, switched with the
 * thread runtime's hand-written context switch (src/threads/arch/).  Each has
 * a local clock; the engine always runs the thread with the earliest local time
 * (ties broken by a key drawn from the seed at every insertion), so a run is a
 * deterministic function of the seed.  A thread runs on until its next shared
 * operation (an atomic verb of include/locklab/atomics.h, a workload's data
 * access, a futex call, a PAUSE): there it first gives way to any thread whose
 * clock is earlier, then performs the operation at its own time and adds the
 * operation's cost.  Plain computation (sim_compute) only adds time.
 *
 * Caches: per-64-byte-line state (owner core, sharer cores, version, busy-until):
 *   load   hit in the core's own cache, else a transfer: from the owning core (within
 *          a socket `local`, across `remote`), else from a sharer (`local`; `llc_ns` with
 *          `inclusive`: the LLC answers) or the socket's LLC, else memory; the line is
 *          shared afterwards.  The workloads' independent data loads overlap, up to
 *          `mlp` in flight per thread; every other access retires after them.
 *   store/RMW  exclusive ownership: a transfer from the owner or the sharers
 *          (invalidating them), `rmw` extra for an atomic read-modify-write
 *   Requests to one line are serialised: a transfer starts when the previous one
 *   ends (busy_until), which is what makes N spinners re-reading a handed-over
 *   line cost N transfers (the ticket lock's collapse) -- unless the machine's
 *   directory broadcasts read fills: a read landing while a read fill to its socket
 *   is in flight gets the line when that fill ends, plus `fill`.
 *   A request is in flight for half a transfer before it reaches the holder, which
 *   keeps using the line until then (a releasing holder re-takes it first); the
 *   access takes effect when the request lands.  A plain store retires into the
 *   store buffer (the thread goes on; the line is fetched meanwhile); a locked
 *   instruction, a full fence or a system call waits for it to drain.
 *   Capacity: a private cache per core and an LLC per socket, 8- and 16-way sets
 *   with round-robin replacement (approximately LRU); a line evicted from a core
 *   leaves its sharers (an owner writes back).
 * Spinning: a PAUSE after a loop iteration that re-read exactly the lines of the
 *   previous iteration, unchanged, and wrote nothing, sleeps until one of them is
 *   written (then notices it when its PAUSE ends: up to `pause` later) or `spinq` ns
 *   pass (time passes as if it spun; events are saved); a loop that has not read
 *   the clock for 256 such sleeps sleeps until written (or its time slice ends with
 *   a thread waiting for the CPU).
 * Scheduler: sockets x cores x smt CPUs; thread i starts on CPU i mod CPUs (CPU c:
 *   socket c mod S, core c mod S*C).  More threads than CPUs wait in per-CPU run
 *   queues; a running thread is preempted when its slice has ended (each CPU's first
 *   slice ends at a seeded point, not all together; with a `tick`,
 *   at the first tick after it, ticks aligned across CPUs) if its queue is not
 *   empty; a CPU that goes idle takes a waiting thread from another CPU's queue.
 *   A futex call costs `syscall`; a wait compares the word halfway through (the
 *   kernel's entry), after every thread whose clock is earlier has gone, and then
 *   returns or blocks (the CPU runs the next thread after a context switch); a
 *   futex wake makes the waiter runnable `wake` later, on an idle CPU if there is
 *   one, else on its last CPU: next, preempting the running thread if that one has
 *   used its slice (EEVDF's wake-up preemption), else queued.  SMT: a core's busy
 *   hardware threads (running, not asleep in a spin) share smt x smt_share
 *   pipelines' worth of plain computation.
 * TLS: each simulated thread runs with a thread pointer of its own (tls.c).
 * Exploration (cfg->explore): the next thread is drawn at random at every shared
 *   operation instead of by time; timed waits time out at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* ---- engine state (one run at a time) ----------------------------------------------- */
static struct {
    const sim_config *cfg;
    const sim_machine *m;
    sim_body body;
    void *arg;
    sthread *threads;
    int nthreads, live;
    scpu *cpus;
    int ncpus, ncores;
    sthread **heap;
    int heap_n;
    int *core_busy; /* per core: threads running there and not asleep in a spin (SMT competition) */
    double smt_pipes; /* smt x smt_share: the pipelines' worth a core's busy threads share */
    int mlp;          /* data loads a thread keeps in flight (sim_data_load) */
    sthread *cur;
    llt_ctx main_ctx;
    uint64_t rng;
    bool stopped, aborted;
    uint64_t limit_ps; /* end + drain: a thread past it means the run does not end */
    sim_outcome outcome;
    sim_stats st;
    /* costs, ps */
    uint64_t c_hit, c_local, c_remote, c_fill, c_rmw, c_pause, c_llc, c_mem, c_slice, c_tick, c_wake, c_switch, c_sys, c_spinq,
        c_clock;
    /* lines, found by line_of's page map */
    unsigned char *line_mem; /* the lines' states, line_stride bytes each (line_at) */
    uint32_t nlines, caplines, line_stride, sharer_words;
    watchlist *watch;
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
    /* futex buckets */
    sthread **fbucket;
    /* the stop line */
    uint32_t stop_word;
    char fail_msg[512];
} E;

static inline uint64_t ps_of(double ns) { return (uint64_t)(ns * SIM_PS_PER_NS + 0.5); }
static inline uint64_t rnd(void)
{
    uint64_t x = E.rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return E.rng = x;
}

/* ---- heap of (key, tie) ----------------------------------------------------------------- */
static inline bool before(const sthread *a, const sthread *b)
{
    return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}
static void heap_set(int i, sthread *t)
{
    E.heap[i] = t;
    t->heap_pos = i;
}
static void sift_up(int i)
{
    sthread *t = E.heap[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(t, E.heap[p]))
            break;
        heap_set(i, E.heap[p]);
        i = p;
    }
    heap_set(i, t);
}
static void sift_down(int i)
{
    sthread *t = E.heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= E.heap_n)
            break;
        if (c + 1 < E.heap_n && before(E.heap[c + 1], E.heap[c]))
            c++;
        if (!before(E.heap[c], t))
            break;
        heap_set(i, E.heap[c]);
        i = c;
    }
    heap_set(i, t);
}
static void heap_push(sthread *t, uint64_t key)
{
    t->key = key;
    t->tie = rnd();
    heap_set(E.heap_n++, t);
    sift_up(E.heap_n - 1);
}
static void heap_remove(sthread *t)
{
    int i = t->heap_pos;
    t->heap_pos = -1;
    sthread *last = E.heap[--E.heap_n];
    if (i == E.heap_n)
        return;
    heap_set(i, last);
    sift_up(i);
    sift_down(last->heap_pos);
}
static void heap_lower(sthread *t, uint64_t key) /* decrease t's key */
{
    if (key < t->key) {
        t->key = key;
        sift_up(t->heap_pos);
    }
}

/* ---- switching ------------------------------------------------------------------------ */
static void switch_to(sthread *next)
{
    sthread *me = E.cur;
    E.cur = next;
    sim_tls_set(next ? next->index : -1); /* the thread's own TLS (tls.c) */
    llt_ctx *from = me ? &me->ctx : &E.main_ctx;
    llt_ctx *to = next ? &next->ctx : &E.main_ctx;
    if (from != to)
        llt_ctx_switch(from, to);
}

static void end_run(sim_outcome o)
{
    if (E.outcome == SIM_DONE)
        E.outcome = o;
    E.aborted = true;
    switch_to(NULL);
    abort(); /* an aborted run's threads are never resumed */
}

static void make_runnable(sthread *t, uint64_t at, bool woken);

/* Run n, just taken from the heap (a spinner's sleep ends at its key). */
static void resume(sthread *n)
{
    if (n->spinsleep) {
        n->spinsleep = false;
        E.core_busy[E.cpus[n->cpu].core]++;
        n->sleep_gen++;
        n->time = n->key;
    }
    if (n != E.cur)
        switch_to(n);
}

/* The current thread has been put wherever it belongs (heap, run queue, blocked):
 * run the next one.  Timers that fire on the way make their threads runnable. */
static void reschedule(void)
{
    for (;;) {
        if (E.heap_n == 0) {
            if (E.live == 0) {
                switch_to(NULL);
                abort();
            }
            end_run(SIM_DEADLOCK);
        }
        sthread *n = E.heap[0];
        if (n->key > E.limit_ps)
            end_run(SIM_NO_PROGRESS);
        if (n->state == T_TIMED) { /* a futex timeout or a sleep ends */
            heap_remove(n);
            n->timed_out = true;
            if (n->fword) { /* leave the futex bucket */
                sthread **pp = &E.fbucket[((uintptr_t)n->fword >> 2) % FBUCKETS];
                while (*pp != n)
                    pp = &(*pp)->fnext;
                *pp = n->fnext;
                n->fword = NULL;
            }
            make_runnable(n, n->key, true);
            continue;
        }
        heap_remove(n);
        resume(n);
        return;
    }
}

/* ---- CPUs -------------------------------------------------------------------------------- */
static void rq_push(scpu *c, sthread *t)
{
    t->rq_next = NULL;
    if (c->rq_tail)
        c->rq_tail->rq_next = t;
    else
        c->rq_head = t;
    c->rq_tail = t;
    c->nready++;
}
static void rq_push_front(scpu *c, sthread *t)
{
    t->rq_next = c->rq_head;
    c->rq_head = t;
    if (!c->rq_tail)
        c->rq_tail = t;
    c->nready++;
}
static sthread *rq_pop(scpu *c)
{
    sthread *t = c->rq_head;
    if (t) {
        c->rq_head = t->rq_next;
        if (!c->rq_head)
            c->rq_tail = NULL;
        c->nready--;
    }
    return t;
}

/* A thread dispatched at time at may be preempted from this time on: when its slice
 * ends, or with a tick (the kernel checks at every CPU's tick, aligned across CPUs),
 * at the first tick after its slice has ended. */
static uint64_t at_tick(uint64_t t) { return E.c_tick ? (t + E.c_tick - 1) / E.c_tick * E.c_tick : t; }
static uint64_t slice_end(uint64_t at) { return at_tick(at + E.c_slice); }

/* t starts running on c at time at. */
static void dispatch(scpu *c, sthread *t, uint64_t at)
{
    c->cur = t;
    E.core_busy[c->core]++;
    t->cpu = (int)(c - E.cpus);
    t->state = T_RUNNING;
    t->time = at;
    t->run_start = at;
    t->nreads = t->pnreads = 0;
    c->slice_end = slice_end(at);
    heap_push(t, at);
}

/* t leaves its CPU at time now (blocked, done, preempted): the CPU runs the next
 * thread of its queue, or one taken from another CPU's queue, or idles. */
static void cpu_release(sthread *t, uint64_t now)
{
    scpu *c = &E.cpus[t->cpu];
    E.st.busy_ps += now - t->run_start;
    E.core_busy[c->core]--;
    c->cur = NULL;
    sthread *n = rq_pop(c);
    for (int k = 1; !n && k < E.ncpus; k++) /* idle balancing: the nearest queue that has a thread */
        n = rq_pop(&E.cpus[(t->cpu + k) % E.ncpus]);
    if (n) {
        uint64_t at = now + E.c_switch;
        dispatch(c, n, n->ready_ps > at ? n->ready_ps : at);
        E.st.switches++;
    }
}

/* t may run from time at: on its last CPU if idle, else on an idle CPU (its socket
 * first), else it waits in its last CPU's queue; a thread woken from a sleep
 * preempts the running thread there if that one has used its slice. */
static void make_runnable(sthread *t, uint64_t at, bool woken)
{
    scpu *c = &E.cpus[t->cpu];
    if (c->cur) {
        scpu *idle = NULL;
        for (int k = 1; k < E.ncpus; k++) {
            scpu *o = &E.cpus[(t->cpu + k) % E.ncpus];
            if (!o->cur && !o->rq_head && (!idle || (o->socket == c->socket && idle->socket != c->socket)))
                idle = o;
        }
        if (!idle) {
            t->state = T_READY;
            t->ready_ps = at;
            if (woken && at >= c->cur->run_start + E.c_slice) {
                /* wake-up preemption (EEVDF): the running thread has used its slice, the woken
                 * one (it slept: it has lag) has the earlier deadline: it runs next, now */
                rq_push_front(c, t);
                c->slice_end = at;
            } else {
                rq_push(c, t);
            }
            if (c->cur->spinsleep) /* the spinner there must wake for its preemption */
                heap_lower(c->cur, c->slice_end > at ? c->slice_end : at);
            return;
        }
        c = idle;
    }
    dispatch(c, t, at);
}

/* Preempt the running thread at the end of its slice if another waits for its CPU. */
static void maybe_preempt(sthread *me)
{
    scpu *c = &E.cpus[me->cpu];
    if (LL_LIKELY(c->nready == 0 || me->time < c->slice_end))
        return;
    me->state = T_READY;
    me->ready_ps = me->time;
    E.st.ivcsw++;
    cpu_release(me, me->time);
    rq_push(c, me);
    reschedule();
}

/* Before a shared operation: give way to every thread whose clock is earlier
 * (exploration: to a thread drawn at random). */
static void sync_point(void)
{
    sthread *me = E.cur;
    E.st.events++;
    if (E.cfg->explore) {
        if (E.st.events > E.cfg->max_steps)
            end_run(SIM_NO_PROGRESS);
        uint64_t r = rnd() % (uint64_t)(E.heap_n + 1);
        if (r < (uint64_t)E.heap_n) { /* another thread runs first */
            sthread *n = E.heap[r];
            heap_remove(n);
            heap_push(me, me->time);
            switch_to(n);
        }
        return;
    }
    if (!E.stopped && E.cfg->end_ps && me->time >= E.cfg->end_ps) {
        /* the run's end: the harness stores the stop flag (invalidating every copy) */
        E.stopped = true;
        llsim_store(&E.stop_word, 1, 4);
    }
    if (me->time > E.limit_ps)
        end_run(SIM_NO_PROGRESS);
    maybe_preempt(me);
    if (E.heap_n && E.heap[0]->key <= me->time) { /* someone is earlier (or ties: the draw decides) */
        sthread *top = E.heap[0];
        if (top->key == me->time || top->state != T_RUNNING || top->key > E.limit_ps) {
            heap_push(me, me->time);
            reschedule();
            return;
        }
        /* the common case in one sift: me takes the earliest thread's place in the heap */
        top->heap_pos = -1;
        me->key = me->time;
        me->tie = rnd();
        heap_set(0, me);
        sift_down(0);
        resume(top);
    }
}

/* ---- caches and coherence -------------------------------------------------------------- */
static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "locklab-sim: out of memory\n");
        exit(1);
    }
    return p;
}

/* Line number -> index + 1, in pages of PAGE_LINES lines (256 KiB of addresses, 16 KiB of slots):
 * a page's slots are dense, so a workload's arrays cost 4 bytes of map per line
 * and neighbouring lines share the host's cache; the pages themselves are few and
 * found by a small open-addressed table (one entry remembered). */
enum { PAGE_BITS = 12, PAGE_LINES = 1 << PAGE_BITS };
static uint32_t hash_page(uintptr_t page) { return (uint32_t)((page * 0x9E3779B97F4A7C15ull) >> 40); }

static void page_table_grow(void)
{
    uint32_t cap = E.page_mask ? (E.page_mask + 1) * 2 : 64;
    linepage *old = E.pages;
    uint32_t oldcap = E.page_mask ? E.page_mask + 1 : 0;
    E.pages = xcalloc(cap, sizeof(linepage));
    E.page_mask = cap - 1;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].slots) {
            uint32_t h = hash_page(old[i].page) & E.page_mask;
            while (E.pages[h].slots)
                h = (h + 1) & E.page_mask;
            E.pages[h] = old[i];
        }
    free(old);
}

/* page's entry in the table (slots NULL: not seen yet, and this is where it goes). */
static inline linepage *page_entry(uintptr_t page)
{
    uint32_t h = hash_page(page) & E.page_mask;
    while (E.pages[h].slots && E.pages[h].page != page)
        h = (h + 1) & E.page_mask;
    return &E.pages[h];
}

static uint32_t *page_slots(uintptr_t page)
{
    if (E.last_slots && E.last_page == page)
        return E.last_slots;
    linepage *e = page_entry(page);
    if (!e->slots) {
        *e = (linepage){page, xcalloc(PAGE_LINES, sizeof(uint32_t))};
        if (++E.npages * 2 > E.page_mask) {
            page_table_grow();
            e = page_entry(page);
        }
    }
    E.last_page = page;
    return E.last_slots = e->slots;
}

/* Where line_of will find p's line index (NULL: a page not seen yet; no event, no
 * allocation). */
static inline uint32_t *slot_of(const void *p)
{
    uintptr_t a = (uintptr_t)p >> 6, page = a >> PAGE_BITS;
    uint32_t *slots = E.last_slots && E.last_page == page ? E.last_slots : page_entry(page)->slots;
    return slots ? &slots[a & (PAGE_LINES - 1)] : NULL;
}

static inline sline *line_at(uint32_t li) { return (sline *)(E.line_mem + (size_t)li * E.line_stride); }

static sline *line_of(const void *p, uint32_t *index)
{
    uintptr_t a = (uintptr_t)p >> 6;
    uint32_t *slot = &page_slots(a >> PAGE_BITS)[a & (PAGE_LINES - 1)];
    if (*slot) {
        *index = *slot - 1;
        return line_at(*slot - 1);
    }
    if (E.nlines == E.caplines) {
        E.caplines = E.caplines ? E.caplines * 2 : 1024;
        unsigned char *grown = aligned_alloc(64, (size_t)E.caplines * E.line_stride);
        if (!grown) {
            fprintf(stderr, "locklab-sim: out of memory for %u cache lines\n", E.caplines);
            exit(1);
        }
        if (E.nlines)
            memcpy(grown, E.line_mem, (size_t)E.nlines * E.line_stride);
        free(E.line_mem);
        E.line_mem = grown;
    }
    sline *l = line_at(E.nlines);
    memset(l, 0, E.line_stride);
    l->owner = -1;
    *slot = E.nlines + 1;
    *index = E.nlines++;
    return l;
}

static inline bool has_core(const sline *l, int k) { return (l->sharers[k >> 6] >> (k & 63)) & 1; }
static inline void add_core(sline *l, int k)
{
    l->sharers[k >> 6] |= 1ull << (k & 63);
}
static inline void drop_core(sline *l, int k)
{
    l->sharers[k >> 6] &= ~(1ull << (k & 63));
    if (l->owner == k)
        l->owner = -1; /* written back to the LLC */
}
static inline int core_socket(int k) { return k % E.m->sockets; }

/* A line's cache sets are a hash of its index (the order in which lines were first
 * touched), not of its address: addresses change from run to run (ASLR: the heap, the
 * workloads' mappings), and a run must be a function of its seed.  Both are as good a
 * spread as the physical addresses a real cache indexes by. */
static inline uint32_t set_of(uint32_t li, uint64_t salt, uint32_t sets)
{
    return (uint32_t)((((uint64_t)li + 1) * salt) >> 40) % sets;
}

static inline size_t priv_set(int k, uint32_t li)
{
    return (size_t)k * E.priv_sets + set_of(li, 0x9E3779B97F4A7C15ull, E.priv_sets);
}

static inline size_t llc_set(int s, uint32_t li)
{
    return (size_t)s * E.llc_sets + set_of(li, 0xC2B2AE3D27D4EB4Full, E.llc_sets);
}

/* An eviction from a core's cache clears the core's copy in the evicted line's state,
 * a random line's on large working sets, so a host cache miss.  The eviction waits
 * in a short queue while the host fetches that state, and is applied when the queue
 * needs its place, or before any access to the evicted line (settle_evictions): no
 * access sees the line otherwise than at once, so the run is the same. */
static void apply_eviction(uint32_t slot)
{
    drop_core(line_at(E.evicted_line[slot] - 1), E.evicted_core[slot]);
    E.evicted_line[slot] = 0;
    E.evict_pending--;
}

static inline void settle_evictions(uint32_t li)
{
    for (uint32_t i = 0; E.evict_pending && i < EVICT_DELAY; i++)
        if (E.evicted_line[i] == li + 1)
            apply_eviction(i);
}

/* Line li enters core k's private cache (evicting another line of its set). */
static void priv_insert(int k, uint32_t li)
{
    size_t set = priv_set(k, li);
    uint32_t *ways = &E.priv[set * PWAYS];
    for (int w = 0; w < PWAYS; w++)
        if (ways[w] == li + 1)
            return;
    uint8_t *rr = &E.priv_rr[set];
    uint32_t victim = ways[*rr];
    if (victim) {
        uint32_t slot = E.evict_next;
        E.evict_next = (slot + 1) % EVICT_DELAY;
        if (E.evicted_line[slot])
            apply_eviction(slot);
        E.evicted_line[slot] = victim;
        E.evicted_core[slot] = (int16_t)k;
        E.evict_pending++;
        __builtin_prefetch(line_at(victim - 1), 1);
    }
    ways[*rr] = li + 1;
    *rr = (uint8_t)((*rr + 1) % PWAYS);
}

/* Is line li in socket s's LLC?  Inserts it if not. */
static bool llc_lookup(int s, uint32_t li)
{
    E.st.llc_accesses++;
    size_t set = llc_set(s, li);
    uint32_t *ways = &E.llc[set * LWAYS];
    for (int w = 0; w < LWAYS; w++)
        if (ways[w] == li + 1)
            return true;
    E.st.llc_misses++;
    uint8_t *rr = &E.llc_rr[set];
    ways[*rr] = li + 1;
    *rr = (uint8_t)((*rr + 1) % LWAYS);
    return false;
}

/* What it costs core k to get line l from elsewhere (it has no copy, or needs the
 * others' copies invalidated when exclusive). */
static uint64_t fetch_cost(sline *l, uint32_t li, int k, bool exclusive)
{
    int s = core_socket(k);
    if (l->owner >= 0 && l->owner != k)
        return core_socket(l->owner) == s ? E.c_local : E.c_remote;
    bool local = false, remote = false;
    for (uint32_t w = 0; w < E.sharer_words && (local + remote) < 2; w++)
        for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
            int o = (int)w * 64 + __builtin_ctzll(b);
            if (o == k)
                continue;
            if (core_socket(o) == s)
                local = true;
            else
                remote = true;
        }
    if (exclusive && has_core(l, k)) /* an upgrade: invalidations only */
        return remote ? E.c_remote : local ? E.c_local : E.c_hit;
    if (local && !exclusive && E.m->inclusive) { /* a clean copy: the inclusive LLC answers */
        E.st.llc_accesses++;
        return E.c_llc;
    }
    if (local)
        return E.c_local;
    if (llc_lookup(s, li))
        return E.c_llc;
    return remote ? E.c_remote : E.c_mem;
}

/* Core k's fetch of line l (exclusive: for a write), asked at now with flight of it
 * already spent on the request: it starts once the line is free and costs what
 * fetch_cost says; the line is busy until it is done.  Returns when it is done. */
static uint64_t fetch(sline *l, uint32_t li, int k, bool exclusive, uint64_t now, uint64_t flight)
{
    uint64_t start = now > l->busy_until ? now : l->busy_until;
    uint64_t cost = fetch_cost(l, li, k, exclusive);
    l->busy_until = start + (cost > flight ? cost - flight : 0);
    return l->busy_until;
}

/* Wake the spinners asleep on line l (it was written at time at).  A spinner
 * notices the write at its next load, when the PAUSE it is in ends: a uniform
 * draw in [0, pause) later. */
static void wake_watchers(sline *l, uint64_t at)
{
    if (!l->watch)
        return;
    watchlist *wl = &E.watch[l->watch - 1];
    for (uint32_t i = 0; i < wl->n; i++) {
        sthread *t = &E.threads[wl->w[i].thread];
        if (t->spinsleep && t->sleep_gen == wl->w[i].gen && t->heap_pos >= 0)
            heap_lower(t, (at > t->time ? at : t->time) + (E.c_pause ? rnd() % E.c_pause : 0));
    }
    wl->n = 0;
}

enum access { LOAD, STORE, RMW };

/* How long core k's request for line l travels before it reaches the core(s) that
 * must give the line up (half a transfer: the other half brings the data back), or
 * 0 when nobody has to: a load of a line no core holds modified, a write of a line
 * no other core has.  Until the request lands, those cores keep using their copy. */
static uint64_t request_flight(const sline *l, int k, enum access kind)
{
    int s = core_socket(k);
    if (l->owner >= 0)
        return l->owner == k ? 0 : (core_socket(l->owner) == s ? E.c_local : E.c_remote) / 2;
    if (kind == LOAD)
        return 0;
    uint64_t far = 0;
    for (uint32_t w = 0; w < E.sharer_words && far < E.c_remote; w++)
        for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
            int o = (int)w * 64 + __builtin_ctzll(b);
            uint64_t c = o == k ? 0 : core_socket(o) == s ? E.c_local : E.c_remote;
            far = c > far ? c : far;
        }
    return far / 2;
}

/* The running thread's clock has advanced: let every thread whose clock is earlier
 * run first (no event of its own: part of the operation in progress). */
static void give_way(sthread *me)
{
    if (E.heap_n && E.heap[0]->key <= me->time) {
        heap_push(me, me->time);
        reschedule();
    }
}

/* Core of the running thread accesses p at its time: add the cost.
 * A transfer is not an instantaneous loss of ownership: the request is in flight
 * for half the transfer, during which the holder keeps the line (its own loads and
 * stores are hits, and come first); the access takes effect when the request lands
 * (its value is read then) and the data needs the other half to come back.
 * Read fills are broadcast: a load whose request lands while a read fill of the
 * line to its socket is in flight gets its shared copy when that fill ends, plus
 * the directory's `fill` occupancy per extra reader (the full transfer on a machine whose directory
 * answers reads one by one, the slides' Opteron). */
static uint64_t access(const void *p, enum access kind) /* returns when it took effect */
{
    sthread *me = E.cur;
    int k = E.cpus[me->cpu].core;
    uint32_t li;
    sline *l = line_of(p, &li);
    E.st.mem_ops++;
    settle_evictions(li);
    uint64_t flight = 0;
    if (kind == RMW && me->sb_until > me->time) /* a locked instruction drains the store buffer first */
        me->time = me->sb_until;
    if (!E.cfg->explore && (kind == LOAD ? !has_core(l, k) : kind == RMW && l->owner != k)) {
        flight = request_flight(l, k, kind);
        if (flight) {
            me->time += flight;
            give_way(me);
            settle_evictions(li); /* others' accesses may have evicted it ... */
            l = line_at(li);      /* ... and moved the line array */
        }
    }
    uint64_t now = me->time, done;
    if (kind == LOAD) {
        if (has_core(l, k)) {
            done = now + E.c_hit;
        } else if (l->read_fill && now < l->busy_until && l->fill_socket == core_socket(k)) {
            /* joins the read fill in flight to its socket */
            done = l->busy_until + E.c_fill;
            l->busy_until = done;
            add_core(l, k);
            priv_insert(k, li);
            l = line_at(li);
        } else {
            done = fetch(l, li, k, false, now, flight);
            l->read_fill = true;
            l->fill_socket = (int16_t)core_socket(k);
            if (l->owner >= 0) { /* the owner keeps a shared copy */
                add_core(l, l->owner);
                l->owner = -1;
            }
            add_core(l, k);
            priv_insert(k, li);
            l = line_at(li);
        }
        if (me->nreads < MAX_READS) {
            me->read_line[me->nreads] = li;
            me->read_ver[me->nreads++] = l->version;
        } else {
            me->overflow = true;
        }
    } else {
        if (l->owner == k) {
            done = now + E.c_hit;
        } else {
            done = fetch(l, li, k, true, now, flight);
            l->read_fill = false;
            memset(l->sharers, 0, E.sharer_words * sizeof(uint64_t));
            add_core(l, k);
            l->owner = (int16_t)k;
            priv_insert(k, li);
            l = line_at(li);
        }
        if (kind == RMW)
            done += E.c_rmw;
        if (kind == STORE && done < me->sb_until && !E.cfg->explore) {
            /* x86-TSO: stores commit in program order, so this one is seen (its spinners
             * woken, its line handed on) only once the earlier ones in the buffer have
             * committed: a release store waits for the critical section's stores */
            done = me->sb_until;
            if (l->busy_until < done)
                l->busy_until = done;
        }
        l->version++;
        me->wrote = true;
        wake_watchers(l, done);
        if (kind == STORE && !E.cfg->explore) { /* retired into the store buffer: the thread goes on */
            me->sb_until = done; /* in order: done >= the earlier stores' commits (above) */
            done = now + E.c_hit;
        }
    }
    me->time = done;
    return now;
}

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
static void access_line(const void *p, enum access kind)
{
    retire_loads(E.cur);
    access(p, kind);
}

/* A full fence, a locked instruction or a system call waits for the store buffer. */
static inline void drain(sthread *me)
{
    retire_loads(me);
    if (me->sb_until > me->time)
        me->time = me->sb_until;
}

/* ---- the atomics backend (include/locklab/atomics.h, LL_BACKEND_SIM) ------------------ */
static inline uint64_t get(const void *p, unsigned size) { return size == 4 ? *(const uint32_t *)p : *(const uint64_t *)p; }
static inline void put(void *p, uint64_t v, unsigned size)
{
    if (size == 4)
        *(uint32_t *)p = (uint32_t)v;
    else
        *(uint64_t *)p = v;
}

/* Outside a run (a lock's init from main, the engine's own stop store): no event. */
#define OUTSIDE_RUN() (E.cur == NULL)

uint64_t llsim_load(const void *p, unsigned size)
{
    if (OUTSIDE_RUN())
        return get(p, size);
    sync_point();
    access_line(p, LOAD);
    return get(p, size);
}

void llsim_store(void *p, uint64_t v, unsigned size)
{
    if (OUTSIDE_RUN()) {
        put(p, v, size);
        return;
    }
    if (p == &E.stop_word) { /* the engine's stop store: every copy invalidated now */
        uint32_t li;
        sline *l = line_of(p, &li);
        settle_evictions(li);
        memset(l->sharers, 0, E.sharer_words * sizeof(uint64_t));
        l->owner = -1;
        l->version++;
        wake_watchers(l, E.cur->time);
        put(p, v, size);
        return;
    }
    sync_point();
    access_line(p, STORE);
    put(p, v, size);
}

uint64_t llsim_xchg(void *p, uint64_t v, unsigned size)
{
    if (OUTSIDE_RUN()) {
        uint64_t old = get(p, size);
        put(p, v, size);
        return old;
    }
    sync_point();
    access_line(p, RMW);
    uint64_t old = get(p, size);
    put(p, v, size);
    return old;
}

bool llsim_cas(void *p, void *expected, uint64_t desired, unsigned size)
{
    if (!OUTSIDE_RUN()) {
        sync_point();
        access_line(p, RMW); /* a failed CAS still takes the line exclusive (x86 LOCK CMPXCHG) */
    }
    uint64_t old = get(p, size), exp = get(expected, size);
    if (old == exp) {
        put(p, desired, size);
        return true;
    }
    put(expected, old, size);
    return false;
}

uint64_t llsim_faa(void *p, uint64_t d, unsigned size)
{
    if (!OUTSIDE_RUN()) {
        sync_point();
        access_line(p, RMW);
    }
    uint64_t old = get(p, size);
    put(p, old + d, size);
    return old;
}

void ll_fence(ll_order o)
{
    if (OUTSIDE_RUN() || o != LL_SEQ_CST)
        return; /* acquire/release fences are free on x86 (TSO) */
    sync_point();
    drain(E.cur);
    E.cur->time += E.c_rmw; /* MFENCE: about a locked instruction */
}

/* Did this spin-loop iteration re-read exactly the previous iteration's lines,
 * unchanged, and write nothing? */
static bool unchanged_spin(sthread *me)
{
    if (me->wrote || me->overflow || me->nreads == 0 || me->nreads != me->pnreads)
        return false;
    for (uint32_t i = 0; i < me->nreads; i++)
        if (me->read_line[i] != me->pread_line[i] || me->read_ver[i] != me->pread_ver[i] ||
            line_at(me->read_line[i])->version != me->read_ver[i])
            return false;
    return true;
}

static void watch(sline *l, sthread *t)
{
    if (!l->watch) {
        if (E.nwatch == E.capwatch) {
            E.capwatch = E.capwatch ? E.capwatch * 2 : 64;
            E.watch = realloc(E.watch, E.capwatch * sizeof(watchlist));
            if (!E.watch) {
                fprintf(stderr, "locklab-sim: out of memory for the spinners' lists\n");
                exit(1);
            }
        }
        E.watch[E.nwatch] = (watchlist){NULL, 0, 0};
        l->watch = ++E.nwatch;
    }
    watchlist *wl = &E.watch[l->watch - 1];
    if (wl->n == wl->cap) { /* first forget the sleeps that have ended */
        uint32_t n = 0;
        for (uint32_t i = 0; i < wl->n; i++) {
            sthread *o = &E.threads[wl->w[i].thread];
            if (o->spinsleep && o->sleep_gen == wl->w[i].gen)
                wl->w[n++] = wl->w[i];
        }
        wl->n = n;
    }
    if (wl->n == wl->cap) {
        wl->cap = wl->cap ? wl->cap * 2 : 4;
        wl->w = realloc(wl->w, wl->cap * sizeof(watcher));
        if (!wl->w) {
            fprintf(stderr, "locklab-sim: out of memory for the spinners' lists\n");
            exit(1);
        }
    }
    wl->w[wl->n++] = (watcher){(uint32_t)t->index, t->sleep_gen};
}

void ll_pause(void)
{
    if (OUTSIDE_RUN())
        return;
    sthread *me = E.cur;
    sync_point(); /* a spinner lets earlier threads run (exploration: a random one) */
    if (E.cfg->explore)
        return;
    me->time += E.c_pause;
    bool same = unchanged_spin(me);
    memcpy(me->pread_line, me->read_line, sizeof me->read_line);
    memcpy(me->pread_ver, me->read_ver, sizeof me->read_ver);
    me->pnreads = me->nreads;
    me->nreads = 0;
    me->wrote = me->overflow = false;
    if (!same)
        return;
    /* asleep until a watched line is written or the quantum (or the slice) ends; a loop
     * that has not read the clock for a while (pure spinning) sleeps until written */
    uint64_t until = ++me->sleeps_since_clock > CLOCKLESS_SLEEPS ? FOREVER : me->time + E.c_spinq;
    scpu *c = &E.cpus[me->cpu];
    if (c->nready && c->slice_end > me->time && c->slice_end < until)
        until = c->slice_end;
    for (uint32_t i = 0; i < me->pnreads; i++)
        watch(line_at(me->pread_line[i]), me);
    me->spinsleep = true;
    E.core_busy[c->core]--; /* a spinner asleep in PAUSE leaves the pipeline to its siblings */
    heap_push(me, until);
    reschedule();
    maybe_preempt(me);
}

/* ---- futexes, clock, yield, sleep (core.h) ------------------------------------------- */
static sthread **bucket_of(const void *w) { return &E.fbucket[((uintptr_t)w >> 2) % FBUCKETS]; }

/* A futex wait's entry into the kernel, before it compares the word: half the call.  (On
 * the AMD host of 2026-11-25 a store made up to 150 ns after a futex_wait began, from
 * another core, was seen by the kernel's comparison, of a 210-ns call that finds the word
 * changed; docs/simulator.md.) */
static inline uint64_t sys_entry(void) { return E.c_sys / 2; }

/* Block the running thread on word (NULL: a plain sleep) until woken or deadline_ps (0: none). */
static void block(const void *word, uint64_t deadline_ps)
{
    sthread *me = E.cur;
    me->timed_out = false;
    me->fword = word;
    if (word) {
        sthread **b = bucket_of(word);
        me->fnext = NULL;
        while (*b)
            b = &(*b)->fnext;
        *b = me; /* FIFO, as the kernel's futex queue */
    }
    E.st.vcsw++;
    E.st.parks += word != NULL;
    cpu_release(me, me->time);
    if (deadline_ps) {
        me->state = T_TIMED;
        heap_push(me, deadline_ps > me->time ? deadline_ps : me->time);
    } else {
        me->state = T_BLOCKED;
    }
    reschedule();
}

static uint64_t ps_of_timespec(const struct timespec *ts)
{
    return ((uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec) * SIM_PS_PER_NS;
}

void ll_futex_wait(ll_atomic_u32 *word, uint32_t expected)
{
    ll_futex_wait_until(word, expected, CLOCK_MONOTONIC, NULL);
}

int ll_futex_wait_until(ll_atomic_u32 *word, uint32_t expected, clockid_t clock, const struct timespec *abstime)
{
    (void)clock; /* both clocks are the simulated time */
    sthread *me = E.cur;
    drain(me);
    me->time += sys_entry(); /* the kernel compares the word at the end of its entry, ... */
    sync_point();            /* ... so every thread whose clock is earlier goes first */
    access_line(word, LOAD); /* the kernel compares under its bucket lock: no event between */
    int rc;
    if (word->v != expected) {
        rc = 0;
    } else if (abstime && (E.cfg->explore || ps_of_timespec(abstime) <= me->time)) {
        if (E.cfg->explore) { /* the model checker's way: others run, then the deadline has passed */
            sync_point();
            if (me->time < ps_of_timespec(abstime))
                me->time = ps_of_timespec(abstime);
        }
        rc = ETIMEDOUT;
    } else {
        block(word, abstime ? ps_of_timespec(abstime) : 0);
        rc = me->timed_out ? ETIMEDOUT : 0;
    }
    me->time += E.c_sys - sys_entry(); /* the way back (returning at once, woken or timed out) */
    return rc;
}

void ll_futex_wake(ll_atomic_u32 *word, int n)
{
    sthread *me = E.cur;
    drain(me);
    me->time += E.c_sys; /* the sleepers it wakes are those there by the end of the call, ... */
    sync_point();        /* ... after every thread whose clock is earlier has gone */
    for (sthread **b = bucket_of(word); *b && n > 0;) {
        sthread *t = *b;
        if (t->fword != word) {
            b = &t->fnext;
            continue;
        }
        *b = t->fnext;
        t->fword = NULL;
        if (t->state == T_TIMED)
            heap_remove(t);
        E.st.wakes++;
        /* the wake-up latency varies (IPI delivery, the idle CPU's exit from its idle
         * state, the switch): uniform in [wake/2, 3 wake/2), mean wake; a constant would
         * make the wakee arrive at the same phase of a waker's fixed-length loop each
         * time (RandArray's loop has no random part), a resonance real machines lack */
        uint64_t lat = E.cfg->explore ? E.c_wake : E.c_wake / 2 + rnd() % (E.c_wake + 1);
        make_runnable(t, me->time + lat, true);
        n--;
    }
}

/* FUTEX_WAKE_OP is not modelled: the caller's fallback (two wakes) runs, as where the kernel
 * refuses the call (core.h). */
bool ll_futex_wake_two(ll_atomic_u32 *a, ll_atomic_u32 *b, uint32_t set_to, uint32_t was)
{
    (void)a, (void)b, (void)set_to, (void)was;
    return false;
}

void ll_futex_counts(uint64_t *waits, uint64_t *wakes)
{
    *waits = E.st.parks;
    *wakes = E.st.wakes;
}

uint64_t ll_now_ns(void)
{
    if (OUTSIDE_RUN())
        return 0;
    E.st.events++;
    E.cur->sleeps_since_clock = 0;
    E.cur->time += E.c_clock;
    return E.cur->time / SIM_PS_PER_NS;
}

void ll_yield(void)
{
    if (OUTSIDE_RUN())
        return;
    sthread *me = E.cur;
    me->time += E.c_sys; /* the run queue as it is at the end of the call, ... */
    sync_point();        /* ... after every thread whose clock is earlier has gone */
    scpu *c = &E.cpus[me->cpu];
    if (E.cfg->explore || c->nready == 0)
        return;
    me->state = T_READY; /* sched_yield: the next in the queue runs */
    me->ready_ps = me->time;
    E.st.vcsw++;
    cpu_release(me, me->time);
    rq_push(c, me);
    reschedule();
}

void ll_sleep_ns(uint64_t ns)
{
    if (OUTSIDE_RUN())
        return;
    sync_point();
    sthread *me = E.cur;
    me->time += E.c_sys;
    if (E.cfg->explore) { /* others may run meanwhile (the sync point); the time passes */
        me->time += ns * SIM_PS_PER_NS;
        return;
    }
    block(NULL, me->time + ns * SIM_PS_PER_NS);
}

/* ---- for bodies ------------------------------------------------------------------------------ */
uint64_t sim_now_ps(void) { return E.cur ? E.cur->time : 0; }
bool sim_stopping(void) { return llsim_load(&E.stop_word, 4) != 0; }
/* Plain computation: with more busy hardware threads on the core than its pipelines'
 * worth (smt x smt_share), each gets that share of them (the T5's 8 strands on 2
 * pipelines; docs/simulator.md). */
void sim_compute(double ns)
{
    int busy = E.core_busy[E.cpus[E.cur->cpu].core];
    E.cur->time += ps_of(busy > E.smt_pipes ? ns * busy / E.smt_pipes : ns);
}
/* The host's memory latency bounds the simulator on large working sets, and a load's
 * state is found in two dependent steps (the page map's slot, then the line's state):
 * a workload hints each address 2 x HINT_LAG loads ahead (workloads.c, RA_AHEAD).
 * The host loads the hint's slot at once, and HINT_LAG hints later, its slot there
 * by then, the line's state and the sets of the core's cache and of the LLC that
 * its fill would look up. */
void sim_host_prefetch(const void *p)
{
    sthread *me = E.cur;
    if (!me)
        return;
    const void **oldest = &me->hints[me->hint_next];
    me->hint_next = (me->hint_next + 1) % HINT_LAG;
    uint32_t *li = *oldest ? slot_of(*oldest) : NULL;
    if (li && *li) {
        int k = E.cpus[me->cpu].core;
        size_t set = priv_set(k, *li - 1);
        __builtin_prefetch(line_at(*li - 1), 1);
        __builtin_prefetch(&E.priv[set * PWAYS], 1);
        __builtin_prefetch(&E.priv_rr[set], 1);
        __builtin_prefetch(&E.llc[llc_set(core_socket(k), *li - 1) * LWAYS], 1);
    }
    if ((li = slot_of(p)))
        __builtin_prefetch(li);
    *oldest = p;
}

/* A workload's data load.  An independent one (no later access needs its value: the
 * workloads' array loads) may overlap others: an out-of-order core keeps up to mlp
 * of them in flight.  It issues when the window has a free slot (the load mlp back
 * has completed) and costs the thread a hit; the line's own state (transfer,
 * serialisation, LLC) is as for any load.  Every other access retires after the
 * independent loads before it (retire_loads), a dependent load included. */
void sim_data_load(const void *p, bool independent)
{
    sthread *me = E.cur;
    if (!independent || E.mlp <= 1 || E.cfg->explore) {
        sync_point();
        access_line(p, LOAD);
        return;
    }
    uint64_t *slot = &me->miss_done[me->miss_next];
    if (*slot > me->time) /* the window is full: wait for its oldest load */
        me->time = *slot;
    sync_point();
    uint64_t effect = access(p, LOAD);
    *slot = me->time;
    me->miss_next = (me->miss_next + 1) % (uint32_t)E.mlp;
    if (me->time > me->loads_until)
        me->loads_until = me->time;
    /* the thread goes on a hit after the load took effect: not earlier, since others may
     * have run up to then (a request in flight gives way) */
    if (me->time > effect + E.c_hit)
        me->time = effect + E.c_hit;
}
void sim_data_store(void *p)
{
    sync_point();
    access_line(p, STORE);
}
void sim_yield_point(void) { sync_point(); }
void sim_preempt_point(void)
{
    if (E.cfg->explore)
        sync_point();
}
int sim_thread_socket(void) { return E.cur ? E.cpus[E.cur->cpu].socket : 0; }
int sim_thread_index(void) { return E.cur ? E.cur->index : 0; }

void sim_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(E.fail_msg, sizeof E.fail_msg, fmt, ap);
    va_end(ap);
    E.outcome = SIM_FAILED;
    E.aborted = true;
    switch_to(NULL);
    abort();
}
const char *sim_fail_message(void) { return E.fail_msg; }

/* ---- a run -------------------------------------------------------------------------------- */
static void thread_entry(void *arg)
{
    sthread *t = (sthread *)arg;
    ll_self_tls = sim_env_thread(t->index); /* in the thread's own TLS */
    E.body(t->index, E.arg);
    t->state = T_DONE;
    E.live--;
    cpu_release(t, t->time);
    if (t->time > E.st.end_ps)
        E.st.end_ps = t->time;
    reschedule();
    abort(); /* a finished thread is never resumed */
}

static void free_run(void)
{
    for (int i = 0; i < E.nthreads; i++)
        munmap(E.threads[i].stack, STACK_BYTES);
    for (uint32_t i = 0; i < E.nwatch; i++)
        free(E.watch[i].w);
    free(E.watch);
    free(E.threads);
    free(E.cpus);
    free(E.core_busy);
    free(E.heap);
    free(E.line_mem);
    for (uint32_t i = 0; E.page_mask && i <= E.page_mask; i++)
        free(E.pages[i].slots);
    free(E.pages);
    free(E.priv);
    free(E.llc);
    free(E.priv_rr);
    free(E.llc_rr);
    free(E.fbucket);
}

sim_outcome sim_run(const sim_config *cfg, sim_body body, void *arg, sim_stats *stats)
{
    const sim_machine *m = cfg->machine;
    memset(&E, 0, sizeof E);
    E.cfg = cfg;
    E.m = m;
    E.body = body;
    E.arg = arg;
    E.rng = (cfg->seed ^ 0x2545F4914F6CDD1Dull) * 0x9E3779B97F4A7C15ull;
    if (!E.rng)
        E.rng = 1;
    E.c_hit = ps_of(m->hit_ns);
    E.c_local = ps_of(m->local_ns);
    E.c_remote = ps_of(m->remote_ns);
    E.c_fill = ps_of(m->fill_ns);
    E.c_rmw = ps_of(m->rmw_ns);
    E.c_pause = ps_of(m->pause_ns);
    E.c_llc = ps_of(m->llc_ns);
    E.c_mem = ps_of(m->mem_ns);
    E.c_slice = ps_of(m->slice_us * 1000);
    E.c_tick = ps_of(m->tick_us * 1000);
    E.c_wake = ps_of(m->wake_us * 1000);
    E.c_switch = ps_of(m->switch_us * 1000);
    E.c_sys = ps_of(m->syscall_ns);
    E.c_spinq = ps_of(m->spinq_ns);
    E.c_clock = ps_of(20);
    E.limit_ps = cfg->end_ps && cfg->drain_ps ? cfg->end_ps + cfg->drain_ps : UINT64_MAX;
    E.nthreads = E.live = cfg->threads;
    E.ncores = m->sockets * m->cores;
    E.ncpus = E.ncores * m->smt;
    E.threads = xcalloc((size_t)cfg->threads, sizeof(sthread));
    E.cpus = xcalloc((size_t)E.ncpus, sizeof(scpu));
    E.core_busy = xcalloc((size_t)E.ncores, sizeof(int));
    E.smt_pipes = m->smt * m->smt_share;
    E.mlp = m->mlp < MAX_MLP ? m->mlp : MAX_MLP;
    E.heap = xcalloc((size_t)cfg->threads + 1, sizeof(sthread *));
    E.fbucket = xcalloc(FBUCKETS, sizeof(sthread *));
    E.priv_sets = (uint32_t)(m->l2_kb * 1024 / 64 / PWAYS);
    E.priv_sets = E.priv_sets ? E.priv_sets : 1;
    E.llc_sets = (uint32_t)(m->llc_mb * 1024 * 1024 / 64 / LWAYS);
    E.llc_sets = E.llc_sets ? E.llc_sets : 1;
    E.priv = xcalloc((size_t)E.ncores * E.priv_sets * PWAYS, sizeof(uint32_t));
    E.priv_rr = xcalloc((size_t)E.ncores * E.priv_sets, 1);
    E.llc = xcalloc((size_t)m->sockets * E.llc_sets * LWAYS, sizeof(uint32_t));
    E.llc_rr = xcalloc((size_t)m->sockets * E.llc_sets, 1);
    page_table_grow();
    E.sharer_words = ((uint32_t)E.ncores + 63) / 64;
    E.line_stride = sizeof(sline) + E.sharer_words * sizeof(uint64_t) <= 32 ? 32 : 64;
    for (int c = 0; c < E.ncpus; c++) {
        E.cpus[c].socket = c % m->sockets;
        E.cpus[c].core = c % E.ncores;
    }
    sim_env_reset(cfg->threads, cfg->seed);
    sim_tls_prepare(cfg->threads);
    for (int i = 0; i < cfg->threads; i++) {
        sthread *t = &E.threads[i];
        t->index = i;
        t->heap_pos = -1;
        t->cpu = i % E.ncpus;
        t->stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (t->stack == MAP_FAILED) {
            fprintf(stderr, "locklab-sim: cannot map a stack for thread %d of %d\n", i + 1, cfg->threads);
            exit(1);
        }
        mprotect(t->stack, 4096, PROT_NONE); /* guard page */
        llt_ctx_init(&t->ctx, t->stack + 4096, STACK_BYTES - 4096, thread_entry, t);
        make_runnable(t, 0, false);
    }
    /* Out of phase: every CPU's first slice ends at a point drawn in (0, slice] (then the
     * next tick), not all at once.  A real run's threads start one after another and its
     * CPUs' schedules are not in step; with every slice ending together, the threads
     * that run and those that wait swap as two blocks, and a FIFO lock's queue falls in
     * step with them (its successors mostly running). */
    for (int c = 0; c < E.ncpus; c++)
        if (E.cpus[c].cur)
            E.cpus[c].slice_end = at_tick(rnd() % E.c_slice + 1);
    E.outcome = SIM_DONE;
    reschedule(); /* from the main context: runs until the last thread ends (or the run is cut) */
    E.cur = NULL;
    E.st.blocked = E.live;
    for (int i = 0; i < E.nthreads; i++) {
        sthread *t = &E.threads[i];
        if (t->state == T_RUNNING && E.aborted)
            E.st.busy_ps += t->time - t->run_start;
        if (t->time > E.st.end_ps)
            E.st.end_ps = t->time;
    }
    *stats = E.st;
    sim_outcome o = E.outcome;
    free_run();
    return o;
}
