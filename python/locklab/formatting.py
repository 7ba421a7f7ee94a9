"""How numbers are shown in reports, terminal tables and comparisons: every
formatter shows None and NaN (no value) as '-' and an infinity as 'inf'."""

import functools
import math


def _finite(fmt):
    """fmt for a finite number; '-' for None and NaN, 'inf' for +-infinity."""
    @functools.wraps(fmt)
    def f(x):
        if x is None or math.isnan(x):
            return "-"
        return "inf" if math.isinf(x) else fmt(x)
    return f


@_finite
def fmt_rate(x):
    """Three significant digits with a k/M/G suffix: 18.7M, 2.00M, 132k, 999."""
    x = float(f"{x:.3g}")  # round first, so that 999999 becomes 1.00M, not 1000k
    div, suffix = next(((d, s) for d, s in ((1e9, "G"), (1e6, "M"), (1e3, "k")) if abs(x) >= d), (1, ""))
    v = x / div
    decimals = max(0, 2 - int(math.floor(math.log10(abs(v))))) if v else 2
    return f"{v:.{decimals}f}{suffix}"


def fmt_fixed(decimals):
    return _finite(lambda x: f"{x:.{decimals}f}")


@_finite
def fmt_small(x):
    """Per-acquisition rates: three significant digits."""
    return f"{x:.3g}"


@_finite
def fmt_value(x):
    """A workload's own result: whole numbers as such (2048), others to four significant digits."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:.4g}"
