/* The portable context: POSIX ucontext (getcontext/makecontext/swapcontext).
 * Slower than a hand-written switch (glibc's swapcontext saves the signal mask
 * with a system call), but correct on any architecture glibc supports. */
#ifndef LOCKLAB_LLT_ARCH_H
#define LOCKLAB_LLT_ARCH_H
#include <stddef.h>
#include <ucontext.h>

typedef struct llt_ctx {
    ucontext_t uc;
} llt_ctx;

void llt_ctx_switch(llt_ctx *from, llt_ctx *to);
/* The first resume of a context made by llt_ctx_init: here the same switch. */
void llt_ctx_switch_new(llt_ctx *from, llt_ctx *to);
void llt_ctx_init(llt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg);
#endif
