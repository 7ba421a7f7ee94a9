/* ttas: test-and-test-and-set lock, spinning on a read (src/locks/ttas.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_TTAS_H
#define LOCKLAB_TTAS_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_ttas_lock { ll_atomic_u32 held; } ll_ttas_lock;
#define LL_TTAS_INITIALIZER { LL_ATOMIC_INIT(0) }
void ll_ttas_init(ll_ttas_lock *l);
void ll_ttas_acquire(ll_ttas_lock *l, ll_wait_policy *wp); /* wp: spin or yield */
bool ll_ttas_try_acquire(ll_ttas_lock *l);
void ll_ttas_release(ll_ttas_lock *l, ll_wait_policy *wp);
bool ll_ttas_is_locked(ll_ttas_lock *l); /* a snapshot */
#ifdef __cplusplus
}
#endif
#endif
