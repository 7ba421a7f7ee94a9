/*
 * The x86-64 context switch: push the six callee-saved registers, swap stack
 * pointers, pop, return.  Everything else is caller-saved, so a C call to
 * llt_ctx_switch has already spilled what the caller needs.
 *
 * Two ways to return.  llt_ctx_switch resumes a context that was suspended by
 * a switch: its `ret` is predicted by the return-stack buffer whenever both
 * contexts switched from the same call site (two threads yielding to each
 * other).  llt_ctx_switch_new starts a context built by llt_ctx_init: a `ret`
 * there would always be mispredicted (the buffer holds the caller's return
 * address, not llt_ctx_start), so it pops the address and jumps through it,
 * which the indirect-branch predictor learns; the return-stack entry it leaves
 * unmatched is never used (the caller that is switched away from this way is
 * typically a finishing thread, which never returns).  Measured:
 * docs/threads.md, "Context switch".
 *
 * A new context's stack holds, from its saved sp upwards: r15, r14, r13,
 * r12 = entry, rbx = arg, rbp = 0, and the return address llt_ctx_start, which
 * calls entry(arg) with the stack 16-byte aligned at the call (the ABI's rule).
 */
#include <stdint.h>

#include "llt_arch.h"

/* rdi = from, rsi = to: save, swap stack pointers, restore (the return follows). */
#define SWITCH_BODY                                                                                          \
    "  pushq %rbp\n"                                                                                         \
    "  pushq %rbx\n"                                                                                         \
    "  pushq %r12\n"                                                                                         \
    "  pushq %r13\n"                                                                                         \
    "  pushq %r14\n"                                                                                         \
    "  pushq %r15\n"                                                                                         \
    "  movq %rsp, (%rdi)\n"                                                                                  \
    "  movq (%rsi), %rsp\n"                                                                                  \
    "  popq %r15\n"                                                                                          \
    "  popq %r14\n"                                                                                          \
    "  popq %r13\n"                                                                                          \
    "  popq %r12\n"                                                                                          \
    "  popq %rbx\n"                                                                                          \
    "  popq %rbp\n"

__asm__(".text\n"
        LLT_ASM_BEGIN(llt_ctx_switch)
        SWITCH_BODY
        "  ret\n"
        LLT_ASM_END(llt_ctx_switch)
        LLT_ASM_BEGIN(llt_ctx_switch_new)
        SWITCH_BODY
        "  popq %rcx\n" /* llt_ctx_start */
        "  jmp *%rcx\n"
        LLT_ASM_END(llt_ctx_switch_new)
        LLT_ASM_BEGIN(llt_ctx_start)
        "  .cfi_undefined rip\n" /* the outermost frame: debuggers stop unwinding here */
        "  movq %rbx, %rdi\n"
        "  callq *%r12\n"
        "  ud2\n" /* entry never returns */
        LLT_ASM_END(llt_ctx_start));

void llt_ctx_init(llt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = llt_stack_top(lo, size);
    /* 7 words popped by the first switch; top - 72 leaves rsp 16-aligned at llt_ctx_start. */
    void **sp = (void **)(top - 72);
    sp[0] = 0;                       /* r15 */
    sp[1] = 0;                       /* r14 */
    sp[2] = 0;                       /* r13 */
    sp[3] = (void *)entry;           /* r12 */
    sp[4] = arg;                     /* rbx */
    sp[5] = 0;                       /* rbp: frame-pointer chains end here */
    sp[6] = (void *)llt_ctx_start;   /* return address of the first switch */
    c->sp = sp;
}
