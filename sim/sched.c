/*
 * The simulator's order of events (docs/simulator.md, "Threads and time").
 *
 * Models: simulated threads are coroutines on their own stacks, switched with the
 * thread runtime's hand-written context switch (src/threads/arch/).  Each has a
 * local clock; the host always runs the thread with the earliest local time (ties
 * broken by a key drawn from the seed at every insertion), so a run is a
 * deterministic function of the seed.  A thread runs on until its next shared
 * operation (an atomic verb, a workload's data access, a futex call, a PAUSE):
 * there, at sync_point, it first gives way to any thread whose clock is earlier,
 * then performs the operation at its own time and adds its cost.  The threads
 * that can run wait in a heap keyed by (clock, tie); a blocked thread is in no heap
 * until os.c makes it runnable, a sleeping one (a timed wait, a spinner asleep on
 * its lines) is in it keyed by its wake-up time.  Exploration (cfg->explore): at
 * every scheduling point the next thread is drawn at random instead.
 * Also here: the run's end (the stop flag stored at end_ps, every copy
 * invalidated), its cut-offs (a clock past end + drain: no progress; an empty heap
 * with threads left: deadlock).
 *
 * Leaves out: parallelism on the host (one simulated thread runs at a time, on one
 * OS thread), and any reordering of a thread's own operations: each takes effect at
 * one point of its clock, sequentially consistent.
 */
#include <stdlib.h>

#include "engine.h"

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
void heap_push(sthread *t, uint64_t key)
{
    t->key = key;
    t->tie = rnd();
    heap_set(E.heap_n++, t);
    sift_up(E.heap_n - 1);
}
void heap_remove(sthread *t)
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
void heap_lower(sthread *t, uint64_t key) /* decrease t's key */
{
    if (key < t->key) {
        t->key = key;
        sift_up(t->heap_pos);
    }
}

/* ---- switching ------------------------------------------------------------------------ */
void switch_to(sthread *next)
{
    sthread *me = E.cur;
    E.cur = next;
    sim_tls_set(next ? next->index : -1); /* the thread's own TLS (tls.c) */
    llt_ctx *from = me ? &me->ctx : &E.main_ctx;
    llt_ctx *to = next ? &next->ctx : &E.main_ctx;
    if (from != to)
        llt_ctx_switch(from, to);
}

void end_run(sim_outcome o)
{
    if (E.outcome == SIM_DONE)
        E.outcome = o;
    E.aborted = true;
    switch_to(NULL);
    abort(); /* an aborted run's threads are never resumed */
}

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
void reschedule(void)
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
            timer_fires(n);
            continue;
        }
        heap_remove(n);
        resume(n);
        return;
    }
}

/* Before a shared operation: give way to every thread whose clock is earlier
 * (exploration: to a thread drawn at random). */
void sync_point(void)
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
        store_everywhere(&E.stop_word, 1);
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

/* The running thread's clock has advanced: let every thread whose clock is earlier
 * run first (no event of its own: part of the operation in progress). */
void give_way(sthread *me)
{
    if (E.heap_n && E.heap[0]->key <= me->time) {
        heap_push(me, me->time);
        reschedule();
    }
}
