/* Spec parsing and bad-input messages: each rejection is one line naming the bad value and the choices;
 * placement; and every registered lock's capabilities (registry.h, LL_CAP_*) against its other fields
 * and its behaviour. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locklab/locklab.h"
#include "locklab/registry.h"

static int passed, failed;

static void check(int cond, const char *what, const char *detail)
{
    printf("%s %s%s%s\n", cond ? "ok  " : "FAIL", what, detail ? ": " : "", detail ? detail : "");
    cond ? passed++ : failed++;
}

static void accepts(const char *spec, const char *canonical)
{
    ll_spec s;
    char err[512] = "";
    int rc = ll_spec_parse(spec, &s, err, sizeof err);
    check(rc == 0 && strcmp(s.name, canonical) == 0, spec, rc ? err : s.name);
}

/* Rejected, with a one-line message containing every needle. */
static void rejects(const char *spec, const char *needle1, const char *needle2)
{
    ll_spec s;
    char err[512] = "";
    int rc = ll_spec_parse(spec, &s, err, sizeof err);
    int ok = rc != 0 && strchr(err, '\n') == NULL && strstr(err, needle1) && (!needle2 || strstr(err, needle2));
    char what[300];
    snprintf(what, sizeof what, "rejects '%s'", spec);
    check(ok, what, err);
}

/* ---- capabilities (registry.h, LL_CAP_*): every registered spec --------------------------- */

typedef struct {
    const ll_lock_ops *ops;
    void *state;
    ll_wait_policy *wp;
} release_arg;

static void *release_there(void *arg)
{
    release_arg *r = (release_arg *)arg;
    r->ops->release(r->state, r->wp);
    return NULL;
}

/* A lock placed from spec in fresh memory (NULL, with a FAIL, if it cannot be). */
static void *placed(const ll_spec *s, ll_wait_policy *wp, ll_placement *pl)
{
    char err[512] = "";
    void *state = NULL;
    ll_lock_place(s, LL_DEFAULTS_FIXED, NULL, NULL, pl, err, sizeof err); /* sizes only */
    if (posix_memalign(&state, pl->state_align, pl->state_bytes) != 0 ||
        ll_lock_place(s, LL_DEFAULTS_FIXED, state, wp, pl, err, sizeof err) != 0) {
        check(0, s->name, err);
        free(state);
        return NULL;
    }
    return state;
}

static void unplace(const ll_lock_ops *ops, void *state)
{
    if (ops->destroy)
        ops->destroy(state);
    free(state);
}

/* LL_CAP_WORD_LOCK: the word_lock.h contract, seen from outside the lock (as the interposer
 * inlines it): zeros are free, a successful CAS 0 -> 1 by anyone holds it, a store of 0 frees it. */
static bool word_contract_holds(const ll_lock_ops *ops, void *state, ll_wait_policy *wp)
{
    ll_atomic_u32 *w = (ll_atomic_u32 *)state;
    if (!(ll_load_relaxed(w) == 0 && ops->try_acquire(state, wp) && ll_load_relaxed(w) == 1 &&
          !ops->try_acquire(state, wp)))
        return false;
    ops->release(state, wp);
    uint32_t free_word = 0;
    /* acquire, release: the orders an inlined fast path uses (one thread here: nothing to pair with) */
    if (!(ll_load_relaxed(w) == 0 && ll_cas(w, &free_word, 1, LL_ACQUIRE) && !ops->try_acquire(state, wp)))
        return false;
    ll_store_release(w, 0);
    if (!ops->try_acquire(state, wp))
        return false;
    ops->release(state, wp);
    ops->acquire(state, wp); /* free: one attempt takes it */
    bool held = ll_load_relaxed(w) == 1;
    ops->release(state, wp);
    return held && ll_load_relaxed(w) == 0;
}

/* Without LL_CAP_HOLDER_RELEASES any thread may release for the holder (the interposer does,
 * as glibc does, for pthread_mutex_unlock by another thread): held here, released by another
 * thread (within 5 s), then free here. */
static bool released_by_another_thread(const ll_lock_ops *ops, void *state, ll_wait_policy *wp)
{
    ops->acquire(state, wp);
    release_arg r = {ops, state, wp};
    pthread_t t;
    if (pthread_create(&t, NULL, release_there, &r) != 0)
        return false;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    if (pthread_timedjoin_np(t, NULL, &deadline) != 0)
        return false; /* stuck in release: the lock needs its holder's thread */
    if (!ops->try_acquire(state, wp))
        return false;
    ops->release(state, wp);
    return true;
}

