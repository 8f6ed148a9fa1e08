"""`lab fidelity --plot FILE.png`: measured vs predicted, one scatter per metric with the
y = x line, each run a point coloured by its regime, drawn with the lab's own pyqtgraph
look (widgets/kit/theme.py) offscreen and written atomically (widgets/kit/export.py).

Latencies and throughput on log axes (runs at different loads span decades; drawn as log10
with plain-number ticks), the counters (preemptions, hit rate) on linear ones (they may be
0). Dotted lines mark ±BAND around y = x; with few runs each point is named. Each panel's title carries the
median |error| over the runs, so the picture reads without the table. Qt is loaded only
here, only when a plot is asked for.
"""
from __future__ import annotations

import math
import os

import numpy as np

from lab.cli import has_display

# In this order: the medians on the first row, the p90s on the second, the rest after.
TITLES = {"median_ttft_ms": "median TTFT (ms)", "median_tpot_ms": "median TPOT (ms)",
          "median_itl_ms": "median ITL (ms)", "median_e2el_ms": "median E2E (ms)",
          "p90_ttft_ms": "p90 TTFT (ms)", "p90_tpot_ms": "p90 TPOT (ms)",
          "p90_itl_ms": "p90 ITL (ms)", "p90_e2el_ms": "p90 E2E (ms)",
          "output_throughput": "output throughput (tok/s)", "preemptions": "preemptions",
          "prefix_cache_hit_rate": "prefix-cache hit rate (%)"}
SCALE = {"prefix_cache_hit_rate": 100.0}  # a share drawn in %
REGIME_COLORS = {"low load": "prefill", "saturated": "backlog"}  # theme colour names
LINEAR = ("preemptions", "prefix_cache_hit_rate")
COLUMNS = 4
BAND = 0.3  # the dotted lines: ±30%, the bar for a prediction on a held-out load
MAX_LABELS = 8  # runs named beside their points up to this many
PANEL_PX = (400, 330)
_SHOWN: list = []


def write_plot(report: dict, path: str) -> str:
    """Render the report's scatter grid to path (PNG, SVG or PDF by suffix); returns it."""
    if not has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from lab.app import application  # lazy: Qt, which no other part of the command needs
    from widgets.kit.export import check_target, write_widget

    check_target(path)  # a bad path is refused before anything is drawn
    app = application()
    widget = _figure(report)
    widget.show()
    for _ in range(5):  # let the layout and the plots settle, as lab snapshot does
        app.processEvents()
    write_widget(widget, path)
    widget.close()
    _SHOWN.append(widget)  # freed with the application at exit, not before it (pyqtgraph crashes otherwise)
    return path


