"""`locklab model machine` / `spinwait-machine` (python/locklab/model_machine.py,
docs/models.md "Machine models"): hand-computed values and limits, and
`locklab model validate --measured FILE` (re-evaluation of the models against
stored measurements, no benchmark run) on fixture files."""
import json
import math

import pytest

from conftest import DATA, assert_usage_error, locklab
from locklab import model_machine as mach
from locklab import model_math as mm

QUIET = DATA / "validation-0800.json"   # the 08:00 quiet measurement of this machine (calibration + points)
TINY = DATA / "validation-tiny.json"


# ---------------------------------------------------------------- hand-computed values

def test_transfer_and_contended_handover():
    # h = 186 ns is three transfers of 62 ns; two protected lines add two: 310 ns
    assert mach.transfer_ns(186) == pytest.approx(62)
    assert mach.contended_handover_ns(186, 2) == pytest.approx(310)
    assert mach.contended_handover_ns(186, 0) == pytest.approx(186)


def test_ncs_cdf_is_uniform_on_0_2z():
    assert mach.ncs_cdf(50, 100) == pytest.approx(0.25)
    assert mach.ncs_cdf(500, 100) == 1.0 and mach.ncs_cdf(-1, 100) == 0.0
    assert mach.ncs_cdf(5, 0) == 1.0


def test_fifo_one_thread_runs_alone():
    r = mach.fifo_contention(1, 10, 100, 90, 2)
    assert r["p_contended"] == 0 and r["throughput_ops_s"] == pytest.approx(1e9 / 110)


def test_fifo_saturated_pair_hands_over_every_time():
    # z = 0: every acquisition is contended, the lock serves s + H = 10 + (90 + 3*30) = 190 ns
    r = mach.fifo_contention(2, 10, 0, 90, 3)
    assert r["p_contended"] == pytest.approx(1.0)
    assert r["throughput_ops_s"] == pytest.approx(1e9 / 190)


def test_fifo_pair_by_hand_at_light_load():
    # s = 10, z = 1000, h = 30, d = 0: t = 10, H = 30, u = (1 + 0) * 10 * 1/2 = 5;
    # U = (s + u)/(z + s + u) = 15/1015; B = s + H = 40, F(B) = 40/2000 = 0.02;
    # P_c = U / (1 - F (1 - U)); cycle = z + s + P_c H + (1 - P_c) u + P_c F (B - B/2) + P_c (1 - F) (s + u)/2
    u, big_u, f, b = 5.0, 15.0 / 1015.0, 0.02, 40.0
    pc = big_u / (1 - f * (1 - big_u))
    cycle = 1000 + 10 + pc * 30 + (1 - pc) * u + pc * f * (b - b / 2) + pc * (1 - f) * (10 + u) / 2
    r = mach.fifo_contention(2, 10, 1000, 30, 0)
    assert r["p_contended"] == pytest.approx(pc)
    assert r["throughput_ops_s"] == pytest.approx(2e9 / cycle)


def test_barging_runs_by_hand():
    # s = 10, z = 100, h = 100, d = 0: F(h) = 100/200 = 1/2, runs of R = 2, E[Z | Z < h] = 50;
    # X = R / (R s + (R - 1) 50 + H) = 2 / (20 + 50 + 100) per ns
    r = mach.barging_runs(2, 10, 100, 100, 0)
    assert r["run_length"] == pytest.approx(2)
    assert r["throughput_ops_s"] == pytest.approx(2e9 / 170)
    # alone, or when the holder always comes back within h: the one-thread rate
    assert mach.barging_runs(1, 10, 100, 100, 0)["throughput_ops_s"] == pytest.approx(1e9 / 110)
    assert mach.barging_runs(2, 10, 40, 100, 0)["throughput_ops_s"] == pytest.approx(1e9 / 50)


@pytest.mark.parametrize("p,n", [(2, 1), (2, 2), (4, 3), (8, 8)])
def test_convoy_penalty_is_zero_when_threads_fit(p, n):
    r = mach.spin_fifo_convoy(p, n, 10, 150, 180, 2, 4e6, 1.0)
    assert r["p_not_running"] == 0 and r["dispatch_ns"] == 0
    assert r["throughput_ops_s"] == pytest.approx(mach.fifo_contention(n, 10, 150, 180, 2)["throughput_ops_s"])
    t = mach.spin_barging_preempted(p, n, 10, 150, 180, 2, 4e6)
    assert t["throughput_ops_s"] == pytest.approx(mach.barging_runs(n, 10, 150, 180, 2)["throughput_ops_s"])


