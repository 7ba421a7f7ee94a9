/* The generic lock handle: ops + waiting policy + the algorithm's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locklab/locklab.h"
#include "locklab/registry.h"

struct ll_lock {
    const ll_lock_ops *ops;
    ll_wait_policy wp;
    char name[128];
    LL_ALIGNED(LL_SECTOR) unsigned char state[];
};

ll_lock *ll_lock_create(const char *spec, char *err, size_t errlen)
{
    ll_spec s;
    if (ll_spec_parse(spec, &s, err, errlen) != 0)
        return NULL;
    void *mem = NULL;
    if (posix_memalign(&mem, LL_SECTOR, sizeof(ll_lock) + s.ops->state_bytes) != 0) {
        snprintf(err, errlen, "out of memory creating lock '%s'", spec);
        return NULL;
    }
    ll_lock *l = (ll_lock *)mem;
    memset(l, 0, sizeof(ll_lock) + s.ops->state_bytes);
    l->ops = s.ops;
    memcpy(l->name, s.name, sizeof l->name);
    ll_wait_policy_init(&l->wp, s.policy, s.spin_ns);
    if (s.ops->init && s.ops->init(l->state, s.params, err, errlen) != 0) {
        free(l);
        return NULL;
    }
    return l;
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
const char *ll_lock_name(const ll_lock *l) { return l->name; }
unsigned long long ll_lock_spin_ns(const ll_lock *l) { return l->wp.ops->has_budget ? l->wp.spin_ns : 0; }
bool ll_lock_never_parks(const ll_lock *l) { return ll_spec_never_parks(l->ops, l->wp.ops); }

void ll_lock_list(void (*fn)(const char *spec, void *arg), void *arg)
{
    const ll_lock_ops *ops;
    for (size_t i = 0; (ops = ll_lock_algorithm(i)) != NULL; i++) {
        for (int p = 0; ll_wait_policies[p]; p++) {
            if (!(ops->policies & LL_POLICY_BIT(p)))
                continue;
            char name[96];
            snprintf(name, sizeof name, "%s%s%s", ops->name, p ? "-" : "", p ? ll_wait_policies[p]->name : "");
            fn(name, arg);
        }
    }
}
