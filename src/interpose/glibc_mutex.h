/*
 * Included by src/locks/platform_mutex.h, and so by src/locks/pthread.c and
 * src/locks/rw_pthread.c, when the lock library's sources are compiled into
 * liblocklab-preload.so (LL_PRELOAD, CMakeLists.txt): the library's internal
 * mutexes (the `pthread` lock) and rwlocks (the `pthread` rwlock) must go
 * straight to glibc, never back into the interposer that is built on top of
 * them.  (The core's arena, src/core/arena.c, which thread contexts and the
 * interposer's lock objects come from, uses no pthread mutex at all.)  Each name
 * is redirected to a wrapper in src/interpose/real.c that calls glibc's own
 * function; the `pthread` lock's lock and unlock call glibc's through the table
 * itself (below).
 */
#ifndef LOCKLAB_INTERPOSE_GLIBC_MUTEX_H
#define LOCKLAB_INTERPOSE_GLIBC_MUTEX_H

#define LL_PLATFORM_CALL(name) lp_real_##name
#include "../locks/platform_rename.h" /* the renamed calls */
#include "real.h"

/* The `pthread` lock's lock and unlock (platform_mutex.h): glibc's, straight through the
 * table, without lp_real_resolve's check: the lock's init (pthread_mutex_init, renamed
 * lp_real_mutex_init) resolved it, and that happened before any thread could see the lock. */
#define LL_PLATFORM_MUTEX_LOCK_INITED(m) lp_real.mutex_lock(m)
#define LL_PLATFORM_MUTEX_UNLOCK_INITED(m) lp_real.mutex_unlock(m)

#endif