def test_convoy_handover_tends_to_the_scheduler_period():
    q = 4e6
    ratios = [mach.spin_fifo_convoy(2, n, 10, 150, 180, 2, q, 1.0)["handover_ns"] / (n / 2 * q)
              for n in (16, 256, 4096)]
    assert ratios == sorted(ratios) and ratios[-1] == pytest.approx(1.0, abs=1e-3)
    # and the steady rate falls towards one acquisition per scheduler period
    assert mach.spin_fifo_convoy(2, 4096, 10, 150, 180, 2, q, 1.0)["steady_ops_s"] == \
        pytest.approx(1e9 / (2048 * q), rel=1e-3)


def test_convoy_by_hand():
    # p = 2, n = 4, q = 1 ms: the successor runs with probability 1/3; a preempted one waits
    # (4/2 - 1/2) q = 1.5 ms; a 1-s run also holds one slice at the 2-thread rate
    x2 = mach.fifo_contention(2, 10, 150, 180, 2)
    r = mach.spin_fifo_convoy(2, 4, 10, 150, 180, 2, 1e6, 1.0)
    handover = x2["handover_ns"] / 3 + 2 / 3 * 1.5e6
    assert r["p_not_running"] == pytest.approx(2 / 3) and r["handover_ns"] == pytest.approx(handover)
    steady = 1e9 / (10 + handover)
    assert r["throughput_ops_s"] == pytest.approx((x2["throughput_ops_s"] * 1e6 + steady * (1e9 - 1e6)) / 1e9)
    # a run no longer than the slice is all run-start
    assert mach.spin_fifo_convoy(2, 4, 10, 150, 180, 2, 1e6, 0.001)["throughput_ops_s"] == \
        pytest.approx(x2["throughput_ops_s"])


def test_the_90_us_per_handover_is_the_run_start_slice():
    # the quiet measurement: mcs at 4-32 threads, ~11 k ops in a 1-s run (~90 us per acquisition):
    # the 2-thread rate for one 4-ms slice, then almost nothing
    c = json.loads(QUIET.read_text())["calibration"]["params"]
    x2 = mach.fifo_contention(2, c["cs_ns"], c["ncs_ns"], c["h_ns"], 2)["throughput_ops_s"]
    r = mach.spin_fifo_convoy(2, 16, c["cs_ns"], c["ncs_ns"], c["h_ns"], 2, c["slice_ns"], 1.0)
    assert r["steady_ops_s"] < 0.01 * r["throughput_ops_s"]
    assert r["throughput_ops_s"] == pytest.approx(x2 * c["slice_ns"] * 1e-9, rel=0.01)
    assert 70e3 < 1e9 / r["throughput_ops_s"] < 110e3


def test_glibc_parks_by_hand():
    # n <= p: no park, the barging runs; n = 8 on 2 CPUs: r = 0.04 x 6/8 = 0.03 parks per acquisition
    # of 5 us each: X = X_p / (1 + X_p 0.03 5e-6 / 2)
    base = mach.barging_runs(2, 9, 150, 200, 2)["throughput_ops_s"]
    assert mach.parking_barging(2, 2, 9, 150, 200, 2, 0.04, 5000)["throughput_ops_s"] == pytest.approx(base)
    r = mach.parking_barging(2, 8, 9, 150, 200, 2, 0.04, 5000)
    assert r["park_rate"] == pytest.approx(0.03)
    assert r["throughput_ops_s"] == pytest.approx(base / (1 + base * 0.03 * 5e-6 / 2))
    assert mach.parking_barging(2, 8, 9, 150, 200, 2)["throughput_ops_s"] == pytest.approx(base)  # no parks given


def test_preempted_tas_holder_by_hand():
    # X = X_p / (1 + X_p (s + t) (n/p - 1)), t = h/3
    xp = mach.barging_runs(2, 10, 150, 180, 2)["throughput_ops_s"]
    held = xp * (10 + 60) * 1e-9
    r = mach.spin_barging_preempted(2, 16, 10, 150, 180, 2, 4e6)
    assert r["throughput_ops_s"] == pytest.approx(xp / (1 + held * 7))


