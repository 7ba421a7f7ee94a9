/*
 * stp: spin-then-park (Malthusian paper §5.1).  Spin for budget_ns, then park.
 * Karlin et al. show that spinning for one context-switch round trip before
 * blocking is 2-competitive; the default budget is therefore the park/unpark
 * round trip measured on this machine at first use (spec key spin_ns overrides).
 */
#include <pthread.h>

#include "locklab/wait.h"

static uint64_t stp_budget(const ll_wait_policy *wp) { return wp->spin_ns; }

const ll_wait_ops ll_wait_stp = {"stp", "spin for spin_ns (default: measured park/unpark round trip), then park",
                                 true, false, true, stp_budget, NULL};

/* ---- measuring the park/unpark round trip ------------------------------------ */

enum { PINGS = 64, MIN_NS = 1000, MAX_NS = 200000 };
static ll_atomic_u32 ping_word, pong_word;
static uint64_t roundtrip_ns;
static pthread_once_t measure_once = PTHREAD_ONCE_INIT;

static void wait_for(ll_atomic_u32 *w, uint32_t value)
{
    uint32_t v;
    while ((v = ll_load_acquire(w)) != value) /* pairs with the partner's release store */
        ll_futex_wait(w, v);
}

static void *ponger(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= PINGS; i++) {
        wait_for(&ping_word, i);
        ll_store_release(&pong_word, i); /* publish the reply before waking */
        ll_futex_wake(&pong_word, 1);
    }
    return NULL;
}

static void measure(void)
{
    pthread_t t;
    roundtrip_ns = 20000; /* fallback if a thread cannot be started */
    if (pthread_create(&t, NULL, ponger, NULL) != 0)
        return;
    uint64_t start = 0;
    for (uint32_t i = 1; i <= PINGS; i++) {
        if (i == PINGS / 4)
            start = ll_now_ns(); /* skip warm-up */
        ll_store_release(&ping_word, i);
        ll_futex_wake(&ping_word, 1);
        wait_for(&pong_word, i);
    }
    uint64_t per = (ll_now_ns() - start) / (PINGS - PINGS / 4 + 1);
    pthread_join(t, NULL);
    roundtrip_ns = per < MIN_NS ? MIN_NS : per > MAX_NS ? MAX_NS : per;
}

uint64_t ll_park_roundtrip_ns(void)
{
    pthread_once(&measure_once, measure);
    return roundtrip_ns;
}
