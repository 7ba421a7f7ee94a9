/* The generic lock handle: ops + waiting policy + the algorithm's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locklab/locklab.h"
#include "locklab/registry.h"
#include "handle.h"

struct ll_lock {
    const ll_lock_ops *ops;
    ll_wait_policy wp;
    char name[128];
    LL_ALIGNED(LL_SECTOR) unsigned char state[];
};

/* The default an open spin budget takes. */
static uint64_t default_spin_ns(ll_defaults defaults)
{
    return defaults == LL_DEFAULTS_FIXED ? LL_FIXED_SPIN_NS : ll_park_cost_ns();
}

int ll_lock_place(const ll_spec *spec, ll_defaults defaults, void *state, ll_wait_policy *wp, ll_placement *out,
                  char *err, size_t errlen)
{
    ll_placement pl;
    memset(&pl, 0, sizeof pl);
    pl.spec = *spec;
    const ll_lock_ops *ops = spec->ops;
    /* 1. Defaults.  An algorithm key spin_ns whose default is 0 means "the measured
     * park cost" (loiter); the policy's spin_ns = 0 means its default. */
    for (const ll_param *p = ops->params; p && p->key; p++)
        if (strcmp(p->key, "spin_ns") == 0 && p->def == 0 && pl.spec.params[p - ops->params] == 0)
            pl.spec.params[p - ops->params] = default_spin_ns(defaults);
    if (spec->policy->has_budget && pl.spec.spin_ns == 0)
        pl.spec.spin_ns = default_spin_ns(defaults);
    /* 2. Size. */
    pl.state_bytes = ops->state_bytes;
    pl.state_align = LL_SECTOR;
    /* 3. The lock itself: zeros, the waiting policy, the algorithm's init. */
    if (state) {
        memset(state, 0, ops->state_bytes);
        if (wp)
            ll_wait_policy_init(wp, pl.spec.policy, pl.spec.spin_ns); /* resolved: never measures here */
        if (ops->init && ops->init(state, pl.spec.params, err, errlen) != 0)
            return -1;
        const unsigned char *b = (const unsigned char *)state;
        size_t zeros = 0; /* leading zero bytes of the initialised state */
        while (zeros < ops->state_bytes && b[zeros] == 0)
            zeros++;
        /* no abandon: a lock whose holder keeps a queue node would lose it with a mutex dropped while held */
        pl.inlinable = zeros == ops->state_bytes && ops->destroy == NULL && ops->abandon == NULL;
        size_t prefix = ll_lock_inline_prefix_bytes(ops);
        pl.inline_prefix_bytes = prefix <= zeros && ops->destroy == NULL ? prefix : 0;
    }
    if (out)
        *out = pl;
    return 0;
}

void *ll_handle_alloc(const ll_spec *s, size_t head, size_t head_align, const char *what, const char *spec,
                      ll_placement *pl, char *err, size_t errlen)
{
    ll_lock_place(s, LL_DEFAULTS_MEASURED, NULL, NULL, pl, err, errlen); /* sizes only: cannot fail */
    void *mem = NULL;
    size_t align = pl->state_align > head_align ? pl->state_align : head_align;
    if (posix_memalign(&mem, align, head + pl->state_bytes) != 0) {
        snprintf(err, errlen, "out of memory creating %s '%s'", what, spec);
        return NULL;
    }
    return memset(mem, 0, head);
}

void *ll_handle_place(void *h, const ll_placement *pl, char *name, void *state, ll_wait_policy *wp, char *err,
                      size_t errlen)
{
    memcpy(name, pl->spec.name, sizeof pl->spec.name);
    if (ll_lock_place(&pl->spec, LL_DEFAULTS_MEASURED, state, wp, NULL, err, errlen) != 0) {
        free(h);
        return NULL;
    }
    return h;
}

ll_lock *ll_lock_create(const char *spec, char *err, size_t errlen)
{
    ll_spec s;
    ll_placement pl;
    if (ll_spec_parse(spec, &s, err, errlen) != 0)
        return NULL;
    ll_lock *l = (ll_lock *)ll_handle_alloc(&s, sizeof(ll_lock), LL_ALIGNOF(ll_lock), "lock", spec, &pl, err, errlen);
    if (!l)
        return NULL;
    l->ops = s.ops;
    return (ll_lock *)ll_handle_place(l, &pl, l->name, l->state, &l->wp, err, errlen);
}

void ll_lock_destroy(ll_lock *l)
{
    if (!l)
        return;
    if (l->ops->destroy)
        l->ops->destroy(l->state);
    free(l);
}

void ll_lock_acquire(ll_lock *l) { l->ops->acquire(l->state, &l->wp); }
bool ll_lock_try_acquire(ll_lock *l) { return l->ops->try_acquire(l->state, &l->wp); }
void ll_lock_release(ll_lock *l) { l->ops->release(l->state, &l->wp); }

int ll_lock_direct_acquire(ll_lock *l, ll_atomic_u64 *owner, uint64_t id)
{
    return ll_ops_direct_acquire(l->ops, l->state, &l->wp, owner, id);
}
int ll_lock_direct_release(ll_lock *l) { return ll_ops_direct_release(l->ops, l->state, &l->wp); }

static bool try_handle(void *l) { return ll_lock_try_acquire((ll_lock *)l); }
bool ll_lock_acquire_for(ll_lock *l, unsigned long long timeout_ns)
{
    uint64_t deadline = ll_now_ns() + timeout_ns;
    if (l->ops->acquire_until)
        return l->ops->acquire_until(l->state, &l->wp, deadline);
    return ll_spin_try_until(&l->wp, try_handle, l, deadline); /* a peer: polls */
}
const char *ll_lock_name(const ll_lock *l) { return l->name; }
unsigned long long ll_lock_spin_ns(const ll_lock *l) { return l->wp.ops->has_budget ? l->wp.spin_ns : 0; }
bool ll_lock_never_parks(const ll_lock *l) { return ll_spec_never_parks(l->ops, l->wp.ops); }

void ll_specs_of(const ll_lock_ops *ops, void (*fn)(const char *spec, void *arg), void *arg)
{
    for (int p = 0; ll_wait_policies[p]; p++) {
        if (!(ops->policies & LL_POLICY_BIT(p)))
            continue;
        char name[96];
        snprintf(name, sizeof name, "%s%s%s", ops->name, p ? "-" : "", p ? ll_wait_policies[p]->name : "");
        fn(name, arg);
    }
}

void ll_lock_list(void (*fn)(const char *spec, void *arg), void *arg)
{
    const ll_lock_ops *ops;
    for (size_t i = 0; (ops = ll_lock_algorithm(i)) != NULL; i++)
        ll_specs_of(ops, fn, arg);
}
