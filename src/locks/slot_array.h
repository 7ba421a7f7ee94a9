/* The slot array of an array-based queue lock, for its registry init (anderson.c, and the
 * Concurrency Kit peer's ck-anderson, src/peers/ck.c): both take the key `slots`, which
 * must be a power of two (a ticket's slot is ticket & (slots - 1)).
 *
 *   ll_slot_array(lock, slots, slot_bytes, err, errlen)
 *       slots x slot_bytes, sector-aligned (free() it in destroy); NULL with a one-line
 *       error naming the lock when slots is not a power of two or memory is short.
 */
#ifndef LOCKLAB_SRC_LOCKS_SLOT_ARRAY_H
#define LOCKLAB_SRC_LOCKS_SLOT_ARRAY_H
#include <stdio.h>
#include <stdlib.h>

#include "locklab/core.h"

static inline void *ll_slot_array(const char *lock, uint64_t slots, size_t slot_bytes, char *err, size_t errlen)
{
    unsigned n = (unsigned)slots; /* the key's range: 2 .. 65536 */
    if (n & (n - 1)) {
        snprintf(err, errlen, "%s: slots=%u is not a power of two (valid: 2, 4, 8, ..., 65536)", lock, n);
        return NULL;
    }
    void *mem = NULL;
    if (posix_memalign(&mem, LL_SECTOR, (size_t)n * slot_bytes) != 0) {
        snprintf(err, errlen, "%s: out of memory for %u slots", lock, n);
        return NULL;
    }
    return mem;
}
#endif
