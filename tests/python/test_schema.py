"""results.csv schema: a bench JSON object survives write + read unchanged."""
import csv
import math

import pytest

from locklab import schema

BENCH = {"workload": "mutexbench", "lock": "mcs-stp", "threads": 3, "duration_s": 0.501234, "ops": 123457,
         "throughput_ops_s": 246320.1, "per_thread_ops": [41000, 0, 82457], "thread_sockets": [0, 1, 0],
         "lwss": 2.125, "mttr": 1.5, "gini": 0.33333, "rstddev": 0.81650, "fairness_factor": 0.66789,
         "max_min_ratio": None, "socket_switches": 12.5, "topology": "virtual:2", "vcsw": 17, "ivcsw": 4,
         "cpu_util": 1.913, "admissions_logged": 123457, "exclusion_ok": True, "spin_ns": 27543,
         "hit_rate": 0.875, "evictions": 12}


def test_round_trip(tmp_path):
    row = schema.row_from_bench(BENCH, 2, "mcs-stp", "cs_steps=8 ncs_max=100")
    w = schema.ResultsWriter(tmp_path / "r.csv")
    w.append(row)
    w.close()
    back, = schema.read_results(tmp_path / "r.csv")
    assert back == dict(row, ns_per_pair=None)
    for key, value in BENCH.items():
        got = back[key] if key in schema.COLUMNS else back["extras"][key]
        assert got == value, key
    assert schema.max_min_ratio(back) == math.inf


def test_file_layout(tmp_path):
    w = schema.ResultsWriter(tmp_path / "r.csv")
    w.append(schema.row_from_bench(BENCH, 1, "mcs-stp", ""))
    w.close()
    text = (tmp_path / "r.csv").read_text()
    assert ";" not in text
    header, line = list(csv.reader(text.splitlines()))
    assert header == schema.COLUMNS
    fields = dict(zip(header, line))
    assert fields["per_thread_ops"] == "41000 0 82457"
    assert fields["max_min_ratio"] == ""
    assert fields["extras"] == "evictions=12 hit_rate=0.875"
    # docs/design.md's JSON contract: every promised key has its own column
    for key in ["workload", "lock", "threads", "duration_s", "ops", "throughput_ops_s", "per_thread_ops", "lwss",
                "mttr", "gini", "rstddev", "fairness_factor", "vcsw", "ivcsw", "cpu_util"]:
        assert key in header


def test_partial_last_line_is_dropped(tmp_path):
    path = tmp_path / "r.csv"
    w = schema.ResultsWriter(path)
    w.append(schema.row_from_bench(BENCH, 1, "mcs", ""))
    w.close()
    with open(path, "a") as f:
        f.write("2,mcs,,mutexbench,mc")  # the sweep was killed mid-write
    assert len(schema.read_results(path)) == 1
    w = schema.ResultsWriter(path)  # reopening for a resume truncates the fragment
    w.append(schema.row_from_bench(BENCH, 2, "mcs", ""))
    w.close()
    assert [r["run"] for r in schema.read_results(path)] == [1, 2]


def test_missing_contract_key_is_rejected():
    bad = {k: v for k, v in BENCH.items() if k != "lwss"}
    with pytest.raises(schema.SchemaError, match="lwss"):
        schema.row_from_bench(bad, 1, "mcs", "")


def test_foreign_csv_is_rejected(tmp_path):
    (tmp_path / "r.csv").write_text("a;b\n1;2\n")
    with pytest.raises(schema.SchemaError, match="header"):
        schema.read_results(tmp_path / "r.csv")


def test_null_history_metrics_round_trip(tmp_path):
    # invalidation records no admissions: the bench reports lwss, mttr, socket_switches as null
    obj = dict(BENCH, workload="invalidation", lwss=None, mttr=None, socket_switches=None, admissions_logged=0)
    w = schema.ResultsWriter(tmp_path / "r.csv")
    w.append(schema.row_from_bench(obj, 1, "mcs", ""))
    w.close()
    back, = schema.read_results(tmp_path / "r.csv")
    assert back["lwss"] is None and back["mttr"] is None and back["socket_switches"] is None
    from locklab import results
    assert results.summarize([back], "lwss").n == 0


def test_binary_file_is_a_schema_error_not_a_crash(tmp_path):
    (tmp_path / "r.csv").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(schema.SchemaError, match="r.csv"):
        schema.read_results(tmp_path / "r.csv")
