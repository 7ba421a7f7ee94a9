/*
 * Lock specs:  ALGO[-POLICY][:KEY=VALUE[,KEY=VALUE...]]  ->  ll_spec.
 * Every rejection is one line naming the bad value and the valid choices;
 * a long value is echoed with its middle elided (ll_elide, ECHO bytes), so
 * that the reason and the choices always fit the caller's buffer.  Each key
 * may be given once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locklab/registry.h"

/* Longest echo of a value in a message (ll_elide): with the longest list of
 * choices (the algorithms), a message fits a 512-byte buffer. */
#define ECHO 64

/* The algorithms a spec may name: the i-th, NULL past the last (ll_lock_algorithm for
 * mutexes; the rwlocks' descriptors for ll_rwlock_spec_parse), and what they are called
 * in messages ("lock", "rwlock"). */
typedef struct algorithms {
    const ll_lock_ops *(*at)(size_t i);
    const char *kind;
} algorithms;
static const algorithms mutexes = {ll_lock_algorithm, "lock"};

static const ll_lock_ops *find_in(const algorithms *a, const char *name)
{
    const ll_lock_ops *ops;
    for (size_t i = 0; (ops = a->at(i)) != NULL; i++)
        if (strcmp(ops->name, name) == 0)
            return ops;
    return NULL;
}

const ll_lock_ops *ll_lock_find_algorithm(const char *name) { return find_in(&mutexes, name); }

