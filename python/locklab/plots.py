"""Plots in the papers' style (Malthusian Locks Fig. 3-5, TWA Fig. 2): metric
vs thread count on a log2 x-axis, one line per lock, the median of the runs
with min..max as error bars.  One PNG per workload with four panels:
throughput, LWSS, fairness factor and voluntary context switches per
acquisition.  The title names the workload (and "simulated on MACHINE" for
simulated results), the footer the machine.
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import FixedLocator, NullLocator  # noqa: E402

from . import meta as metamod  # noqa: E402
from . import results  # noqa: E402

PANELS = [
    ("throughput_ops_s", "throughput (ops/s, log scale)", "log"),
    ("lwss", "LWSS (threads per 1000 admissions)", "linear"),
    ("fairness_factor", "fairness factor (0.5 fair .. 1)", "linear"),
    ("vcsw_per_op", "voluntary ctx switches / acquisition", "symlog"),
]


def workload_figure(result, workload, path):
    """Write the four-panel figure of one workload to `path` (PNG)."""
    threads = result.threads(workload)
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), constrained_layout=True)
    markers = "os^vD<>phx*+"
    for ax, (metric, label, scale) in zip(axes.flat, PANELS):
        for i, spec in enumerate(result.specs(workload)):
            xs, med, lo, hi = [], [], [], []
            for t in threads:
                runs = list(result.runs(workload, spec, t).values())
                s = results.summarize(runs, metric) if runs else None
                if s is None or math.isnan(s.median) or math.isinf(s.median) or (scale == "log" and s.median <= 0):
                    continue
                xs.append(t)
                med.append(s.median)
                lo.append(s.median - s.min)
                hi.append(s.max - s.median)
            if xs:
                ax.errorbar(xs, med, yerr=[lo, hi], marker=markers[i % len(markers)], markersize=4, capsize=2,
                            linewidth=1.2, label=spec)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(threads))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([str(t) for t in threads])
        if scale == "symlog":
            ax.set_yscale("symlog", linthresh=1e-4)  # linear near 0 (no switches), logarithmic above
            ax.set_ylim(bottom=0)
        elif scale == "log":
            ax.set_yscale("log")
        ax.set_xlabel("threads")
        ax.set_ylabel(label)
        ax.grid(True, which="major", alpha=0.3)
    axes.flat[0].legend(fontsize=8, ncol=2)
    runs = max(len(result.runs(workload, s, t)) for s in result.specs(workload) for t in threads)
    sim = metamod.simulated_machine(result.meta)
    fig.suptitle(f"{workload}{f' (simulated on {sim})' if sim else ''}: median of {runs} interleaved runs, "
                 "bars = min..max")
    fig.text(0.5, -0.01, metamod.machine_line(result.meta) if result.meta else "machine unknown (no meta.json)",
             ha="center", va="top", fontsize=7)
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)


def validation_figure(points, tolerance, machine, path):
    """`locklab sim validate`: simulated against measured ratio per (label, measured,
    simulated) point, log-log, with the diagonal and the +-tolerance band."""
    pts = [(label, m, s) for label, m, s in points if m > 0 and s > 0 and not math.isinf(m) and not math.isinf(s)]
    fig, ax = plt.subplots(figsize=(7, 7), constrained_layout=True)
    if pts:
        lo = min(min(m, s) for _, m, s in pts) / 1.5
        hi = max(max(m, s) for _, m, s in pts) * 1.5
        xs = [lo, hi]
        ax.plot(xs, xs, color="black", linewidth=1, label="simulated = measured")
        ax.fill_between(xs, [x * (1 - tolerance) for x in xs], [x * (1 + tolerance) for x in xs], color="green",
                        alpha=0.15, label=f"+-{tolerance:.0%}")
        ax.scatter([m for _, m, _ in pts], [s for _, _, s in pts], s=14)
        for label, m, s in pts:
            ax.annotate(label, (m, s), fontsize=6, xytext=(3, 3), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    ax.set_xlabel("measured throughput ratio (lock / baseline)")
    ax.set_ylabel(f"simulated on {machine}")
    ax.set_title("locklab sim validate: throughput ratios, simulated vs measured")
    ax.grid(True, which="major", alpha=0.3)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
