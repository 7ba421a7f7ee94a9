/*
 * Reader-writer locks: the interface every rwlock algorithm implements
 * (src/rwlocks/NAME.c, listed once in src/api/rwlock.c), the generic handle
 * over it, and the spec parser.  The same waiting policies as the mutexes
 * (wait.h) apply: `ALGO[-POLICY][:KEY=VALUE,...]`, e.g. `pft-stp`, `bravo-park`,
 * `numarw`, `bravo-pthread`.
 *
 * Tokens.  A read acquisition returns a token that its release gets back: what
 * the reader must remember between the two and cannot find in the lock (BRAVO:
 * the visible-readers slot it published in; numarw: the socket whose indicator
 * it raised, since a thread may migrate while it reads).  A token is below
 * LL_RW_TOKEN_LIMIT, so that BRAVO can tell its own from its underlying lock's.
 *
 * Recursive readers.  POSIX lets a thread take a read lock it already holds,
 * and a writer may be waiting by then: any lock that stops new readers while a
 * writer waits (phase-fair and writer-preferring ones do, to bound the writer's
 * wait) would deadlock that thread.  So the verbs below are the algorithm's
 * alone, and whoever serves a program (the generic handle, the interposer)
 * first looks in the calling thread's set of read-held locks (ll_rw_held_*):
 * a re-entry is only counted there and never touches the lock.  The writer
 * then waits for that thread's last release, as it would anyway.
 */
#ifndef LOCKLAB_RWLOCK_H
#define LOCKLAB_RWLOCK_H

#include "registry.h"

LL_API_BEGIN

#define LL_RW_TOKEN_LIMIT 0x10000u

typedef struct ll_rwlock_ops {
    /* name, source, summary, fairness, policies, params, state/lock/waiter bytes, init and
     * destroy, as a mutex's (registry.h); its mutex verbs are NULL. */
    const ll_lock_ops *desc;
    uintptr_t (*read_acquire)(void *state, ll_wait_policy *wp);
    /* true and *token, or false having left no trace */
    bool (*read_try)(void *state, ll_wait_policy *wp, uintptr_t *token);
    /* Wait as read_acquire does, give up at deadline_ns (ll_now_ns clock): false, no trace. */
    bool (*read_acquire_until)(void *state, ll_wait_policy *wp, uint64_t deadline_ns, uintptr_t *token);
    void (*read_release)(void *state, ll_wait_policy *wp, uintptr_t token);
    void (*write_acquire)(void *state, ll_wait_policy *wp);
    bool (*write_try)(void *state, ll_wait_policy *wp);
    bool (*write_acquire_until)(void *state, ll_wait_policy *wp, uint64_t deadline_ns);
    void (*write_release)(void *state, ll_wait_policy *wp);
} ll_rwlock_ops;
/* The ops of an rwlock whose source names its verbs as the fields above (static functions
 * read_acquire, read_try, ..., write_release), with the descriptor DESC:
 *   const ll_rwlock_ops ll_rwlock_x = LL_RWLOCK_OPS(&desc); */
#define LL_RWLOCK_OPS(DESC)                                                                \
    {                                                                                      \
        .desc = (DESC), .read_acquire = read_acquire, .read_try = read_try,                \
        .read_acquire_until = read_acquire_until, .read_release = read_release,            \
        .write_acquire = write_acquire, .write_try = write_try,                            \
        .write_acquire_until = write_acquire_until, .write_release = write_release,        \
    }

extern const ll_rwlock_ops ll_rwlock_pft, ll_rwlock_readpref, ll_rwlock_rwgate, ll_rwlock_bravo, ll_rwlock_bravo_pthread, ll_rwlock_numarw,
    ll_rwlock_pthread;
/* The bytes of readpref's state that its verbs use (its state_bytes reserve a line against
 * false sharing): the interposer keeps one inline in a pthread_rwlock_t as its
 * out-of-memory fallback (src/interpose/rwlock.c), zeroed and then initialised by its init. */
