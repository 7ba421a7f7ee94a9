/*
 * The interposer's one way to read its environment (LOCKLAB_*): lp_env.
 *
 * Empty means unset, for every variable.  In secure-execution mode (a
 * set-user-ID or set-group-ID program, or one with file capabilities, run by
 * another user: getauxval(AT_SECURE) != 0, as when the interposer is listed in
 * /etc/ld.so.preload) no variable is honoured at all: glibc's secure_getenv
 * returns NULL there, so the process runs the built-in defaults, writes no
 * report and prints nothing (docs/interposer.md, "System-wide deployment").
 */
#ifndef LOCKLAB_INTERPOSE_ENV_H
#define LOCKLAB_INTERPOSE_ENV_H

#include <stdlib.h>

static inline const char *lp_env(const char *name)
{
    const char *value = secure_getenv(name);
    return value && *value ? value : NULL;
}

#endif
