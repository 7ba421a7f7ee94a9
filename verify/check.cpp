/*
 * locklab-check: the model-checking driver of the lock clients (tests/clients.h).
 *
 * Each case runs one client on registry locks (include/locklab/registry.h, placed
 * from a spec as the validator's ll_lock_create does) under Relacy: T threads
 * (2 or 3), each making K acquisitions (1 or 2), with the lock sources, the
 * waiting engine and the parker compiled unchanged against the atomics layer's
 * Relacy backend (verify/relacy_atomics.h, verify/relacy_env.cpp).  The data a
 * lock guards is an rl::var: two critical sections not ordered by happens-before
 * are a data race, i.e. a mutual-exclusion (or publication) violation.  Relacy
 * also reports deadlocks (a lost wake-up: a thread parked for ever) and
 * livelocks, and after the threads the counter must equal T x K.
 *
 *   locklab-check [--lock SPEC]... [--broken NAME]... [--client C|all] [--threads 2|3]
 *                 [--acquisitions 1|2] [--sched full|bound|random] [--iterations N]
 *                 [--depth N] [--clock-step NS] [--expect-fail] [--history]
 * --broken NAME: a deliberately broken lock (see broken_locks below).
 * --expect-fail: each case passes iff Relacy finds an error (the broken locks).
 * Prints one line per case and "N passed, N failed"; exit 0 iff all passed,
 * 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fstream>

#include "locklab/registry.h"
#include "relacy_env.h"

/* ---- the deliberately broken locks: the checker must catch each ----------------- */
/* tas whose acquire exchange is relaxed: nothing orders the previous holder's
 * critical section before ours (x86 hides this; the C++ memory model does not). */
static void relaxed_tas_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    while (ll_xchg((ll_atomic_u32 *)s, 1, LL_RELAXED) != 0) /* BROKEN on purpose: must be acquire */
        ll_pause();
}
static bool relaxed_tas_try(void *s, ll_wait_policy *wp)
{
    (void)wp;
    return ll_xchg((ll_atomic_u32 *)s, 1, LL_RELAXED) == 0; /* BROKEN on purpose: must be acquire */
}
static void word_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release((ll_atomic_u32 *)s, 0); /* release: pairs with the acquire a correct lock would use */
}
/* The validator's test-then-set: two threads can both see 0 before either stores 1. */
static void tts_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    while (ll_load_acquire((ll_atomic_u32 *)s) != 0) /* acquire: pairs with word_release */
        ll_pause();
    ll_store_relaxed((ll_atomic_u32 *)s, 1); /* BROKEN on purpose: not atomic with the test */
}
static bool tts_try(void *s, ll_wait_policy *wp)
{
    tts_acquire(s, wp);
    return true;
}
/* A ticket lock whose release forgets that a waiter may read the grant concurrently:
 * plain read-modify-write of the grant word is fine (only the holder writes it), so
 * the bug here is the relaxed publication of the grant. */
struct broken_ticket { ll_atomic_u32 next, grant; };
static void relaxed_ticket_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    broken_ticket *t = (broken_ticket *)s;
    uint32_t me = ll_faa(&t->next, 1, LL_RELAXED); /* relaxed: a ticket number only */
    while (ll_load_acquire(&t->grant) != me)       /* acquire: pairs with the release below */
        ll_pause();
}
static bool relaxed_ticket_try(void *s, ll_wait_policy *wp)
{
    relaxed_ticket_acquire(s, wp);
    return true;
}
static void relaxed_ticket_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    broken_ticket *t = (broken_ticket *)s;
    ll_store_relaxed(&t->grant, ll_load_relaxed(&t->grant) + 1); /* BROKEN on purpose: must be release */
}

static const ll_lock_ops broken_locks[] = {
    {"broken-relaxed-tas", "", "tas with a relaxed acquire exchange", "", LL_SPIN_ONLY, NULL, sizeof(ll_atomic_u32),
     0, 0, NULL, NULL, relaxed_tas_acquire, relaxed_tas_try, word_release},
    {"broken-test-then-set", "", "load, then a separate store (the validator's broken lock)", "", LL_SPIN_ONLY, NULL,
     sizeof(ll_atomic_u32), 0, 0, NULL, NULL, tts_acquire, tts_try, word_release},
    {"broken-relaxed-ticket", "", "ticket lock whose release publishes the grant relaxed", "", LL_SPIN_ONLY, NULL,
     sizeof(broken_ticket), 0, 0, NULL, NULL, relaxed_ticket_acquire, relaxed_ticket_try, relaxed_ticket_release},
};
enum { NBROKEN = sizeof broken_locks / sizeof broken_locks[0] };

