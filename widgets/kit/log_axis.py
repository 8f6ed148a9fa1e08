"""A log axis whose labels never pile up. pyqtgraph labels every minor tick of a log axis
(2..9 of each decade) when fewer than three decades show: on a tall plot that fills the
text budget it checks, yet 8·10¹ and 9·10¹ sit a few pixels apart and overprint (Plan's
p99 TTFT after a sweep). TidyLogAxis keeps only the minor ticks the axis has room for,
with at least a line of text between neighbours."""
from __future__ import annotations

import math

import pyqtgraph as pg

# Minor mantissas by how many labels a decade has room for, densest first: each set is
# spread so that its closest pair (in log units) is as far apart as the set allows.
MINOR_SETS = ((2, 3, 4, 5, 6, 7, 8, 9), (2, 3, 5), (2, 5), (3,))
GAP_LINES = 1.6  # labels at least this many text heights apart (a vertical axis)
GAP_CHARS = 7  # ... or this many average characters (a horizontal one: "3·10¹" and a space)


def _closest(mantissas: tuple[int, ...]) -> float:
    """The smallest distance, in decades, between neighbouring ticks of a decade with these
    minor mantissas (the decades' own ticks included)."""
    marks = [0.0, *(math.log10(m) for m in mantissas), 1.0]
    return min(b - a for a, b in zip(marks, marks[1:]))


class TidyLogAxis(pg.AxisItem):
    def logTickValues(self, minVal, maxVal, size, stdTicks):
        ticks = [(spacing, t) for spacing, t in stdTicks if spacing >= 1.0]
        if len(ticks) >= 3 or maxVal <= minVal or size <= 0:
            return ticks
        metrics = pg.QtGui.QFontMetricsF(self.style.get("tickFont") or self.font())
        vertical = self.orientation in ("left", "right")
        room = GAP_LINES * metrics.height() if vertical else GAP_CHARS * metrics.averageCharWidth()
        per_decade = size / (maxVal - minVal)  # pixels
        chosen = next((m for m in MINOR_SETS if _closest(m) * per_decade >= room), ())
        minor = [v + math.log10(m) for v in range(math.floor(minVal), math.ceil(maxVal)) for m in chosen]
        ticks.append((None, [x for x in minor if minVal < x < maxVal]))
        return ticks


def tidy_log_axis(plot: pg.PlotItem, side: str) -> TidyLogAxis:
    """Replace plot's axis on `side` by a TidyLogAxis with the same label and pens; call it
    before plot.setLogMode (the plot hands its log mode to the axes it has then)."""
    old = plot.getAxis(side)
    axis = TidyLogAxis(orientation=side)
    text, units, auto_si = old.labelText, old.labelUnits, old.autoSIPrefix
    text_pen, pen = old.textPen(), old.pen()
    plot.setAxisItems({side: axis})
    axis.setPen(pen)
    axis.setTextPen(text_pen)
    axis.enableAutoSIPrefix(auto_si)
    if text or units:
        axis.setLabel(text, units=units or None)
    return axis
