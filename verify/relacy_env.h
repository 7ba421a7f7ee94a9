/* The model checker's environment (verify/relacy_env.cpp): what a driver calls
 * around each Relacy iteration. */
#ifndef LOCKLAB_VERIFY_RELACY_ENV_H
#define LOCKLAB_VERIFY_RELACY_ENV_H

#include <stdint.h>

enum { LL_MODEL_MAX_THREADS = 4 };
/* Start an iteration (call from the test suite's constructor): fresh thread
 * contexts, queue nodes, futexes and clock. */
void ll_model_begin(void);
/* End it (the test suite's destructor): forget every modelled object. */
void ll_model_end(void);
/* The calling thread ends (call at the end of each simulated thread): its per-thread
 * elements die, and another thread's access to them that does not happen before this
 * is a data race. */
void ll_model_thread_exit(void);
/* Nanoseconds the virtual clock advances per read (ll_now_ns). */
extern uint64_t ll_model_clock_step;
/* The modelled machine's sockets (default 2); thread i runs on socket i mod this. */
extern unsigned ll_model_sockets;
/* The CPUs the modelled process may run on (ll_cpus_available; default 2: small-machine
 * paths, such as standby's yielding arrivals, are taken; more: the big-machine ones). */
extern unsigned ll_model_cpus;
/* true: a timed park (ll_parker_park_deadline and the other timed waits on a thread's
 * parker) waits as an untimed one: its deadline never comes, only an unpark ends it.
 * The deliberately broken variant of the locks whose naps recover a missed wake-up
 * (parkinglot: its naps removed); a lost wake-up is then a deadlock.  Other timed waits
 * (acr's standby sleep on its lock word) still time out. */
extern bool ll_model_untimed_parks;

#endif
