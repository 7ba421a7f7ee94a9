"""`locklab report DIR`: medians with min..max per (workload, lock, threads),
the papers' plots (plots.py), and one document written twice from the same
blocks: DIR/report.md and DIR/report.html (both embed DIR/WORKLOAD.png).
DIR/summary.csv holds the same statistics for other tools (columns: workload,
spec, threads, runs, then METRIC_median, METRIC_min, METRIC_max for every
metric of results.METRICS).  Prints a throughput table and the paths.
Simulated results (`sweep --sim MACHINE`) say "simulated on MACHINE" in the
title, the throughput headings, the plots and the terminal table.
On the directory bench/performance.py writes (performance.csv: glibc against
the interposer), the same documents hold its ratios to glibc (perfreport.py).
"""

import csv
import html
import json
import math
import os
import pathlib

from . import meta as metamod
from . import perfreport
from . import results
from .errors import UsageError
from .formatting import fmt_fixed, fmt_rate, fmt_small, fmt_value
from .tabulate import markdown_table


COMMAND = "report"
HELP = "tables, plots, report.md and report.html of a sweep"


def register(p):
    """Fills the parser that cli.build_parser made from COMMAND, HELP and the docstring."""
    p.add_argument("dir", metavar="DIR",
                   help="result directory written by `locklab sweep` (or by bench/performance.py)")
    p.set_defaults(func=run)


# Columns of the per-workload "all metrics" table: (heading, metric, formatter).
DETAIL_COLUMNS = [
    ("LWSS", "lwss", fmt_fixed(2)),
    ("MTTR", "mttr", fmt_fixed(1)),
    ("Gini", "gini", fmt_fixed(3)),
    ("RSTDDEV", "rstddev", fmt_fixed(3)),
    ("fairness factor", "fairness_factor", fmt_fixed(3)),
    ("max/min ops", "max_min_ratio", fmt_rate),
    ("vcsw/acq", "vcsw_per_op", fmt_small),
    ("ivcsw/acq", "ivcsw_per_op", fmt_small),
    ("CPU util", "cpu_util", fmt_fixed(2)),
]


# ---- the document: a list of blocks, rendered to Markdown and to HTML ----

def build_document(result, images):
    """Blocks: ("h1"|"h2"|"h3"|"p", text), ("img", file, alt), ("table", header, rows, numeric):
    a numeric table right-aligns every column but the first."""
    m = result.meta
    sim = metamod.simulated_machine(m)
    doc = [("h1", title(result))]
    if sim:
        model = m.get("machine_model") or {}
        doc.append(("p", f"Simulated, not measured: every run was done by locklab-sim on the machine model {sim} "
                         "(docs/simulator.md); throughput is per simulated second."))
        doc.append(("table", ["simulated machine", ""], [["machine (--sim)", sim]] +
                    [[str(k), json.dumps(v) if isinstance(v, (dict, list)) else str(v)] for k, v in model.items()],
                    False))
        doc.append(("p", f"The simulator ran on {metamod.machine_line(dict(m, simulated=False))}."))
    elif m:
        doc.append(("p", f"Measured on {metamod.machine_line(m)}."))
        doc.append(("table", ["machine", ""], [
            ["CPU", m.get("cpu_model", "?")], ["CPUs", str(m.get("cpus", "?"))], ["kernel", m.get("kernel", "?")],
            ["C library", m.get("glibc", "?")], ["compiler", m.get("compiler", "?")],
            ["locklab revision", m.get("git_revision", "?")], ["date (UTC)", m.get("date", "?")],
            ["command", m.get("command", "?")]], False))
    else:
        doc.append(("p", "Machine unknown: the directory has no meta.json."))
    doc.append(("p", "Every number is the median of the runs with [min..max] over runs; runs were interleaved "
                     "(run 1 of every configuration, then run 2, ...). Throughput is operations per second over "
                     "all threads; per-acquisition context switches are vcsw/ops and ivcsw/ops."))
    for w in result.workloads():
        specs, threads = result.specs(w), result.threads(w)
        params = ", ".join(p or "defaults" for p in result.params(w))
        doc.append(("h2", f"{w} (parameters: {params})"))
        doc.append(("img", images[w], f"{w}: throughput, LWSS, fairness factor and context switches vs threads"))
        doc.append(("h3", f"Throughput (ops/s, {metamod.source_label(m)}), median [min..max]"))
        rows = []
        for t in threads:
            row = [str(t)]
            for s in specs:
                runs = list(result.runs(w, s, t).values())
                row.append(results.summarize(runs, "throughput_ops_s").text(fmt_rate))
            rows.append(row)
        doc.append(("table", ["threads"] + specs, rows, True))
        doc.append(("h3", "Fairness and cost, medians"))
        rows = [[s, str(t), str(len(runs))] +
                [fmt(results.summarize(runs, metric).median) for _, metric, fmt in DETAIL_COLUMNS]
                for s, t, runs in result.configurations(w)]
        doc.append(("table", ["lock", "threads", "runs"] + [h for h, _, _ in DETAIL_COLUMNS], rows, True))
        extras = result.extra_names(w)
        if extras:
            doc.append(("h3", f"{w}'s own results, medians"))
            rows = [[s, str(t)] + [fmt_value(results.summarize_extra(runs, x).median) for x in extras]
                    for s, t, runs in result.configurations(w)]
            doc.append(("table", ["lock", "threads"] + extras, rows, True))
    return doc