def test_spinwait_machine_limits():
    # one processor: no transfer at all (the paper's model charged c here)
    for proto in mm.SPIN_PROTOCOLS:
        assert mach.spinwait_machine(proto, 1, 5, 3, 40, 180, 1, 1e4)["ns_per_op"] == pytest.approx(8)
    # the queue lock saturated at two processors: every increment is a handover s + H
    assert mach.spinwait_machine("queue", 2, 5, 0, 40, 180, 1, 1e4)["ns_per_op"] == pytest.approx(5 + 240)
    # a backed-off waiter away much longer than the holder's cycle: the holder runs alone
    assert mach.spinwait_machine("backoff", 2, 5, 3, 40, 180, 1, 1e7)["ns_per_op"] == pytest.approx(8, rel=1e-3)
    # xchg and read keep Anderson et al.'s bus model
    assert mach.spinwait_machine("xchg", 4, 5, 3, 40, 180, 1, 1e4)["ns_per_op"] == \
        pytest.approx(mm.spinwait("xchg", 4, 5, 3, 40, 2)["ns_per_op"])


def test_bad_thread_counts():
    with pytest.raises(ValueError, match="n=0"):
        mach.fifo_contention(0, 10, 100, 100, 2)
    with pytest.raises(ValueError, match="n=0"):
        mach.barging_runs(0, 10, 100, 100, 2)


# ---------------------------------------------------------------- the command

