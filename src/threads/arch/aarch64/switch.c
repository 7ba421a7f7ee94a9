/*
 * The aarch64 context switch (AAPCS64): store the callee-saved registers
 * x19-x30 and d8-d15 in a 160-byte frame on the current stack, swap stack
 * pointers, load them from the other stack's frame, return through x30.
 * Everything else is caller-saved, so a C call to llt_ctx_switch has already
 * spilled what the caller needs.
 *
 * A new context's frame (at the top of its stack, 16-byte aligned) holds
 * x19 = arg, x20 = entry, x29 = 0 and x30 = llt_ctx_start, which calls
 * entry(arg); the stack pointer is then the stack's top, 16-byte aligned.
 */
#include <stdint.h>
#include <string.h>

#include "llt_arch.h"

__asm__(".text\n"
        LLT_ASM_BEGIN(llt_ctx_switch) /* x0 = from, x1 = to */
        "  sub sp, sp, #160\n"
        "  stp x19, x20, [sp, #0]\n"
        "  stp x21, x22, [sp, #16]\n"
        "  stp x23, x24, [sp, #32]\n"
        "  stp x25, x26, [sp, #48]\n"
        "  stp x27, x28, [sp, #64]\n"
        "  stp x29, x30, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n"
        "  stp d10, d11, [sp, #112]\n"
        "  stp d12, d13, [sp, #128]\n"
        "  stp d14, d15, [sp, #144]\n"
        "  mov x2, sp\n"
        "  str x2, [x0]\n"
        "  ldr x2, [x1]\n"
        "  mov sp, x2\n"
        "  ldp x19, x20, [sp, #0]\n"
        "  ldp x21, x22, [sp, #16]\n"
        "  ldp x23, x24, [sp, #32]\n"
        "  ldp x25, x26, [sp, #48]\n"
        "  ldp x27, x28, [sp, #64]\n"
        "  ldp x29, x30, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n"
        "  ldp d10, d11, [sp, #112]\n"
        "  ldp d12, d13, [sp, #128]\n"
        "  ldp d14, d15, [sp, #144]\n"
        "  add sp, sp, #160\n"
        "  ret\n"
        LLT_ASM_END(llt_ctx_switch)
        /* The first resume of a new context: the same switch (x86_64/switch.c says why it differs there). */
        ".globl llt_ctx_switch_new\n"
        ".hidden llt_ctx_switch_new\n"
        ".set llt_ctx_switch_new, llt_ctx_switch\n"
        LLT_ASM_BEGIN(llt_ctx_start)
        "  .cfi_undefined x30\n" /* the outermost frame: debuggers stop unwinding here */
        "  mov x0, x19\n"
        "  blr x20\n"
        "  brk #0\n" /* entry never returns */
        LLT_ASM_END(llt_ctx_start));

void llt_ctx_init(llt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg)
{
    uintptr_t top = llt_stack_top(lo, size);
    void **frame = (void **)(top - 160); /* the frame the first switch loads; sp = top afterwards */
    memset(frame, 0, 160);
    frame[0] = arg;                   /* x19 */
    frame[1] = (void *)entry;         /* x20 */
    frame[10] = 0;                    /* x29: frame-pointer chains end here */
    frame[11] = (void *)llt_ctx_start; /* x30: where the first switch returns */
    c->sp = frame;
}
