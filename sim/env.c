/*
 * The operating system as the simulated threads see it, for the sources compiled
 * against the simulator's atomics backend (the counterpart of verify/relacy_env.cpp): the
 * per-thread contexts, queue nodes, arena, topology and the remaining hooks of
 * core.h.  The futex, clock, yield and sleep hooks are the engine's (os.c).
 *
 * ll_self: each simulated thread has TLS of its own (tls.c) and sets its
 *   ll_self_tls when it starts; outside a run (placing a lock from main) ll_self is
 *   the main context.
 * Queue nodes: plain heap memory, never freed (a late releaser reads valid
 *   memory, as in production).
 * Topology: the machine's sockets; a thread's socket is its current CPU's.
 * Park cost (the stp/astp default spin budget): the machine's wake-up latency.
 * No thread runs a real-time policy; the simulated process never forks.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

__thread ll_thread *ll_self_tls __attribute__((tls_model("initial-exec")));
/* a line of its own: read on slow paths of every lock (acr, standby), never beside a hot word */
LL_ALIGNED(LL_SECTOR) ll_atomic_u32 ll_fork_generation;
uint32_t ll_fork_generation_pending(uint32_t g) { return g & ~LL_FORK_PENDING; } /* never set: no fork here */
const sim_machine *sim_env_machine;

typedef struct env_slot {
    ll_parker parker;
    ll_thread thread;
} env_slot;
static env_slot *slots; /* [0, threads): simulated threads; [threads]: main */
static int nslots;

static void *xalloc(size_t bytes, size_t align)
{
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "locklab-sim: out of memory\n");
        exit(1);
    }
    memset(p, 0, bytes);
    return p;
}

void sim_env_reset(int threads, uint64_t seed)
{
    /* the previous run's contexts and nodes may still be referenced by its locks: leak them */
    nslots = threads + 1;
    slots = xalloc(sizeof(env_slot) * (size_t)nslots, LL_SECTOR);
    for (int i = 0; i < nslots; i++) {
        slots[i].thread.parker = &slots[i].parker;
        slots[i].thread.index = (uint32_t)i;
        slots[i].parker.id = (uint32_t)i;
        uint64_t r = (seed + (uint64_t)i + 1) * 0x9E3779B97F4A7C15ull;
        slots[i].thread.rng = r ? r : 1;
    }
}

ll_thread *sim_env_thread(int i) { return &slots[i].thread; }

ll_thread *ll_thread_init(void)
{
    if (!slots)
        sim_env_reset(0, 1);
    return ll_self_tls = &slots[nslots - 1].thread; /* main, outside a run */
}

void *ll_qnode_refill(void)
{
    enum { BATCH = 16 };
    char *block = xalloc((size_t)BATCH * LL_QNODE_BYTES, LL_SECTOR);
    for (int i = 1; i < BATCH; i++)
        ll_qnode_put(block + (size_t)i * LL_QNODE_BYTES);
    return block;
}

/* ---- topology, CPUs, policies ---- */
int ll_topology_configure(const char *value, char *err, size_t errlen)
{
    (void)value, (void)err, (void)errlen;
    return 0;
}
int ll_topology_init_from_env(char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return 0;
}
int ll_topology_sockets(void) { return sim_env_machine ? sim_env_machine->sockets : 1; }
const char *ll_topology_describe(void) { return "simulated"; }
int ll_current_socket(void) { return sim_thread_socket(); }
int ll_cpu_socket(int cpu) { return sim_env_machine ? cpu % sim_env_machine->sockets : 0; }
int ll_ncpus(void) { return sim_env_machine ? sim_machine_hwthreads(sim_env_machine) : 1; }
int ll_cpus_available(void) { return ll_ncpus(); }
int ll_cpus_placeable(void) { return ll_ncpus(); }
uint64_t ll_park_cost_ns(void) { return sim_env_machine ? (uint64_t)(sim_env_machine->wake_us * 1000) : 20000; }
bool ll_thread_realtime(void) { return false; }
