"""A result directory (results.csv + meta.json) and its summary statistics:
per (workload, spec, threads) the median, min and max over runs of each metric.

Metrics summarised (name: what it is, from the bench's columns):
  throughput_ops_s  operations per second (all threads)
  lwss              long-term working-set size: distinct threads per 1000 admissions (Malthusian locks §6)
  mttr              median number of admissions between a thread's consecutive admissions
  gini              Gini coefficient of per-thread operations (0 = equal)
  rstddev           relative standard deviation of per-thread operations (Malthusian locks §6, Fig. 4)
  fairness_factor   share of operations done by the busier half of the threads (CNA §7; 0.5 fair .. 1)
  max_min_ratio     most / fewest operations of one thread (inf when a thread did none)
  vcsw_per_op       voluntary context switches per acquisition (vcsw / ops): parking
  ivcsw_per_op      involuntary context switches per acquisition (ivcsw / ops): preemption
  cpu_util          CPU seconds per wall-clock second
  ns_per_pair       ns per acquire+release pair (the `uncontended` workload only)
"""

import json
import math
from pathlib import Path

from . import schema
from .errors import UsageError
from .tabulate import Spread

METRICS = {
    "throughput_ops_s": lambda r: r["throughput_ops_s"],
    "lwss": lambda r: r["lwss"],
    "mttr": lambda r: r["mttr"],
    "gini": lambda r: r["gini"],
    "rstddev": lambda r: r["rstddev"],
    "fairness_factor": lambda r: r["fairness_factor"],
    "max_min_ratio": schema.max_min_ratio,
    "vcsw_per_op": lambda r: r["vcsw"] / r["ops"] if r["ops"] else math.nan,
    "ivcsw_per_op": lambda r: r["ivcsw"] / r["ops"] if r["ops"] else math.nan,
    "cpu_util": lambda r: r["cpu_util"],
    "ns_per_pair": lambda r: r["ns_per_pair"],
}


class ResultDir:
    """rows (typed, schema.py) and meta (dict, {} when meta.json is missing) of one sweep."""

    def __init__(self, path):
        self.path = Path(path)
        csv_path = self.path / "results.csv"
        if not csv_path.is_file():
            raise UsageError(f"'{path}' is not a result directory (no results.csv; make one with `locklab sweep`)")
        try:
            self.rows = schema.read_results(csv_path)
        except schema.SchemaError as e:
            raise UsageError(str(e)) from None
        if not self.rows:
            raise UsageError(f"{csv_path} holds no runs yet")
        meta_path = self.path / "meta.json"
        try:
            self.meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            raise UsageError(f"{meta_path} is unreadable ({e})") from None
        if not isinstance(self.meta, dict):
            raise UsageError(f"{meta_path} is not a JSON object (it should be the sweep's meta.json)")

    def workloads(self):
        return _ordered(r["workload"] for r in self.rows)

    def specs(self, workload=None):
        return _ordered(r["spec"] for r in self.rows if workload in (None, r["workload"]))

    def threads(self, workload=None):
        return sorted({r["threads"] for r in self.rows if workload in (None, r["workload"])})

    def params(self, workload):
        return _ordered(r["params"] for r in self.rows if r["workload"] == workload)

    def extra_names(self, workload):
        """The workload's own numeric results (the CSV's extras column), e.g. an LRU hit rate."""
        return _ordered(k for r in self.rows if r["workload"] == workload for k, v in r["extras"].items()
                        if isinstance(v, (int, float)) and not isinstance(v, bool))

    def runs(self, workload, spec, threads):
        """{run index: row} of one configuration."""
        return {r["run"]: r for r in self.rows
                if r["workload"] == workload and r["spec"] == spec and r["threads"] == threads}

    def configurations(self, workload):
        """(spec, threads, [row of each run]) of every configuration of workload that ran, spec by spec."""
        for s in self.specs(workload):
            for t in self.threads(workload):
                runs = list(self.runs(workload, s, t).values())
                if runs:
                    yield s, t, runs


def _ordered(values):
    """Distinct values in order of first appearance (the sweep's own order)."""
    seen = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def summarize(rows, metric):
    return Spread(METRICS[metric](r) for r in rows)


def summarize_extra(rows, name):
    return Spread(r["extras"].get(name) for r in rows)


def summary_table(result):
    """One dict per (workload, spec, threads): the Spread of every metric and the run count."""
    return [{"workload": w, "spec": s, "threads": t, "runs": len(rows),
             "metrics": {m: summarize(rows, m) for m in METRICS}}
            for w in result.workloads() for s, t, rows in result.configurations(w)]
