/* The per-algorithm (expert) API: static initialisers, explicit queue nodes,
 * explicit waiting policies.  Four threads increment plain counters. */
#include <pthread.h>
#include <stdio.h>

#include "locklab/anderson.h"
#include "locklab/backoff.h"
#include "locklab/clh.h"
#include "locklab/k42.h"
#include "locklab/mcs.h"
#include "locklab/tas.h"
#include "locklab/ticket.h"
#include "locklab/ttas.h"
#include "locklab/twa.h"
#include "test_util.h"

enum { THREADS = 4, ROUNDS = 20000 };

static ll_tas_lock tas = LL_TAS_INITIALIZER;
static ll_ttas_lock ttas = LL_TTAS_INITIALIZER;
static ll_backoff_lock backoff = LL_BACKOFF_INITIALIZER;
static ll_ticket_lock ticket = LL_TICKET_INITIALIZER;
static ll_twa_lock twa = LL_TWA_INITIALIZER;
static ll_mcs_lock mcs = LL_MCS_INITIALIZER;
static ll_k42_lock k42 = LL_K42_INITIALIZER;
static ll_clh_lock clh;
static ll_anderson_lock anderson;
static ll_anderson_slot anderson_slots[8];
static ll_wait_policy spin = LL_WAIT_POLICY_INIT(ll_wait_spin);
static ll_wait_policy yield = LL_WAIT_POLICY_INIT(ll_wait_yield);
static ll_wait_policy park = LL_WAIT_POLICY_INIT(ll_wait_park);
static unsigned long counters[9];

static void *worker(void *arg)
{
    (void)arg;
    ll_mcs_node mcs_node;
    ll_clh_node *clh_node = (ll_clh_node *)ll_qnode_get();
    for (int i = 0; i < ROUNDS; i++) {
        ll_tas_acquire(&tas, &yield); counters[0]++; ll_tas_release(&tas);
        ll_ttas_acquire(&ttas, &yield); counters[1]++; ll_ttas_release(&ttas);
        ll_backoff_acquire(&backoff); counters[2]++; ll_backoff_release(&backoff);
        ll_ticket_acquire(&ticket, &yield); counters[3]++; ll_ticket_release(&ticket);
        ll_twa_acquire(&twa, LL_TWA_DEFAULT_THRESHOLD, &park); counters[4]++;
        ll_twa_release(&twa, LL_TWA_DEFAULT_THRESHOLD, &park);
        ll_mcs_acquire(&mcs, &mcs_node, &park); counters[5]++; ll_mcs_release(&mcs, &mcs_node, &park);
        ll_k42_acquire(&k42, &park); counters[6]++; ll_k42_release(&k42, &park);
        ll_clh_node *pred = ll_clh_acquire(&clh, clh_node, &park); counters[7]++;
        ll_clh_release(clh_node, &park);
        clh_node = pred; /* CLH nodes migrate: the predecessor's node is ours now */
        uint32_t t = ll_anderson_acquire(&anderson, &park); counters[8]++; ll_anderson_release(&anderson, t, &park);
    }
    ll_qnode_put(clh_node);
    (void)spin;
    return NULL;
}

int main(void)
{
    ll_clh_init(&clh, (ll_clh_node *)ll_qnode_get());
    ll_anderson_init(&anderson, anderson_slots, 8);
    test_run_threads(THREADS, worker, NULL, 0);
    const char *names[] = {"tas", "ttas", "backoff", "ticket", "twa", "mcs", "k42", "clh", "anderson"};
    int failed = 0;
    for (int i = 0; i < 9; i++) {
        int ok = counters[i] == (unsigned long)THREADS * ROUNDS;
        printf("%s %s counter=%lu\n", ok ? "ok  " : "FAIL", names[i], counters[i]);
        failed += !ok;
    }
    printf("%d passed, %d failed\n", 9 - failed, failed);
    return failed != 0;
}