/* ---- a lock under test, placed per iteration -------------------------------------- */
enum { STATE_BYTES = 4096 };
struct lut {
    alignas(LL_SECTOR) unsigned char state[STATE_BYTES];
    const ll_lock_ops *ops;
    ll_wait_policy wp;
};

static void lut_place(lut *l, const ll_spec *spec)
{
    char err[256];
    memset(l->state, 0, sizeof l->state);
    l->ops = spec->ops;
    if (spec->ops->init == NULL) { /* a broken lock: zeros are free */
        l->wp = (ll_wait_policy)LL_WAIT_POLICY_INIT(ll_wait_spin);
        return;
    }
    if (ll_lock_place(spec, LL_DEFAULTS_FIXED, l->state, &l->wp, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "locklab-check: %s\n", err);
        exit(2);
    }
}
static void lut_destroy(lut *l)
{
    if (l->ops->destroy)
        l->ops->destroy(l->state);
}
static void lut_acquire(lut *l) { l->ops->acquire(l->state, &l->wp); }
static bool lut_try(lut *l) { return l->ops->try_acquire(l->state, &l->wp); }
static void lut_release(lut *l) { l->ops->release(l->state, &l->wp); }

/* ---- the clients ------------------------------------------------------------------------ */
struct shared;
static void client_cs_a(shared *d);
static void client_cs_b(shared *d);
#define CLIENT_LOCK lut
#define CLIENT_DATA shared
#define client_acquire lut_acquire
#define client_try lut_try
#define client_release lut_release
#include "clients.h"

/* The case being checked (read by every iteration). */
static struct {
    ll_spec a, b;
    enum client client;
    unsigned acquisitions;
} the_case;

static lut lock_a, lock_b;

struct shared {
    rl::var<int> counter_a, counter_b; /* plain data guarded by a and b: a race = a violation */
};
static void client_cs_a(shared *d)
{
    int x = d->counter_a($);
    d->counter_a($) = x + 1;
}
static void client_cs_b(shared *d) { d->counter_b($) = d->counter_b($) + 1; }

template <int T> struct lock_test : rl::test_suite<lock_test<T>, T> {
    shared data;
    lock_test() { ll_model_begin(); }
    ~lock_test() { ll_model_end(); }
    void before()
    {
        data.counter_a($) = 0;
        data.counter_b($) = 0;
        lut_place(&lock_a, &the_case.a);
        lut_place(&lock_b, &the_case.b);
    }
    void thread(unsigned index)
    {
        for (uint64_t n = 0; n < the_case.acquisitions;)
            if (client_step(the_case.client, &lock_a, &lock_b, &data, (int)index, n))
                n++;
            else
                ll_pause(); /* a failed try_acquire */
    }
    void after()
    {
        int total = (int)(T * the_case.acquisitions);
        RL_ASSERT(data.counter_a($) == total);
        RL_ASSERT(the_case.client == COUNTER || the_case.client == TRYLOCK || data.counter_b($) == total);
        lut_destroy(&lock_a);
        lut_destroy(&lock_b);
    }
};

/* Copy Relacy's report (the failing execution's history) to stdout. */
static void show(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    if (f)
        fclose(f);
}

/* ---- command line ------------------------------------------------------------------------ */
static void parse_spec(const char *spec, ll_spec *out)
{
    for (int i = 0; i < NBROKEN; i++)
        if (strcmp(spec, broken_locks[i].name) == 0) {
            memset(out, 0, sizeof *out);
            out->ops = &broken_locks[i];
            out->policy = &ll_wait_spin;
            snprintf(out->name, sizeof out->name, "%s", spec);
            return;
        }
    char err[1024];
    if (ll_spec_parse(spec, out, err, sizeof err) != 0) {
        fprintf(stderr, "locklab-check: %s\n", err);
        exit(2);
    }
}

static unsigned parse_count(const char *flag, const char *v, unsigned lo, unsigned hi)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < lo || n > hi) {
        fprintf(stderr, "locklab-check: bad %s '%s' (valid: %u..%u)\n", flag, v, lo, hi);
        exit(2);
    }
    return (unsigned)n;
}

