"""Figures of `locklab model`: a model's curves (MODEL --plot F) and the
validation figure (model lines, measured points, one panel per comparison)."""

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

# model -> (x key, [(y key, label)], y label, log y)
CURVES = {
    "ticket": ("cores", [("throughput_ops_s", "ticket: service 1/(s + c k/2)")], "throughput (ops/s)", False),
    "queue": ("cores", [("throughput_ops_s", "queue lock: service 1/(s + c)")], "throughput (ops/s)", False),
    "erq": ("threads", [("queues_examined", "E(r,q), Equation 3.1")], "queues examined", False),
    "spinwait": ("cores", [(f"{p}_ops_s", p) for p in ("xchg", "read", "backoff", "queue")],
                 "throughput (ops/s)", False),
    "handover": ("threads", [(f"{p}_ops_s", p) for p in ("spin-fifo", "park-fifo", "barging", "spin-barging")],
                 "throughput (ops/s, log)", True),
    "machine": ("threads", [(f"{p}_ops_s", p) for p in ("fifo", "park-fifo", "barging", "spin-barging")],
                "throughput (ops/s, log)", True),
    "spinwait-machine": ("cores", [(f"{p}_ops_s", p) for p in ("xchg", "read", "backoff", "queue")],
                         "throughput (ops/s)", False),
}


def model_figure(model, rows, values, path):
    xkey, series, ylabel, logy = CURVES[model]
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    for key, label in series:
        pts = [(r[xkey], r[key]) for r in rows if r[key] is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o", markersize=3, label=label)
    if logy:
        ax.set_yscale("log")
    if model in ("handover", "machine"):
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xkey)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    text = f"locklab model {model}: " + ", ".join(f"{k}={v:g}" for k, v in values.items())
    ax.set_title("\n".join(textwrap.wrap(text, 100)), fontsize=8)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def validation_figure(points, path):
    groups = {}
    for p in points:
        groups.setdefault((p["comparison"], p["lock"]), []).append(p)
    cols = 3
    rows = max(1, (len(groups) + cols - 1) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), constrained_layout=True, squeeze=False)
    for ax, ((comparison, lock), pts) in zip(axes.flat, groups.items()):
        xs = [p["threads"] for p in pts]
        ax.plot(xs, [p["model"] for p in pts], marker="o", markersize=3, label="model")
        ax.plot(xs, [p["measured"] for p in pts], marker="s", markersize=3, linestyle="--", label="measured")
        ax.set_yscale("log")
        if max(xs) > 4:
            ax.set_xscale("log", base=2)
        ax.set_title(f"{comparison} vs {lock}", fontsize=9)
        ax.set_xlabel("threads")
        ax.set_ylabel(pts[0]["unit"], fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
