"""`locklab compare` on the fixed result set (see test_report.py for its values)."""
import pytest

from conftest import locklab
from locklab import schema


def test_two_locks_of_one_sweep(small_dir):
    p = locklab("compare", "mcs", "pthread", "--dir", small_dir)
    assert p.returncode == 0, p.stderr
    lines = {l.split()[0]: l.split() for l in p.stdout.splitlines() if l.strip() and l.split()[0].isdigit()}
    # 1 thread: 11.5/9.75; per-run 10/9, 12/10, 11/9.5, 13/11 -> 1.111..1.200
    assert lines["1"][3] == f"{11.5 / 9.75:.3f}x" and lines["1"][4] == "[1.111..1.200]" and lines["1"][5] == "4"
    # 4 threads: 2.25/7.5 = 0.3; per-run 1/8, 3/6, 2/7, 2.5/9 -> 0.125..0.500
    assert lines["4"][3] == "0.300x" and lines["4"][4] == "[0.125..0.500]"


def test_one_sentence_at_one_thread_count(small_dir):
    p = locklab("compare", "pthread", "mcs", "--dir", small_dir, "--at-threads", "4", "--workload", "mutexbench")
    assert p.returncode == 0, p.stderr
    assert "pthread is 3.33x mcs at 4 threads on mutexbench" in p.stdout
    assert "per-run ratios 2.00..8.00 over 4 paired runs" in p.stdout


def test_two_result_directories(small_dir, tmp_path):
    # B = A with every throughput halved and run 3 missing: ratio 2 everywhere, 3 pairs
    rows = schema.read_results(small_dir / "results.csv")
    b = tmp_path / "b"
    b.mkdir()
    w = schema.ResultsWriter(b / "results.csv")
    for r in rows:
        if r["run"] != 3:
            w.append(dict(r, throughput_ops_s=r["throughput_ops_s"] / 2))
    w.close()
    p = locklab("compare", small_dir, b, "--lock", "mcs", "--at-threads", "1")
    assert p.returncode == 0, p.stderr
    # medians: A 11.5M (4 runs), B of 5,6,6.5 -> 6M: 1.92x; every paired run is exactly 2
    assert f"is {11.5 / 6:.2f}x" in p.stdout and "per-run ratios 2.00..2.00 over 3 paired runs" in p.stdout


@pytest.mark.parametrize("argv, needle", [
    (["nosuch", "pthread", "--dir", "{d}"], "nosuch"),
    (["mcs", "pthread", "--dir", "{d}", "--at-threads", "3"], "--at-threads 3"),
    (["mcs", "pthread", "--dir", "{d}", "--workload", "randarray"], "randarray"),
    (["mcs", "pthread"], "--dir"),
    (["mcs", "pthread", "--dir", "{d}", "--metric", "speed"], "speed"),
])
def test_bad_compare_arguments(small_dir, argv, needle):
    p = locklab("compare", *[a.format(d=small_dir) for a in argv])
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and needle in p.stderr, p.stderr