def _figure(report: dict):
    import pyqtgraph as pg

    from widgets.kit.theme import COLORS, setup_pyqtgraph

    setup_pyqtgraph()
    metrics = [m for m in TITLES if any(m in r["metrics"] for r in report["runs"])]
    rows = math.ceil(len(metrics) / COLUMNS)
    view = pg.GraphicsLayoutWidget()
    view.setBackground(COLORS["paper"])
    view.resize(PANEL_PX[0] * min(COLUMNS, len(metrics)), PANEL_PX[1] * rows + 90)
    n = len(report["runs"])
    regimes = [g for g in REGIME_COLORS if any(r["regime"] == g for r in report["runs"])]
    key = "  ".join(f"<span style='color:{COLORS[REGIME_COLORS[g]]}'>&#9679;</span> {g}" for g in regimes)
    bars = f" Bars: p5-p95 over {report['band_samples']} coefficient sets." if report.get("band_samples") else ""
    if any(r.get("held_out") is False for r in report["runs"]):
        bars += " Hollow: a run the profile was fitted on."
    head = (f"<b>lab fidelity</b>: {n} measured run{'s' if n != 1 else ''}, predicted vs measured. {key}<br>"
            f"<span style='font-size:11pt'>Dashed: y = x (exact); dotted: &plusmn;{BAND:.0%}.{bars}</span>")
    view.addLabel(head, row=0, col=0, colspan=COLUMNS, color=COLORS["ink"], size="13pt")
    for i, metric in enumerate(metrics):
        plot = view.addPlot(row=1 + i // COLUMNS, col=i % COLUMNS)
        _panel(plot, report, metric, pg, COLORS)
    return view


def _panel(plot, report: dict, metric: str, pg, colors) -> None:
    from widgets.kit.theme import pen

    log = metric not in LINEAR
    k = SCALE.get(metric, 1.0)
    points = [(r["metrics"][metric]["measured"] * k, r["metrics"][metric]["predicted"] * k, r["regime"], r["run"],
               {e: v * k for e, v in r["metrics"][metric]["band"].items()} if "band" in r["metrics"][metric] else None,
               r.get("held_out") is False) for r in report["runs"] if metric in r["metrics"]]
    if log:
        points = [p for p in points if p[0] > 0 and p[1] > 0 and (p[4] is None or p[4]["p5"] > 0)]
    _frame(plot, metric, report["summary"].get(metric, {}).get("all"), colors)
    if not points:
        return
    f = math.log10 if log else float
    values = [v for p in points for v in p[:2]] + [p[4][k] for p in points if p[4] for k in ("p5", "p95")]
    lo, hi = f(min(values)), f(max(values))
    if log:
        pad = max((hi - lo) * 0.12, 0.08)
        lo, hi = lo - pad, hi + pad
    else:  # counters: from 0 (none below) to a little above the largest, 1 when all are 0
        hi = hi * 1.15 if hi > 0 else 1.0
        lo = min(lo * 1.15, 0.0) - 0.05 * (hi - min(lo, 0.0))
    plot.plot([lo, hi], [lo, hi], pen=pen("muted", 1.5, dashed=True))
    for m in (1 - BAND, 1 + BAND):  # the acceptance band around y = x
        ys = [x + math.log10(m) for x in (lo, hi)] if log else [x * m for x in (lo, hi)]
        plot.plot([lo, hi], ys, pen=pg.mkPen(colors["muted"], width=1, style=_dot()))
    banded = [p for p in points if p[4]]
    if banded:  # the prediction's p5 - p95 over the profile's coefficient sets
        x = np.array([f(p[0]) for p in banded])
        top = np.array([f(p[4]["p95"]) for p in banded])
        bottom = np.array([f(p[4]["p5"]) for p in banded])
        mid = (top + bottom) / 2
        plot.addItem(pg.ErrorBarItem(x=x, y=mid, top=top - mid, bottom=mid - bottom, beam=0.02 * (hi - lo),
                                     pen=pen("ink", 1.2)))
    _markers(plot, points, f)
    if len(points) <= MAX_LABELS:
        _labels(plot, points, f, (lo + hi) / 2, pg, colors)
    plot.setXRange(lo, hi, padding=0)
    plot.setYRange(lo, hi, padding=0)
    if log:
        ticks = _log_ticks(lo, hi)
        for axis in ("left", "bottom"):
            plot.getAxis(axis).setTicks([ticks, []])


def _frame(plot, metric: str, summary: dict | None, colors) -> None:
    """The panel's title (with the median and worst |error|), labels and axes."""
    title = f"<b>{TITLES[metric]}</b>"
    if summary is not None and "median_abs_error" in summary:
        unit = " pts" if summary["unit"] == "points" else "%"
        title += (f"<br><span style='font-size:10pt'>median |error| {_pct(summary['median_abs_error'])}{unit}, "
                  f"worst {_pct(summary['worst_abs_error'])}{unit} ({summary['worst_run']})</span>")
    plot.setTitle(title, color=colors["ink"], size="12pt")
    plot.showGrid(x=True, y=True, alpha=0.2)
    plot.setLabel("bottom", "measured", color=colors["muted"])
    plot.setLabel("left", "predicted", color=colors["muted"])
    plot.setMenuEnabled(False)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).setTextPen(colors["ink"])
        plot.getAxis(axis).enableAutoSIPrefix(False)  # plain numbers, never "(x0.001)"


def _markers(plot, points, f) -> None:
    """One marker per run in its regime's colour; a run the profile was fitted on is hollow
    (its point is a fit, not a prediction)."""
    from widgets.kit.theme import brush, pen

    for regime, kind in REGIME_COLORS.items():
        for fitted in (False, True):
            mine = [p for p in points if p[2] == regime and p[5] == fitted]
            if mine:
                plot.plot([f(p[0]) for p in mine], [f(p[1]) for p in mine], pen=None, symbol="o", symbolSize=12,
                          symbolBrush=brush("paper", 255) if fitted else brush(kind, 220),
                          symbolPen=pen(kind, 2.5) if fitted else pen("ink", 1.0))


def _labels(plot, points, f, middle: float, pg, colors) -> None:
    """Runs at one spot share one label ("low +2"); a label never runs off the right edge."""
    spots: dict = {}
    for x, y, _, name, _, _ in points:
        spots.setdefault((round(f(x), 3), round(f(y), 3)), []).append(name)
    for (x, y), names in spots.items():
        text = names[0] + (f" +{len(names) - 1}" if len(names) > 1 else "")
        item = pg.TextItem(text, color=colors["ink"], anchor=(0, 1) if x < middle else (1, 1))
        item.setPos(x, y)
        plot.addItem(item)


def _pct(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}"


def _dot():
    from PySide6 import QtCore

    return QtCore.Qt.PenStyle.DotLine


def _log_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """Ticks at 1-2-5 × 10^k inside [10^lo, 10^hi] (thinned to decades when many), as
    plain numbers: a log axis read without exponents."""
    out = []
    for k in range(math.floor(lo) - 1, math.ceil(hi) + 1):
        for m in (1, 2, 5):
            v = m * 10.0 ** k
            if lo <= math.log10(v) <= hi:
                out.append((math.log10(v), _short(v)))
    if len(out) > 7:
        out = [t for t in out if abs(t[0] - round(t[0])) < 1e-9] or out[::3]
    return out


def _short(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"
