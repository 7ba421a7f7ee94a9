"""The `machine` models of `locklab model`: lock throughput with this machine's
costs, pure functions, no I/O (docs/models.md, "Machine models").

The papers' models (model_math.py) charge a handover as one directory answer c
and let a thread that finds the lock free pay nothing.  On a real machine, and
in the stored measurements of this one, the costs that set throughput are:

- the latency of a contended handover, with the protected data: the lock
  word's handover h (as `handover` measures it for mcs: three line transfers,
  t = h/3 each: the releaser reads its node's next pointer, writes the
  successor's flag, the successor reads it back) plus one transfer t for each
  of the d lines the critical section writes (MutexBench: the harness's
  admission counter and its log): H = h + d t;
- how often a handover is contended (the waiter arrived during the previous
  holder's handover and critical section): a function of the non-critical
  time, uniform on [0, 2z] as in MutexBench, and of s + H;
- for a barging lock, the run length: the holder re-acquires the line it still
  owns while the other CPU's request is in flight (a window of h);
- oversubscribed, the scheduler: a spinning FIFO lock stalls at every handover
  to a preempted successor (the convoy), a spinning barging lock when the
  holder is preempted; and a run of T seconds starts with one time slice in
  which only the first p threads have run (the others are not in the queue yet).

Times in ns, throughputs in operations per second.
"""

import math

from . import model_math as mm

NS = 1e-9
TRANSFERS_PER_HANDOVER = 3.0   # h = 3 t (see the module docstring)


def transfer_ns(h):
    """One cache-line transfer t: a third of the measured mcs handover h."""
    return h / TRANSFERS_PER_HANDOVER


def contended_handover_ns(h, d):
    """H = h + d t: the lock word's handover and the d protected lines."""
    return h + d * transfer_ns(h)


def ncs_cdf(x, z):
    """P(Z < x) for the non-critical time Z uniform on [0, 2z] (MutexBench's
    ncs: uniform [0, ncs_max) steps); z = 0: always 1."""
    if z <= 0:
        return 1.0
    return min(1.0, max(0.0, x / (2.0 * z)))


def _wait_given_early(busy, z):
    """E[busy - Z | Z < busy]: how long a thread that comes back before the lock
    frees (at `busy` after its release) waits, Z uniform on [0, 2z]."""
    return busy - min(busy, 2.0 * z) / 2.0


# ---------------------------------------------------------------- n <= p: FIFO with contention

def fifo_contention(n, s, z, h, d, iterations=200):
    """A FIFO lock (or any lock whose contended handover goes to the waiter)
    with n threads on n CPUs.  Returns {throughput_ops_s, p_contended,
    handover_ns, uncontended_ns}.

    An uncontended acquisition after another thread's pays u = (1 + d) t
    (lock word and data come over) with probability (n-1)/n.  A thread that
    releases a contended lock leaves Q = 1 + (n-2) P_c waiters, busy for
    B = Q (s + H); it comes back to a busy lock if its non-critical time is
    shorter (F(B)).  After an uncontended release it finds the lock held by
    one of the others with U = (n-1)(s+u)/(z+s+u).  The fraction of contended
    acquisitions is the fixed point P_c = P_c F(B) + (1 - P_c F(B)) U.  A
    thread's cycle: z + s + P_c H + (1 - P_c) u + its waits; the lock's
    capacity 1/(s + P_c H + (1 - P_c) u) caps the throughput."""
    if n < 1:
        raise ValueError(f"fifo_contention: n={n} (valid: >= 1)")
    t = transfer_ns(h)
    big_h = contended_handover_ns(h, d)
    u = (1.0 + d) * t * (n - 1) / n
    others = min(1.0, (n - 1) * (s + u) / (z + s + u)) if z + s + u > 0 else 1.0
    pc, busy, early = others, s + big_h, 0.0
    for _ in range(iterations):
        busy = (1.0 + (n - 2) * pc) * (s + big_h)
        early = ncs_cdf(busy, z)
        new = others / (1.0 - early * (1.0 - others)) if 0.0 < others < 1.0 else others
        if abs(new - pc) <= 1e-12:
            pc = new
            break
        pc = new
    waits = pc * early * _wait_given_early(busy, z) + pc * (1.0 - early) * (s + u) / 2.0
    cycle = z + s + pc * big_h + (1.0 - pc) * u + waits
    capacity = 1e9 / (s + pc * big_h + (1.0 - pc) * u)
    x = min(n * 1e9 / cycle, capacity)
    return {"throughput_ops_s": x, "p_contended": pc, "handover_ns": big_h, "uncontended_ns": u}


