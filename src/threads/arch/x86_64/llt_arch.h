/* x86-64 context (System V ABI): the saved stack pointer; the callee-saved
 * registers rbx, rbp, r12-r15 and the return address are on that stack
 * (switch.c).  MXCSR and the x87 control word are not switched: every
 * lightweight thread shares its worker's floating-point environment. */
#ifndef LOCKLAB_LLT_ARCH_H
#define LOCKLAB_LLT_ARCH_H
#include "../sp_ctx.h"
#endif
