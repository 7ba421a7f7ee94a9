"""The analytic models of `locklab model`: pure functions, no I/O.

Derivations, assumptions and parameters: docs/models.md (section names below).
Times are in nanoseconds, throughputs in operations per second.

- closed_chain       the birth-death chain of a closed system: n customers,
                     exponential think time z, a lock that serves at rate mu(k)
                     when k customers hold or wait for it ("The closed chain")
- ticket / queue     the slides' ticket-lock Markov model, service 1/(s + c*k/2),
                     and its queue-lock counterpart, service 1/(s + c)
- erq                Anderson, Lazowska & Levy's E(r,q), Equation 3.1
- spinwait           their hierarchical queueing model of spin-waiting (section 5
                     of the paper, applied to the section 4 protocols)
- handover           FIFO handover under oversubscription: spinning FIFO,
                     parking FIFO, barging (parking and spinning waiters)
"""

import math

NS = 1e-9


# ---------------------------------------------------------------- closed chain

def closed_chain(n, z, service_ns):
    """Steady state of the closed birth-death chain with n customers.

    State k (0..n) = customers at the lock (one holding, k-1 waiting).  Each of
    the n-k others arrives at rate 1/z (exponential think time z ns); the lock
    completes at rate 1/service_ns(k).  Returns (throughput ops/s, mean number
    at the lock, probabilities [p0..pn]).  z = 0: every customer is always at
    the lock (state n)."""
    if n < 1:
        raise ValueError(f"closed_chain: n={n} (valid: >= 1)")
    if z <= 0:
        probs = [0.0] * n + [1.0]
        return 1.0 / (service_ns(n) * NS), float(n), probs
    # Unnormalised log-weights: w_k = w_{k-1} * (n-k+1)/z * service(k); logs avoid overflow at large n.
    logw = [0.0]
    for k in range(1, n + 1):
        logw.append(logw[-1] + math.log((n - k + 1) / z) + math.log(service_ns(k)))
    top = max(logw)
    weights = [math.exp(x - top) for x in logw]
    total = sum(weights)
    probs = [w / total for w in weights]
    throughput = sum(p / (service_ns(k) * NS) for k, p in enumerate(probs) if k > 0)
    mean_at_lock = sum(k * p for k, p in enumerate(probs))
    return throughput, mean_at_lock, probs


# ---------------------------------------------------------------- ticket and queue locks

def ticket_service_ns(s, c, k):
    """The slides' per-handover time with k cores at the lock: s + c*k/2 (the
    directory answers the k spinners' requests in turn; the next holder's is, on
    average, half-way)."""
    return s + c * k / 2.0


def queue_service_ns(s, c, k):
    """A queue lock (MCS, CLH): the holder writes one waiter's flag, one line
    transfer whatever k is: s + c."""
    return s + c


def lock_curve(kind, s, c, z, cores):
    """Throughput and speedup against cores for kind 'ticket' or 'queue'.
    Speedup is throughput * (s + z): 1 for one core without contention."""
    service = ticket_service_ns if kind == "ticket" else queue_service_ns
    rows = []
    for n in cores:
        x, at_lock, _ = closed_chain(n, z, lambda k: service(s, c, k))
        rows.append({"cores": n, "throughput_ops_s": x, "speedup": x * (s + z) * NS,
                     "mean_at_lock": at_lock, "service_ns_at_n": service(s, c, n)})
    return rows


def collapse_point(kind, s, c, z, max_cores=4096):
    """The core count at which throughput peaks (adding a core beyond it lowers
    throughput), or None when it still grows at max_cores (no collapse)."""
    service = ticket_service_ns if kind == "ticket" else queue_service_ns
    best, best_n = -1.0, None
    for n in range(1, max_cores + 1):
        x = closed_chain(n, z, lambda k: service(s, c, k))[0]
        if x < best * (1 - 1e-12):
            return best_n
        if x > best:
            best, best_n = x, n
    return None


# ---------------------------------------------------------------- E(r,q)

def erq(r, q):
    """Equation 3.1: expected number of queues a newly idle processor examines
    to find one of r ready threads spread uniformly over q queues (searching
    from queue 1): E = (q + sum_j sum_{i<q} i (q-i)^(j-1) (q-i+1)^(r-j)) / q^r."""
    if r < 1 or q < 1:
        raise ValueError(f"erq: r={r}, q={q} (valid: both >= 1)")
    total = q
    for j in range(1, r + 1):
        for i in range(1, q):
            total += i * (q - i) ** (j - 1) * (q - i + 1) ** (r - j)
    return total / q ** r