def test_machine_command_json():
    p = locklab("model", "machine", "--threads", "1,2,16", "--param", "p=2,d=1", "--json",
                "--calibration", DATA / "calibration.json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert [r["threads"] for r in out["rows"]] == [1, 2, 16]
    assert out["params"]["d"] == 1 and out["sources"]["h"] == "calibration"
    assert out["summary"]["handover_ns"] == pytest.approx(150 + 50)
    assert out["rows"][2]["fifo_p_not_running"] == pytest.approx(14 / 15)
    p = locklab("model", "spinwait-machine", "--cores", "1-2", "--json", "--calibration", DATA / "calibration.json")
    assert p.returncode == 0, p.stderr and len(json.loads(p.stdout)["rows"]) == 2


@pytest.mark.parametrize("argv,words", [
    (["machine", "--param", "d=0.5"], ["0.5", "d", "integer"]),
    (["machine", "--param", "duration=0"], ["duration", "valid"]),
    (["spinwait-machine", "--param", "x=1"], ["'x'", "backoff"]),
])
def test_machine_bad_input(argv, words):
    p = locklab("model", *argv)
    assert_usage_error(p, *words)


# ---------------------------------------------------------------- validate --measured

def validate_measured(tmp_path, fixture, *extra):
    out = tmp_path / "val"
    p = locklab("model", "validate", "--measured", fixture, "--out", out, "--bench", "/nonexistent/bench", *extra)
    return p, out


def test_measured_tiny_fixture(tmp_path):
    p, out = validate_measured(tmp_path, TINY)
    assert p.returncode == 0, p.stderr
    data = json.loads((out / "validation.json").read_text())
    got = {(q["comparison"], q["lock"], q["threads"]): q for q in data["points"]}
    c = json.loads(TINY.read_text())["calibration"]["params"]
    # an old-format point (no "workload": taken from the unit) and a new one
    x2 = mach.fifo_contention(2, 9.0, 150.0, 180.0, 2)["throughput_ops_s"]
    assert got["machine fifo", "mcs", 2]["model"] == pytest.approx(x2)
    assert got["machine fifo", "mcs", 2]["measured"] == 3.0e6
    assert got["queue (slides)", "mcs", 2]["model"] == pytest.approx(
        mm.lock_curve("queue", 9.0, 40.0, 150.0, [2])[0]["throughput_ops_s"])
    x16 = mach.spin_fifo_convoy(2, 16, 9.0, 150.0, 180.0, 2, 4e6, 1.0)["throughput_ops_s"]
    assert got["machine fifo", "mcs", 16]["model"] == pytest.approx(x16)
    assert got["machine fifo", "mcs", 16]["error"] == pytest.approx((x16 - 1.2e4) / 1.2e4)
    s, z = c["pair_ns"] / 2 + c["step_ns"], c["pair_ns"] / 2
    assert got["machine spinwait queue", "anderson", 2]["model"] == pytest.approx(
        mach.spinwait_machine("queue", 2, s, z, 40.0, 180.0, 1, 1e4)["ns_per_op"])
    assert got["spinwait queue", "anderson", 2]["model"] == pytest.approx(
        mm.spinwait("queue", 2, s, z, 40.0, 2)["ns_per_op"])
    # only what was measured is compared: no bench ran (its path does not exist)
    assert len(data["points"]) == 6 and not any(q["lock"] == "nosuchlock" for q in data["points"])
    assert "re-evaluated" in (out / "validation.md").read_text()


def test_measured_with_another_calibration(tmp_path):
    p, out = validate_measured(tmp_path, TINY, "--calibration", DATA / "calibration.json")
    assert p.returncode == 0, p.stderr
    data = json.loads((out / "validation.json").read_text())
    point = next(q for q in data["points"] if q["comparison"] == "machine fifo" and q["threads"] == 2)
    assert point["model"] == pytest.approx(mach.fifo_contention(2, 9.0, 152.25, 150, 2)["throughput_ops_s"])


def test_the_quiet_measurement_is_fitted(tmp_path):
    # the models against the 08:00 quiet measurement: every machine comparison within 30% (median),
    # glibc's barging too since its parks' CPU time is modelled (63% before; its calibration file
    # predates the park parameters: the defaults derived from the stored 8-thread run apply)
    p, out = validate_measured(tmp_path, QUIET)
    assert p.returncode == 0, p.stderr
    summary = {(s["comparison"], s["lock"]): s["median_abs_error"]
               for s in json.loads((out / "validation.json").read_text())["summary"]}
    machine = {k: v for k, v in summary.items() if k[0].startswith("machine")}
    assert len(machine) == 10
    assert all(v <= 0.30 for v in machine.values()), machine
    # the old handover model's spinning FIFO on the same points: more than 100x off
    c = json.loads(QUIET.read_text())["calibration"]["params"]
    old = mm.handover(2, 16, c["cs_ns"], c["ncs_ns"], c["h_ns"], c["wake_idle_ns"], c["wake_switch_ns"],
                      c["slice_ns"], c["wake_idle_ns"], True)["spin-fifo"]["throughput_ops_s"]
    assert old > 100 * 1.064e4


@pytest.mark.parametrize("content,words", [
    (None, ["nosuch.json", "No such file"]),
    ("not json", ["not a validation.json"]),
    ('{"points": [], "calibration": {"params": {}}}', ["no MutexBench or thread-counter point"]),
    ('{"points": [{"lock": "mcs"}], "calibration": {"params": {}}}', ["not a validation.json"]),
])
def test_measured_bad_file(tmp_path, content, words):
    path = tmp_path / "nosuch.json"
    if content is not None:
        path.write_text(content)
    p, _ = validate_measured(tmp_path, path)
    assert_usage_error(p, *words)
    assert str(path) in p.stderr


def test_park_fifo_machine_limits():
    # threads that fit the CPUs and a queue shorter than the budget: the fifo model
    r = mach.park_fifo_machine(2, 2, 10, 150, 180, 2, 25000, 1000, 4e6, 25000, True)
    assert r["p_not_running"] == 0
    assert r["throughput_ops_s"] == pytest.approx(mach.fifo_contention(2, 10, 150, 180, 2)["throughput_ops_s"])
    # oversubscribed: the handover model's parking FIFO with the contended handover H = h + d t
    st = mm.park_fifo_state(2, 16, 10, 150, 300, 25000, 1000, 4e6, 25000, True)
    r = mach.park_fifo_machine(2, 16, 10, 150, 180, 2, 25000, 1000, 4e6, 25000, True)
    assert r["p_not_running"] == 1 and r["handover_ns"] == pytest.approx(st["handover_ns"])
    x = mm.closed_chain(16, 150, lambda k: 10 + (st["handover_ns"] if k >= 2 else 0.0))[0]
    assert r["throughput_ops_s"] == pytest.approx(x)
