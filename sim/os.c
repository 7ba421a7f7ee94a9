/*
 * The simulated operating system (docs/simulator.md, "Operating system"): the CPUs,
 * their run queues and the scheduler's decisions, and the kernel side of core.h's
 * hooks: futex wait and wake, sched_yield, sleeps, the clock.
 *
 * Models: sockets x cores x smt CPUs; thread i starts on CPU i mod CPUs (CPU c:
 *   socket c mod S, core c mod S*C).  More threads than CPUs wait in per-CPU run
 *   queues; a running thread is preempted when its slice has ended (each CPU's first
 *   slice ends at a seeded point, not all together; with a `tick`, at the first
 *   tick after it, ticks aligned across CPUs) if its queue is not empty; a CPU that
 *   goes idle takes a waiting thread from another CPU's queue.
 *   A futex call costs `syscall`; a wait compares the word halfway through (the
 *   kernel's entry), after every thread whose clock is earlier has gone, and then
 *   returns or blocks (the CPU runs the next thread after a context switch); a
 *   futex wake makes the waiter runnable `wake` later (uniform in [wake/2, 3 wake/2)),
 *   on an idle CPU if there is one, else on its last CPU: next, preempting the
 *   running thread if that one has used its slice (EEVDF's wake-up preemption),
 *   else queued.  Timed waits and sleeps end at their deadline (exploration: a timed
 *   wait times out at once).  SMT: a core's busy hardware threads (running, not
 *   asleep in a spin) are counted in E.core_busy for sim_compute's share of the
 *   pipelines.  Both clocks are the simulated time.
 *
 * Leaves out: priorities, nice levels and EEVDF's lag and deadlines other than the
 *   wake-up preemption above (run queues are FIFO: round robin, what the earliest
 *   deadline amounts to for equal CPU-bound threads); migration other than an idle
 *   CPU's pull; NUMA balancing; FUTEX_WAKE_OP (ll_futex_wake_two reports it
 *   unsupported, so the caller's fallback runs); requeue and priority-inheritance
 *   futexes; a system call's cost other than one `syscall` (a wait's split evenly
 *   around its comparison, a wake taking effect at its end).
 */
#include <errno.h>

#include "engine.h"

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
uint64_t at_tick(uint64_t t) { return E.c_tick ? (t + E.c_tick - 1) / E.c_tick * E.c_tick : t; }
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
void cpu_release(sthread *t, uint64_t now)
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
void make_runnable(sthread *t, uint64_t at, bool woken)
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
void maybe_preempt(sthread *me)
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

/* ---- futexes, clock, yield, sleep (core.h) ------------------------------------------- */
static sthread **bucket_of(const void *w) { return &E.fbucket[((uintptr_t)w >> 2) % FBUCKETS]; }

/* A timed-out futex wait or a sleep ends at n's key (n just taken from the heap by
 * reschedule): it leaves its futex bucket and becomes runnable. */
void timer_fires(sthread *n)
{
    n->timed_out = true;
    if (n->fword) { /* leave the futex bucket */
        sthread **pp = bucket_of(n->fword);
        while (*pp != n)
            pp = &(*pp)->fnext;
        *pp = n->fnext;
        n->fword = NULL;
    }
    make_runnable(n, n->key, true);
}

/* A futex wait's entry into the kernel, before it compares the word: half the call.  (On
 * a 2-vCPU AMD EPYC host a store made up to 150 ns after a futex_wait began, from
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
