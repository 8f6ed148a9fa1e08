"""Drawing during a drag of the load slider: axes painted from a cached pixmap and axis
ranges that only grow (an axis whose range changes re-lays all its tick labels: the
costliest part of a frame)."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

# Live ranges change only when the data leaves them or fills less than 1/LIVE_SHRINK of them,
# and then span LIVE_GROWTH times the data: a drag from no load to saturation (silences from
# 0.4 s to a minute) changes each a few times, not at every frame.
LIVE_GROWTH = 2.0
LIVE_SHRINK = 4.0


def cache_axes(plot: pg.PlotItem, on: bool) -> None:
    """Axes (with their grid) painted from a pixmap while on: a live frame whose ranges hold
    still repaints its data, not every tick label. Off for the full draw, exports and
    screenshots, which then paint exactly as before."""
    mode = QtWidgets.QGraphicsItem.CacheMode
    for axis in plot.axes.values():
        axis["item"].setCacheMode(mode.DeviceCoordinateCache if on else mode.NoCache)


def live_range(now: tuple[float, float], need: tuple[float, float], low_pad: float = 0.0
               ) -> tuple[float, float] | None:
    """The range to set during a drag: None while need fits in now and fills enough of it;
    else from low_pad of need's span below its low end to LIVE_GROWTH spans above it (the
    ranges here grow upwards: time, counts, silences; low_pad for a low end that follows)."""
    span = need[1] - need[0]
    if need[0] >= now[0] and need[1] <= now[1] and span * LIVE_SHRINK >= now[1] - now[0]:
        return None
    return need[0] - low_pad * span, need[0] + LIVE_GROWTH * span


def set_live_range(plot: pg.PlotItem, axis: str, need: tuple[float, float], *views: pg.ViewBox,
                   low_pad: float = 0.0) -> None:
    """Set plot's x or y range if live_range says so, and bring the view boxes' transforms
    up to date at once: pyqtgraph defers that to the paint, whose items then ask for a second
    paint of the whole view."""
    now = plot.viewRange()[0 if axis == "x" else 1]
    new = live_range((now[0], now[1]), need, low_pad)
    if new is None:
        return
    (plot.setXRange if axis == "x" else plot.setYRange)(*new, padding=0)
    for vb in (plot.vb, *views):
        vb.prepareForPaint()
