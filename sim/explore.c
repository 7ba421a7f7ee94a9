/*
 * Schedule exploration (locklab-sim --explore N, docs/simulator.md): the
 * validator's clients (tests/clients.h: counter, nested, trylock, mixed, timed)
 * run on the real lock code under N seeded random schedules.  At every atomic
 * operation, futex call and PAUSE the engine draws which thread runs next
 * (sim/sched.c's sync_point, cfg.explore), and every critical section has a scheduling point
 * between its read and its write of a plain counter.  Checked per schedule:
 *   mutual exclusion  a thread entering a critical section finds another inside
 *   exact counts      each counter equals the acquisitions made on its lock
 *   progress          all threads blocked for ever (a lost wake-up: deadlock), or
 *                     more than --explore-steps operations (livelock, starvation)
 * Interleavings only, under sequential consistency: missing memory orders are
 * the model checker's (verify/, Relacy).
 */
#include <stdlib.h>
#include <string.h>

#include "broken_locks.h"
#include "explore.h"

enum { STATE_BYTES = 4096 };
typedef struct lut {
    LL_ALIGNED(LL_SECTOR) unsigned char state[STATE_BYTES];
    LL_ALIGNED(LL_SECTOR) ll_atomic_u64 owner; /* the direct verbs' owner word (lut_direct_acquire) */
    const ll_lock_ops *ops;
    ll_wait_policy wp;
} lut;
typedef struct shared {
    int counter_a, counter_b, inside_a, inside_b;
} shared;

static void lut_acquire(lut *l) { l->ops->acquire(l->state, &l->wp); }
static bool lut_try(lut *l) { return l->ops->try_acquire(l->state, &l->wp); }
static void lut_release(lut *l) { l->ops->release(l->state, &l->wp); }
/* The direct verbs (the counter client's odd steps), with an owner word of the lock's: the
 * acquisition must store our id. */
static void lut_direct_acquire(lut *l)
{
    uint64_t id = (uint64_t)(uintptr_t)ll_self(); /* unique per simulated thread */
    ll_ops_direct_acquire(l->ops, l->state, &l->wp, &l->owner, id);
    if (ll_load_relaxed(&l->owner) != id) /* relaxed: our own store, under the lock */
        sim_fail("the direct acquire did not store the owner");
}
static void lut_direct_release(lut *l) { ll_ops_direct_release(l->ops, l->state, &l->wp); }
static bool client_timed(lut *l, shared *d)
{
    (void)d;
    if (l->ops->acquire_until == NULL)
        return lut_try(l);
    return l->ops->acquire_until(l->state, &l->wp, ll_now_ns() + 2000); /* 2 us: many give up */
}
/* A critical section: a plain read, a scheduling point, a plain write. */
static void cs(int *counter, int *inside, const char *which)
{
    if ((*inside)++)
        sim_fail("mutual exclusion violated: two threads inside the critical section of lock %s", which);
    int x = *counter;
    sim_preempt_point();
    *counter = x + 1;
    (*inside)--;
}
static void client_cs_a(shared *d) { cs(&d->counter_a, &d->inside_a, "a"); }
static void client_cs_b(shared *d) { cs(&d->counter_b, &d->inside_b, "b"); }

#include "clients.h"

/* A spec, or one of the deliberately broken locks. */
static int parse_spec(const char *name, ll_spec *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof broken_locks / sizeof broken_locks[0]; i++)
        if (strcmp(name, broken_locks[i].name) == 0) {
            memset(out, 0, sizeof *out);
            out->ops = &broken_locks[i];
            out->policy = &ll_wait_spin;
            snprintf(out->name, sizeof out->name, "%s", name);
            return 0;
        }
    return ll_spec_parse(name, out, err, errlen);
}

static int place(lut *l, const ll_spec *spec, char *err, size_t errlen)
{
    memset(l->state, 0, sizeof l->state);
    l->ops = spec->ops;
    if (spec->ops->init == NULL) { /* a broken lock: zeros are free */
        ll_wait_policy_init(&l->wp, &ll_wait_spin, 0);
        return 0;
    }
    return ll_lock_place(spec, LL_DEFAULTS_FIXED, l->state, &l->wp, NULL, err, errlen);
}

typedef struct xrun {
    lut a, b;
    shared d;
    enum client client;
    unsigned acquisitions;
    uint64_t made_a, made_b; /* acquisitions made (counted by the threads) */
} xrun;

