/* The portable context switch over POSIX ucontext (llt_arch.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llt_arch.h"

void llt_ctx_switch(llt_ctx *from, llt_ctx *to)
{
    swapcontext(&from->uc, &to->uc);
}

void llt_ctx_switch_new(llt_ctx *from, llt_ctx *to) { llt_ctx_switch(from, to); }

/* makecontext passes int arguments only: each pointer travels as two halves. */
static void start(unsigned eh, unsigned el, unsigned ah, unsigned al)
{
    void (*entry)(void *) = (void (*)(void *))(((uintptr_t)eh << 32) | el);
    entry((void *)(((uintptr_t)ah << 32) | al));
    abort(); /* entry never returns */
}

void llt_ctx_init(llt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg)
{
    if (getcontext(&c->uc) != 0) {
        perror("locklab threads: getcontext");
        abort();
    }
    c->uc.uc_stack.ss_sp = lo;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = NULL;
    uint64_t e = (uint64_t)(uintptr_t)entry, a = (uint64_t)(uintptr_t)arg;
    makecontext(&c->uc, (void (*)(void))start, 4, (unsigned)(e >> 32), (unsigned)e, (unsigned)(a >> 32),
                (unsigned)a);
}
