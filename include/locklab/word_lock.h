/* The one-word exchange locks (tas, ttas): the lock type and the expert verbs
 * (docs/design.md, "Expert headers") of a lock that is a single word,
 * 0 = free, 1 = held.  LL_WORD_LOCK(ll_X) declares ll_X_lock, ll_X_init and
 * LL_LOCK_VERBS(ll_X, ll_X_lock); LL_WORD_LOCK_INITIALIZER is its static
 * initialiser.  The definitions are src/locks/word_lock.h's. */
#ifndef LOCKLAB_WORD_LOCK_H
#define LOCKLAB_WORD_LOCK_H
#include "wait.h"
#define LL_WORD_LOCK(P)                                                                  \
    LL_API_BEGIN                                                                         \
    typedef struct P##_lock { ll_atomic_u32 held; } P##_lock;                            \
    void P##_init(P##_lock *l);                                                          \
    LL_LOCK_VERBS(P, P##_lock);                                                          \
    LL_API_END
#define LL_WORD_LOCK_INITIALIZER { LL_ATOMIC_INIT(0) }
#endif
