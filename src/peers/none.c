/*
 * Peers: none.  Linked instead of src/peers/ck.c when Concurrency Kit's
 * <ck_spinlock.h> is not installed, when LOCKLAB_WITH_CK=OFF, or under
 * ThreadSanitizer (see CMakeLists.txt), so the registry lists only
 * locklab's own locks.  See docs/peers.md.
 */
#include "locklab/registry.h"

const ll_lock_ops *const ll_peer_locks[] = {NULL};
