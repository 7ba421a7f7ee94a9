/* The workloads locklab-bench knows, one file each (bench/wl_*.c). */
#include "bench.h"

extern const workload wl_uncontended, wl_mutexbench;

const workload *const workloads[] = {&wl_uncontended, &wl_mutexbench, NULL};
