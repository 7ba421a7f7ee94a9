"""`locklab sim`, `sweep --sim`, report/compare of simulated results and
`sim validate`, against a fake locklab-sim (fake_sim.py); one test runs the real
simulator when the build has it."""
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, locklab
from locklab import schema, simvalidate

# The repository's build, or $LOCKLAB_SIM (e.g. another work tree's build)
REAL_SIM = Path(os.environ.get("LOCKLAB_SIM") or REPO / "build" / "bin" / "locklab-sim")
SIM_SWEEP = ["sweep", "--workloads", "mutexbench", "--locks", "mcs,tas", "--threads", "1,4", "--runs", "2",
             "--duration", "0.5"]


def one_line(p, needle):
    assert p.returncode != 0, p.stdout
    assert p.stderr.count("\n") == 1 and needle in p.stderr, p.stderr


# ---- locklab sim: passed through to the simulator ----

def test_sim_passes_arguments_and_json_through(fake_sim):
    exe, env, log, _ = fake_sim
    p = locklab("sim", "mutexbench", "--lock", "mcs", "--threads", "4", "--machine", "cna-2s", "--duration", "0.25",
                "--seed", "7", "--param", "cs_steps=8", "--json", env=env)
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["simulated"] is True and obj["seed"] == 7 and obj["machine"]["sockets"] == 2
    assert all(k in obj for k in schema.REQUIRED_BENCH_KEYS)
    assert log.read_text() == "mutexbench mcs 4 cna-2s 7 0.25\n"


def test_sim_list_presets(fake_sim):
    exe, env, _, _ = fake_sim
    p = locklab("sim", "--list-presets", "--sim-bin", exe, env=dict(env, LOCKLAB_SIM=""))
    assert p.returncode == 0, p.stderr
    assert [l.split("\t")[0] for l in p.stdout.splitlines()] == ["this", "cna-2s", "malthusian-t5"]


@pytest.mark.parametrize("machine, needle", [
    ("nosuch", "unknown preset 'nosuch'"),
    ("sockets=2,cores=x", "bad value 'x'"),
    ("sockets=2,wires=3", "unknown machine key 'wires'"),
])
def test_sim_bad_machine_is_the_simulators_one_line(fake_sim, machine, needle):
    _, env, _, _ = fake_sim
    p = locklab("sim", "mutexbench", "--lock", "mcs", "--threads", "2", "--machine", machine, "--duration", "1",
                env=env)
    assert p.returncode == 2
    one_line(p, needle)


@pytest.mark.parametrize("argv, needle", [
    (["--list-presets", "mutexbench"], "--list-presets takes no workload"),
    ([], "missing WORKLOAD"),
    (["validate", "--lock", "mcs"], "--lock is for simulating one workload"),
    (["mutexbench", "--quick"], "--quick is for `locklab sim validate`"),
    (["mutexbench", "--sim-bin", "/nonexistent/locklab-sim"], "locklab-sim not found or not executable"),
    (["validate", "--runs", "0"], "bad value '0' for --runs"),
])
def test_sim_bad_arguments(fake_sim, argv, needle):
    _, env, _, _ = fake_sim
    p = locklab("sim", *argv, env=env)
    assert p.returncode == 2
    one_line(p, needle)


# ---- locklab sweep --sim ----

def test_sweep_sim_failure_stops_new_runs_and_keeps_the_rows_before_it(fake_sim, tmp_path):
    _, env, log, _ = fake_sim
    out = tmp_path / "out"
    env = dict(env, FAKE_SIM_FAIL="tas 1 1", FAKE_SIM_SLOW="mcs 1 1", FAKE_SIM_SLOW_S="1")
    p = locklab(*SIM_SWEEP, "--sim", "cna-2s", "--out", out, env=env)
    assert p.returncode != 0
    one_line(p, "failed on mutexbench --lock tas --threads 1 (run 1)")
    rows = schema.read_results(out / "results.csv")
    assert [(r["spec"], r["threads"], r["run"]) for r in rows] == [("mcs", 1, 1)]  # the slow run before it
    started = [l for l in log.read_text().splitlines() if l.split()[5] != "0.001"]
    assert len(started) < 8  # no run started after the failure was seen