static void x_body(int index, void *arg)
{
    xrun *r = arg;
    for (uint64_t n = 0; n < r->acquisitions;)
        if (client_step(r->client, &r->a, &r->b, &r->d, index, n))
            n++;
        else
            ll_pause(); /* a failed try or timed acquire: the driver retries */
}

static const char *outcome_name(sim_outcome o)
{
    return o == SIM_DONE ? "ok" : o == SIM_DEADLOCK ? "deadlock (threads blocked for ever: a lost wake-up?)"
         : o == SIM_NO_PROGRESS ? "no progress within the step bound (livelock or starvation)"
                                : "violation";
}

int sim_explore(const explore_options *o)
{
    char err[1024];
    ll_spec spec_a, spec_b;
    if (parse_spec(o->lock, &spec_a, err, sizeof err) != 0) {
        fprintf(stderr, "locklab-sim: %s (or a broken lock: broken-relaxed-tas, broken-test-then-set, "
                        "broken-relaxed-ticket, broken-late-release)\n", err);
        return 2;
    }
    /* mixed: a lock of another algorithm, as in the validator */
    parse_spec(strncmp(o->lock, "mcs", 3) == 0 ? "clh-park" : "mcs-park", &spec_b, err, sizeof err);
    /* each thread on a CPU of its own (the schedule, not a scheduler, decides who runs),
     * over the machine's sockets, so the NUMA-aware locks' cross-socket paths run */
    sim_machine m = *o->machine;
    m.smt = 1;
    m.cores = (o->threads + m.sockets - 1) / m.sockets;
    sim_env_machine = &m;
    unsigned failures = 0;
    xrun *r = calloc(1, sizeof *r);
    if (!r)
        return 1;
    for (unsigned s = 0; s < o->schedules; s++) {
        memset(r, 0, sizeof *r);
        r->client = (enum client)(s % NCLIENTS);
        r->acquisitions = o->acquisitions;
        if (place(&r->a, &spec_a, err, sizeof err) != 0 || place(&r->b, &spec_b, err, sizeof err) != 0) {
            fprintf(stderr, "locklab-sim: %s\n", err);
            free(r);
            return 2;
        }
        uint64_t seed = o->seed * 1000003u + s;
        sim_config cfg = {&m, o->threads, seed, 0, 0, true, o->max_steps};
        sim_stats st;
        sim_outcome out = sim_run(&cfg, x_body, r, &st);
        char why[600] = "";
        if (out == SIM_FAILED)
            snprintf(why, sizeof why, "%s", sim_fail_message());
        else if (out != SIM_DONE)
            snprintf(why, sizeof why, "%s (%d threads left)", outcome_name(out), st.blocked);
        else {
            int total = (int)(o->threads * o->acquisitions);
            bool uses_b = r->client == NESTED || r->client == MIXED;
            if (r->d.counter_a != total)
                snprintf(why, sizeof why, "lost update: counter of lock a is %d after %d acquisitions", r->d.counter_a,
                         total);
            else if (uses_b && r->d.counter_b != total)
                snprintf(why, sizeof why, "lost update: counter of lock b is %d after %d acquisitions", r->d.counter_b,
                         total);
        }
        if (out == SIM_DONE && !why[0]) {
            if (r->a.ops->destroy)
                r->a.ops->destroy(r->a.state);
            if (r->b.ops->destroy)
                r->b.ops->destroy(r->b.state);
        }
        if (why[0]) {
            failures++;
            if (failures <= 5)
                printf("FAIL %s client=%s threads=%d acquisitions=%u schedule=%u seed=%llu: %s\n", spec_a.name,
                       client_names[r->client], o->threads, o->acquisitions, s, (unsigned long long)seed, why);
        } else if (o->verbose) {
            printf("ok   %s client=%s schedule=%u seed=%llu steps=%llu\n", spec_a.name, client_names[r->client], s,
                   (unsigned long long)seed, (unsigned long long)st.events);
        }
    }
    free(r);
    printf("explore %s: %u schedules, %u failed (threads=%d acquisitions=%u, random scheduling at every atomic "
           "operation)\n", spec_a.name, o->schedules, failures, o->threads, o->acquisitions);
    if (o->expect_fail)
        return failures ? 0 : 1;
    return failures ? 1 : 0;
}