#define LL_RW_READPREF_USED_BYTES 16

/* The i-th registered rwlock algorithm, NULL past the last. */
const ll_rwlock_ops *ll_rwlock_algorithm(size_t i);
const ll_rwlock_ops *ll_rwlock_find(const char *name);
/* The rwlock whose descriptor is desc (an ll_spec's ops), or NULL. */
const ll_rwlock_ops *ll_rwlock_of(const ll_lock_ops *desc);
/* An rwlock spec (same grammar and one-line errors as ll_spec_parse; "unknown rwlock
 * 'x' (valid algorithms: pft, bravo, ...)"): out->ops is the algorithm's descriptor. */
int ll_rwlock_spec_parse(const char *spec, ll_spec *out, char *err, size_t errlen);
/* Every accepted rwlock spec (without keys): calls fn for each. */
void ll_rwlock_list(void (*fn)(const char *spec, void *arg), void *arg);

/* ---- the calling thread's read-held locks (src/api/rwlock.c) ----------------------- */
/* Any number of locks at once per thread: the first LL_RW_HELD_INLINE in a thread-local
 * array (a scan of one or two entries in the common case), the rest in overflow pages mapped
 * as needed and unmapped when they empty (src/api/rwlock.c). */
#define LL_RW_HELD_INLINE 32
/* If the calling thread holds `lock` for reading: count one more hold, true. */
bool ll_rw_held_reenter(const void *lock);
/* Record a first read hold of `lock` with the algorithm's token (false: out of memory for
 * an overflow page; nothing recorded: the caller gives the hold back). */
bool ll_rw_held_add(const void *lock, uintptr_t token);
/* Drop one hold of `lock`: 1 and *token if that was the last one (the caller releases
 * the lock), 0 if holds remain, -1 if the thread does not hold it (as far as the set knows). */
int ll_rw_held_drop(const void *lock, uintptr_t *token);
/* Does the calling thread hold `lock` for reading? */
bool ll_rw_held_by_me(const void *lock);
/* If the calling thread holds `lock` for reading: its holds (as many as before) now have
 * this token, true (a fork child that placed the lock anew and took the hold again). */
bool ll_rw_held_retoken(const void *lock, uintptr_t token);
/* The first lock of the calling thread's set for which pred(lock, arg) holds, or NULL. */
const void *ll_rw_held_find(bool (*pred)(const void *lock, void *arg), void *arg);
/* Forget every hold of the calling thread of `lock` (a destroy by a reader). */
void ll_rw_held_forget(const void *lock);

/* ---- the generic handle -------------------------------------------------------------- */
typedef struct ll_rwlock ll_rwlock;
/* NULL on a bad spec, with a one-line message in err naming the bad value and the choices. */
ll_rwlock *ll_rwlock_create(const char *spec, char *err, size_t errlen);
void ll_rwlock_destroy(ll_rwlock *l);
/* A thread may re-take a read lock it holds (recursion counted per thread, see above).
 * Out of memory for the thread's read-held set (past LL_RW_HELD_INLINE locks): the try and
 * timed forms answer false, rdlock prints one line and aborts. */
void ll_rwlock_rdlock(ll_rwlock *l);
bool ll_rwlock_tryrdlock(ll_rwlock *l);
bool ll_rwlock_rdlock_for(ll_rwlock *l, unsigned long long timeout_ns);
void ll_rwlock_wrlock(ll_rwlock *l);
bool ll_rwlock_trywrlock(ll_rwlock *l);
bool ll_rwlock_wrlock_for(ll_rwlock *l, unsigned long long timeout_ns);
void ll_rwlock_rdunlock(ll_rwlock *l);
void ll_rwlock_wrunlock(ll_rwlock *l);
const char *ll_rwlock_name(const ll_rwlock *l);

LL_API_END
#endif /* LOCKLAB_RWLOCK_H */
