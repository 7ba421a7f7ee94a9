/*
 * locklab threads: a user-level ("lightweight") thread runtime after Anderson,
 * Lazowska & Levy, "The Performance Implications of Thread Management
 * Alternatives for Shared-Memory Multiprocessors" (1989).  docs/threads.md.
 *
 * Lightweight threads are multiplexed on P worker pthreads (the paper's
 * processors).  A thread's state is a control block (function, argument,
 * result, queue link) and, once it has started, a stack (mmap'd, with a guard
 * page below it, recycled).  How the three shared structures of the paper (the
 * ready queue, the control-block free list, the stack free list) are kept and
 * locked is chosen at start-up by name, one of the paper's five alternatives:
 *
 *   single-lock     A  one lock over the free lists and the ready queue
 *   multi-lock      B  one lock per central structure
 *   local-freelist  C  per-processor free lists balanced through a locked global
 *                      pool; one central locked ready queue
 *   idle-queue      D  C plus a central queue of idle processors: a new ready
 *                      thread is handed straight to an idle one
 *   local-readyq    E  C with one locked ready queue per processor: a thread made
 *                      ready goes to its processor's own queue; idle processors
 *                      steal, scanning from their own
 *
 * Every lock inside the runtime is a locklab lock spec (locklab.h's grammar;
 * default "backoff", the paper's own choice for its measurements).
 *
 *   char err[256];
 *   llt_config cfg = LLT_CONFIG_DEFAULT;           // alternative, processors, ...
 *   cfg.alternative = "local-readyq"; cfg.processors = 2;
 *   llt_runtime *rt = llt_start(&cfg, err, sizeof err);
 *   if (!rt) { fprintf(stderr, "%s\n", err); exit(2); }
 *   void *result = llt_run(rt, main_fn, arg);       // main_fn runs as a lightweight thread
 *   llt_stop(rt);
 *
 * Inside a lightweight thread: llt_create / llt_join / llt_detach / llt_yield /
 * llt_exit / llt_self, and llt_mutex / llt_cond, which block the lightweight
 * thread (its worker runs another), never the worker.  Idle workers spin for
 * cfg.spin_ns, then park in the kernel: an idle runtime uses no CPU.
 */
#ifndef LOCKLAB_THREADS_H
#define LOCKLAB_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"

LL_API_BEGIN

typedef struct llt_runtime llt_runtime;
typedef struct llt_thread llt_thread;
typedef void *(*llt_fn)(void *arg);

typedef struct llt_config {
    const char *alternative; /* one of llt_alternative_name(0..) */
    unsigned processors;     /* worker pthreads, 1..LLT_MAX_PROCESSORS */
    const char *lock_spec;   /* every runtime lock (free lists, queues, mutex/cond guards) */
    size_t stack_size;       /* usable bytes per stack (rounded up to pages), LLT_MIN..MAX_STACK */
    uint64_t spin_ns;        /* how long an idle worker spins before it parks */
} llt_config;

#define LLT_MAX_PROCESSORS 256u
#define LLT_MIN_STACK (16u << 10)
#define LLT_MAX_STACK ((size_t)1 << 30)
#define LLT_DEFAULT_STACK (64u << 10)
/* The idle spin budget: one futex wake-to-run on the development machine
 * (LL_FIXED_SPIN_NS): an idle worker that parks at once would pay that much to
 * be woken, so spinning as long is 2-competitive (Karlin et al.). */
#define LLT_DEFAULT_SPIN_NS 20000u
#define LLT_CONFIG_DEFAULT { "local-readyq", 1, "backoff", LLT_DEFAULT_STACK, LLT_DEFAULT_SPIN_NS }

/* The i-th alternative's name (i = 0..4, in the paper's order A..E), NULL past the last. */
const char *llt_alternative_name(unsigned i);
/* Starts the workers.  NULL on bad input (an unknown alternative, processors 0 or
 * too many, a stack size out of range, a bad lock spec) or out of resources, with
 * one line in err naming the bad value and the valid choices. */
llt_runtime *llt_start(const llt_config *cfg, char *err, size_t errlen);
/* Runs fn(arg) as a lightweight thread and waits (blocking the calling pthread,
 * which must not be one of rt's workers) until it returns; its result. */
void *llt_run(llt_runtime *rt, llt_fn fn, void *arg);
/* Stops the workers and frees everything.  Every thread must have finished
 * (llt_run returned and no detached thread still runs). */
void llt_stop(llt_runtime *rt);

/* ---- inside a lightweight thread ---- */
/* A new ready thread running fn(arg); joinable (llt_join or llt_detach it once).
 * Aborts with a message if memory runs out. */
llt_thread *llt_create(llt_fn fn, void *arg);
/* Waits for t to finish (blocking the calling lightweight thread) and returns its
 * result; t is freed. */
void *llt_join(llt_thread *t);
/* t will free itself when it finishes (its result is dropped). */
void llt_detach(llt_thread *t);
/* Lets the other ready threads run first. */
void llt_yield(void);
/* Finishes the calling thread with this result (as if fn returned it). */
__attribute__((noreturn)) void llt_exit(void *result);
llt_thread *llt_self(void);
/* The runtime of the calling lightweight thread (NULL outside one). */
llt_runtime *llt_current(void);
/* The worker (processor) index, 0..P-1, running the caller (-1 outside a runtime). */
int llt_processor(void);
unsigned llt_processors(const llt_runtime *rt);
const char *llt_alternative(const llt_runtime *rt);

/* ---- blocking synchronisation between lightweight threads ---- */
typedef struct llt_mutex {
    struct ll_lock *guard; /* a lock of rt's spec over the fields below */
    bool held;
    llt_thread *head, *tail; /* FIFO of blocked threads */
} llt_mutex;
typedef struct llt_cond {
    struct ll_lock *guard;
    llt_thread *head, *tail;
} llt_cond;

/* 0, or -1 out of memory.  The runtime must outlive them. */
int llt_mutex_init(llt_mutex *m, llt_runtime *rt);
void llt_mutex_destroy(llt_mutex *m);
void llt_mutex_lock(llt_mutex *m);
bool llt_mutex_trylock(llt_mutex *m);
/* Hands the mutex to the first blocked thread, if any (FIFO, no barging). */
void llt_mutex_unlock(llt_mutex *m);
int llt_cond_init(llt_cond *c, llt_runtime *rt);
void llt_cond_destroy(llt_cond *c);
/* Atomically releases m and blocks until signalled; holds m again on return.
 * No spurious wake-ups, but callers should still re-check their predicate. */
void llt_cond_wait(llt_cond *c, llt_mutex *m);
void llt_cond_signal(llt_cond *c);
void llt_cond_broadcast(llt_cond *c);

LL_API_END
#endif /* LOCKLAB_THREADS_H */
