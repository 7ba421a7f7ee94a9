/*
 * Sanitizer fiber annotations for the runtime's context switches: ASan must
 * know which stack is live (__sanitizer_start/finish_switch_fiber), TSan which
 * fiber runs (__tsan_create/switch_to/destroy_fiber).  Compiled in only under
 * -fsanitize=address or -fsanitize=thread (the compiler's __SANITIZE_*__
 * macros); elsewhere every hook is an empty inline function.
 */
#ifndef LOCKLAB_FIBER_SAN_H
#define LOCKLAB_FIBER_SAN_H
#include <stdbool.h>
#include <stddef.h>

typedef struct llt_san {
    void *fake_stack;   /* ASan: the suspended context's fake stack */
    const void *bottom; /* ASan: its stack */
    size_t size;
    void *fiber; /* TSan */
} llt_san;

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define LLT_SAN_ACTIVE 1
/* A worker's own (pthread) stack: [lo, lo + size). */
static inline void llt_san_init_worker(llt_san *s, void *lo, size_t size) { s->bottom = lo, s->size = size; }
static inline void llt_san_init_thread(llt_san *s, void *lo, size_t size) { s->bottom = lo, s->size = size; }
static inline void llt_san_destroy_thread(llt_san *s) { (void)s; }
/* Before switching from `from` to `to`; a finishing context passes exiting = true. */
static inline void llt_san_leave(llt_san *from, llt_san *to, bool exiting)
{
    __sanitizer_start_switch_fiber(exiting ? NULL : &from->fake_stack, to->bottom, to->size);
}
/* Back in `self` after a switch. */
static inline void llt_san_enter(llt_san *self) { __sanitizer_finish_switch_fiber(self->fake_stack, NULL, NULL); }
/* The first instructions of a new context. */
static inline void llt_san_first_enter(void) { __sanitizer_finish_switch_fiber(NULL, NULL, NULL); }
#elif defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define LLT_SAN_ACTIVE 1
static inline void llt_san_init_worker(llt_san *s, void *lo, size_t size)
{
    (void)lo, (void)size;
    s->fiber = __tsan_get_current_fiber();
}
static inline void llt_san_init_thread(llt_san *s, void *lo, size_t size)
{
    (void)lo, (void)size;
    s->fiber = __tsan_create_fiber(0);
}
static inline void llt_san_destroy_thread(llt_san *s)
{
    __tsan_destroy_fiber(s->fiber);
    s->fiber = NULL;
}
/* flags 0: the switch synchronises the two fibers (they run one after the other). */
static inline void llt_san_leave(llt_san *from, llt_san *to, bool exiting)
{
    (void)from, (void)exiting;
    __tsan_switch_to_fiber(to->fiber, 0);
}
static inline void llt_san_enter(llt_san *self) { (void)self; }
static inline void llt_san_first_enter(void) {}
#else
#define LLT_SAN_ACTIVE 0
static inline void llt_san_init_worker(llt_san *s, void *lo, size_t size) { (void)s, (void)lo, (void)size; }
static inline void llt_san_init_thread(llt_san *s, void *lo, size_t size) { (void)s, (void)lo, (void)size; }
static inline void llt_san_destroy_thread(llt_san *s) { (void)s; }
static inline void llt_san_leave(llt_san *from, llt_san *to, bool exiting) { (void)from, (void)to, (void)exiting; }
static inline void llt_san_enter(llt_san *self) { (void)self; }
static inline void llt_san_first_enter(void) {}
#endif
#endif
