"""The results.csv schema written by `locklab sweep` and read by `report` and `compare`.

One row per run of build/bin/locklab-bench.  Comma separated, a header line,
standard CSV quoting (Python's csv module), never ';'.  Column order:

  sweep columns (who asked for this run)
    run              run index, 1..R (runs were interleaved: see sweep.py)
    spec             the lock spec as given to `locklab sweep --locks`
    params           the workload parameters, "KEY=VALUE KEY=VALUE" sorted by key ("" = defaults)
  bench columns (the keys of `locklab-bench --json`, same names and meaning)
    workload, lock, threads, duration_s, ops, throughput_ops_s, per_thread_ops,
    thread_sockets, lwss, mttr, gini, rstddev, fairness_factor, max_min_ratio,
    socket_switches, topology, vcsw, ivcsw, cpu_util, admissions_logged,
    exclusion_ok, ns_per_pair, spin_ns
  extras           every other key of the bench's JSON object (a workload's own
                   results, e.g. an LRU hit rate), "NAME=VALUE NAME=VALUE"

List columns (per_thread_ops, thread_sockets) hold space-separated integers in
one field.  An empty field means the bench did not report the key (ns_per_pair
outside `uncontended`, spin_ns for locks without a spin budget) or reported
null (max_min_ratio when some thread completed no operation: read as infinity;
lwss, mttr and socket_switches when no admission was recorded, e.g. invalidation).
Booleans are "true"/"false"; floats are written so that they read back exactly.

The key of a run (what resumption matches on) is (workload, spec, threads, run, params).
"""

import csv
import math
import os

SWEEP_COLUMNS = ["run", "spec", "params"]
INT_COLUMNS = {"run", "threads", "ops", "vcsw", "ivcsw", "admissions_logged", "spin_ns"}
FLOAT_COLUMNS = {"duration_s", "throughput_ops_s", "lwss", "mttr", "gini", "rstddev", "fairness_factor",
                 "max_min_ratio", "socket_switches", "cpu_util", "ns_per_pair"}
LIST_COLUMNS = {"per_thread_ops", "thread_sockets"}
BOOL_COLUMNS = {"exclusion_ok"}
BENCH_COLUMNS = ["workload", "lock", "threads", "duration_s", "ops", "throughput_ops_s", "per_thread_ops",
                 "thread_sockets", "lwss", "mttr", "gini", "rstddev", "fairness_factor", "max_min_ratio",
                 "socket_switches", "topology", "vcsw", "ivcsw", "cpu_util", "admissions_logged", "exclusion_ok",
                 "ns_per_pair", "spin_ns"]
# Keys every bench JSON object must carry (docs/design.md, "JSON contract"); the others may be absent.
REQUIRED_BENCH_KEYS = ["workload", "lock", "threads", "duration_s", "ops", "throughput_ops_s", "per_thread_ops",
                       "lwss", "mttr", "gini", "rstddev", "fairness_factor", "vcsw", "ivcsw", "cpu_util"]
COLUMNS = SWEEP_COLUMNS + BENCH_COLUMNS + ["extras"]
KEY_COLUMNS = ("workload", "spec", "threads", "run", "params")


class SchemaError(ValueError):
    """A results file or a bench JSON object that does not follow this schema."""


def run_key(row):
    """The identity of a run: (workload, spec, threads, run, params)."""
    return tuple(row[c] for c in KEY_COLUMNS)


def format_params(params):
    """{"cs_steps": "8"} -> "cs_steps=8" (sorted, space separated)."""
    return " ".join(f"{k}={params[k]}" for k in sorted(params))


def row_from_bench(obj, run, spec, params):
    """A typed row from one `locklab-bench --json` object plus the sweep's own columns."""
    missing = [k for k in REQUIRED_BENCH_KEYS if k not in obj]
    if missing:
        raise SchemaError(f"bench JSON lacks {', '.join(missing)}")
    row = {"run": run, "spec": spec, "params": params}
    for c in BENCH_COLUMNS:
        row[c] = obj.get(c)
    row["extras"] = {k: v for k, v in obj.items() if k not in row}
    return row


