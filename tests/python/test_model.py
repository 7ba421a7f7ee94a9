"""`locklab model`: the models' math against hand-computed values and limits
(docs/models.md), the command's input checks, calibrate --quick and validate
--quick on the real build/bin/locklab-bench."""
import itertools
import json
import math

import pytest

from conftest import REPO, assert_usage_error, locklab
from locklab import model_calib
from locklab import model_math as mm

BENCH = REPO / "build" / "bin" / "locklab-bench"


# ---------------------------------------------------------------- math

def test_ticket_service_rate_at_known_k():
    # s = 100 ns, c = 40 ns, k = 5: 100 + 40*5/2 = 200 ns, rate 5 M/s
    assert mm.ticket_service_ns(100, 40, 5) == 200
    assert mm.queue_service_ns(100, 40, 5) == 140
    # saturated (z = 0): every core is at the lock, throughput = the service rate at k = n
    rows = mm.lock_curve("ticket", 100, 40, 0, [5])
    assert rows[0]["throughput_ops_s"] == pytest.approx(5e6)


def test_closed_chain_by_hand():
    # n = 2, z = S = 100 ns: weights 1, 2*(S/z) = 2, 2*(S/z)^2 = 2 -> p = 1/5, 2/5, 2/5;
    # busy 4/5 of the time at 10 M/s -> 8 M/s
    x, at_lock, probs = mm.closed_chain(2, 100, lambda k: 100)
    assert probs == pytest.approx([0.2, 0.4, 0.4])
    assert x == pytest.approx(8e6)
    assert at_lock == pytest.approx(1.2)
    # one customer: one operation per z + S
    assert mm.closed_chain(1, 300, lambda k: 100)[0] == pytest.approx(1e9 / 400)


@pytest.mark.parametrize("s", [50, 100, 400])
def test_collapse_point_moves_down_as_c_over_s_grows(s):
    points = [mm.collapse_point("ticket", s, c, 50 * s, max_cores=1024) for c in (s / 8, s / 4, s / 2, s, 2 * s)]
    assert all(p is not None for p in points), points
    assert points == sorted(points, reverse=True) and points[0] > points[-1], points


def test_smaller_serial_section_collapses_earlier_at_fixed_fraction():
    # the slides' "Fixed serial section percentage (2%): smaller serial section collapses earlier"
    points = [mm.collapse_point("ticket", s, 100, 49 * s, max_cores=1024) for s in (25, 50, 100, 200)]
    assert points == sorted(points) and points[0] < points[-1], points


def test_queue_lock_does_not_collapse():
    assert mm.collapse_point("queue", 100, 100, 4900, max_cores=256) is None
    xs = [r["throughput_ops_s"] for r in mm.lock_curve("queue", 100, 100, 4900, range(1, 129))]
    assert all(b >= a * (1 - 1e-12) for a, b in zip(xs, xs[1:]))
    # and approaches its service rate 1/(s + c)
    assert xs[-1] == pytest.approx(1e9 / 200, rel=1e-3)


def brute_force_erq(r, q):
    return sum(min(c) for c in itertools.product(range(1, q + 1), repeat=r)) / q ** r


@pytest.mark.parametrize("r,q", [(1, 1), (1, 5), (2, 3), (3, 4), (4, 2), (5, 3), (3, 6)])
def test_erq_equation_3_1_against_enumeration(r, q):
    assert mm.erq(r, q) == pytest.approx(brute_force_erq(r, q))
    assert mm.erq(r, q) == pytest.approx(mm.erq_closed_form(r, q))


def test_erq_limits_and_figure_3_5():
    assert mm.erq(1, 18) == pytest.approx(9.5)    # one thread: (q + 1) / 2
    assert mm.erq(7, 1) == 1                        # one queue
    assert mm.erq_runnable(18, 18) is None          # nothing to find
    assert mm.erq_runnable(17, 18) == mm.erq_runnable(19, 18) == pytest.approx(9.5)
    # far from the spike, fewer queues are examined
    assert mm.erq_runnable(36, 18) < mm.erq_runnable(20, 18)


def test_spinwait_one_processor_has_no_spinners():
    ns = {p: mm.spinwait(p, 1, 100, 100, 50, 2)["ns_per_op"] for p in mm.SPIN_PROTOCOLS}
    assert all(v == pytest.approx(250) for v in ns.values()), ns   # z + s + c, no bus queueing


