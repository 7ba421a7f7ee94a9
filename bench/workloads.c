/* The workloads locklab-bench knows, one file each (bench/wl_*.c). */
#include "bench.h"

extern const workload wl_uncontended, wl_mutexbench;
extern const workload wl_prodcons; /* Malthusian 6.7 */
extern const workload wl_bufpool;  /* Malthusian 6.11 */

const workload *const workloads[] = {
    &wl_uncontended,
    &wl_mutexbench,
    &wl_prodcons,
    &wl_bufpool,
    NULL,
};
