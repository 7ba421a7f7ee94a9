/*
 * Spinning in the simulator (docs/simulator.md, "Spinning costs events, not host
 * time"): a spin loop's PAUSEs sleep instead of re-reading unchanged lines.
 *
 * Models: a PAUSE after a loop iteration that re-read exactly the lines of the
 *   previous iteration (up to MAX_READS of them), unchanged, and wrote nothing,
 *   sleeps until one of them is written (then notices it when its PAUSE ends: up
 *   to `pause` later, a seeded draw) or `spinq` ns pass; time passes as if it spun,
 *   and the events it would have made are saved.  A loop that has not read the
 *   clock for CLOCKLESS_SLEEPS such sleeps (pure spinning, with no budget) sleeps
 *   until written, or until its time slice ends with a thread waiting for its CPU.
 *   A spinner asleep leaves its core's pipelines to its SMT siblings (E.core_busy).
 *
 * Leaves out: spin loops over more than MAX_READS lines, or that write, run
 *   iteration by iteration (exact, at more events); a budgeted policy sees the
 *   clock advance in steps of the `spinq` quantum while asleep (docs/simulator.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

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

/* Wake the spinners asleep on line l (it was written at time at).  A spinner
 * notices the write at its next load, when the PAUSE it is in ends: a uniform
 * draw in [0, pause) later. */
void wake_watchers(sline *l, uint64_t at)
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

/* The running thread's PAUSE (atomics_backend.c's ll_pause, after its scheduling
 * point): its cost, and, after an unchanged loop iteration, a sleep. */
void spin_pause(sthread *me)
{
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