def erq_closed_form(r, q):
    """The same expectation as a tail sum: E = sum_{m=1..q} P(min >= m)
    = sum_{m=1..q} ((q-m+1)/q)^r (used as a cross-check in the tests)."""
    return sum(((q - m + 1) / q) ** r for m in range(1, q + 1))


def erq_runnable(t, q):
    """Figure 3.5: queues examined against the number t of runnable threads on
    q processors with per-processor ready queues.  t > q: t-q ready threads,
    E(t-q, q); t < q: q-t idle processors searching for a new thread,
    E(q-t, q) (the paper's symmetry argument); t = q: nothing to find (None)."""
    if t == q:
        return None
    return erq(abs(t - q), q)


# ---------------------------------------------------------------- spin-waiting

SPIN_PROTOCOLS = ("xchg", "read", "backoff", "queue")


def spin_bus_demand(protocol, waiting, c):
    """Bus (interconnect) time the spinners add per critical section, with
    `waiting` processors spinning (docs/models.md, "Spin-waiting"):
    read    every spinner misses once at the release and about half of them try
            an xchg that fails and invalidates all again: c * (W + W(W-1)/2)
    backoff two misses per spinner per critical section (the paper's
            measurement): 2 c W
    queue   one transfer, to the next waiter's own flag: c (W > 0)
    xchg    is not a per-section demand: spinners keep the bus busy (see spinwait)."""
    if protocol == "read":
        return c * (waiting + waiting * (waiting - 1) / 2.0)
    if protocol == "backoff":
        return 2.0 * c * waiting
    if protocol == "queue":
        return c * min(waiting, 1.0)
    raise ValueError(protocol)


def spinwait(protocol, n, s, z, c, m, iterations=200):
    """Anderson et al.'s two-level model: the lock (high level: the closed chain
    with service S + c) and the bus (low level: the holder's m bus transactions
    per critical section queue behind the spinners' traffic), iterated to a
    fixed point.  Returns {throughput_ops_s, ns_per_op, spinning, section_ns,
    bus_utilisation}."""
    section = s  # effective critical section, grown by bus queueing
    x = waiting = rho = 0.0
    for _ in range(iterations):
        x, at_lock, probs = closed_chain(n, z, lambda k: section + c)
        held = x * (section + c) * NS           # probability the lock is busy
        waiting = at_lock - held               # mean spinners (at the lock, not holding)
        waiting = waiting if waiting > 1e-9 else 0.0  # not rounding noise
        if protocol == "xchg":
            # every spinner issues xchg back to back: the bus serves the holder and
            # the W spinners in turn, each holder transaction waits W others
            rho = waiting / (waiting + 1.0)
            new = s + m * c * waiting
        else:
            rho = min(0.99, x * NS * spin_bus_demand(protocol, waiting, c))
            # M/M/1 queueing in front of each transaction, but never more than the W
            # spinners' one outstanding request each (the xchg bound)
            new = s + m * c * min(waiting, rho / (1.0 - rho))
        if abs(new - section) <= 1e-9 * max(1.0, section):
            section = new
            break
        section = 0.5 * section + 0.5 * new     # damped: the map can overshoot at high load
    x = closed_chain(n, z, lambda k: section + c)[0]
    return {"throughput_ops_s": x, "ns_per_op": 1e9 / x, "spinning": waiting, "section_ns": section,
            "bus_utilisation": rho}


# ---------------------------------------------------------------- FIFO handover under oversubscription

POLICIES = ("spin-fifo", "park-fifo", "barging", "spin-barging")


def _with_holder_preemption(x, s, q, stall):
    """A slice that ends while the holder runs (rate 1/q on its CPU, with
    probability U = x*s the lock is held) stops the lock for `stall` ns:
    throughput x / (1 + U*stall/q)."""
    held = min(1.0, x * s * NS)
    return x / (1.0 + held * stall / q)


def _chain(customers, s, z, hh):
    """The closed chain of a lock with handover hh: a release hands over only
    when someone waits (k >= 2); alone, the holder just releases."""
    return closed_chain(customers, z, lambda k: s + (hh if k >= 2 else 0.0))


