/* Concurrency-restriction locks (mcscr, mcscrn): what the validator cannot see.
 *
 *  1. admission order, deterministic: the holder lets four threads queue up
 *     (each linked before the next arrives), then releases.
 *       mcscr:              culls T1..T3, grants T4, then reprovisions LIFO: T4 T3 T2 T1
 *       mcscr, fairness=1:  after T4 the eldest passive thread each time:  T4 T1 T2 T3
 *       mcscrn, 2 sockets, home 0, queue R1(s1) H1(s0) R2(s1) H2(s0):
 *                           H2, then passive H1, then home runs dry and moves to
 *                           socket 1 (eldest remote R1's), newest first: H2 H1 R2 R1
 *  2. no starvation: 8 threads hammer mcscr-park / mcscrn-park (2 virtual
 *     sockets) with a small fairness constant until every thread got in
 *     (fails after 20 s).
 *  3. expert API: static initialisers, stack nodes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locklab/locklab.h"
#include "locklab/mcscr.h"
#include "locklab/mcscrn.h"
#include "test_lock.h"
#include "test_util.h"

static ll_wait_policy yield_wp = LL_WAIT_POLICY_INIT(ll_wait_yield); /* never parks: no deferral */

/* ---- 1. admission order -------------------------------------------------------------- */

enum { QN = 4 };
typedef struct order_case {
    bool numa;
    ll_mcscr_lock cr;
    ll_mcscrn_lock crn;
    ll_mcscr_node cr_nodes[QN + 1]; /* [0] = the main thread's */
    ll_mcscrn_node crn_nodes[QN + 1];
    ll_atomic_u32 go[QN + 1];
    int order[QN], n_admitted;
} order_case;

typedef struct { order_case *c; int slot; } order_arg;

static void *order_worker(void *p)
{
    order_arg *a = (order_arg *)p;
    order_case *c = a->c;
    while (ll_load_acquire(&c->go[a->slot]) == 0) /* acquire: pairs with main's release of go */
        ll_yield();
    if (c->numa) {
        ll_mcscrn_acquire(&c->crn, &c->crn_nodes[a->slot], &yield_wp);
        c->order[c->n_admitted++] = a->slot;
        ll_mcscrn_release(&c->crn, &c->crn_nodes[a->slot], &yield_wp);
    } else {
        ll_mcscr_acquire(&c->cr, &c->cr_nodes[a->slot], &yield_wp);
        c->order[c->n_admitted++] = a->slot;
        ll_mcscr_release(&c->cr, &c->cr_nodes[a->slot], &yield_wp);
    }
    return NULL;
}

/* Queue threads in the order slots[0..QN-1] behind the main thread, release, return the admission order. */
static void run_order(order_case *c, const int *slots, pthread_t *tids)
{
    if (c->numa)
        ll_mcscrn_acquire(&c->crn, &c->crn_nodes[0], &yield_wp);
    else
        ll_mcscr_acquire(&c->cr, &c->cr_nodes[0], &yield_wp);
    int prev = 0;
    for (int i = 0; i < QN; i++) {
        int s = slots[i];
        ll_store_release(&c->go[s], 1); /* release: the case set-up before the worker starts */
        ll_atomic_ptr *link = c->numa ? &c->crn_nodes[prev].mcs.next : &c->cr_nodes[prev].mcs.next;
        void *want = c->numa ? (void *)&c->crn_nodes[s] : (void *)&c->cr_nodes[s];
        while (ll_load_acquire(link) != want) /* acquire: wait until s is linked behind prev */
            ll_yield();
        prev = s;
    }
    if (c->numa)
        ll_mcscrn_release(&c->crn, &c->crn_nodes[0], &yield_wp);
    else
        ll_mcscr_release(&c->cr, &c->cr_nodes[0], &yield_wp);
    test_join_n(&tids[1], QN);
}

