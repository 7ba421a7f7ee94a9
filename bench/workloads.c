/* The workloads locklab-bench knows, one file each (bench/wl_*.c). */
#include <string.h>

#include "bench.h"
#include "wl_threads.h"

extern const workload wl_uncontended, wl_mutexbench;
extern const workload wl_rwbench; /* reader-writer locks (include/locklab/rwlock.h) */
extern const workload wl_randarray;
extern const workload wl_ringwalker;
extern const workload wl_stress_latency;
extern const workload wl_keymap;
extern const workload wl_lrucache;
extern const workload wl_kvmap;
extern const workload wl_invalidation;
extern const workload wl_handover;
extern const workload wl_prodcons; /* Malthusian 6.7 */
extern const workload wl_bufpool;  /* Malthusian 6.11 */
extern const workload wl_null_thread, wl_thread_work, wl_thread_counter; /* thread management alternatives */
extern const workload wl_thread_switch, wl_thread_idle;                 /* the thread runtime: switch cost, idle CPU */

const workload *const workloads[] = {
    &wl_uncontended,
    &wl_mutexbench,
    &wl_rwbench,
    &wl_randarray,
    &wl_ringwalker,
    &wl_stress_latency,
    &wl_keymap,
    &wl_lrucache,
    &wl_kvmap,
    &wl_invalidation,
    &wl_handover,
    &wl_prodcons,
    &wl_bufpool,
    &wl_null_thread,
    &wl_thread_work,
    &wl_thread_counter,
    &wl_thread_switch,
    &wl_thread_idle,
    NULL,
};

bench_names_fn bench_param_names(const char *key)
{
    return strcmp(key, "alternative") == 0 ? wl_threads_alternative_name : NULL;
}
