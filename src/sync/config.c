/*
 * Discipline configuration of condition variables and semaphores: the
 * "fifo" | "lifo-cr[:append_one_in=N]" parser and the process defaults used by
 * objects whose discipline is LL_DISCIPLINE_DEFAULT (e.g. all-zero ones).
 * Malthusian paper §6.10/§6.11 (append with probability 1/1000 by default).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitlist.h"

/* Written by ll_sync_set_defaults before threads use default objects; read under no lock. */
ll_sync_config ll_sync_cond_defaults = {LL_DISCIPLINE_FIFO, 0};
ll_sync_config ll_sync_sem_defaults = {LL_DISCIPLINE_FIFO, 0};

#define VALID "valid: fifo | lifo-cr[:append_one_in=N] (N in 1..4294967295, default 1000)"

int ll_sync_config_parse(const char *text, ll_sync_config *out, char *err, size_t errlen)
{
    if (text == NULL)
        text = "";
    if (strcmp(text, "fifo") == 0) {
        out->discipline = LL_DISCIPLINE_FIFO;
        out->append_one_in = 0;
        return 0;
    }
    const char *name = "lifo-cr";
    size_t n = strlen(name);
    if (strncmp(text, name, n) != 0 || (text[n] != '\0' && text[n] != ':')) {
        snprintf(err, errlen, "unknown queue discipline '%s'; " VALID, text);
        return -1;
    }
    out->discipline = LL_DISCIPLINE_LIFO_CR;
    out->append_one_in = 0;
    if (text[n] == '\0')
        return 0;
    const char *kv = text + n + 1;
    const char *key = "append_one_in=";
    if (strncmp(kv, key, strlen(key)) != 0) {
        snprintf(err, errlen, "bad key in queue discipline '%s'; " VALID, text);
        return -1;
    }
    const char *num = kv + strlen(key);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(num, &end, 10);
    if (num[0] < '0' || num[0] > '9' || *end != '\0' || errno != 0 || v < 1 || v > UINT32_MAX) {
        snprintf(err, errlen, "bad append_one_in '%s' in queue discipline '%s'; " VALID, num, text);
        return -1;
    }
    out->append_one_in = (uint32_t)v;
    return 0;
}

void ll_sync_set_defaults(const ll_sync_config *cond_cfg, const ll_sync_config *sem_cfg)
{
    if (cond_cfg)
        ll_sync_cond_defaults = *cond_cfg;
    if (sem_cfg)
        ll_sync_sem_defaults = *sem_cfg;
}
