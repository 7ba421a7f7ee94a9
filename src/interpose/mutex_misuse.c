/*
 * Misuse of a pthread mutex that glibc survives, survived (docs/interposer.md).
 *
 * Relock: a thread locks a normal (or adaptive) mutex it holds.  POSIX: it deadlocks; only
 * another thread's unlock (undefined, glibc allows it) can end the wait.  Such a thread must
 * not wait inside the lock: cancelled asynchronously there, it would leave its queue node or
 * ticket behind for ever (the next release hands the lock to a thread that is gone), and a
 * program may re-initialise the mutex under it.  So it waits outside the lock, on the owner
 * word, with a mark in depth (a holder-only field that normal mutexes leave unused): an
 * unlock by another thread changes the owner and leaves the mark; a re-initialisation
 * (pthread_mutex_init, an initialiser assigned) zeroes both, and then, as glibc's waiter
 * sleeping on the old futex word, the thread waits for ever (until abstime) instead of taking
 * the new mutex.  It spins LP_DEFAULT_SPIN_NS (a timed relock with a short deadline pays no
 * sleep's timer slack), then naps, 1 us doubling to 1 ms, in raw syscalls: a lock is no
 * cancellation point, but an asynchronous cancellation acts during them, leaving nothing
 * behind.
 *
 * The unlock of a lock the caller does not hold (a mutex: mutex_general.c; an out-of-line
 * spinlock: spin.c) is decided here (lp_unlock_not_owner, mutex.h), and each kind said once.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "mutex_internal.h"

#define LP_RELOCK_MARK 0x52454c4bu /* "RELK" */

/* Relocking thread: true once another thread unlocked m, false at abstime (NULL: never). */
LL_COLD bool lp_mutex_relock_wait(lp_mutex *m, clockid_t clock, const struct timespec *abstime)
{
    uint64_t mine = ll_load_relaxed(&m->owner); /* relaxed: our own store */
    m->depth = LP_RELOCK_MARK;
    uint64_t nap_ns = 1000, spin_until = ll_now_ns() + LP_DEFAULT_SPIN_NS; /* a short deadline: no sleep's slack */
    bool reinitialised = false;
    for (;;) {
        /* relaxed: the lock's acquire orders what follows; here only a change is looked for */
        if (!reinitialised && ll_load_relaxed(&m->owner) != mine) {
            ll_sleep_ns(100000); /* a re-initialisation zeroes the owner first, the depth a moment later */
            if (*(volatile uint32_t *)&m->depth == LP_RELOCK_MARK) { /* volatile: written by a re-initialising thread */
                m->depth = 0;
                return true;
            }
            reinitialised = true; /* glibc's waiter sleeps on: so do we */
        }
        uint64_t left = UINT64_MAX;
        if (abstime) {
            struct timespec now;
            clock_gettime(clock, &now);
            if (!before(&now, abstime)) {
                if (!reinitialised)
                    m->depth = 0; /* still ours */
                return false;
            }
            left = ns_between(&now, abstime);
        }
        lp_spin_or_nap(&nap_ns, spin_until, left);
    }
}

/* Lines about misuse: one per kind and kind of lock, once per process, unless LOCKLAB_QUIET. */
enum { MISUSE_UNLOCKED, MISUSE_NOT_OWNER_RELEASED, MISUSE_NOT_OWNER_IGNORED, MISUSE_KINDS };
static void say(int kind, bool spinlock, const void *lock, void *pc)
{
    static ll_atomic_u32 said[2][MISUSE_KINDS]; /* [spinlock] */
    if (lp_cfg.quiet || ll_xchg(&said[spinlock][kind], 1, LL_RELAXED) != 0) /* relaxed: only one thread may print */
        return;
    static const char *const what[MISUSE_KINDS] = {
        "that is not locked: ignored, as glibc does",
        "by a thread that does not hold it: released for its holder, as glibc does",
        "by a thread that does not hold it: ignored (under this lock only the holder can release)",
    };
    char of[40] = "";
    if (kind == MISUSE_UNLOCKED)
        snprintf(of, sizeof of, "of a %s ", spinlock ? "spinlock" : "mutex");
    lp_say("liblocklab-preload: %s(%p) %s%s (undefined in POSIX; called from %p; said once)\n",
           spinlock ? "pthread_spin_unlock" : "pthread_mutex_unlock", lock, of, what[kind], pc);
}

LL_COLD bool lp_unlock_not_owner(ll_atomic_u64 *owner, bool holder_releases, bool spinlock, const void *lock, void *pc)
{
    uint64_t seen = ll_load_relaxed(owner); /* relaxed: the CAS below decides */
    int kind = seen == 0 || (seen & LP_OWNER_ID_MASK) == LP_OWNER_RELEASING ? MISUSE_UNLOCKED
               : holder_releases                                         ? MISUSE_NOT_OWNER_IGNORED
                                                                         : MISUSE_NOT_OWNER_RELEASED;
    uint64_t claim = lp_owner_claim_of(seen);
    if (kind == MISUSE_NOT_OWNER_RELEASED && !lp_owner_claim(owner, seen))
        kind = MISUSE_UNLOCKED; /* another unlock came first */
    if (kind == MISUSE_NOT_OWNER_RELEASED) {
        /* A holder's unlock that does not claim may have checked the owner word just before
         * the claim: its store of 0 then follows within a few instructions, and it releases.
         * Wait 1 us for that store (relaxed: only the change is looked for); such a holder
         * preempted between its check and its store outlasts the wait (mutex.h says so). */
        uint64_t until = ll_now_ns() + 1000;
        while (ll_load_relaxed(owner) == claim && ll_now_ns() < until)
            ll_pause();
        if (ll_load_relaxed(owner) != claim)
            kind = MISUSE_UNLOCKED; /* the holder's unlock releases */
    }
    say(kind, spinlock, lock, pc);
    return kind == MISUSE_NOT_OWNER_RELEASED;
}