/* Append "a, b, c" to buf. */
static void list_algorithms(const algorithms *a, char *buf, size_t len)
{
    size_t n = 0;
    const ll_lock_ops *ops;
    for (size_t i = 0; (ops = a->at(i)) != NULL && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", ops->name);
}

static void list_policies(unsigned mask, char *buf, size_t len)
{
    size_t n = 0;
    for (int i = 0; ll_wait_policies[i] && n < len; i++)
        if (mask & LL_POLICY_BIT(i))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", ll_wait_policies[i]->name);
}

static void list_keys(const ll_spec *s, char *buf, size_t len)
{
    size_t n = 0;
    for (const ll_param *p = s->ops->params; p && p->key && n < len; p++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", p->key);
    if (s->policy->has_budget && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%sspin_ns", n ? ", " : "");
    if (n == 0)
        snprintf(buf, len, "none");
}

static int policy_index(const ll_wait_ops *w)
{
    int i = 0;
    while (ll_wait_policies[i] != w)
        i++;
    return i;
}

static int parse_name(const algorithms *a, const char *name, ll_spec *out, char *err, size_t errlen)
{
    char choices[512], echo[ECHO + 1];
    ll_elide(name, ECHO, echo, sizeof echo);
    out->ops = find_in(a, name);
    out->policy = &ll_wait_spin;
    if (out->ops)
        return 0;
    const char *dash = strrchr(name, '-');
    if (dash) {
        char algo[64];
        size_t alen = (size_t)(dash - name);
        if (alen < sizeof algo) {
            memcpy(algo, name, alen);
            algo[alen] = '\0';
            out->ops = find_in(a, algo);
        }
    }
    if (!out->ops) {
        list_algorithms(a, choices, sizeof choices);
        snprintf(err, errlen, "unknown %s '%s' (valid algorithms: %s; add -POLICY for a waiting policy, see --list)",
                 a->kind, echo, choices);
        return -1;
    }
    out->policy = ll_wait_find(dash + 1);
    list_policies(out->ops->policies, choices, sizeof choices);
    if (!out->policy) {
        char policy[ECHO + 1];
        snprintf(err, errlen, "unknown waiting policy '%s' in lock '%s' (valid for %s: %s)",
                 ll_elide(dash + 1, ECHO, policy, sizeof policy), echo, out->ops->name, choices);
        return -1;
    }
    if (!(out->ops->policies & LL_POLICY_BIT(policy_index(out->policy)))) {
        snprintf(err, errlen, "lock '%s' does not support waiting policy '%s' (valid for %s: %s)", out->ops->name,
                 out->policy->name, out->ops->name, choices);
        return -1;
    }
    return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

/* One KEY=VALUE of spec into out; seen: the keys given so far (bit i: params[i], bit
 * LL_MAX_PARAMS: spin_ns), so that a key given twice is refused. */
static int parse_key(const char *kv, ll_spec *out, const char *spec, unsigned *seen, char *err, size_t errlen)
{
    char keys[256], echo[ECHO + 1], kv_echo[ECHO + 1];
    list_keys(out, keys, sizeof keys);
    ll_elide(spec, ECHO, echo, sizeof echo);
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv || eq[1] == '\0') {
        snprintf(err, errlen, "malformed parameter '%s' in lock spec '%s' (expected key=value; valid keys: %s)",
                 ll_elide(kv, ECHO, kv_echo, sizeof kv_echo), echo, keys);
        return -1;
    }
    char key[64];
    size_t klen = (size_t)(eq - kv);
    snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : sizeof key - 1), kv);
    const char *value = eq + 1;
    uint64_t lo = 1, hi = 10000000000ull, *dst = &out->spin_ns; /* spin_ns: 1 ns .. 10 s */
    unsigned bit = 1u << LL_MAX_PARAMS;
    const ll_param *p = out->ops->params;
    for (; p && p->key && strcmp(p->key, key) != 0; p++)
        ;
    if (p && p->key) {
        lo = p->min;
        hi = p->max;
        dst = &out->params[p - out->ops->params];
        bit = 1u << (p - out->ops->params);
    } else if (!(out->policy->has_budget && strcmp(key, "spin_ns") == 0)) {
        snprintf(err, errlen, "unknown parameter '%s' for lock '%s' (valid keys: %s)", key, echo, keys);
        return -1;
    }
    if (*seen & bit) {
        snprintf(err, errlen, "parameter '%s' given twice in lock spec '%s' (give each key once; valid keys: %s)", key,
                 echo, keys);
        return -1;
    }
    *seen |= bit;
    uint64_t v;
    if (parse_u64(value, &v) != 0 || v < lo || v > hi) {
        snprintf(err, errlen, "bad value '%s' for parameter %s in lock '%s' (valid: an integer in %llu..%llu)",
                 ll_elide(value, ECHO, kv_echo, sizeof kv_echo), key, echo, (unsigned long long)lo,
                 (unsigned long long)hi);
        return -1;
    }
    *dst = v;
    return 0;
}

static int parse_spec(const algorithms *a, const char *spec, ll_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (spec == NULL || *spec == '\0') {
        char choices[512];
        list_algorithms(a, choices, sizeof choices);
        snprintf(err, errlen, "empty %s spec (valid algorithms: %s)", a->kind, choices);
        return -1;
    }
    char buf[256], echo[ECHO + 1];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "lock spec too long (%zu bytes, max %zu): '%s'", strlen(spec), sizeof buf - 1,
                 ll_elide(spec, ECHO, echo, sizeof echo));
        return -1;
    }
    strcpy(buf, spec);
    char *keys = strchr(buf, ':');
    if (keys)
        *keys++ = '\0';
    if (parse_name(a, buf, out, err, errlen) != 0)
        return -1;
    for (const ll_param *p = out->ops->params; p && p->key; p++)
        out->params[p - out->ops->params] = p->def;
    if (keys) {
        if (*keys == '\0') {
            snprintf(err, errlen, "malformed lock spec '%s' (nothing after ':'; expected key=value)",
                     ll_elide(spec, ECHO, echo, sizeof echo));
            return -1;
        }
        unsigned seen = 0;
        for (char *kv = keys; kv;) {
            char *comma = strchr(kv, ',');
            if (comma)
                *comma = '\0';
            if (parse_key(kv, out, spec, &seen, err, errlen) != 0)
                return -1;
            kv = comma ? comma + 1 : NULL;
        }
    }
    /* Canonical name: algorithm, policy suffix unless spin, then the keys as given. */
    snprintf(out->name, sizeof out->name, "%s%s%s%s%s", out->ops->name, out->policy == &ll_wait_spin ? "" : "-",
             out->policy == &ll_wait_spin ? "" : out->policy->name, keys ? ":" : "", keys ? spec + (keys - buf) : "");
    return 0;
}

int ll_spec_parse(const char *spec, ll_spec *out, char *err, size_t errlen)
{
    return parse_spec(&mutexes, spec, out, err, errlen);
}

int ll_spec_parse_among(const ll_lock_ops *(*at)(size_t i), const char *kind, const char *spec, ll_spec *out,
                        char *err, size_t errlen)
{
    algorithms a = {at, kind};
    return parse_spec(&a, spec, out, err, errlen);
}
