/* What the admission-order tests (tests/test_order.c, tests/test_numa_order.c)
 * share: the order in which waiters got the lock, checked against the one the
 * algorithm must give, and a process on two virtual sockets, in which thread i
 * (in order of first use of locklab) is on socket i % 2.
 *
 *   order[norder++] = name     a waiter records itself once it holds the lock
 *   check_order(expect, what)  compares and resets the record ("ok"/"FAIL" line)
 *   two_sockets(prog)          configures sockets=2 and registers the main thread
 *                              (index 0, socket 0); 0, or 2 with a message
 *   skip_thread_index()        starts and joins one thread that registers: the next
 *                              thread gets the next index (and the other socket)
 */
#ifndef LOCKLAB_TESTS_ORDER_UTIL_H
#define LOCKLAB_TESTS_ORDER_UTIL_H
#include <stdio.h>
#include <string.h>

#include "locklab/core.h"
#include "test_util.h"

static char order[16];
static int norder;

static void check_order(const char *expect, const char *what)
{
    order[norder] = '\0';
    int ok = strcmp(order, expect) == 0;
    printf("%s %s: admission order %s (expected %s)\n", ok ? "ok  " : "FAIL", what, order, expect);
    if (!ok)
        failures++;
    norder = 0;
}

static int two_sockets(const char *prog)
{
    char err[256];
    if (ll_topology_configure("sockets=2", err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 2;
    }
    if (ll_current_socket() != 0) { /* registers the main thread first: index 0, socket 0 */
        fprintf(stderr, "%s: main thread is not on virtual socket 0\n", prog);
        return 2;
    }
    return 0;
}

static void *order_register_thread(void *arg)
{
    (void)arg;
    ll_self();
    return NULL;
}
static void skip_thread_index(void) { test_run_threads(1, order_register_thread, NULL, 0); }
#endif