def title(result):
    sim = metamod.simulated_machine(result.meta)
    return f"locklab report: {result.path.name}" + (f" (simulated on {sim})" if sim else "")


def to_markdown(doc):
    out = []
    for block in doc:
        kind = block[0]
        if kind in ("h1", "h2", "h3"):
            out.append("#" * int(kind[1]) + " " + block[1])
        elif kind == "p":
            out.append(block[1])
        elif kind == "img":
            out.append(f"![{block[2]}]({block[1]})")
        elif kind == "table":
            out.append(markdown_table(*block[1:]))
        out.append("")
    return "\n".join(out)


def to_html(doc, title):
    e = html.escape
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">", f"<title>{e(title)}</title>",
           "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .5em}"
           "table.numeric td:not(:first-child){text-align:right;font-variant-numeric:tabular-nums}"
           "img{max-width:100%}</style>", "</head><body>"]
    for block in doc:
        kind = block[0]
        if kind in ("h1", "h2", "h3", "p"):
            out.append(f"<{kind}>{e(block[1])}</{kind}>")
        elif kind == "img":
            out.append(f"<p><img src=\"{e(block[1])}\" alt=\"{e(block[2])}\"></p>")
        elif kind == "table":
            css_class = ' class="numeric"' if block[3] else ""
            out.append(f"<table{css_class}><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in block[1]) +
                       "</tr></thead><tbody>")
            out.extend("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in block[2])
            out.append("</tbody></table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_summary_csv(result, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["workload", "spec", "threads", "runs"] +
                   [f"{m}_{s}" for m in results.METRICS for s in ("median", "min", "max")])
        for entry in results.summary_table(result):
            cells = [entry["workload"], entry["spec"], entry["threads"], entry["runs"]]
            for m in results.METRICS:
                s = entry["metrics"][m]
                cells += ["" if math.isnan(v) else repr(v) for v in (s.median, s.min, s.max)]
            w.writerow(cells)


def terminal_table(result):
    """Median throughput, threads down, locks across, per workload."""
    lines = []
    for w in result.workloads():
        specs = result.specs(w)
        width = max(10, *(len(s) + 1 for s in specs))
        sim = metamod.simulated_machine(result.meta)
        lines.append(f"{w}: median ops/s" + (f", simulated on {sim}" if sim else ""))
        lines.append(f"{'threads':>7}" + "".join(f"{s:>{width}}" for s in specs))
        for t in result.threads(w):
            cells = []
            for s in specs:
                runs = list(result.runs(w, s, t).values())
                cells.append(fmt_rate(results.summarize(runs, "throughput_ops_s").median) if runs else "-")
            lines.append(f"{t:>7}" + "".join(f"{c:>{width}}" for c in cells))
        lines.append("")
    return "\n".join(lines)


def run(args):
    from . import plots  # matplotlib loads only when a report is drawn, not for every locklab command

    path = pathlib.Path(args.dir)
    if perfreport.is_performance_dir(path):
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"cannot write the report into '{path}': the directory is not writable "
                             "(valid: a result directory you may write; copy it elsewhere first)")
        return perfreport.run(path, to_markdown, to_html)
    result = results.ResultDir(args.dir)
    if not os.access(result.path, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write the report into '{result.path}': the directory is not writable "
                         "(valid: a result directory you may write; copy it elsewhere first)")
    images = {}
    try:
        for w in result.workloads():
            images[w] = f"{w}.png"
            plots.workload_figure(result, w, result.path / images[w])
        doc = build_document(result, images)
        (result.path / "report.md").write_text(to_markdown(doc))
        (result.path / "report.html").write_text(to_html(doc, title(result)))
        write_summary_csv(result, result.path / "summary.csv")
    except OSError as e:
        raise UsageError(f"cannot write the report into '{result.path}': {e.filename}: {e.strerror}") from None
    print(terminal_table(result))
    for name in ["report.md", "report.html", "summary.csv"] + [images[w] for w in result.workloads()]:
        print(result.path / name)
    return 0
