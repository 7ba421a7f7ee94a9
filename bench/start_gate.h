/*
 * The plain programs' start gate (bench/plain_pthread.c, bench/plain_rwlock.c): workers wait
 * here until the main thread has created them all, and the timed interval starts when it
 * opens the gate.  Without it, threads created first run while the main thread is still
 * creating the others, and their operations count against an interval that starts later:
 * with hundreds of threads on two CPUs the main thread gets a share of a CPU per created
 * thread, creation takes a large part of a second, and the rate came out up to 2.6x too high
 * (glibc's, 1,024 threads) by an amount that depends on how much CPU the lock lets the main
 * thread have.  The wait is a raw futex on an int, not a pthread call: the interposer serves
 * none of it, so it costs every lock the same.  Include it after defining _GNU_SOURCE
 * (syscall).
 */
#ifndef LOCKLAB_BENCH_START_GATE_H
#define LOCKLAB_BENCH_START_GATE_H
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int start_gate;

/* A worker's first step: wait until start_gate_open. */
static void start_gate_wait(void)
{
    /* acquire: pairs with the opening store (the workers' set-up before it is visible) */
    while (!atomic_load_explicit(&start_gate, memory_order_acquire))
        syscall(SYS_futex, &start_gate, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

/* The main thread, every worker created and the clock that starts the interval read: open
 * the gate. */
static void start_gate_open(void)
{
    atomic_store_explicit(&start_gate, 1, memory_order_release);
    syscall(SYS_futex, &start_gate, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#endif
