/* aarch64 context (AAPCS64): the saved stack pointer; the callee-saved
 * registers x19-x30 (x29 the frame pointer, x30 the return address) and
 * d8-d15 are on that stack (switch.c).  FPCR is not switched: every
 * lightweight thread shares its worker's floating-point environment. */
#ifndef LOCKLAB_LLT_ARCH_H
#define LOCKLAB_LLT_ARCH_H
#include "../sp_ctx.h"
#endif
