/*
 * Included by src/locks/platform_mutex.h, and so by src/locks/pthread.c and
 * src/locks/rw_pthread.c, when the lock library's sources are compiled into
 * liblocklab-preload.so (LL_PRELOAD, CMakeLists.txt): the library's internal
 * mutexes (the `pthread` lock) and rwlocks (the `pthread` rwlock) must go
 * straight to glibc, never back into the interposer that is built on top of
 * them.  (The core's arena, src/core/arena.c, which thread contexts and the
 * interposer's lock objects come from, uses no pthread mutex at all.)  Each name
 * is redirected to a wrapper in src/interpose/real.c that calls glibc's own
 * function.
 */
#ifndef LOCKLAB_INTERPOSE_GLIBC_MUTEX_H
#define LOCKLAB_INTERPOSE_GLIBC_MUTEX_H

#define LL_PLATFORM_CALL(name) lp_real_##name
#include "../locks/platform_rename.h" /* the renamed calls */

#endif