def spin_fifo(p, n, s, z, h, q):
    """(P(successor not running), expected handover ns, throughput) of a
    spinning FIFO lock.  n <= p: every waiter has a CPU: h.  n > p: p threads
    run and circulate through the lock as if alone (a thread preempted outside
    the lock is not in the queue and delays no one); a slice that ends (rate
    p/q) while its thread is at the lock, waiting or holding (the fraction
    `share` of a running thread's time), stops the lock until that thread runs
    again, after the other n/p - 1 threads of its CPU have spun their slices:
    stall (n/p - 1) q.  Stalls per acquisition = the probability that the
    successor is not running."""
    x_p, at_lock, _ = _chain(min(n, p), s, z, h)
    if n <= p:
        return 0.0, h, x_p
    share = at_lock / p
    stalls_per_s = p * share / (q * NS)
    stall = (n / p - 1.0) * q
    x = x_p / (1.0 + stalls_per_s * stall * NS)
    not_running = min(1.0, stalls_per_s / x_p)
    return not_running, h + not_running * stall, x


def park_fifo_state(p, n, s, z, h, w_idle, w_switch, q, b, prewake):
    """Parking FIFO (spin b ns, then park).  Waiters park when their wait
    exceeds b: with n <= p when the queue ahead, (n-1)(s+h), takes longer than
    b; with n > p always, because parking is absorbing: the first stall (a
    preempted waiter, as in spin_fifo) makes the waiters behind it park, parked
    waiters stay in the queue, and a full queue of n-1 keeps every wait above b.
    A parked successor costs a wake-up W (w_idle when a CPU is idle, w_switch
    when every CPU is busy and the wakee preempts a running thread); with
    anticipatory wake-up (prewake) it was woken one handover earlier:
    H = max(h, (W - s)/2).  And the CPUs must deliver the next thread: each
    acquisition by a thread that parked costs s + z + b (its whole budget,
    spun in vain) + 2 w_switch (the park and the wake-up switches) of CPU time,
    so X <= min(n, p) / that, i.e. H >= that / min(n, p) - s.  The number of
    runnable threads (which picks W) depends on X: a short fixed-point
    iteration.  Returns a dict of the state."""
    if n <= p and (n - 1) * (s + h) <= b:
        return {"handover_ns": h, "p_not_running": 0.0, "p_parked": 0.0, "runnable": float(n), "cpu_bound": False}
    by_cpu = (s + z + b + 2.0 * w_switch) / min(n, p) - s
    handover, runnable = h, float(n)
    for _ in range(100):
        x = 1e9 / (s + handover)
        spinners = min(n - 1.0, b * x * NS)       # the latest arrivals, inside their budget
        runnable = min(float(n), 1.0 + spinners + x * z * NS + 1.0)  # holder, spinners, outside, the wakee
        wake = w_switch if runnable >= p else w_idle
        by_wake = max(h, (wake - s) / 2.0) if prewake else max(h, wake)
        new = max(by_wake, by_cpu)
        if abs(new - handover) <= 1e-9 * new:
            break
        handover = new
    return {"handover_ns": handover, "p_not_running": 1.0, "p_parked": 1.0, "runnable": runnable,
            "cpu_bound": by_cpu >= by_wake}


def handover(p, n, s, z, h, w_idle, w_switch, q, b, prewake):
    """Expected handover time and throughput of each policy at n threads on p
    CPUs.  Returns {policy: {handover_ns, p_not_running, throughput_ops_s}}."""
    out = {}
    nr, hs, x = spin_fifo(p, n, s, z, h, q)
    out["spin-fifo"] = {"handover_ns": hs, "p_not_running": nr, "throughput_ops_s": x}

    st = park_fifo_state(p, n, s, z, h, w_idle, w_switch, q, b, prewake)
    x = _chain(n, s, z, st["handover_ns"])[0]
    out["park-fifo"] = {"handover_ns": st["handover_ns"], "p_not_running": st["p_not_running"],
                        "p_parked": st["p_parked"], "cpu_bound": st["cpu_bound"],
                        "throughput_ops_s": _with_holder_preemption(x, s, q, b if n > p else 0.0)}

    # Barging: the lock goes to a running contender; only min(n, p) threads contend.
    x = _chain(min(n, p), s, z, h)[0]
    stall = (n / p - 1.0) * q if n > p else 0.0  # a preempted holder waits for its CPU's spinners' slices
    out["barging"] = {"handover_ns": h, "p_not_running": 0.0,
                      "throughput_ops_s": _with_holder_preemption(x, s, q, w_switch if n > p else 0.0)}
    out["spin-barging"] = {"handover_ns": h, "p_not_running": 0.0,
                           "throughput_ops_s": _with_holder_preemption(x, s, q, stall)}
    return out
