/* tas: test-and-set lock spinning on the atomic exchange (src/locks/tas.c).
 * The expert verbs every algorithm header offers (docs/design.md, "Expert headers"):
 * init, acquire, try_acquire, release, is_locked. */
#ifndef LOCKLAB_TAS_H
#define LOCKLAB_TAS_H
#include "word_lock.h"
LL_WORD_LOCK(ll_tas) /* ll_tas_lock { held }, ll_tas_init and the verbs; wp: spin or yield */
#define LL_TAS_INITIALIZER LL_WORD_LOCK_INITIALIZER
#endif