def _encode_number(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def encode_row(row):
    """Typed row -> {column: text} for csv.DictWriter."""
    out = {}
    for c in COLUMNS:
        v = row.get(c)
        if v is None:
            out[c] = ""
        elif c in LIST_COLUMNS:
            out[c] = " ".join(str(int(x)) for x in v)
        elif c == "extras":
            for k in v:
                if not k or " " in k or "=" in k:
                    raise SchemaError(f"extra key {k!r} cannot be stored (no spaces or '=')")
            out[c] = " ".join(f"{k}={_encode_number(v[k])}" for k in sorted(v))
        elif c in BOOL_COLUMNS or c in INT_COLUMNS or c in FLOAT_COLUMNS:
            out[c] = _encode_number(v)
        else:
            out[c] = str(v)
    return out


def _decode_extra(text):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return {"true": True, "false": False}.get(text, text)


def decode_row(fields, where):
    """{column: text} -> typed row; `where` names the line for error messages."""
    row = {}
    try:
        for c in COLUMNS:
            t = fields[c]
            if c == "extras":
                row[c] = {}
                for item in t.split():
                    k, _, v = item.partition("=")
                    row[c][k] = _decode_extra(v)
            elif t == "":
                row[c] = [] if c in LIST_COLUMNS else ("" if c in ("params", "topology") else None)
            elif c in INT_COLUMNS:
                row[c] = int(t)
            elif c in FLOAT_COLUMNS:
                row[c] = float(t)
            elif c in LIST_COLUMNS:
                row[c] = [int(x) for x in t.split()]
            elif c in BOOL_COLUMNS:
                if t not in ("true", "false"):
                    raise ValueError(f"{c} must be true or false, not {t!r}")
                row[c] = t == "true"
            else:
                row[c] = t
    except (ValueError, TypeError) as e:
        raise SchemaError(f"{where}: bad value ({e})") from None
    if row["run"] is None or row["threads"] is None or not row["workload"] or not row["spec"]:
        raise SchemaError(f"{where}: run, spec, workload and threads must not be empty")
    return row


def max_min_ratio(row):
    """max_min_ratio with the bench's null (a thread with no operation) read as infinity."""
    v = row["max_min_ratio"]
    return math.inf if v is None else v


def read_results(path):
    """All rows of a results.csv, typed.  A trailing partial line (the sweep was
    killed while writing it) is ignored; any other malformed line is an error."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError as e:
        raise SchemaError(f"{path}: not a text file ({e.reason} at byte {e.start})") from None
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    lines = text.splitlines(keepends=True)
    reader = csv.reader(lines)
    header = next(reader, None)
    if header != COLUMNS:
        raise SchemaError(f"{path}: header is not the locklab results schema (see python/locklab/schema.py)")
    rows = []
    for n, fields in enumerate(reader, start=2):
        if len(fields) != len(COLUMNS):
            raise SchemaError(f"{path}:{n}: {len(fields)} fields, expected {len(COLUMNS)}")
        rows.append(decode_row(dict(zip(COLUMNS, fields)), f"{path}:{n}"))
    return rows


class ResultsWriter:
    """Appends rows to a results.csv, one flushed line per run, so that an
    interrupted sweep leaves every completed run on disk.  Creates the file with
    its header; drops a trailing partial line left by a killed writer."""

    def __init__(self, path):
        self.path = path
        fresh = not os.path.exists(path) or os.path.getsize(path) == 0
        if not fresh:
            with open(path, "rb+") as f:
                data = f.read()
                if not data.endswith(b"\n"):
                    f.truncate(data.rfind(b"\n") + 1)
        self.file = open(path, "a", newline="")
        self.writer = csv.DictWriter(self.file, fieldnames=COLUMNS, lineterminator="\n")
        if fresh:
            self.writer.writeheader()
            self.file.flush()

    def append(self, row):
        self.writer.writerow(encode_row(row))
        self.file.flush()

    def close(self):
        self.file.close()
