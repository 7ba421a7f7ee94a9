/* tas: test-and-set lock spinning on the atomic exchange (src/locks/tas.c).
 * The expert verbs every algorithm header offers (docs/design.md, "Expert headers"):
 * init, acquire, try_acquire, release, is_locked. */
#ifndef LOCKLAB_TAS_H
#define LOCKLAB_TAS_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_tas_lock { ll_atomic_u32 held; } ll_tas_lock;
#define LL_TAS_INITIALIZER { LL_ATOMIC_INIT(0) }
void ll_tas_init(ll_tas_lock *l);
LL_LOCK_VERBS(ll_tas, ll_tas_lock); /* wp: spin or yield */
#ifdef __cplusplus
}
#endif
#endif
