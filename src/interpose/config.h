/*
 * The interposer's process-wide configuration, read once from the
 * environment (LOCKLAB_LOCK, LOCKLAB_COND, LOCKLAB_SEM, LOCKLAB_TOPOLOGY,
 * LOCKLAB_VERBOSE, and the profiler's LOCKLAB_PROFILE*) by a
 * constructor, or earlier, lazily, by the first interposed call that runs
 * before the constructor (another library's constructor may lock a mutex).
 * Any invalid value: one line on stderr naming the variable, the value and
 * the valid choices, and _exit(2) before main runs.
 */
#ifndef LOCKLAB_INTERPOSE_CONFIG_H
#define LOCKLAB_INTERPOSE_CONFIG_H

#include <stdbool.h>

#include "locklab/registry.h"
#include "locklab/sync.h"

/* Default lock: see docs/interposer.md ("Why loiter"). */
#define LP_DEFAULT_LOCK "loiter"
/* Spin budget used whenever the spec leaves it to the default (policy
 * spin_ns, or an algorithm key spin_ns = 0): fixed instead of measured, because
 * measuring (ll_park_cost_ns) starts two threads, which must not happen inside
 * a program's first pthread_mutex_lock.  ~ one futex wake-up on the
 * development machine (design.md: 35 us round trip). */
#define LP_DEFAULT_SPIN_NS 20000u

typedef struct lp_config {
    const ll_lock_ops *ops;
    uint64_t params[LL_MAX_PARAMS]; /* the algorithm's keys, in ops->params order */
    ll_wait_policy wp;              /* inline mode: shared by every mutex; else copied into each lock object */
    /* The lock state lives in the pthread_mutex_t itself (16 bytes at offset
     * 24) when it fits there, its initialised state is all zeros (so static
     * initialisers are valid states) and it needs no destroy; else it lives in
     * an out-of-line object (slab.h) whose pointer is installed there once.
     * Always out-of-line when profiling (the record hangs off the object). */
    bool inline_state;
    bool verbose;
    char spec[128]; /* canonical spec, as ll_spec_parse prints it */
    /* LOCKLAB_COND / LOCKLAB_SEM ("fifo" | "lifo-cr[:append_one_in=N]", default fifo);
     * sem.append_one_in is always explicit (never 0, never LP_GLIBC_SHARED_SEM: sem.c). */
    ll_sync_config cond, sem;
    char cond_text[64], sem_text[64];
} lp_config;

/* "fifo" or "lifo-cr", for reports. */
LL_INLINE const char *lp_discipline_name(const ll_sync_config *c)
{
    return c->discipline == LL_DISCIPLINE_LIFO_CR ? "lifo-cr" : "fifo";
}

/* glibc's FUTEX_SHARED flag in a process-shared sem_t's offset-8 word (sem.c). */
#define LP_GLIBC_SHARED_SEM 128u
/* Mostly-LIFO's default 1/append_one_in (the paper's 1/1000). */
#define LP_DEFAULT_APPEND_ONE_IN 1000u

extern lp_config lp_cfg;

enum { LP_UNINITIALISED, LP_INITIALISING, LP_READY };
extern ll_atomic_u32 lp_init_state;
void lp_init(void); /* idempotent; returns when lp_cfg is complete */

/* Every interposed entry point starts with this. */
LL_INLINE void lp_ensure_init(void)
{
    if (LL_UNLIKELY(ll_load_acquire(&lp_init_state) != LP_READY)) /* acquire: pairs with lp_init's release; lp_cfg is complete */
        lp_init();
}

/* Objects handed to glibc: mutexes (robust, PI/PP, process-shared),
 * process-shared condition variables and semaphores. */
extern ll_atomic_u64 lp_passthrough_mutexes, lp_passthrough_conds, lp_passthrough_sems;

#endif
