/* ttas: test-and-test-and-set lock, spinning on a read (src/locks/ttas.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_TTAS_H
#define LOCKLAB_TTAS_H
#include "word_lock.h"
LL_WORD_LOCK(ll_ttas) /* ll_ttas_lock { held }, ll_ttas_init and the verbs; wp: spin or yield */
#define LL_TTAS_INITIALIZER LL_WORD_LOCK_INITIALIZER
#endif
