/*
 * How the interposer lays its mutex over glibc's pthread_mutex_t (40 bytes
 * on x86_64 glibc), and the lock/unlock primitives the condition variables
 * reuse.
 *
 *   offset  glibc field         locklab use
 *   ------  ------------------  ------------------------------------------------
 *    0      __lock, __count     owner: holder's thread id (recursive, errorcheck)
 *    8      __owner, __nusers   deferred: wake-ups to deliver after unlock (sync.h)
 *   16      __kind              glibc's kind, read as is: type (bits 0-1) and
 *                               glibc's flags; written by pthread_mutex_init only
 *   20      __spins, __elision  depth: extra acquisitions by a recursive owner
 *   24      __list (16 bytes)   the lock: its state (inline mode) or a pointer
 *                               to its out-of-line object (slab.h)
 *
 * All static initialisers (PTHREAD_MUTEX_INITIALIZER and the RECURSIVE /
 * ERRORCHECK / ADAPTIVE _NP ones) are zeros except __kind, so they are valid
 * unlocked mutexes of the right type without any init call.  Robust, PI/PP
 * and process-shared mutexes carry a glibc flag in __kind (set by glibc's own
 * pthread_mutex_init, to which ours hands them): every later call on them
 * goes to glibc untouched.  glibc marks destroyed mutexes with __kind = -1,
 * and so do we, so a use after destroy gets glibc's EINVAL.
 */
#ifndef LOCKLAB_INTERPOSE_MUTEX_H
#define LOCKLAB_INTERPOSE_MUTEX_H

#include <pthread.h>

#include "locklab/sync.h"
#include "slab.h"

typedef struct lp_mutex {
    ll_atomic_u64 owner;
    ll_wake_list deferred;
    int32_t kind;
    uint32_t depth;
    union {
        unsigned char state[LP_INLINE_STATE_BYTES];
        ll_atomic_ptr obj;
    } lock;
} lp_mutex;

#if defined(__x86_64__)
_Static_assert(sizeof(lp_mutex) == sizeof(pthread_mutex_t), "lp_mutex must overlay pthread_mutex_t exactly");
_Static_assert(__builtin_offsetof(lp_mutex, kind) == __builtin_offsetof(pthread_mutex_t, __data.__kind),
               "lp_mutex.kind must be glibc's __kind");
#endif

/* glibc's __kind flags (nptl/pthreadP.h): such mutexes are passed through. */
#define LP_KIND_ROBUST 16
#define LP_KIND_PRIO_INHERIT 32
#define LP_KIND_PRIO_PROTECT 64
#define LP_KIND_PSHARED 128
#define LP_KIND_PASSTHROUGH (LP_KIND_ROBUST | LP_KIND_PRIO_INHERIT | LP_KIND_PRIO_PROTECT | LP_KIND_PSHARED)
#define LP_KIND_TYPE_MASK 3

LL_INLINE bool lp_mutex_passthrough(const lp_mutex *m) { return (m->kind & LP_KIND_PASSTHROUGH) != 0; }

#endif
