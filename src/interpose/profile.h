/*
 * The interposer's contention profiler (LOCKLAB_PROFILE=path|-).
 *
 * The interposer creates one lp_profile per mutex / condition variable /
 * semaphore at its first use (only when profiling is on) and calls the hooks
 * below.  Costs: an uncontended acquisition pays a few non-atomic increments
 * made by the holder inside its critical section and, one acquisition in 64, two
 * clock reads to sample the hold time; wait times are measured only on the
 * contended path.  Everything is reported at exit (and on LOCKLAB_PROFILE_SIGNAL).
 *
 * Environment (read with lp_env, env.h: empty = unset, nothing in secure-execution mode;
 * checked by lp_profile_init: a bad value, or a path that cannot be written, is one line +
 * return -1):
 *   LOCKLAB_PROFILE         path of the report ("%p" becomes the process id: use it for
 *                           process trees, which otherwise overwrite one file), or "-" for
 *                           stderr (a copy of fd 2 taken at start, so a program that closes
 *                           stderr in its own atexit handler still gets its report);
 *                           a fork()ed child that uses a profiled object writes PATH.<pid>
 *                           when PATH has no "%p" (one that uses none writes nothing); files
 *                           are written whole, then renamed into place (profile_file.c)
 *   LOCKLAB_PROFILE_FORMAT  json | table  (default: json if the path ends in .json, else table)
 *   LOCKLAB_PROFILE_TOP     locks listed, 1..1000000, or 0 for all (default 20)
 *   LOCKLAB_PROFILE_SIGNAL  USR1 | USR2 | HUP: on that signal a snapshot goes to PATH.snapN
 *                           (stderr for "-"), written by the next thread that takes a profiled lock
 */
#ifndef LOCKLAB_INTERPOSE_PROFILE_H
#define LOCKLAB_INTERPOSE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct lp_profile lp_profile;

extern bool lp_profiling; /* LOCKLAB_PROFILE is set (valid after lp_profile_init) */

/* Parse the environment once; 0 ok (profiling on or off), -1 bad value (message printed). */
int lp_profile_init(void);
/* The configuration to name in the report header (strings are copied). */
void lp_profile_set_config(const char *lock_spec, const char *cond, const char *morph, const char *sem);

/* A record for one object.  kind: "mutex" "cond" "sem"; type:
 * "normal" "recursive" "errorcheck" "adaptive" "robust" "pi" "pshared" ... */
lp_profile *lp_profile_new(const void *addr, const char *kind, const char *type, bool passthrough,
                           void *caller_pc);
/* The object of p is gone (a destroyed mutex): its counts go to the aggregate
 * record of its call site, kind and type, and p is recycled (profile_data.h). */
void lp_profile_retire(lp_profile *p);

/* Mutual-exclusion objects: called by the holder, inside the critical section.
 * contended: the fast path failed; wait_ns: measured only when contended. */
void lp_profile_acquired(lp_profile *p, bool contended, uint64_t wait_ns);
void lp_profile_releasing(lp_profile *p);
/* Anything (safe from any thread): a semaphore wait or a condition wait that returned. */
void lp_profile_waited(lp_profile *p, bool blocked, uint64_t wait_ns);
void lp_profile_trylock_failed(lp_profile *p);
void lp_profile_passthrough_op(lp_profile *p);

/* Write the report now (also registered with atexit by lp_profile_init). */
void lp_profile_write(void);

#endif