/* The inline prefix: zeros once initialised, and the bytes after it (tunables) the same in
 * every lock of the spec, before and after use. */
static bool prefix_split_holds(const ll_spec *s, void *state, ll_wait_policy *wp, const ll_placement *pl)
{
    const ll_lock_ops *ops = s->ops;
    size_t n = ops->inline_prefix_bytes;
    ll_placement pl2;
    ll_wait_policy wp2;
    void *other = placed(s, &wp2, &pl2);
    if (!other)
        return false;
    bool ok = n <= ops->state_bytes && ops->destroy == NULL && pl->inline_prefix_bytes == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = ((unsigned char *)state)[i] == 0;
    ops->acquire(state, wp);
    ops->release(state, wp);
    ok = ok && memcmp((char *)state + n, (char *)other + n, ops->state_bytes - n) == 0;
    unplace(ops, other);
    return ok;
}

static void check_capabilities(const char *spec, void *arg)
{
    (void)arg;
    ll_spec s;
    char err[512] = "", what[300];
    if (ll_spec_parse(spec, &s, err, sizeof err) != 0) {
        check(0, spec, err);
        return;
    }
    const ll_lock_ops *ops = s.ops;
    unsigned caps = ops->caps;
    bool word = caps & LL_CAP_WORD_LOCK;
    bool consistent = (caps & ~LL_CAP_ALL) == 0 && (!(caps & LL_CAP_PARKS_ITSELF) || ops->policies == LL_SPIN_ONLY) &&
                      (!(caps & LL_CAP_WAKE_INTO_HELD) || (caps & LL_CAP_PARKS_ITSELF)) &&
                      (!word || ((caps & LL_CAP_FORK_SAFE) && ops->state_bytes == sizeof(ll_atomic_u32) &&
                                 !ops->init && !ops->destroy && !ops->abandon)) &&
                      ops->inline_prefix_bytes <= ops->state_bytes;
    snprintf(what, sizeof what, "%s: capability flags consistent with the entry", spec);
    check(consistent, what, NULL);
    if (!consistent)
        return; /* the behaviour below could hang on such a lock (a word lock of another shape) */
    ll_placement pl;
    ll_wait_policy wp;
    void *state = placed(&s, &wp, &pl);
    if (!state)
        return;
    if (word) {
        snprintf(what, sizeof what, "%s: word lock: zeros free, a CAS 0 -> 1 holds it, a store of 0 frees it", spec);
        check(pl.inlinable && word_contract_holds(ops, state, &wp), what, NULL);
    }
    if (ops->inline_prefix_bytes) {
        snprintf(what, sizeof what, "%s: inline prefix of %zu bytes: zeros, then the spec's tunables", spec,
                 ops->inline_prefix_bytes);
        check(prefix_split_holds(&s, state, &wp, &pl), what, NULL);
    }
    if (!(caps & LL_CAP_HOLDER_RELEASES)) {
        snprintf(what, sizeof what, "%s: no holder-only release: another thread releases for the holder", spec);
        if (!released_by_another_thread(ops, state, &wp)) {
            check(0, what, "stuck or still held (needs LL_CAP_HOLDER_RELEASES?)");
            return; /* the state may still be in use: leaked */
        }
        check(1, what, NULL);
    }
    unplace(ops, state);
}