def test_sweep_sim_interrupt_stops_the_running_simulations(fake_sim, tmp_path):
    _, env, _, _ = fake_sim
    out = tmp_path / "out"
    env = dict(os.environ, **env, FAKE_SIM_SLOW="all", FAKE_SIM_SLOW_S="60")
    proc = subprocess.Popen([sys.executable, "-m", "locklab", *map(str, SIM_SWEEP), "--sim", "cna-2s",
                             "--out", str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # past the validation runs, into the slow ones
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)  # to the sweep only: the simulations do not see it
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert time.monotonic() - t0 < 10
    assert "rerun the same command to resume" in err


def test_sweep_sim_runs_the_simulator_with_seeds_and_records_the_machine(fake_sim, tmp_path):
    exe, env, log, _ = fake_sim
    out = tmp_path / "out"
    p = locklab(*SIM_SWEEP, "--sim", "cna-2s", "--out", out, env=env)
    assert p.returncode == 0, p.stderr
    rows = schema.read_results(out / "results.csv")
    assert len(rows) == 8
    # every run on the machine, seed = run index; the validation runs come first (0.001 s)
    runs = [l.split() for l in log.read_text().splitlines() if l.split()[5] != "0.001"]
    planned = [(s, t, "cna-2s", str(run)) for run in (1, 2) for t in ("1", "4") for s in ("mcs", "tas")]
    # simulations run one per CPU at a time, so they may start out of order; rows are in order
    assert sorted((r[1], r[2], r[3], r[4]) for r in runs) == sorted(planned)
    assert [(r["spec"], str(r["threads"]), "cna-2s", str(r["run"])) for r in rows] == planned
    assert {r["extras"]["seed"] for r in rows} == {1, 2}
    assert all(r["extras"]["simulated"] is True and "machine" not in r["extras"] for r in rows)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["simulated"] is True and meta["machine"] == "cna-2s" and meta["config"]["sim"] == "cna-2s"
    assert meta["machine_model"] == {"sockets": 2, "cores": 18, "smt": 2}
    # the same command resumes (nothing to do); another machine in the same directory is refused
    assert locklab(*SIM_SWEEP, "--sim", "cna-2s", "--out", out, env=env).returncode == 0
    p = locklab(*SIM_SWEEP, "--sim", "this", "--out", out, env=env)
    one_line(p, 'sim: "cna-2s" there, "this" here')


def test_sweep_sim_and_measured_never_share_a_directory(fake_sim, fake_bench, tmp_path):
    exe, env, _, _ = fake_sim
    bench, benv, _ = fake_bench
    out = tmp_path / "out"
    assert locklab(*SIM_SWEEP, "--bench", bench, "--out", out, env=benv).returncode == 0
    p = locklab(*SIM_SWEEP, "--sim", "this", "--out", out, env=env)
    one_line(p, 'sim: null there, "this" here')


@pytest.mark.parametrize("extra, needle", [
    (["--sim", ""], "malformed --sim ''"),
    (["--sim", "sockets=2,,cores=4"], "malformed --sim 'sockets=2,,cores=4'"),
    (["--sim", "two sockets"], "malformed --sim 'two sockets'"),
    (["--sim", "sockets=2,cores"], "malformed --sim"),
    (["--sim", "nosuch"], "locklab-sim: unknown preset 'nosuch'"),
    (["--sim", "this,wires=3"], "unknown machine key 'wires'"),
    (["--sim", "this", "--param", "nosuch=1"], "bad --param 'nosuch=1'"),
    (["--sim", "this", "--bench", "/bin/true"], "--bench is for measured sweeps"),
    (["--sim-bin", "/bin/true"], "--sim-bin is for simulated sweeps"),
])
def test_sweep_sim_bad_input(fake_sim, tmp_path, extra, needle):
    _, env, _, _ = fake_sim
    p = locklab(*SIM_SWEEP, *extra, "--out", tmp_path / "out", env=env)
    assert p.returncode == 2
    one_line(p, needle)
    assert not (tmp_path / "out" / "results.csv").exists()


def test_sweep_sim_refuses_a_binary_that_does_not_simulate(fake_sim, fake_bench, tmp_path):
    """--sim-bin pointing to a bench: its JSON lacks "simulated": true."""
    _, env, _, as_bench = fake_sim
    p = locklab(*SIM_SWEEP, "--sim", "this", "--sim-bin", as_bench, "--out", tmp_path / "out", env=env)
    assert p.returncode == 2
    one_line(p, 'is not locklab-sim: its JSON lacks "simulated": true')


# ---- report and compare label simulated results ----

@pytest.fixture
def sim_dir(fake_sim, tmp_path):
    _, env, _, _ = fake_sim
    out = tmp_path / "simulated"
    p = locklab(*SIM_SWEEP, "--sim", "cna-2s", "--out", out, env=env)
    assert p.returncode == 0, p.stderr
    return out


def test_report_labels_simulated_results(sim_dir):
    p = locklab("report", sim_dir)
    assert p.returncode == 0, p.stderr
    assert "mutexbench: median ops/s, simulated on cna-2s" in p.stdout
    md = (sim_dir / "report.md").read_text()
    assert md.startswith("# locklab report: simulated (simulated on cna-2s)")
    assert "Simulated, not measured" in md and "Throughput (ops/s, simulated on cna-2s)" in md
    assert "(simulated on cna-2s)" in (sim_dir / "report.html").read_text()


def test_compare_labels_simulated_results(sim_dir):
    p = locklab("compare", "tas", "mcs", "--dir", sim_dir, "--at-threads", "4")
    assert p.returncode == 0, p.stderr
    assert "tas (simulated on cna-2s) is 0.75x mcs (simulated on cna-2s) at 4 threads" in p.stdout


def test_compare_simulated_with_measured_must_be_explicit(sim_dir, fake_bench, tmp_path):
    bench, benv, _ = fake_bench
    measured = tmp_path / "measured"
    assert locklab(*SIM_SWEEP, "--bench", bench, "--out", measured, env=benv).returncode == 0
    p = locklab("compare", sim_dir, measured, "--lock", "mcs")
    assert p.returncode == 2
    one_line(p, "is simulated on cna-2s and")
    assert "pass --mixed" in p.stderr
    p = locklab("compare", sim_dir, measured, "--lock", "mcs", "--at-threads", "1", "--mixed")
    assert p.returncode == 0, p.stderr
    assert f"{sim_dir}:mcs (simulated on cna-2s) is" in p.stdout and f"{measured}:mcs (measured) at 1" in p.stdout


# ---- locklab sim validate ----

def test_validate_quick_with_fakes(fake_sim, tmp_path):
    exe, env, log, as_bench = fake_sim
    out = tmp_path / "v"
    p = locklab("sim", "validate", "--quick", "--out", out, "--bench", as_bench, env=env)
    assert p.returncode == 0, p.stderr
    for name in ["validation.md", "validation.json", "ratios.png", "this/measured/mutexbench.png",
                 "this/simulated/randarray.png", "papers/cna-2s/mutexbench.png"]:
        assert (out / name).stat().st_size > 0, name
    data = json.loads((out / "validation.json").read_text())
    cpus = os.cpu_count()
    this = {(r["workload"], r["threads"], r["lock"]): r for r in data["this_machine"]}
    assert {t for _, t, _ in this} == {1, 2, 4 * cpus}
    # the fake's throughput is SPEED[lock] x f(threads, machine, seed): every simulated ratio is SPEED[lock] / 4
    r = this[("mutexbench", 2, "twa")]
    assert r["simulated"] == pytest.approx(6 / 4, rel=1e-3) and r["error"] == pytest.approx(r["simulated"] / r["measured"] - 1)
    # pthread is not simulated by the fake: said, not silently dropped
    assert this[("randarray", 1, "pthread")]["simulated"] is None
    assert any("pthread not simulated on this" in n for n in data["notes"])
    papers = {r["id"]: r for r in data["papers"]}
    assert set(papers) == {c["id"] for c in simvalidate.load_matrix()["claims"]}
    cna = papers["cna-mcs-2s"]  # kvmap is not simulated by the fake: mutexbench instead, and said so
    assert cna["workload"] == "mutexbench" and cna["machine"] == "cna-2s"
    assert cna["value"] == pytest.approx(7 / 4, rel=1e-3) and cna["error"] == f"{7 / 4 / 1.39 - 1:+.0%}"
    assert any(n.startswith("cna-2s: ran mutexbench instead") for n in data["notes"])
    # no cna-4s preset in the fake: the description from the paper's numbers, said so
    assert papers["cna-mcs-4s"]["machine"] == "sockets=4,cores=18,smt=2,llc=45"
    assert any("no preset 'cna-4s'" in n for n in data["notes"])
    assert papers["twa-vs-mcs-low"]["error"] == "holds"  # 6/4 >= 1
    md = (out / "validation.md").read_text()
    assert "compact-numa-aware-locks.txt:267" in md and "| cna-mcs-4s |" in md
    assert "The papers: published vs simulated" in p.stdout
    # --quick: every simulated run is 0.001 simulated seconds (the fake bench's lines have no machine)
    simulated = [l.split() for l in log.read_text().splitlines() if l.split()[3] != "-"]
    assert simulated and all(l[5] == "0.001" for l in simulated)


def test_validate_papers_experiment_interval(fake_sim, tmp_path):
    """An experiment's own sim_seconds lengthens its runs, unless --sim-duration gives the interval."""
    exe, env, log, as_bench = fake_sim
    matrix = simvalidate.load_matrix()
    long = {n for n, e in matrix["experiments"].items() if e.get("sim_seconds")}
    assert long, "no experiment of the matrix has its own interval"
    # one run per configuration: the intervals are the question, not the medians
    p = locklab("sim", "validate", "--part", "papers", "--runs", "1", "--out", tmp_path / "v", env=env)
    assert p.returncode == 0, p.stderr
    runs = [l.split() for l in log.read_text().splitlines()]
    spans = {(l[1], int(l[2]), l[3], float(l[5])) for l in runs}
    for name in long:
        e = matrix["experiments"][name]
        assert all((lock, t, e["machine"]["preset"], e["sim_seconds"]) in spans
                   for lock in e["locks"] for t in e["threads"]), name
    probes = 0.001  # bench.check_sim's runs, before each experiment
    assert {d for *_, d in spans} - {probes} == {0.1} | {matrix["experiments"][n]["sim_seconds"] for n in long}
    assert "simulated s a run (" in (tmp_path / "v" / "validation.md").read_text()
    log.write_text("")
    p = locklab("sim", "validate", "--part", "papers", "--runs", "1", "--sim-duration", "0.002", "--out", tmp_path / "w",
                env=env)
    assert p.returncode == 0, p.stderr
    assert {float(l.split()[5]) for l in log.read_text().splitlines()} - {probes} == {0.002}


@pytest.fixture(scope="module")
def validated_this(fake_sim_module, tmp_path_factory):
    """A `validate --quick --part this` result (with the fake), once for the tests that only read it."""
    exe, env, log, as_bench = fake_sim_module
    first = tmp_path_factory.mktemp("validated") / "first"
    p = locklab("sim", "validate", "--quick", "--part", "this", "--out", first, "--bench", as_bench, env=env)
    assert p.returncode == 0, p.stderr
    return first, env


def test_validate_this_against_stored_measurements(validated_this, tmp_path):
    """--measured DIR: the part `this` compares with a stored measured sweep; nothing is measured."""
    first, env = validated_this
    log = Path(env["FAKE_SIM_LOG"])
    stored = first / "this" / "measured"
    log.unlink(missing_ok=True)
    again = tmp_path / "again"
    p = locklab("sim", "validate", "--quick", "--part", "this", "--measured", stored, "--out", again, env=env)
    assert p.returncode == 0, p.stderr
    calls = [l.split() for l in log.read_text().splitlines()]
    assert calls and all(c[3] != "-" for c in calls)  # every call simulates (a measurement has no machine)
    assert not (again / "this" / "measured").exists()
    rows = lambda d: [(r["workload"], r["threads"], r["lock"], r["measured"])  # noqa: E731
                      for r in json.loads((d / "validation.json").read_text())["this_machine"]]
    assert rows(again) == rows(first)
    assert f"measured side from the stored sweep {stored}" in (again / "validation.md").read_text()
    # its results.csv names it too
    p = locklab("sim", "validate", "--quick", "--part", "this", "--measured", stored / "results.csv", "--out",
                tmp_path / "csv", env=env)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("which, extra, needle", [
    ("simulated", [], "holds simulated results"),
    ("nowhere", [], "is not a result directory"),
    ("measured", ["--part", "papers"], "--measured is for the part `this`"),
    ("measured", ["--bench-duration", "1"], "--bench-duration measures; --measured compares"),
])
def test_validate_measured_bad_input(validated_this, tmp_path, which, extra, needle):
    first, env = validated_this
    p = locklab("sim", "validate", "--quick", "--measured", first / "this" / which, "--out", tmp_path / "v",
                *(extra or ["--part", "this"]), env=env)
    assert p.returncode == 2
    one_line(p, needle)


class Stub:
    """A ResultDir with one run per (spec, threads): throughput given per spec as a list over `threads`."""

    def __init__(self, threads, series):
        self._threads, self._series = threads, series

    def threads(self, workload=None):
        return self._threads

    def specs(self, workload=None):
        return list(self._series)

    def runs(self, workload, spec, threads):
        if spec not in self._series or threads not in self._threads:
            return {}
        return {1: {"throughput_ops_s": self._series[spec][self._threads.index(threads)]}}


def test_validate_shapes():
    threads = [1, 2, 4, 8, 16]
    result = Stub(threads, {"ticket": [5, 9, 10, 6, 3], "mcs": [4, 6, 7, 7, 7]})
    collapse = {"kind": "collapse", "lock": "ticket"}
    assert simvalidate.evaluate(collapse, result, "w") == 4  # peak at 4, 3 < 0.9 x 10 at 16
    assert math.isinf(simvalidate.evaluate({"kind": "collapse", "lock": "mcs"}, result, "w"))
    assert simvalidate.evaluate({"kind": "crossover", "a": "mcs", "b": "ticket"}, result, "w") == 8
    assert simvalidate.evaluate({"kind": "peak_fraction", "lock": "mcs", "at": 16}, result, "w") == 1
    ratio = {"kind": "ratio", "a": "mcs", "b": "ticket", "at": 16}
    assert simvalidate.evaluate(ratio, result, "w") == pytest.approx(7 / 3)
    assert simvalidate.evaluate(dict(ratio, a="ticket", b="ticket", b_at=1), result, "w") == pytest.approx(3 / 5)
    assert math.isnan(simvalidate.evaluate(dict(ratio, a="cna"), result, "w"))
    assert simvalidate.verdict({"published": 8, "unit": "threads"}, 10.0) == ("8 threads", "+25%")
    assert simvalidate.verdict({"expect": [1.0, None], "published_text": ">= 1"}, 0.9) == (">= 1", "fails")


def test_validate_counts_the_rows_whose_measured_runs_agree():
    """A ratio to measured runs that disagree by more than the tolerance says little: the summary
    counts the rows within the tolerance in all and among those whose runs agree (max/min <= 1.5)."""
    assert simvalidate.agreeing(1.49, 0.2) and not simvalidate.agreeing(1.51, 0.2)
    assert not simvalidate.agreeing(math.nan, 0.2)  # a single run: nothing to agree with
    rows = [{"ok": True, "measured_spread": 1.1}, {"ok": False, "measured_spread": 1.2},
            {"ok": False, "measured_spread": 4.9}, {"ok": True, "measured_spread": 16.0},
            {"ok": None, "measured_spread": 1.0}]
    line = simvalidate.this_summary(rows, 0.2)
    assert line.startswith("Within +-20%: 2 of 4;") and line.endswith(": 1 of 2.")


# ---- the real simulator, when the build has it ----

@pytest.mark.skipif(not os.access(REAL_SIM, os.X_OK), reason=f"{REAL_SIM} not built (the simulator is optional)")
def test_real_simulator(tmp_path):
    env = {"LOCKLAB_SIM": str(REAL_SIM)}
    p = locklab("sim", "--list-presets", env=env)
    assert p.returncode == 0, p.stderr
    preset = p.stdout.splitlines()[0].split("\t")[0]
    p = locklab("sim", "mutexbench", "--lock", "mcs", "--threads", "2", "--machine", preset, "--duration", "0.001",
                "--seed", "3", "--json", env=env)
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout.strip().splitlines()[-1])
    assert obj["simulated"] is True and obj["seed"] == 3 and isinstance(obj["machine"], dict)
    assert all(k in obj for k in schema.REQUIRED_BENCH_KEYS)
    p = locklab("sim", "mutexbench", "--lock", "mcs", "--threads", "2", "--machine", "no-such-preset",
                "--duration", "0.001", env=env)
    assert p.returncode != 0 and p.stderr.count("\n") == 1 and "no-such-preset" in p.stderr
    out = tmp_path / "out"
    p = locklab("sweep", "--sim", preset, "--locks", "tas,mcs", "--threads", "1,2", "--runs", "1",
                "--duration", "0.001", "--out", out, env=env)
    assert p.returncode == 0, p.stderr
    assert len(schema.read_results(out / "results.csv")) == 4
    p = locklab("report", out)
    assert p.returncode == 0 and f"simulated on {preset}" in p.stdout, p.stderr
