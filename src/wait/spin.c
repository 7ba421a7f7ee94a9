/* spin: busy-wait with PAUSE, never yield or park.  Lowest handover latency
 * while every waiter has a CPU; collapses when threads outnumber CPUs (the
 * successor may be preempted while spinners burn their quanta). */
#include "locklab/wait.h"

const ll_wait_ops ll_wait_spin = {"spin", "busy-wait with PAUSE; never yields or parks", false, false, false, NULL, NULL};
