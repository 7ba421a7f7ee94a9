/* x86-64 context (System V ABI): a context is its saved stack pointer; the
 * callee-saved registers rbx, rbp, r12-r15 and the return address are on that
 * stack (switch.c).  MXCSR and the x87 control word are not switched: every
 * lightweight thread shares its worker's floating-point environment. */
#ifndef LOCKLAB_LLT_ARCH_H
#define LOCKLAB_LLT_ARCH_H
#include <stddef.h>

typedef struct llt_ctx {
    void *sp;
} llt_ctx;

/* Saves the caller's callee-saved registers and stack pointer in *from and
 * resumes *to (returns when something switches back to *from). */
void llt_ctx_switch(llt_ctx *from, llt_ctx *to);
/* Prepares *c to run entry(arg) on the stack [lo, lo + size) at its first resume;
 * entry must never return. */
void llt_ctx_init(llt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg);
#endif