static void order_test(const char *name, uint32_t fairness, const int *expect)
{
    static order_case c; /* zeroed per case below */
    memset(&c, 0, sizeof c);
    ll_mcscr_init(&c.cr, fairness, 0, 0, 0, 0, 1);
    order_arg args[QN + 1];
    pthread_t tids[QN + 1];
    for (int i = 1; i <= QN; i++) {
        args[i].c = &c;
        args[i].slot = i;
    }
    test_start_n(&tids[1], QN, order_worker, &args[1], sizeof args[0]);
    int slots[QN] = {1, 2, 3, 4};
    run_order(&c, slots, tids);
    CHECK(c.n_admitted == QN, "%s: %d admitted", name, c.n_admitted);
    char got[64] = "", want[64] = "";
    for (int i = 0; i < QN; i++) {
        snprintf(got + strlen(got), sizeof got - strlen(got), " T%d", c.order[i]);
        snprintf(want + strlen(want), sizeof want - strlen(want), " T%d", expect[i]);
    }
    CHECK(strcmp(got, want) == 0, "%s: admission order%s, expected%s", name, got, want);
    printf("%-28s admission order%s\n", name, got);
}

/* mcscrn: the queue must alternate sockets, so the workers' sockets are chosen
 * explicitly: each worker registers (ll_current_socket) in turn, then the queue
 * is ordered R1 H1 R2 H2 by socket. */
typedef struct { order_case *c; int slot; int socket; ll_atomic_u32 registered; } numa_arg;
static void *numa_worker(void *p)
{
    numa_arg *a = (numa_arg *)p;
    a->socket = ll_current_socket();
    ll_store_release(&a->registered, 1); /* release: socket */
    order_arg oa = {a->c, a->slot};
    return order_worker(&oa);
}

static void numa_order_test(void)
{
    static order_case c;
    memset(&c, 0, sizeof c);
    c.numa = true;
    ll_mcscrn_init(&c.crn, 1u << 30, 1u << 30, 0, 0, 0);
    numa_arg args[QN + 1];
    pthread_t tids[QN + 1];
    int s0[QN], s1[QN], n0 = 0, n1 = 0;
    for (int i = 1; i <= QN; i++) {
        args[i].c = &c;
        args[i].slot = i;
        ll_store_relaxed(&args[i].registered, 0);
        test_start(&tids[i], numa_worker, &args[i]);
        while (ll_load_acquire(&args[i].registered) == 0) /* acquire: pairs with the worker's release */
            ll_yield();
        if (args[i].socket == 0)
            s0[n0++] = i;
        else
            s1[n1++] = i;
    }
    if (n0 != 2 || n1 != 2) {
        /* Round-robin assignment makes 4 consecutive registrations 2 + 2. */
        CHECK(0, "mcscrn order: workers' sockets not 2+2 (%d on socket 0)", n0);
        ll_mcscrn_acquire(&c.crn, &c.crn_nodes[0], &yield_wp);
        for (int i = 1; i <= QN; i++)
            ll_store_release(&c.go[i], 1); /* release: let them finish */
        ll_mcscrn_release(&c.crn, &c.crn_nodes[0], &yield_wp);
        test_join_n(&tids[1], QN);
        return;
    }
    int r1 = s1[0], h1 = s0[0], r2 = s1[1], h2 = s0[1];
    int slots[QN] = {r1, h1, r2, h2};
    run_order(&c, slots, tids);
    int expect[QN] = {h2, h1, r2, r1};
    int switches = 0;
    for (int i = 1; i < QN; i++)
        switches += args[c.order[i]].socket != args[c.order[i - 1]].socket;
    char got[64] = "", want[64] = "";
    for (int i = 0; i < QN; i++) {
        snprintf(got + strlen(got), sizeof got - strlen(got), " s%d", args[c.order[i]].socket);
        snprintf(want + strlen(want), sizeof want - strlen(want), " s%d", args[expect[i]].socket);
    }
    CHECK(memcmp(c.order, expect, sizeof expect) == 0, "mcscrn order: sockets%s, expected%s", got, want);
    printf("%-28s admission sockets%s (queued s1 s0 s1 s0), %d switch(es)\n", "mcscrn (2 sockets)", got, switches);
}