def test_spinwait_ordering_at_eight_processors():
    ns = {p: mm.spinwait(p, 8, 100, 100, 50, 2)["ns_per_op"] for p in mm.SPIN_PROTOCOLS}
    assert ns["queue"] < ns["backoff"] < ns["xchg"], ns
    assert ns["queue"] < ns["read"], ns


@pytest.mark.parametrize("p,n", [(2, 1), (2, 2), (4, 3), (8, 8)])
def test_handover_no_preemption_penalty_when_threads_fit(p, n):
    res = mm.handover(p, n, 50, 500, 150, 25000, 3000, 1.5e6, 25000, True)
    assert all(r["p_not_running"] == 0 and r["handover_ns"] == 150 for r in res.values()), res
    rates = {r["throughput_ops_s"] for r in res.values()}
    assert max(rates) == pytest.approx(min(rates))


def test_handover_oversubscribed():
    prev = None
    for n in (3, 16, 64):
        res = mm.handover(2, n, 50, 500, 150, 25000, 3000, 1.5e6, 25000, True)
        barging = res["barging"]["throughput_ops_s"]
        spin = res["spin-fifo"]
        # a preempted waiter stalls the spinning FIFO lock: rare (per acquisition), but for (n/p - 1) slices
        assert 0 < spin["p_not_running"] < 1e-3 and spin["handover_ns"] > 150
        assert spin["throughput_ops_s"] < barging and (prev is None or spin["throughput_ops_s"] < prev)
        prev = spin["throughput_ops_s"]
        assert res["park-fifo"]["p_not_running"] == 1 and res["park-fifo"]["throughput_ops_s"] < 0.1 * barging
        assert res["park-fifo"]["handover_ns"] > 150


def test_spin_fifo_stall_by_hand():
    # p = 2, n = 4, z = 0: both running threads are always at the lock (share 1); stalls at 2/q per
    # second, each (4/2 - 1) q long: X = X_2 / (1 + 2) with X_2 = 1/(s + h)
    nr, handover, x = mm.spin_fifo(2, 4, 100, 0, 100, 1e6)
    assert x == pytest.approx(1e9 / 200 / 3)
    assert nr == pytest.approx(2e3 / 5e6) and handover == pytest.approx(100 + nr * 1e6)


def test_park_fifo_is_bounded_by_the_cpus():
    # oversubscribed, every waiter parks: each acquisition costs s + z + b + 2 w_switch of CPU on p CPUs
    for n in (16, 64):
        res = mm.handover(2, n, 50, 500, 150, 25000, 3000, 1.5e6, 20000, True)["park-fifo"]
        assert res["cpu_bound"] and res["throughput_ops_s"] <= 2e9 / (50 + 500 + 20000 + 6000) * (1 + 1e-9)
        assert res["throughput_ops_s"] == pytest.approx(2e9 / (50 + 500 + 20000 + 6000), rel=0.05)


@pytest.mark.parametrize("b", [10000, 25000])
def test_issue_9_collapse_is_explained(b):
    # measured on 2 CPUs: mcs-stp 0.03-0.06x and cna-stp 0.01-0.02x glibc at 16 and 64 threads, while
    # at 2 threads the FIFO lock keeps up.  MutexBench-like parameters, a 4-ms slice, 2-us switches.
    for n in (16, 64):
        res = mm.handover(2, n, 25, 300, 150, 25000, 2000, 4e6, b, True)
        ratio = res["park-fifo"]["throughput_ops_s"] / res["barging"]["throughput_ops_s"]
        assert 0.005 < ratio < 0.1, (n, ratio)
    res = mm.handover(2, 2, 25, 300, 150, 25000, 2000, 4e6, b, True)
    assert res["park-fifo"]["throughput_ops_s"] == pytest.approx(res["barging"]["throughput_ops_s"])


def test_handover_free_wakeups_cost_nothing():
    res = mm.handover(2, 16, 50, 0, 150, 0, 0, 1.5e6, 0, True)
    assert res["park-fifo"]["handover_ns"] == 150


# ---------------------------------------------------------------- the command

