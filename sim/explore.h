/* Schedule exploration of the simulator (explore.c). */
#ifndef LOCKLAB_SIM_EXPLORE_H
#define LOCKLAB_SIM_EXPLORE_H

#include "locklab/registry.h"
#include "sim.h"

typedef struct explore_options {
    const char *lock;         /* a spec or a broken lock's name */
    const sim_machine *machine;
    int threads;              /* 2.. */
    unsigned schedules;       /* --explore N */
    unsigned acquisitions;    /* per thread */
    uint64_t seed;
    uint64_t max_steps;       /* per schedule */
    bool expect_fail, verbose;
} explore_options;

/* Prints one line per failing schedule (the first 5) and a summary; returns the exit
 * status: 0 all passed (with expect_fail: some failed), 1 otherwise, 2 bad input. */
int sim_explore(const explore_options *o);

#endif
