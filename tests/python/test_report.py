"""`locklab report` on the fixed result set tests/python/data/small.

That set (4 interleaved runs; mcs and pthread; 1 and 4 threads) was written by
hand; the medians below are computed by hand from its values:
  throughput (M ops/s)  mcs@1 10,12,11,13 -> 11.5   pthread@1 9,10,9.5,11 -> 9.75
                        mcs@4 1,3,2,2.5   -> 2.25   pthread@4 8,6,7,9     -> 7.5
  LWSS mcs@4 3,4,3.5,2 -> 3.25;  fairness factor mcs@4 .52,.5,.54,.51 -> .515
  max/min pthread@4 2,inf,3,4 -> 3.5 (run 2 has a thread with no operation)
  vcsw/acquisition mcs@4 1000/1M, 3000/3M, 2000/2M, 500/2.5M -> 0.001
"""
import csv

import pytest

from conftest import DATA, locklab
from locklab import schema


@pytest.fixture
def reported(small_dir):
    p = locklab("report", small_dir)
    assert p.returncode == 0, p.stderr
    return small_dir, p.stdout


def test_files_exist_and_are_printed(reported):
    d, stdout = reported
    for name in ["report.md", "report.html", "summary.csv", "mutexbench.png"]:
        assert (d / name).stat().st_size > 0, name
        assert str(d / name) in stdout
    assert (d / "mutexbench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_summary_medians_are_the_hand_computed_ones(reported):
    d, _ = reported
    with open(d / "summary.csv") as f:
        rows = {(r["spec"], int(r["threads"])): r for r in csv.DictReader(f)}
    expect = {("mcs", 1): 11.5e6, ("pthread", 1): 9.75e6, ("mcs", 4): 2.25e6, ("pthread", 4): 7.5e6}
    for key, median in expect.items():
        assert float(rows[key]["throughput_ops_s_median"]) == pytest.approx(median), key
        assert rows[key]["runs"] == "4"
    assert float(rows[("mcs", 4)]["throughput_ops_s_min"]) == 1e6
    assert float(rows[("mcs", 4)]["throughput_ops_s_max"]) == 3e6
    assert float(rows[("mcs", 4)]["lwss_median"]) == pytest.approx(3.25)
    assert float(rows[("mcs", 4)]["fairness_factor_median"]) == pytest.approx(0.515)
    assert float(rows[("pthread", 4)]["max_min_ratio_median"]) == pytest.approx(3.5)
    assert float(rows[("pthread", 4)]["max_min_ratio_max"]) == float("inf")
    assert float(rows[("mcs", 4)]["vcsw_per_op_median"]) == pytest.approx(0.001)
    # relative stddev (the Malthusian Figure 4 table's RSTDDEV): runs .02,.04,.06,.08 -> .05
    assert float(rows[("mcs", 4)]["rstddev_median"]) == pytest.approx(0.05)


def test_markdown_and_html_carry_the_same_tables(reported):
    d, stdout = reported
    md, page = (d / "report.md").read_text(), (d / "report.html").read_text()
    assert "| 4 | 2.25M [1.00M..3.00M] | 7.50M [6.00M..9.00M] |" in md
    assert "| 1 | 11.5M [10.0M..13.0M] | 9.75M [9.00M..11.0M] |" in md
    assert "| mcs | 4 | 4 | 3.25 | 3.0 |" in md
    assert "| Gini | RSTDDEV |" in md and "<th>Gini</th><th>RSTDDEV</th>" in page
    assert "![mutexbench" in md and "(mutexbench.png)" in md
    assert "<td>2.25M [1.00M..3.00M]</td><td>7.50M [6.00M..9.00M]</td>" in page
    assert '<img src="mutexbench.png"' in page
    for text in ["Test CPU 9000", "6.1.0-test", "0123456789ab", "glibc 2.36"]:
        assert text in md and text in page, text
    assert "pthread@" not in md
    # the terminal table
    assert "2.25M" in stdout and "7.50M" in stdout


def test_report_of_a_non_result_directory_is_one_line(tmp_path):
    p = locklab("report", tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "results.csv" in p.stderr


def test_workload_extras_get_their_own_table(small_dir):
    # give every row an extra result hit_rate = run / 10: medians (.1+.2+.3+.4 -> .25)
    rows = schema.read_results(small_dir / "results.csv")
    (small_dir / "results.csv").unlink()
    w = schema.ResultsWriter(small_dir / "results.csv")
    for r in rows:
        w.append(dict(r, extras={"hit_rate": r["run"] / 10}))
    w.close()
    p = locklab("report", small_dir)
    assert p.returncode == 0, p.stderr
    md = (small_dir / "report.md").read_text()
    assert "| lock | threads | hit_rate |" in md and "| mcs | 4 | 0.25 |" in md


def test_meta_json_that_is_not_an_object_is_one_line(small_dir):
    (small_dir / "meta.json").write_text("[]")
    p = locklab("report", small_dir)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "meta.json" in p.stderr, p.stderr


def test_report_into_a_read_only_directory_is_one_line(read_only_dir):
    make, run = read_only_dir
    d = make("small", DATA / "small")
    p = run("report", d)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "cannot write" in p.stderr and str(d) in p.stderr, p.stderr
    assert not (d / "report.md").exists()


# ---- the directory bench/performance.py writes (perfreport.py) ----

PERF_ROWS = [  # row, lock, run, value, max_min, vcsw_per_op
    ("mutexbench-16", "glibc", 1, 100, 1.1, 0.001), ("mutexbench-16", "default", 1, 150, 1.2, 0.0),
    ("mutexbench-16", "glibc", 2, 200, 1.1, 0.001), ("mutexbench-16", "default", 2, 250, 1.4, 0.0),
    ("mutexbench-16", "glibc", 3, 100, 1.1, 0.001), ("mutexbench-16", "default", 3, "failed", "", ""),
    ("sysbench-mutex", "glibc", 1, 2.0, "", ""), ("sysbench-mutex", "default", 1, 1.0, "", ""),
]


def write_perf_dir(d, rows=PERF_ROWS, header=("row", "lock", "run", "value", "max_min", "vcsw_per_op")):
    with open(d / "performance.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return d


def test_performance_report_ratios_are_per_round(tmp_path):
    # mutexbench-16: rounds 1 and 2 give 1.5 and 1.25 (round 3 failed) -> median 1.375, shown 1.38 (rounded)
    p = locklab("report", write_perf_dir(tmp_path))
    assert p.returncode == 0, p.stderr
    md = (tmp_path / "report.md").read_text()
    assert "1.38x [1.25..1.50], max/min 1.30, vcsw/op 0.0000 (1 failed)" in md
    assert "0.50x [0.50..0.50]" in md
    assert (tmp_path / "performance.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "report.html").stat().st_size > 0


def test_performance_report_counts_a_run_of_zero_as_bench_performance_py_does(tmp_path):
    # A run that finished with a figure of 0 is a ratio of 0, not a run that vanishes (neither a ratio nor
    # "failed"); a glibc round of 0 has no ratio but stays in glibc's own spread.  bench/performance.py's
    # table counts them so (locklab.tabulate.ratios); this report used to drop both.
    rows = [("mutexbench-2", "glibc", 1, 100, "", ""), ("mutexbench-2", "default", 1, 0, "", ""),
            ("mutexbench-2", "glibc", 2, 100, "", ""), ("mutexbench-2", "default", 2, 200, "", ""),
            ("mutexbench-2", "glibc", 3, 0, "", ""), ("mutexbench-2", "default", 3, 50, "", "")]
    p = locklab("report", write_perf_dir(tmp_path, rows))
    assert p.returncode == 0, p.stderr
    assert "| mutexbench-2 | 100 [0..100] | 1.00x [0.00..2.00] |" in (tmp_path / "report.md").read_text()


def test_performance_report_needs_glibc_runs(tmp_path):
    p = locklab("report", write_perf_dir(tmp_path, [r for r in PERF_ROWS if r[1] != "glibc"]))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "'glibc'" in p.stderr


def test_performance_report_bad_table_is_one_line(tmp_path):
    p = locklab("report", write_perf_dir(tmp_path, [("x", "glibc", 1)], header=("row", "lock", "run")))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "'value'" in p.stderr
