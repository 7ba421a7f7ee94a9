/*
 * Admission order of the NUMA-aware locks (cna, hmcs), which the validator
 * cannot see: a holder on socket 0 lets waiters queue one by one on
 * alternating sockets, then releases; the order in which they get the lock
 * must follow the algorithm (same-socket waiters first, skipped ones later).
 * Uses the expert APIs with explicit nodes, so the test knows when a waiter
 * is linked into the queue before it lets the next one arrive.
 * CNA takes the socket from the (virtual, sockets=2) topology: thread i (in
 * order of first use of locklab) is on socket i % 2.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "locklab/cna.h"
#include "locklab/hmcs.h"
#include "order_util.h"

static ll_wait_policy spin = LL_WAIT_POLICY_INIT(ll_wait_spin);

/* ---- CNA --------------------------------------------------------------------------- */
static ll_cna_lock cna = LL_CNA_INITIALIZER;
static const ll_cna_params always_local = {62, 0, 0}; /* keep local (practically) always, no time bound */
typedef struct { ll_cna_node node; char name; int want_socket, got_socket; pthread_t tid; } cna_waiter;
static LL_ALIGNED(LL_SECTOR) cna_waiter cw[8];

static void *cna_waiter_main(void *arg)
{
    cna_waiter *w = (cna_waiter *)arg;
    w->got_socket = ll_current_socket();
    ll_cna_acquire(&cna, &w->node, &spin);
    order[norder++] = w->name;
    ll_cna_release_tuned(&cna, &w->node, &spin, &always_local);
    return NULL;
}

/* Holder on socket 0, waiters named by names[] on sockets 1,0,1,0,... */
static void cna_case(const char *names, const char *expect, const char *what)
{
    ll_cna_node holder;
    ll_cna_acquire(&cna, &holder, &spin);
    norder = 0;
    int n = (int)strlen(names);
    ll_atomic_ptr *link = &holder.mcs.next;
    int sockets_ok = 1;
    for (int i = 0; i < n; i++) {
        cw[i].name = names[i];
        cw[i].want_socket = (i + 1) % 2;
        test_start(&cw[i].tid, cna_waiter_main, &cw[i]);
        while (ll_load_acquire(link) != (void *)&cw[i].node) /* acquire: wait until linked */
            ll_pause();
        link = &cw[i].node.mcs.next;
    }
    ll_cna_release_tuned(&cna, &holder, &spin, &always_local);
    for (int i = 0; i < n; i++) {
        pthread_join(cw[i].tid, NULL);
        sockets_ok &= cw[i].got_socket == cw[i].want_socket;
    }
    char label[160];
    snprintf(label, sizeof label, "cna %s", what);
    CHECK(sockets_ok, "%s: waiters not on the expected virtual sockets", label);
    check_order(expect, label);
}

/* ---- HMCS -------------------------------------------------------------------------- */
static ll_hmcs_lock hmcs;
typedef struct { ll_hmcs_node node; char name; uint32_t socket; pthread_t tid; } hmcs_waiter;
static LL_ALIGNED(LL_SECTOR) hmcs_waiter hw[8];

static void *hmcs_waiter_main(void *arg)
{
    hmcs_waiter *w = (hmcs_waiter *)arg;
    ll_hmcs_acquire(&hmcs, &w->node, w->socket, &spin);
    order[norder++] = w->name;
    ll_hmcs_release(&hmcs, &w->node, w->socket, &spin);
    return NULL;
}

static void hmcs_case(uint32_t threshold, const char *names, const char *expect)
{
    ll_hmcs_init(&hmcs, 2, threshold);
    ll_hmcs_node holder;
    ll_hmcs_acquire(&hmcs, &holder, 0, &spin);
    norder = 0;
    int n = (int)strlen(names);
    ll_atomic_ptr *last[2] = {&holder.mcs.next, NULL};
    for (int i = 0; i < n; i++) {
        hw[i].name = names[i];
        hw[i].socket = (uint32_t)(i + 1) % 2;
        test_start(&hw[i].tid, hmcs_waiter_main, &hw[i]);
        uint32_t s = hw[i].socket;
        if (last[s]) { /* queued behind a socket-mate */
            while (ll_load_acquire(last[s]) != (void *)&hw[i].node) /* acquire: wait until linked */
                ll_pause();
        } else { /* first of socket 1: waits for the global lock behind socket 0 */
            while (ll_load_acquire(&hmcs.sockets[0].global_node.next) != (void *)&hmcs.sockets[1].global_node)
                ll_pause(); /* acquire: as above */
        }
        last[s] = &hw[i].node.mcs.next;
    }
    ll_hmcs_release(&hmcs, &holder, 0, &spin);
    for (int i = 0; i < n; i++)
        pthread_join(hw[i].tid, NULL);
    char label[64];
    snprintf(label, sizeof label, "hmcs threshold=%u", threshold);
    check_order(expect, label);
    ll_hmcs_destroy(&hmcs);
}

int main(void)
{
    if (two_sockets("test_numa_order") != 0)
        return 2;
    /* Holder H (socket 0); A C E on socket 1, B D on socket 0.
     * H skips A (secondary: A) -> B; B skips C (secondary: A C) -> D; D finds no
     * socket-0 waiter behind E: secondary first -> A, then C, E. */
    cna_case("ABCDE", "BDACE", "search, append to secondary, flush");
    /* H skips A -> B; B is the main tail: CAS tail to the secondary tail, grant A. */
    skip_thread_index(); /* indices so far: main 0, waiters 1-5; this one 6, so A gets 7 (socket 1) */
    cna_case("AB", "BA", "empty main queue, secondary handed back via CAS");
    /* Same arrival pattern (A C on socket 1, B D on socket 0), holder H on socket 0. */
    hmcs_case(64, "ABCD", "BDAC"); /* H -> B -> D (cohort), then socket 1: A -> C */
    hmcs_case(2, "ABCD", "BACD");  /* H, B: threshold reached -> A, C; then D */
    return test_done("test_numa_order");
}