# ---------------------------------------------------------------- n <= p: barging runs

def barging_runs(n, s, z, h, d):
    """A barging lock with n threads on n CPUs.  The holder releases into its
    own cache; a waiter on another CPU needs h to take the line.  If the
    holder's non-critical time is shorter (probability F(h)) it re-acquires
    first: runs of R = 1/(1 - F(h)) acquisitions, each after s and a
    non-critical time E[Z | Z < h], then one contended handover H to a waiter.
    Returns {throughput_ops_s, run_length, handover_ns}; n = 1: 1/(s + z)."""
    if n < 1:
        raise ValueError(f"barging_runs: n={n} (valid: >= 1)")
    big_h = contended_handover_ns(h, d)
    alone = 1e9 / (s + z) if s + z > 0 else math.inf
    again = ncs_cdf(h, z)
    if n == 1 or again >= 1.0:
        return {"throughput_ops_s": alone, "run_length": math.inf, "handover_ns": big_h}
    run = 1.0 / (1.0 - again)
    short_ncs = min(h, 2.0 * z) / 2.0      # E[Z | Z < h]
    x = run * 1e9 / (run * s + (run - 1.0) * short_ncs + big_h)
    return {"throughput_ops_s": min(x, n * alone), "run_length": run, "handover_ns": big_h}


# ---------------------------------------------------------------- n > p: the scheduler

def convoy_dispatch_ns(p, n, q):
    """The time until the scheduler runs a preempted FIFO successor: it
    enqueued while running and was preempted after, so it is last on its CPU's
    runqueue; spinners never block, so it runs after the current slice's
    remainder (q/2) and the other n/p - 1 threads' slices: (n/p - 1/2) q,
    i.e. the scheduler period (n/p) q as n grows."""
    return (n / p - 0.5) * q


def spin_fifo_convoy(p, n, s, z, h, d, q, duration_s):
    """Spinning FIFO lock (mcs, ticket, clh with `spin`), n threads on p CPUs.
    n <= p: fifo_contention.  n > p: the successor runs with probability
    (p-1)/(n-1) (the holder has one of the p CPUs); a handover to a preempted
    one waits convoy_dispatch_ns: steady rate 1/(s + P_run H + (1 - P_run) D).
    A run of duration_s seconds also holds the first slice q, in which only the
    first p threads have run and circulate at the n = p rate X_p: the run's
    mean throughput is (X_p q + X_steady (T - q)) / T.  Returns
    {throughput_ops_s, steady_ops_s, p_not_running, handover_ns, dispatch_ns}."""
    base = fifo_contention(min(n, p), s, z, h, d)
    if n <= p:
        return {"throughput_ops_s": base["throughput_ops_s"], "steady_ops_s": base["throughput_ops_s"],
                "p_not_running": 0.0, "handover_ns": base["handover_ns"], "dispatch_ns": 0.0}
    running = (p - 1.0) / (n - 1.0)
    dispatch = convoy_dispatch_ns(p, n, q)
    handover = running * base["handover_ns"] + (1.0 - running) * dispatch
    steady = 1e9 / (s + handover)
    return {"throughput_ops_s": run_mean(base["throughput_ops_s"], steady, q, duration_s), "steady_ops_s": steady,
            "p_not_running": 1.0 - running, "handover_ns": handover, "dispatch_ns": dispatch}


def run_mean(first, steady, q, duration_s):
    """Mean throughput of a run of duration_s seconds whose first slice q runs
    at `first` and the rest at `steady`."""
    total = duration_s * 1e9
    head = min(q, total)
    return (first * head + steady * (total - head)) / total


def spin_barging_preempted(p, n, s, z, h, d, q):
    """Spinning barging lock (tas), n threads on p CPUs: the p running threads
    run as barging_runs(p).  A slice ends on each CPU every q; its thread holds
    the lock (the critical section and its release, which fetches the line back
    from the spinners' exchanges: s + t per acquisition) with probability
    X_p (s + t) / p; a preempted holder stops the lock until it runs again,
    after the n/p - 1 spinners of its CPU have spun their slices:
    X = X_p / (1 + X_p (s + t) (n/p - 1)).  Returns {throughput_ops_s, held}."""
    base = barging_runs(min(n, p), s, z, h, d)["throughput_ops_s"]
    held = base * (s + transfer_ns(h)) * NS
    if n <= p:
        return {"throughput_ops_s": base, "held": held}
    return {"throughput_ops_s": base / (1.0 + held * (n / p - 1.0)), "held": held}