int main(void)
{
    accepts("mcs", "mcs");
    accepts("mcs-spin", "mcs");
    accepts("mcs-stp", "mcs-stp");
    accepts("mcs-stp:spin_ns=20000", "mcs-stp:spin_ns=20000");
    accepts("ticket-pb", "ticket-pb");
    accepts("ticket-pb:unit=8", "ticket-pb:unit=8");
    accepts("backoff:min=4,max=64", "backoff:min=4,max=64");
    accepts("anderson-park:slots=8", "anderson-park:slots=8");
    accepts("twa-astp:threshold=2,spin_ns=5000", "twa-astp:threshold=2,spin_ns=5000");
    {
        ll_spec s;
        char err[256];
        ll_spec_parse("backoff:max=64", &s, err, sizeof err);
        check(s.params[0] == 16 && s.params[1] == 64, "defaults fill unspecified keys", NULL);
        ll_spec_parse("mcs-stp:spin_ns=1234", &s, err, sizeof err);
        check(s.spin_ns == 1234 && s.policy == &ll_wait_stp, "spin_ns reaches the policy", NULL);
    }

    /* spec, then what the one-line error must say (needle2 NULL: nothing more) */
    static const struct {
        const char *spec, *needle1, *needle2;
    } bad[] = {
        {"", "empty lock spec", "mcs"},
        {"foo", "unknown lock 'foo'", "mcs"},
        {"foo-stp", "unknown lock 'foo-stp'", "twa"},
        {"mcs-sleepy", "unknown waiting policy 'sleepy'", "stp"},
        {"tas-park", "does not support waiting policy 'park'", "spin, yield"},
        {"ticket-pb-stp", "does not support waiting policy 'stp'", "spin"},
        {"mcs:", "nothing after ':'", NULL},
        {"mcs-stp:spin_ns", "malformed parameter 'spin_ns'", "spin_ns"},
        {"mcs-stp:=5", "malformed parameter '=5'", NULL},
        {"mcs-stp:spin_ns=", "malformed parameter", NULL},
        {"mcs:spin_ns=100", "unknown parameter 'spin_ns'", "valid keys: warm"},
        {"ticket:spin_ns=100", "unknown parameter 'spin_ns'", "valid keys: none"},
        {"mcs-stp:warm=2", "bad value '2' for parameter warm", "0..1"},
        {"backoff:mn=3", "unknown parameter 'mn'", "min, max"},
        {"backoff:min=abc", "bad value 'abc' for parameter min", "1.."},
        {"backoff:min=-1", "bad value '-1'", NULL},
        {"backoff:min=0", "bad value '0'", "1..1048576"},
        {"ticket-pb:unit=99999999999999999999999", "bad value", NULL},
        {"twa:threshold=0", "bad value '0' for parameter threshold", "1..1024"},
        {"mcs-stp:spin_ns=0", "bad value '0' for parameter spin_ns", NULL},
        {"mcs-stp:spin_ns=10,spin_ns=20000", "parameter 'spin_ns' given twice", NULL},
        {"backoff:min=4,max=64,min=8", "parameter 'min' given twice", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        rejects(bad[i].spec, bad[i].needle1, bad[i].needle2);
    /* The longest specs accepted (255 bytes): the echoed values are elided, never the reason. */
    {
        char spec[256];
        snprintf(spec, sizeof spec, "mcs-stp:spin_ns=%0239d", 0);
        rejects(spec, "for parameter spin_ns", "(valid: an integer in 1..10000000000)");
        memset(spec, 'z', 255);
        spec[255] = '\0';
        rejects(spec, "unknown lock 'zzz", "see --list)");
        snprintf(spec, sizeof spec, "backoff:min=4,%0*d=1", 255 - 16, 0);
        rejects(spec, "unknown parameter '000", "(valid keys: min, max)");
    }

    char err[512];
    check(ll_lock_create("anderson:slots=12", err, sizeof err) == NULL && strstr(err, "slots=12 is not a power of two"),
          "anderson rejects slots=12", err);
    check(ll_lock_create("backoff:min=64,max=8", err, sizeof err) == NULL && strstr(err, "min=64"),
          "backoff rejects min > max", err);

    /* ll_lock_place: defaults settled in one place, sizes, inline-ability, placement. */
    {
        ll_spec s;
        ll_placement pl;
        ll_wait_policy wp;
        static LL_ALIGNED(LL_SECTOR) unsigned char mem[4096];
        ll_spec_parse("mcs-stp", &s, err, sizeof err);
        check(ll_lock_place(&s, LL_DEFAULTS_FIXED, mem, &wp, &pl, err, sizeof err) == 0 &&
                  pl.spec.spin_ns == LL_FIXED_SPIN_NS && wp.spin_ns == LL_FIXED_SPIN_NS && s.spin_ns == 0 &&
                  strcmp(pl.spec.name, "mcs-stp") == 0 && pl.state_bytes == s.ops->state_bytes &&
                  pl.state_align == LL_SECTOR && pl.inline_prefix_bytes == 0,
              "place mcs-stp, fixed defaults: spin_ns 20000", NULL);
        ll_spec_parse("mcs-stp:spin_ns=1234", &s, err, sizeof err);
        check(ll_lock_place(&s, LL_DEFAULTS_MEASURED, mem, &wp, &pl, err, sizeof err) == 0 && pl.spec.spin_ns == 1234 &&
                  wp.spin_ns == 1234,
              "place mcs-stp:spin_ns=1234 keeps the given budget", NULL);
        ll_spec_parse("loiter", &s, err, sizeof err);
        check(ll_lock_place(&s, LL_DEFAULTS_FIXED, NULL, NULL, &pl, err, sizeof err) == 0 &&
                  pl.spec.params[0] == LL_FIXED_SPIN_NS && pl.spec.spin_ns == 0,
              "place loiter, fixed defaults: key spin_ns 0 -> 20000", NULL);
        check(ll_lock_place(&s, LL_DEFAULTS_MEASURED, NULL, NULL, &pl, err, sizeof err) == 0 &&
                  pl.spec.params[0] == ll_park_cost_ns(),
              "place loiter, measured defaults: key spin_ns 0 -> the park cost", NULL);
        ll_spec_parse("acr:spin_ns=0", &s, err, sizeof err);
        check(ll_lock_place(&s, LL_DEFAULTS_FIXED, mem, NULL, &pl, err, sizeof err) == 0 && pl.spec.params[0] == 0 &&
                  !pl.inlinable && pl.inline_prefix_bytes == 16,
              "place acr: spin_ns=0 (default 20000) is no spin; not inlinable, inline prefix 16 bytes", NULL);
        ll_spec_parse("ttas", &s, err, sizeof err);
        check(ll_lock_place(&s, LL_DEFAULTS_FIXED, mem, NULL, &pl, err, sizeof err) == 0 && pl.inlinable &&
                  pl.inline_prefix_bytes == 0,
              "place ttas: inlinable", NULL);
        ll_spec_parse("anderson:slots=12", &s, err, sizeof err);
        check(ll_lock_place(&s, LL_DEFAULTS_FIXED, NULL, NULL, &pl, err, sizeof err) == 0 &&
                  ll_lock_place(&s, LL_DEFAULTS_FIXED, mem, NULL, &pl, err, sizeof err) != 0 &&
                  strstr(err, "slots=12 is not a power of two"),
              "place anderson:slots=12: sizing succeeds, initialising rejects", err);
    }

    /* Every registered algorithm x policy: its capabilities. */
    ll_lock_list(check_capabilities, NULL);
    {
        char buf[128], tiny[8];
        check(strcmp(ll_lock_caps_format(0, buf, sizeof buf), "-") == 0 &&
                  strcmp(ll_lock_caps_format(LL_CAP_PARKS_ITSELF | LL_CAP_FORK_SAFE, buf, sizeof buf),
                         "parks-itself,fork-safe") == 0 &&
                  strcmp(ll_lock_caps_format(LL_CAP_ALL, buf, sizeof buf),
                         "parks-itself,word-lock,holder-releases,fork-safe,wake-into-held") == 0 &&
                  strcmp(ll_lock_caps_format(LL_CAP_ALL, tiny, sizeof tiny), "parks-i") == 0,
              "ll_lock_caps_format: names in bit order, '-' for none, truncated to the buffer", buf);
    }

    /* Topology: good and bad values. */
    check(ll_topology_configure("sockets=2", err, sizeof err) == 0 && ll_topology_sockets() == 2, "sockets=2", NULL);
    check(ll_topology_configure("cpus=0/1", err, sizeof err) == 0 || ll_ncpus() < 2, "cpus=0/1", err);
    check(ll_topology_configure("", err, sizeof err) == 0, "empty topology = real", NULL);
    const char *bad_topologies[] = {"sockets=0", "sockets=65", "sockets=", "sockets=2x", "socket=2", "cpus=",
                                    "cpus=0-", "cpus=5000", "cpus=1-0", "numa", NULL};
    for (int i = 0; bad_topologies[i]; i++) {
        int rc = ll_topology_configure(bad_topologies[i], err, sizeof err);
        char what[128];
        snprintf(what, sizeof what, "rejects LOCKLAB_TOPOLOGY='%s'", bad_topologies[i]);
        check(rc != 0 && strstr(err, bad_topologies[i]) && strstr(err, "sockets=N"), what, err);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
