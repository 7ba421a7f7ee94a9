/*
 * The profiler's configuration: LOCKLAB_PROFILE, _FORMAT, _TOP and _SIGNAL read once
 * (profile.h lists them; lp_env, env.h: empty = unset, nothing in secure-execution mode),
 * the snapshot signal's handler and the fork handler installed, and the configuration the
 * report names in its header.  A bad value, or a report path that cannot be written
 * (profile_file.c, lp_path_writable), is one line on stderr and -1, checked at start-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "profile_report.h"

lp_report_config lp_report = {
    .stderr_copy = -1,
    .top = 20,
    .lock = "(not set)",
    .cond = "(not set)",
    .sem = "(not set)",
    .morph = "(not set)",
};

static int bad_env(const char *var, const char *value, const char *valid)
{
    char echo[65];
    fprintf(stderr, "locklab: bad %s '%s' (valid: %s)\n", var, ll_elide(value, 64, echo, sizeof echo), valid);
    return -1;
}

void lp_report_expand_path(char *out, size_t len)
{
    size_t o = 0;
    for (const char *c = lp_report.path; *c && o + 1 < len; c++) {
        if (c[0] == '%' && c[1] == 'p') {
            o += (size_t)snprintf(out + o, len - o, "%d", (int)getpid());
            c++;
        } else {
            out[o++] = *c;
        }
    }
    out[o < len ? o : len - 1] = '\0';
}

/* The report path can be written (lp_path_writable), else one line and -1. */
static int check_report_path(void)
{
    char path[4096];
    lp_report_expand_path(path, sizeof path);
    int e = lp_path_writable(path);
    if (e == 0)
        return 0;
    char echo[257];
    fprintf(stderr, "locklab: bad LOCKLAB_PROFILE '%s': cannot write a report there (%s; valid: a file in an "
                    "existing, writable directory, or - for stderr)\n", ll_elide(lp_report.path, 256, echo, sizeof echo),
            strerror(e));
    return -1;
}

static void on_fork_child(void)
{
    ll_store_relaxed(&lp_idle_child, 1); /* relaxed: one thread in the child */
}

static void on_snapshot_signal(int sig)
{
    (void)sig;
    ll_store_relaxed(&lp_snapshot_requested, 1); /* relaxed: polled by the next profiled acquisition */
}

int lp_profile_init(void)
{
    const char *path = lp_env("LOCKLAB_PROFILE"); /* env.h: empty = unset; nothing in secure-execution mode */
    const char *format = lp_env("LOCKLAB_PROFILE_FORMAT");
    const char *top = lp_env("LOCKLAB_PROFILE_TOP");
    const char *sig = lp_env("LOCKLAB_PROFILE_SIGNAL");
    if (!path)
        return 0;
    if (strchr(path, '\n'))
        return bad_env("LOCKLAB_PROFILE", path, "a file path, or - for stderr");
    lp_report.json = strlen(path) > 5 && strcmp(path + strlen(path) - 5, ".json") == 0;
    if (format) {
        if (strcmp(format, "json") == 0)
            lp_report.json = true;
        else if (strcmp(format, "table") == 0)
            lp_report.json = false;
        else
            return bad_env("LOCKLAB_PROFILE_FORMAT", format, "json, table");
    }
    if (top) {
        char *end;
        errno = 0;
        long n = strtol(top, &end, 10);
        if (*end || errno || n < 0 || n > 1000000)
            return bad_env("LOCKLAB_PROFILE_TOP", top, "0 (all) or a count in 1..1000000");
        lp_report.top = n;
    }
    if (sig) {
        static const struct { const char *name; int sig; } names[] = {{"USR1", SIGUSR1}, {"USR2", SIGUSR2},
                                                                       {"HUP", SIGHUP}};
        int snapshot_signal = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(sig, names[i].name) == 0 || (strncmp(sig, "SIG", 3) == 0 && strcmp(sig + 3, names[i].name) == 0))
                snapshot_signal = names[i].sig;
        if (!snapshot_signal)
            return bad_env("LOCKLAB_PROFILE_SIGNAL", sig, "USR1, USR2, HUP");
        struct sigaction sa = {.sa_handler = on_snapshot_signal, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(snapshot_signal, &sa, NULL);
    }
    lp_report.path = path; /* before check_report_path: it expands it */
    if (strcmp(path, "-") == 0)
        lp_report.stderr_copy = fcntl(2, F_DUPFD_CLOEXEC, 10);
    else if (check_report_path() != 0)
        return -1;
    lp_report.start_ns = ll_now_ns();
    lp_report.start_pid = getpid();
    lp_profiling = true;
    pthread_atfork(NULL, NULL, on_fork_child);
    atexit(lp_profile_write);
    return 0;
}

void lp_profile_set_config(const char *lock_spec, const char *cond, const char *morph, const char *sem)
{
    snprintf(lp_report.morph, sizeof lp_report.morph, "%s", morph ? morph : "(default)");
    snprintf(lp_report.lock, sizeof lp_report.lock, "%s", lock_spec ? lock_spec : "(default)");
    snprintf(lp_report.cond, sizeof lp_report.cond, "%s", cond ? cond : "(default)");
    snprintf(lp_report.sem, sizeof lp_report.sem, "%s", sem ? sem : "(default)");
}
