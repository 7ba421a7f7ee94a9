/* tas: test-and-set lock spinning on the atomic exchange (src/locks/tas.c). */
#ifndef LOCKLAB_TAS_H
#define LOCKLAB_TAS_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_tas_lock { ll_atomic_u32 held; } ll_tas_lock;
#define LL_TAS_INITIALIZER { LL_ATOMIC_INIT(0) }
void ll_tas_acquire(ll_tas_lock *l, ll_wait_policy *wp);
bool ll_tas_try_acquire(ll_tas_lock *l);
void ll_tas_release(ll_tas_lock *l);
#ifdef __cplusplus
}
#endif
#endif
