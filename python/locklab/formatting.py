"""How numbers are shown in reports, terminal tables and comparisons."""

import math


def fmt_rate(x):
    """Three significant digits with a k/M/G suffix: 18.7M, 2.00M, 132k, 999."""
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf"
    x = float(f"{x:.3g}")  # round first, so that 999999 becomes 1.00M, not 1000k
    div, suffix = next(((d, s) for d, s in ((1e9, "G"), (1e6, "M"), (1e3, "k")) if abs(x) >= d), (1, ""))
    v = x / div
    decimals = max(0, 2 - int(math.floor(math.log10(abs(v))))) if v else 2
    return f"{v:.{decimals}f}{suffix}"


def fmt_fixed(decimals):
    def f(x):
        if x is None or math.isnan(x):
            return "-"
        return "inf" if math.isinf(x) else f"{x:.{decimals}f}"
    return f


def fmt_small(x):
    """Per-acquisition rates: three significant digits."""
    if x is None or math.isnan(x):
        return "-"
    return "inf" if math.isinf(x) else f"{x:.3g}"


def fmt_value(x):
    """A workload's own result: whole numbers as such (2048), others to four significant digits."""
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf"
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:.4g}"