/* ---- 2. no starvation ---------------------------------------------------------------- */

enum { SN = 8 };

static void starvation_test(const char *spec)
{
    static test_hammer h;
    test_hammer_start(&h, spec, SN);
    double waited = 0, all_in = -1;
    for (;;) {
        int done = 1;
        for (int i = 0; i < SN; i++)
            done &= ll_load_relaxed(&h.threads[i].ops) > 0; /* relaxed: a progress counter */
        waited = (double)(test_now_ns() - h.start_ns) * 1e-9;
        if (done && all_in < 0)
            all_in = waited;
        if ((done && waited > 0.05) || waited > 20)
            break;
        test_sleep_ms(1);
    }
    test_hammer_stop(&h);
    CHECK(h.min > 0, "%s: a thread starved for %.1f s", spec, waited);
    CHECK(h.shared == h.total, "%s: counter %lu != %lu acquisitions", spec, h.shared, h.total);
    printf("%-34s %d threads, all admitted after %.3f s (then min %lu of %lu ops)\n", spec, SN, all_in, h.min, h.total);
    ll_lock_destroy(h.lock);
}

/* ---- 3. expert API ------------------------------------------------------------------- */

static ll_mcscr_lock static_cr = LL_MCSCR_INITIALIZER;
static ll_mcscrn_lock static_crn = LL_MCSCRN_INITIALIZER;
static ll_wait_policy park_wp = LL_WAIT_POLICY_INIT(ll_wait_park);
static unsigned long expert_counters[2];
enum { EXPERT_THREADS = 4, EXPERT_ROUNDS = 20000 };

static void *expert_worker(void *p)
{
    (void)p;
    ll_mcscr_node n1;
    ll_mcscrn_node n2;
    for (int i = 0; i < EXPERT_ROUNDS; i++) {
        ll_mcscr_acquire(&static_cr, &n1, &park_wp);
        expert_counters[0]++;
        ll_mcscr_release(&static_cr, &n1, &park_wp);
        ll_mcscrn_acquire(&static_crn, &n2, &park_wp);
        expert_counters[1]++;
        ll_mcscrn_release(&static_crn, &n2, &park_wp);
        if (ll_mcscr_try_acquire(&static_cr, &n1)) {
            expert_counters[0]++;
            ll_mcscr_release(&static_cr, &n1, &park_wp);
        }
    }
    return NULL;
}

static void expert_test(void)
{
    test_run_threads(EXPERT_THREADS, expert_worker, NULL, 0);
    CHECK(expert_counters[1] == (unsigned long)EXPERT_THREADS * EXPERT_ROUNDS, "expert mcscrn: counter %lu",
          expert_counters[1]);
    CHECK(expert_counters[0] >= (unsigned long)EXPERT_THREADS * EXPERT_ROUNDS, "expert mcscr: counter %lu",
          expert_counters[0]);
    printf("%-28s counters ok\n", "expert API (park)");
}

int main(void)
{
    char err[256];
    if (ll_topology_configure("sockets=2", err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    (void)ll_current_socket(); /* the main thread registers first */
    static const int lifo[QN] = {4, 3, 2, 1}, eldest[QN] = {4, 1, 2, 3};
    order_test("mcscr", 1u << 30, lifo);
    order_test("mcscr fairness=1", 1, eldest);
    numa_order_test();
    starvation_test("mcscr-park:fairness=16");
    starvation_test("mcscr-stp:fairness=16");
    starvation_test("mcscrn-park:fairness=16,rehome=16");
    starvation_test("mcscrn-stp:fairness=16,rehome=16");
    expert_test();
    printf(failures ? "FAILED (%d)\n" : "ok\n", failures);
    return failures != 0;
}
