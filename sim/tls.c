/*
 * Thread-local storage for the simulated threads.  Lock sources may keep state
 * in __thread variables whose addresses other threads use (hemlock's element,
 * reciprocating's per-thread line; core.h's ll_self_tls), so each simulated
 * thread needs TLS of its own at a distinct address, although they all run on
 * one OS thread.  The simulator borrows it: for each simulated thread it starts
 * a real thread (a "donor") that records its thread pointer and then blocks for
 * ever, and the engine loads the donor's thread pointer whenever it resumes that
 * simulated thread (x86-64: wrfsbase, or arch_prctl when the kernel does not
 * allow the instruction; aarch64: tpidr_el0).  glibc then sees the donor's
 * thread (its errno, its malloc cache), which nothing else uses while it sleeps.
 * Donors are kept for the next run; a simulated thread's __thread variables
 * start as the previous run on the same donor left them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <asm/prctl.h>
#endif

#include "sim.h"

static void **donor_tp; /* thread pointers of the donors */
static int ndonors;
static void *main_tp;
static sem_t ready;

static void *read_tp(void)
{
    void *tp;
#if defined(__x86_64__)
    __asm__ __volatile__("mov %%fs:0, %0" : "=r"(tp)); /* glibc's TCB starts with a pointer to itself */
#elif defined(__aarch64__)
    __asm__ __volatile__("mrs %0, tpidr_el0" : "=r"(tp));
#else
#error "locklab-sim: thread-pointer switching is written for x86-64 and aarch64"
#endif
    return tp;
}

#if defined(__x86_64__)
static bool have_wrfsbase;
#endif

void sim_tls_set(int index)
{
    void *tp = index < 0 ? main_tp : donor_tp[index];
#if defined(__x86_64__)
    if (have_wrfsbase)
        __asm__ __volatile__("wrfsbase %0" ::"r"(tp) : "memory");
    else
        syscall(SYS_arch_prctl, ARCH_SET_FS, tp);
#elif defined(__aarch64__)
    __asm__ __volatile__("msr tpidr_el0, %0" ::"r"(tp) : "memory");
#endif
}

static void *donor_main(void *arg)
{
    *(void **)arg = read_tp();
    sem_post(&ready);
    for (;;)
        pause(); /* never touches its TLS again */
    return NULL;
}

void sim_tls_prepare(int threads)
{
    if (!main_tp) {
        main_tp = read_tp();
        sem_init(&ready, 0, 0);
#if defined(__x86_64__)
        have_wrfsbase = (getauxval(AT_HWCAP2) & 2) != 0; /* HWCAP2_FSGSBASE: the kernel allows the instruction */
#endif
    }
    if (threads <= ndonors)
        return;
    donor_tp = realloc(donor_tp, (size_t)threads * sizeof(void *));
    if (!donor_tp) {
        fprintf(stderr, "locklab-sim: out of memory\n");
        exit(1);
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 << 10);
    for (; ndonors < threads; ndonors++) {
        pthread_t t;
        if (pthread_create(&t, &attr, donor_main, &donor_tp[ndonors]) != 0) {
            fprintf(stderr, "locklab-sim: cannot start the TLS donor thread of simulated thread %d\n", ndonors + 1);
            exit(1);
        }
        sem_wait(&ready);
    }
    pthread_attr_destroy(&attr);
}
