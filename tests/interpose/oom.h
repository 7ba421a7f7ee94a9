/* The out-of-memory cases of the interposer's tests (test_robust oom, test_rwlock oom): a
 * child process lowers its address-space limit to what it maps now plus 8 MiB, fills it,
 * and then makes its first calls.  Header-only, as check.h. */
#ifndef LOCKLAB_TEST_INTERPOSE_OOM_H
#define LOCKLAB_TEST_INTERPOSE_OOM_H
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* A line on stderr without stdio (memory is what ran out). */
static inline void write_line(const char *s) { (void)!write(2, s, strlen(s)); }

/* Lower RLIMIT_AS to this process's mapped size plus 8 MiB and fill it: pages, then whatever
 * malloc still has.  *mapped: the bytes mapped.  0, or 1 (a line said why) if the limit could
 * not be set or the address space is not full afterwards. */
static inline int oom_fill_address_space(size_t *mapped)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    struct rlimit rl = {(rlim_t)(pages * sysconf(_SC_PAGESIZE)) + (8u << 20), RLIM_INFINITY};
    if (setrlimit(RLIMIT_AS, &rl) != 0) {
        write_line("oom: setrlimit failed\n");
        return 1;
    }
    *mapped = 0;
    for (size_t len = 1u << 20; len >= 4096; len /= 2)
        while (mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
            *mapped += len;
    while (malloc(64) != NULL)
        ;
    if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
        write_line("oom: the address space is not full\n");
        return 1;
    }
    return 0;
}

/* A thread started before the address space is filled: it blocks in read (no interposed
 * call) until oom_late_go, then runs first(), its first interposed calls, made with the
 * address space full.  Joined by the caller (thread). */
typedef struct oom_late {
    pthread_t thread;
    int pipe[2];
    void (*first)(void);
} oom_late;
static void *oom_late_main(void *arg)
{
    oom_late *l = (oom_late *)arg;
    char c;
    while (read(l->pipe[0], &c, 1) != 1)
        ;
    l->first();
    return NULL;
}
static inline void oom_late_start(oom_late *l, void (*first)(void))
{
    CHECK_EQ(pipe(l->pipe), 0);
    l->first = first;
    test_start(&l->thread, oom_late_main, l);
}
static inline void oom_late_go(oom_late *l) { (void)!write(l->pipe[1], "x", 1); }

/* rc, the answer of an init made with the address space full: 0 or ENOMEM (POSIX allows it),
 * counted in *ok or *enomem, and 0 returned; any other answer is returned as it is. */
static inline int oom_count_init(int rc, int *ok, int *enomem)
{
    if (rc == 0)
        ++*ok;
    else if (rc == ENOMEM)
        ++*enomem;
    else
        return rc;
    return 0;
}

/* child() in a child process, which ends with exit, not _exit (the interposer's
 * LOCKLAB_VERBOSE exit line); its exit status, or 1 if it died of a signal (said). */
static inline int oom_run_child(int (*child)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        exit(child());
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "oom: the child died of signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return 1;
    }
    if (WEXITSTATUS(status) != 0)
        fprintf(stderr, "oom: the child exited with status %d\n", WEXITSTATUS(status));
    return WEXITSTATUS(status);
}
#endif
