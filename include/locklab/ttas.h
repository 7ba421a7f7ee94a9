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
LL_LOCK_VERBS(ll_ttas, ll_ttas_lock); /* wp: spin or yield */
#ifdef __cplusplus
}
#endif
#endif
