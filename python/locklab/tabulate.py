"""Runs interleaved, summarised and tabulated: the one way every driver orders
its runs, reduces them to a median with its min..max, and writes a Markdown
table (`locklab sweep`, `apps`, `advise`, `report`, `sim validate`; the
bench/*.py scripts and bench/manycore.sh).

  interleave(runs, *axes)   run 1 of every configuration, then run 2, ...: a
                            moment of machine noise (another job, a frequency
                            change) hits every configuration alike
  Spread(values)            median, min, max and count of the numbers among values
  ratios(a, b)              per-round ratios a/b of two interleaved series
  markdown_table(...)       a Markdown table, '|' in a cell escaped
  fairness_note(mm, vcsw)   'max/min M, vcsw/op V': the medians of a cell's per-run
                            fairness figures, each where it has numbers

Standard library only, and no other locklab module: the bench scripts import it
by path (sys.path gets the repository's python/), without the .venv.
"""

import itertools
import math
import statistics


def interleave(runs, *axes):
    """[(run, a, b, ...)]: run 1..runs outermost, then every combination of the
    axes with the last one varying fastest (run 1 of every configuration first)."""
    return [(r, *combo) for r in range(1, runs + 1) for combo in itertools.product(*axes)]


def _number(v):
    return isinstance(v, (int, float)) and not math.isnan(v)


def _formatter(fmt):
    """A callable from a callable or a str.format pattern ("{:.2f}x")."""
    return fmt if callable(fmt) else fmt.format


class Spread:
    """median, min, max and count (n) of the numbers among values: None, NaN and
    anything not a number are left out.  Without any number it is false, and
    median, min and max are NaN."""

    def __init__(self, values):
        values = sorted(v for v in values if _number(v))
        self.n = len(values)
        self.median = statistics.median(values) if values else math.nan
        self.min = values[0] if values else math.nan
        self.max = values[-1] if values else math.nan

    def __bool__(self):
        return self.n > 0

    def range(self, fmt):
        """'MIN..MAX' in fmt (a callable or a str.format pattern)."""
        f = _formatter(fmt)
        return f"{f(self.min)}..{f(self.max)}"

    def text(self, fmt, range_fmt=None, missing="-"):
        """'MEDIAN [MIN..MAX]'; the range in range_fmt when given; missing without numbers."""
        if not self:
            return missing
        return f"{_formatter(fmt)(self.median)} [{self.range(range_fmt or fmt)}]"


def ratios(a, b):
    """Per-round ratios a[r] / b[r] of two series of interleaved runs, in a's order:
    a and b map a round to its value (or are sequences, paired by position).  A
    round counts when both values are numbers and b's is not zero (a failed run:
    None)."""
    a = a if isinstance(a, dict) else dict(enumerate(a))
    b = b if isinstance(b, dict) else dict(enumerate(b))
    return [a[r] / b[r] for r in a if _number(a[r]) and _number(b.get(r)) and b[r] != 0]


def fairness_note(max_min, vcsw):
    """'max/min M, vcsw/op V' from the medians of the per-run max/min operations and
    voluntary context switches per operation; a part without numbers is left out,
    '' when both are."""
    mm, vc = Spread(max_min), Spread(vcsw)
    parts = ([f"max/min {mm.median:.2f}"] if mm else []) + ([f"vcsw/op {vc.median:.4f}"] if vc else [])
    return ", ".join(parts)


def markdown_table(header, rows, numeric=False):
    """The lines of a Markdown table, joined by newlines (no final one).  numeric:
    every column but the first right-aligned."""
    cell = lambda c: str(c).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "|".join("---:" if i and numeric else "---" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
