/* The interposer's reader-writer locks (rwlock.c): LOCKLAB_RWLOCK, read by configure (config.c). */
#ifndef LOCKLAB_INTERPOSE_RWLOCK_H
#define LOCKLAB_INTERPOSE_RWLOCK_H

#include "locklab/atomics.h"

/* Default rwlock: chosen by measurement (docs/rwlock.md, "The default"). */
#define LP_DEFAULT_RWLOCK "rwgate-stp"

/* Parse LOCKLAB_RWLOCK (a bad value: one line naming it and the valid choices, exit 2)
 * and size the rwlock objects.  Called once by configure. */
void lp_rwlock_configure(void);
/* The settled spec, for reports. */
const char *lp_rwlock_spec(void);
/* Process-shared rwlocks handed to glibc. */
extern ll_atomic_u64 lp_passthrough_rwlocks;

#endif
