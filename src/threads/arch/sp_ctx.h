/* A context that is its saved stack pointer: the hand-written switches
 * (x86_64/, aarch64/) keep the callee-saved registers and the return address
 * on the suspended stack itself.  Included by their llt_arch.h. */
#ifndef LOCKLAB_LLT_SP_CTX_H
#define LOCKLAB_LLT_SP_CTX_H
#include <stddef.h>
#include <stdint.h>

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

/* ---- for the switches' own sources (switch.c) ---------------------------------------- */
/* The lines around a function written in assembly: global but hidden (a reference from C
 * to a local label may resolve to the section), typed (%function: the one spelling every
 * target's assembler accepts), with call-frame information. */
#define LLT_ASM_BEGIN(name)                                                              \
    ".globl " #name "\n"                                                                \
    ".hidden " #name "\n"                                                               \
    ".type " #name ",%function\n" #name ":\n"                                          \
    "  .cfi_startproc\n"
#define LLT_ASM_END(name)                                                                \
    "  .cfi_endproc\n"                                                                  \
    ".size " #name ", .-" #name "\n"
/* A new context's first code (switch.c): calls entry(arg) from the registers
 * llt_ctx_init left for it. */
__attribute__((visibility("hidden"))) void llt_ctx_start(void);
/* The top of the stack [lo, lo + size), 16-byte aligned (both ABIs' rule). */
static inline uintptr_t llt_stack_top(void *lo, size_t size) { return ((uintptr_t)lo + size) & ~(uintptr_t)15; }
#endif
