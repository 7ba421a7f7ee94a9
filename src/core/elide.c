/* ll_elide (core.h): a value to echo in a one-line message, its middle elided when long. */
#include <stdio.h>
#include <string.h>

#include "locklab/core.h"

const char *ll_elide(const char *s, size_t max, char *buf, size_t buflen)
{
    size_t n = strlen(s);
    if (n <= max || max < 8) {
        snprintf(buf, buflen, "%.*s", (int)(n < max ? n : max), s);
        return buf;
    }
    size_t tail = (max - 3) / 3, head = max - 3 - tail; /* more of the start, where a value says what it is */
    snprintf(buf, buflen, "%.*s...%s", (int)head, s, s + n - tail);
    return buf;
}
