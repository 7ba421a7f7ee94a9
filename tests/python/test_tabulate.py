"""locklab.tabulate: the one way every driver interleaves runs, summarises them
(median, min..max) and writes Markdown tables; and the bench scripts that import
it by path with nothing but the standard library."""
import math
import subprocess
import sys

from conftest import REPO

from locklab.tabulate import Spread, fairness_note, interleave, markdown_table, ratios


def test_median_of_an_odd_count_is_the_middle_value():
    s = Spread([5.0, 1.0, 3.0])
    assert (s.median, s.min, s.max, s.n) == (3.0, 1.0, 5.0, 3)


def test_median_of_an_even_count_is_the_mean_of_the_middle_two():
    s = Spread([4, 1, 10, 2])
    assert (s.median, s.min, s.max, s.n) == (3.0, 1, 10, 4)


def test_none_nan_and_non_numbers_are_left_out_but_inf_counts():
    s = Spread([None, math.nan, "7", 2.0, math.inf, 1.0])
    assert (s.median, s.min, s.max, s.n) == (2.0, 1.0, math.inf, 3)


def test_an_empty_spread_is_false_and_shows_its_missing_text():
    s = Spread([None, math.nan])
    assert not s and s.n == 0 and math.isnan(s.median) and math.isnan(s.min) and math.isnan(s.max)
    assert s.text("{:.2f}") == "-" and s.text("{:.2f}", missing="failed") == "failed"


def test_text_and_range_take_a_pattern_or_a_callable():
    s = Spread([0.5, 1.25, 2.0, 8.0])
    assert s.text("{:.2f}x", "{:.2f}") == "1.62x [0.50..8.00]"
    assert s.text(lambda x: f"<{x:g}>") == "<1.625> [<0.5>..<8>]"
    assert s.range("{:.1f}") == "0.5..8.0"
    assert Spread([7]).text("{:.0f}") == "7 [7..7]"


def test_interleave_puts_the_run_outermost_and_the_last_axis_fastest():
    assert interleave(2, ["w"], [1, 4], ["a", "b"]) == [
        (1, "w", 1, "a"), (1, "w", 1, "b"), (1, "w", 4, "a"), (1, "w", 4, "b"),
        (2, "w", 1, "a"), (2, "w", 1, "b"), (2, "w", 4, "a"), (2, "w", 4, "b")]
    assert interleave(3, ["x", "y"]) == [(1, "x"), (1, "y"), (2, "x"), (2, "y"), (3, "x"), (3, "y")]
    assert interleave(0, ["x"]) == []


def test_ratios_pair_rounds_and_skip_a_failed_run_or_a_zero_base():
    # round 2 of a failed, round 3 of b failed, round 4's base is 0; round 5 of a did 0 ops and counts
    a = {1: 10.0, 2: None, 3: 5.0, 4: 1.0, 5: 0.0, 6: 9.0}
    b = {1: 5.0, 2: 4.0, 3: None, 4: 0.0, 5: 2.0}
    assert ratios(a, b) == [2.0, 0.0]
    assert ratios([1.0, 3.0, None], [2.0, 1.0, 1.0]) == [0.5, 3.0]  # sequences pair by position


def test_markdown_table_aligns_numbers_and_escapes_pipes():
    assert markdown_table(["lock", "ops/s"], [["mcs", "1.0M"], ["a|b", 2]]) == (
        "| lock | ops/s |\n|---|---|\n| mcs | 1.0M |\n| a\\|b | 2 |")
    assert markdown_table(["lock", "x", "y"], [], numeric=True) == "| lock | x | y |\n|---|---:|---:|"


def test_fairness_note_gives_the_medians_it_has():
    assert fairness_note([1.5, 1.2, None, 9.0], [0.001, 0.002, 0.003]) == "max/min 1.50, vcsw/op 0.0020"
    assert fairness_note([None], [0.5]) == "vcsw/op 0.5000"
    assert fairness_note([2.0], []) == "max/min 2.00"
    assert fairness_note([], [None, float("nan")]) == ""


def test_tabulate_needs_only_the_standard_library():
    # -S: no site-packages (no matplotlib, no tqdm); -I: no PYTHONPATH, no user site
    code = ("import sys; sys.path.insert(0, 'python'); import locklab.tabulate; "
            "print(sorted(m for m in sys.modules if m.startswith('locklab')))")
    p = subprocess.run([sys.executable, "-S", "-I", "-c", code], cwd=REPO, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "['locklab', 'locklab.tabulate']", p.stderr


def test_bench_table_runs_standalone_from_the_tree(fake_bench):
    exe, env, _ = fake_bench
    p = subprocess.run([sys.executable, "-S", "-I", "bench/table.py", "--bench", exe, "--threads", "2", "--runs", "3",
                        "--duration", "0.5", "--locks", "tas;mcs"], cwd=REPO, capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stderr
    # the fake bench's ops: 1000 x (index of the lock + 1) x threads + its call count (1) + the run (0..2)
    assert "| lock | ops/s (median) | spread |" in p.stdout and "|---|---:|---:|" in p.stdout
    assert "| tas | 4e+03 | 4e+03..4.01e+03 | 1 | 1.0 | 0 | 0.000 | 0.500 | 0.000 |" in p.stdout, p.stdout
    assert "| mcs | 8e+03 | 8e+03..8.01e+03 |" in p.stdout, p.stdout


def test_bench_workloads_table_runs_standalone_from_the_tree(fake_bench):
    exe, env, _ = fake_bench
    p = subprocess.run([sys.executable, "-S", "-I", "bench/workloads_table.py", "--bench", exe, "--workloads",
                        "mutexbench", "--locks", "tas,mcs", "--threads", "2", "--runs", "2", "--duration", "0.5"],
                       cwd=REPO, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "| lock | ops/s median [min..max] | ratio | LWSS | vcsw/op | cpu_util | fake_extra |" in p.stdout
    # vcsw/op: the call count (1) over the median ops (2001.5 for tas, 4001.5 for mcs)
    assert "| tas | 4K [4K..4K] | 1.00x | 1.00 | 0.0005 | 1.00 | 0.25 |" in p.stdout, p.stdout
    assert "| mcs | 8K [8K..8K] | 2.00x | 1.00 | 0.00025 | 1.00 | 0.25 |" in p.stdout, p.stdout
