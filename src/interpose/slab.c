/* Out-of-line lock objects from the core's arena (slab.h). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "config.h"
#include "slab.h"

size_t lp_slab_hdr_offset;
static ll_arena_pool objects; /* set by lp_slab_init */

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

void lp_slab_init(void)
{
    lp_slab_hdr_offset = round_up(lp_cfg.ops->state_bytes, _Alignof(lp_objhdr));
    size_t stride = round_up(lp_slab_hdr_offset + sizeof(lp_objhdr), LL_SECTOR);
    ll_arena_pool pool = LL_ARENA_POOL(stride, LL_SECTOR, lp_slab_hdr_offset + offsetof(lp_objhdr, free_link));
    objects = pool;
}

size_t lp_slab_object_bytes(void) { return objects.bytes; }

void *lp_slab_install(ll_atomic_ptr *slot, void (*init)(void *obj, void *ctx), void *ctx)
{
    /* This thread's context first, outside the arena's lock: init may need it
     * (a lock whose state holds a queue node), and creating it calls
     * pthread_setspecific, which may call malloc. */
    ll_self();
    void *obj = ll_arena_install(&objects, slot, init, ctx);
    if (obj == NULL) {
        fprintf(stderr, "liblocklab-preload: out of memory for lock objects (mmap of %u bytes failed)\n",
                LL_ARENA_CHUNK_BYTES);
        _exit(2);
    }
    return obj;
}

void lp_slab_put(void *obj) { ll_arena_put(&objects, obj); }