def parking_barging(p, n, s, z, h, d, park_rate=0.0, park_cpu_ns=0.0):
    """Barging lock whose waiters park (glibc): only running threads compete,
    parked ones are woken off the critical path and no handover waits for the
    scheduler: the min(n, p) running threads run as barging_runs, X_p.  n > p:
    the parks and wake-ups cost CPU time (the futex calls, the switches; in a
    KVM guest the wake-up's IPI), park_cpu_ns each, which the p CPUs no longer
    spend on the loop.  A glibc waiter really sleeps only when the word is
    still 2 when the kernel compares it, i.e. when the holder or another waiter
    is off its CPU: the park rate per acquisition is park_rate (the saturated
    rate) x (n - p)/n, the share of threads that are not running.  Per
    acquisition the CPUs spend p/X_p + r park_cpu_ns, so
    X = X_p / (1 + X_p r park_cpu_ns / p).  Returns {throughput_ops_s, park_rate}."""
    base = barging_runs(min(n, p), s, z, h, d)["throughput_ops_s"]
    if n <= p:
        return {"throughput_ops_s": base, "park_rate": 0.0}
    r = park_rate * (n - p) / n
    return {"throughput_ops_s": base / (1.0 + base * r * park_cpu_ns * NS / p), "park_rate": r}


def park_fifo_machine(p, n, s, z, h, d, w_idle, w_switch, q, b, prewake):
    """Parking FIFO (mcs-stp, cna-stp): n <= p as fifo_contention; n > p the
    handover model's parking FIFO (model_math.park_fifo_state), with the
    contended handover H."""
    base = fifo_contention(min(n, p), s, z, h, d)
    big_h = base["handover_ns"]
    if n <= p and (n - 1) * (s + big_h) <= b:
        return {"throughput_ops_s": base["throughput_ops_s"], "handover_ns": big_h, "p_not_running": 0.0}
    st = mm.park_fifo_state(p, n, s, z, big_h, w_idle, w_switch, q, b, prewake)
    x = mm.closed_chain(n, z, lambda k: s + (st["handover_ns"] if k >= 2 else 0.0))[0]
    return {"throughput_ops_s": min(x, base["throughput_ops_s"]), "handover_ns": st["handover_ns"],
            "p_not_running": st["p_not_running"]}


MACHINE_POLICIES = ("fifo", "park-fifo", "barging", "spin-barging")


def machine(p, n, s, z, h, d, w_idle, w_switch, q, b, prewake, duration_s, park_rate=0.0, park_cpu_ns=0.0):
    """Every policy at n threads on p CPUs: {policy: {throughput_ops_s, ...}}."""
    return {
        "fifo": spin_fifo_convoy(p, n, s, z, h, d, q, duration_s),
        "park-fifo": park_fifo_machine(p, n, s, z, h, d, w_idle, w_switch, q, b, prewake),
        "barging": parking_barging(p, n, s, z, h, d, park_rate, park_cpu_ns),
        "spin-barging": spin_barging_preempted(p, n, s, z, h, d, q),
    }


# ---------------------------------------------------------------- spin-waiting on this machine

def spinwait_machine(protocol, n, s, z, c, h, d, backoff_ns, m=2):
    """Anderson et al.'s protocols with this machine's costs (the paper's model
    is model_math.spinwait).  Differences, each a modelling error of the
    paper's model applied here: a transfer is charged only when the lock
    changes processor (never at n = 1); the queue lock's handover is the
    successor's latency H = h + d t, not one bus occupancy c; a backed-off
    waiter is away for backoff_ns, so the holder re-acquires the line it owns
    until a retry finds the lock free (a barging run).  xchg and read keep the
    paper's bus model.  Returns {throughput_ops_s, ns_per_op}."""
    if n == 1:
        ns = s + z
    elif protocol == "queue":
        # strict FIFO: every acquisition is a contended handover when the lock is saturated
        ns = fifo_contention(n, s, z, h, d)
        ns = 1e9 / ns["throughput_ops_s"]
    elif protocol == "backoff":
        # a retry finds the lock free with probability z / (s + z); until then the holder runs
        free = z / (s + z) if s + z > 0 else 1.0
        run = max(1.0, backoff_ns / free / (s + z)) if s + z > 0 else 1.0
        ns = (run * (s + z) + contended_handover_ns(h, d)) / run
    else:
        ns = mm.spinwait(protocol, n, s, z, c, m)["ns_per_op"]
    return {"throughput_ops_s": 1e9 / ns, "ns_per_op": ns}
