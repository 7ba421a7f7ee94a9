/* ttas: test-and-test-and-set lock, spinning on a read (src/locks/ttas.c). */
#ifndef LOCKLAB_TTAS_H
#define LOCKLAB_TTAS_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_ttas_lock { ll_atomic_u32 held; } ll_ttas_lock;
#define LL_TTAS_INITIALIZER { LL_ATOMIC_INIT(0) }
void ll_ttas_acquire(ll_ttas_lock *l, ll_wait_policy *wp);
bool ll_ttas_try_acquire(ll_ttas_lock *l);
void ll_ttas_release(ll_ttas_lock *l);
#ifdef __cplusplus
}
#endif
#endif
