/* The generic lock handle a C test runs on, from its spec (tests that use locklab;
 * test_util.h stays free of it).
 *
 *   test_lock_create(spec)   ll_lock_create, or one line (the spec and the parser's
 *                            error) and exit 2: a spec that does not parse is bad input
 *                            (the command line) or a broken test, never a lock's failure
 */
#ifndef LOCKLAB_TESTS_TEST_LOCK_H
#define LOCKLAB_TESTS_TEST_LOCK_H
#include <stdio.h>
#include <stdlib.h>

#include "locklab/locklab.h"

static inline ll_lock *test_lock_create(const char *spec)
{
    char err[256];
    ll_lock *l = ll_lock_create(spec, err, sizeof err);
    if (!l) {
        fprintf(stderr, "%s: %s\n", spec, err);
        exit(2);
    }
    return l;
}
#endif
