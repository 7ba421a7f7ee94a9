/* A context that is its saved stack pointer: the hand-written switches
 * (x86_64/, aarch64/) keep the callee-saved registers and the return address
 * on the suspended stack itself.  Included by their llt_arch.h. */
#ifndef LOCKLAB_LLT_SP_CTX_H
#define LOCKLAB_LLT_SP_CTX_H
#include <stddef.h>

typedef struct llt_ctx {
    void *sp;
} llt_ctx;

/* Saves the caller's callee-saved registers and stack pointer in *from and
 * resumes *to (returns when something switches back to *from). */
void llt_ctx_switch(llt_ctx *from, llt_ctx *to);
/* The same, for the first resume of a context made by llt_ctx_init (see
 * x86_64/switch.c: how it returns differs). */
void llt_ctx_switch_new(llt_ctx *from, llt_ctx *to);
/* Prepares *c to run entry(arg) on the stack [lo, lo + size) at its first resume;
 * entry must never return. */
void llt_ctx_init(llt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg);
#endif
