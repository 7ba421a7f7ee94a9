/* k42: MCS variant with the queue node on the waiter's stack (src/locks/k42.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_K42_H
#define LOCKLAB_K42_H
#include "wait.h"
LL_API_BEGIN
typedef struct ll_k42_lock {
    ll_atomic_ptr tail; /* NULL free; &lock held, no waiters; else last waiter's node */
    ll_atomic_ptr next; /* node of the first waiter, maintained by the holder */
} ll_k42_lock;
#define LL_K42_INITIALIZER { LL_ATOMIC_INIT(NULL), LL_ATOMIC_INIT(NULL) }
void ll_k42_init(ll_k42_lock *l);
LL_LOCK_VERBS(ll_k42, ll_k42_lock);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (k42.c, "Timed acquire"). */
bool ll_k42_acquire_until(ll_k42_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
