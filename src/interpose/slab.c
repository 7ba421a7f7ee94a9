/* mmap-backed allocator of out-of-line lock objects (slab.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "slab.h"

enum { CHUNK_BYTES = 1 << 20 };

size_t lp_slab_hdr_offset;
static size_t stride;
static ll_atomic_u32 slab_lock; /* 0 free, 1 held: a test-and-set lock for this cold path */
static lp_objhdr *free_list;    /* under slab_lock */
static char *chunk_next, *chunk_end; /* under slab_lock: the unused tail of the current chunk */

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Set while this thread holds slab_lock across a fork (fork_prepare to
 * fork_done): another library's fork handler, run after ours, may lock a mutex
 * that has no object yet; this thread already owns the allocator then. */
static __thread bool held_for_fork;

static void slab_acquire(void)
{
    if (held_for_fork)
        return;
    while (ll_xchg(&slab_lock, 1, LL_ACQUIRE)) /* acquire: pairs with slab_release; see the list as left */
        ll_yield();
}
static void slab_release(void)
{
    if (!held_for_fork)
        ll_store_release(&slab_lock, 0); /* release: publish the list */
}

static void fork_prepare(void)
{
    slab_acquire();
    held_for_fork = true;
}
static void fork_done(void) /* in the parent and in the child (the forking thread) */
{
    held_for_fork = false;
    slab_release();
}

void lp_slab_init(void)
{
    lp_slab_hdr_offset = round_up(lp_cfg.ops->state_bytes, _Alignof(lp_objhdr));
    stride = round_up(lp_slab_hdr_offset + sizeof(lp_objhdr), LL_SECTOR);
    /* A fork while another thread holds slab_lock must not leave it held in the child. */
    pthread_atfork(fork_prepare, fork_done, fork_done);
}

size_t lp_slab_object_bytes(void) { return stride; }

void *lp_slab_install(ll_atomic_ptr *slot, void (*init)(void *obj, void *ctx), void *ctx)
{
    slab_acquire();
    void *obj = ll_load_relaxed(slot); /* relaxed: under slab_lock, which ordered the installer's store */
    if (obj != NULL) {
        slab_release();
        return obj;
    }
    if (free_list) {
        lp_objhdr *h = free_list;
        free_list = h->next_free;
        obj = (char *)h - lp_slab_hdr_offset;
    } else {
        if (chunk_next == NULL || (size_t)(chunk_end - chunk_next) < stride) {
            void *c = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (c == MAP_FAILED) {
                fprintf(stderr, "liblocklab-preload: out of memory for lock objects (mmap of %d bytes failed)\n",
                        CHUNK_BYTES);
                _exit(2);
            }
            chunk_next = (char *)c;
            chunk_end = chunk_next + CHUNK_BYTES;
        }
        obj = chunk_next;
        chunk_next += stride;
    }
    memset(obj, 0, stride);
    init(obj, ctx);
    ll_store_release(slot, obj); /* release: the initialised object before its pointer */
    slab_release();
    return obj;
}

void lp_slab_put(void *obj)
{
    lp_objhdr *h = lp_hdr(obj);
    slab_acquire();
    h->next_free = free_list;
    free_list = h;
    slab_release();
}