int main(int argc, char **argv)
{
    const char *specs[64];
    int nspecs = 0, threads[2] = {2, 3}, nthreads = 2;
    unsigned clients = (1u << NCLIENTS) - 1, acquisitions = 1, iterations = 20000, depth = 20000;
    bool expect_fail = false, history = false;
    rl::scheduler_type_e sched = rl::sched_random;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((strcmp(a, "--lock") == 0 || strcmp(a, "--broken") == 0) && v && nspecs < 64)
            specs[nspecs++] = argv[++i];
        else if (strcmp(a, "--client") == 0 && v) {
            clients = strcmp(v, "all") == 0 ? (1u << NCLIENTS) - 1 : 0;
            for (int k = 0; k < NCLIENTS; k++)
                if (strcmp(v, client_names[k]) == 0)
                    clients = 1u << k;
            if (!clients) {
                fprintf(stderr, "locklab-check: unknown client '%s' (valid: counter, nested, trylock, mixed, all)\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--threads") == 0 && v) {
            threads[0] = (int)parse_count(a, v, 2, 3);
            nthreads = 1;
            i++;
        } else if (strcmp(a, "--acquisitions") == 0 && v) {
            acquisitions = parse_count(a, argv[++i], 1, 2);
        } else if (strcmp(a, "--iterations") == 0 && v) {
            iterations = parse_count(a, argv[++i], 1, 1000000000);
        } else if (strcmp(a, "--depth") == 0 && v) {
            depth = parse_count(a, argv[++i], 100, 10000000);
        } else if (strcmp(a, "--clock-step") == 0 && v) {
            ll_model_clock_step = parse_count(a, argv[++i], 1, 1000000000);
        } else if (strcmp(a, "--sched") == 0 && v) {
            if (strcmp(v, "full") == 0)
                sched = rl::sched_full;
            else if (strcmp(v, "bound") == 0)
                sched = rl::sched_bound;
            else if (strcmp(v, "random") == 0)
                sched = rl::sched_random;
            else {
                fprintf(stderr, "locklab-check: unknown scheduler '%s' (valid: full, bound, random)\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--expect-fail") == 0) {
            expect_fail = true;
        } else if (strcmp(a, "--history") == 0) {
            history = true;
        } else {
            fprintf(stderr,
                    "locklab-check: bad argument '%s' (valid: --lock SPEC, --broken NAME, --client C, --threads 2|3, "
                    "--acquisitions 1|2, --sched full|bound|random, --iterations N, --depth N, --clock-step NS, "
                    "--expect-fail, --history)\n",
                    a);
            return 2;
        }
    }
    if (nspecs == 0) {
        fprintf(stderr, "locklab-check: no --lock SPEC or --broken NAME given (broken: ");
        for (int i = 0; i < NBROKEN; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", broken_locks[i].name);
        fprintf(stderr, ")\n");
        return 2;
    }
    int passed = 0, failed = 0;
    char report_path[] = "/tmp/locklab-check-XXXXXX";
    int fd = mkstemp(report_path);
    if (fd < 0) {
        perror("locklab-check: mkstemp");
        return 2;
    }
    close(fd);
    for (int s = 0; s < nspecs; s++)
        for (int c = 0; c < NCLIENTS; c++) {
            if (!(clients & (1u << c)))
                continue;
            parse_spec(specs[s], &the_case.a);
            /* mixed: a lock of another algorithm, as in the validator */
            parse_spec(c != MIXED ? specs[s] : strncmp(specs[s], "mcs", 3) == 0 ? "clh-park" : "mcs-park", &the_case.b);
            the_case.client = (enum client)c;
            the_case.acquisitions = acquisitions;
            for (int t = 0; t < nthreads; t++) {
                rl::test_params p;
                p.search_type = sched;
                p.iteration_count = iterations;
                p.execution_depth_limit = depth;
                p.context_bound = 2;
                p.output_history = history;
                p.collect_history = history;
                /* Relacy reports to streams that must not allocate while it runs (it
                 * replaces operator new): a file opened before, shown if the case fails. */
                std::ofstream report(report_path, std::ios::trunc);
                p.progress_stream = &report;
                p.output_stream = &report;
                bool ok = threads[t] == 2 ? rl::simulate<lock_test<2>>(p) : rl::simulate<lock_test<3>>(p);
                bool pass = ok != expect_fail;
                printf("%-6s %-22s %-8s threads=%d acquisitions=%u sched=%s iterations=%llu%s%s\n",
                       pass ? "ok" : "FAIL", specs[s], client_names[c], threads[t], acquisitions, rl::format(sched),
                       (unsigned long long)p.stop_iteration, ok ? "" : "  error: ", ok ? "" : rl::test_result_str(p.test_result));
                report.close();
                if (!pass || history)
                    show(report_path);
                fflush(stdout);
                pass ? passed++ : failed++;
            }
        }
    unlink(report_path);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
