"""`locklab report DIR` on the directory `bench/performance.py` writes (glibc against
locklab's locks through the interposer): DIR/performance.csv holds one line per run
(row, lock, run, value, max_min, vcsw_per_op; value: higher is better; "failed" for a
run that did not finish), DIR/uncontended.csv the uncontended pair (lock, interposed
ns, glibc ns, ratio and its min..max), DIR/meta.json the machine.

The report: per row and lock, the median of the per-run ratios to glibc's run of
the same round (runs are interleaved, so a round's noise hits both; a round counts
when both runs finished, a value of 0 included, as bench/performance.py's own table
counts it: tabulate.ratios), with min..max,
the median per-thread max/min and voluntary context switches per operation where
the program reports them.  DIR/performance.png draws the ratios (log scale, one
group of bars per row, error bars = min..max, a line at 1 = glibc);
DIR/report.md and DIR/report.html carry the same tables (report.py's renderers).
"""

import csv
import json

from . import meta as metamod
from . import tabulate
from .errors import UsageError
from .tabulate import Spread

CSV = "performance.csv"
UNCONTENDED_CSV = "uncontended.csv"
BASELINE = "glibc"


def is_performance_dir(path):
    return (path / CSV).exists() and not (path / "results.csv").exists()


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def load(path):
    """{(row, lock): {run: value or None}}, {(row, lock): {run: (max_min, vcsw)}}, rows and locks in file order."""
    values, extras, rows, locks = {}, {}, [], []
    try:
        with open(path / CSV, newline="") as f:
            reader = csv.DictReader(f)
            missing = {"row", "lock", "run", "value"} - set(reader.fieldnames or [])
            if missing:
                raise UsageError(f"{path / CSV}: not a bench/performance.py table (missing column "
                                 f"'{sorted(missing)[0]}'; valid columns: row, lock, run, value, max_min, vcsw_per_op)")
            for line in reader:
                row, lock, run = line["row"], line["lock"], line["run"]
                if row not in rows:
                    rows.append(row)
                if lock not in locks:
                    locks.append(lock)
                values.setdefault((row, lock), {})[run] = _float(line["value"])
                extras.setdefault((row, lock), {})[run] = (_float(line.get("max_min")), _float(line.get("vcsw_per_op")))
    except OSError as e:
        raise UsageError(f"cannot read {path / CSV}: {e.strerror}") from None
    if not values:
        raise UsageError(f"{path / CSV} holds no runs yet")
    if BASELINE not in locks:
        raise UsageError(f"{path / CSV} has no '{BASELINE}' runs: every ratio is to glibc")
    return values, extras, rows, [lk for lk in locks if lk != BASELINE]


def ratios(values, row, lock):
    """Spread of the per-round ratios of lock to glibc (rounds where both finished)."""
    return Spread(tabulate.ratios(values.get((row, lock), {}), values.get((row, BASELINE), {})))


def cell(values, extras, row, lock):
    rs = ratios(values, row, lock)
    if not rs:
        return "failed"
    text = rs.text("{:.2f}x", "{:.2f}")
    failed = sum(1 for v in values.get((row, lock), {}).values() if v is None)
    runs = extras.get((row, lock), {}).values()
    note = tabulate.fairness_note([e[0] for e in runs], [e[1] for e in runs])
    if note:
        text += ", " + note
    return text + (f" ({failed} failed)" if failed else "")


def load_uncontended(path):
    try:
        with open(path / UNCONTENDED_CSV, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def build_document(path, values, extras, rows, locks, meta, image):
    doc = [("h1", "glibc against locklab through the interposer (bench/performance.py)")]
    doc.append(("p", f"Measured on {metamod.machine_line(meta)}." if meta else
                "Machine unknown: the directory has no meta.json."))
    if meta.get("command"):
        doc.append(("p", f"Command: {meta['command']}"))
    doc.append(("p", "Each cell: the median of the per-round ratios to glibc's run in the same round (higher is "
                     "better), [min..max] over rounds, then the median per-thread max/min operations and "
                     "voluntary context switches per operation where the program reports them. "
                     "`default` is the interposer with LOCKLAB_LOCK unset."))
    doc.append(("img", image, "ratio to glibc per row and lock"))
    table = []
    for row in rows:
        base = Spread(values.get((row, BASELINE), {}).values())
        table.append([row, base.text("{:.4g}", "{:.3g}", missing="failed")] +
                     [cell(values, extras, row, lk) for lk in locks])
    doc.append(("table", ["row", "glibc (its figure)"] + locks, table, True))
    unc = load_uncontended(path)
    if unc:
        doc.append(("h2", "Uncontended lock+unlock pair"))
        doc.append(("p", "bench_uncontended: the interposed pair against glibc's own functions in the same "
                         "process, medians of interleaved rounds; a ratio below 1 is faster than glibc."))
        doc.append(("table", ["lock", "interposed ns", "glibc ns", "ratio [min..max]"],
                    [[u["lock"], u["ours_ns"], u["glibc_ns"], f"{u['ratio']}x [{u['lo']}..{u['hi']}]"] for u in unc],
                    True))
    return doc


def figure(values, rows, locks, meta, out):
    from . import plots  # noqa: F401  (selects matplotlib's Agg backend)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(8.0, 0.75 * len(rows) + 2), 5.5), constrained_layout=True)
    width = 0.8 / max(1, len(locks))
    for i, lock in enumerate(locks):
        xs, med, lo, hi = [], [], [], []
        for j, row in enumerate(rows):
            rs = ratios(values, row, lock)
            if rs:
                xs.append(j + (i - (len(locks) - 1) / 2) * width)
                med.append(rs.median)
                lo.append(rs.median - rs.min)
                hi.append(rs.max - rs.median)
        ax.bar(xs, med, width, yerr=[lo, hi], capsize=2, label=lock)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(rows, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("throughput ratio to glibc (log; 1 = glibc)")
    ax.legend(fontsize=8)
    ax.set_title("glibc against locklab through the interposer: median of per-round ratios, bars = min..max")
    fig.text(0.5, -0.01, metamod.machine_line(meta) if meta else "machine unknown (no meta.json)", ha="center",
             va="top", fontsize=7)
    fig.savefig(out, dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def run(path, to_markdown, to_html):
    values, extras, rows, locks = load(path)
    try:
        meta = json.loads((path / "meta.json").read_text())
    except (OSError, ValueError):
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    image = "performance.png"
    try:
        figure(values, rows, locks, meta, path / image)
        doc = build_document(path, values, extras, rows, locks, meta, image)
        title = "glibc against locklab through the interposer"
        (path / "report.md").write_text(to_markdown(doc))
        (path / "report.html").write_text(to_html(doc, title))
    except OSError as e:
        raise UsageError(f"cannot write the report into '{path}': {e.filename}: {e.strerror}") from None
    width = max(len(r) for r in rows)
    print(f"{'row':<{width}}  " + "  ".join(f"{lk:>14}" for lk in locks))
    for row in rows:
        cells = []
        for lk in locks:
            rs = ratios(values, row, lk)
            cells.append(f"{rs.median:>13.2f}x" if rs else f"{'failed':>14}")
        print(f"{row:<{width}}  " + "  ".join(cells))
    for name in ("report.md", "report.html", image):
        print(path / name)
    return 0