def run_json(*argv):
    p = locklab("model", *argv, "--json", "--calibration", REPO / "tests" / "python" / "data" / "calibration.json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_command_ticket_json_uses_the_calibration():
    out = run_json("ticket", "--cores", "1-4,8", "--param", "s=100")
    assert [r["cores"] for r in out["rows"]] == [1, 2, 3, 4, 8]
    assert out["params"]["s"] == 100 and out["sources"]["s"] == "given"
    assert out["params"]["c"] == 77 and out["sources"]["c"] == "calibration"
    assert "collapse_point" in out["summary"]


def test_command_every_model_runs(tmp_path):
    for name in ("ticket", "queue", "erq", "spinwait", "handover"):
        png = tmp_path / f"{name}.png"
        p = locklab("model", name, "--plot", png, env={"XDG_CACHE_HOME": str(tmp_path)})
        assert p.returncode == 0, p.stderr
        assert "[default]" in p.stdout and png.stat().st_size > 1000
    out = run_json("handover", "--threads", "1,2,16", "--param", "p=2")
    assert [r["threads"] for r in out["rows"]] == [1, 2, 16]
    assert out["rows"][2]["park-fifo_vs_barging"] < 1


@pytest.mark.parametrize("argv,words", [
    (["nosuch"], ["nosuch", "ticket", "handover"]),
    (["ticket", "--param", "s=-1"], ["-1", "s", "valid"]),
    (["ticket", "--param", "c=1e20"], ["1e20", "valid"]),
    (["ticket", "--param", "s=nan"], ["nan", "valid"]),
    (["ticket", "--param", "x=1"], ["'x'", "s, c, z"]),
    (["ticket", "--param", "s"], ["'s'", "KEY=VALUE"]),
    (["ticket", "--param", "s=1", "--param", "s=2"], ["twice"]),
    (["ticket", "--param", "s=1,s=2"], ["twice"]),
    (["handover", "--param", "prewake=0.5"], ["0.5", "integer"]),
    (["erq", "--threads", "0-5"], ["0-5", "valid"]),
    (["ticket", "--cores", "abc"], ["abc", "valid"]),
    (["ticket", "--calibration", "/nonexistent/cal.json"], ["/nonexistent/cal.json", "calibrate"]),
])
def test_bad_input_is_one_line_and_exit_2(argv, words):
    p = locklab("model", *argv)
    assert_usage_error(p, *words)


def test_a_file_that_is_not_a_calibration(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\"params\": 3}")
    p = locklab("model", "ticket", "--calibration", bad)
    assert_usage_error(p, "not a calibration")


# ---------------------------------------------------------------- calibrate and validate (real bench)

needs_bench = pytest.mark.skipif(not BENCH.is_file(), reason="build/bin/locklab-bench is missing: run `make` first")


@needs_bench
def test_calibrate_quick_writes_every_parameter(tmp_path):
    p = locklab("model", "calibrate", "--quick", "--bench", BENCH, env={"XDG_CACHE_HOME": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "locklab" / "calibration.json").read_text())
    assert set(model_calib.KEYS) <= set(data["params"]) and data["quick"] is True
    assert all(math.isfinite(data["params"][k]) and data["params"][k] > 0 for k in model_calib.KEYS), data
    assert set(model_calib.KEYS) <= set(data["sources"])
    # the models now read it
    p = locklab("model", "handover", "--json", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert p.returncode == 0 and json.loads(p.stdout)["sources"]["w_idle"] == "calibration"


@needs_bench
def test_calibrate_out_is_a_directory(tmp_path):
    p = locklab("model", "calibrate", "--quick", "--out", tmp_path, "--bench", BENCH)
    assert p.returncode == 2 and "is a directory" in p.stderr


@needs_bench
def test_validate_quick(tmp_path):
    out = tmp_path / "val"
    p = locklab("model", "validate", "--quick", "--out", out, "--bench", BENCH,
                "--calibration", REPO / "tests" / "python" / "data" / "calibration.json")
    assert p.returncode == 0, p.stderr
    data = json.loads((out / "validation.json").read_text())
    comparisons = {(s["comparison"], s["lock"]) for s in data["summary"]}
    assert ("machine park-fifo", "mcs-stp") in comparisons and ("machine barging", "pthread") in comparisons
    assert ("spinwait queue", "anderson") in comparisons and ("machine spinwait queue", "anderson") in comparisons
    assert ("queue (slides)", "mcs") in comparisons
    assert all(p["workload"] in ("mutexbench", "thread-counter") for p in data["points"])
    # a loaded machine may run no operation in a quick run: such a point has no error, the others do
    assert all((p["error"] is None) == (p["measured"] == 0) for p in data["points"])
    assert any(p["error"] is not None for p in data["points"])
    assert "median abs error" in (out / "validation.md").read_text()
    assert (out / "validation.png").stat().st_size > 1000
