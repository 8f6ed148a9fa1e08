"""The replays' plots, A beside B: waiting queue and running sequences, KV pool use,
per-request strips (Gantt) and the TTFT CDF. Items are made once; a side's figure sets
their full data, and a ▶ frame only moves cursors and masks and sets small arrays (the
decimated curves of core.serving.figures), skipping plots that are scrolled out of view
while playing and catching them up when they come into view."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.serving import figures as F
from core.serving import gantt
from core.serving.state import REPLAY_SIDES
from widgets.kit.i18n import has_cjk
from widgets.kit.page import plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import color, pen

GANTT_LUT = np.array([
    [*color("paper").getRgb()[:3], 0],   # idle / done
    [*color("wait").getRgb()[:3], 200],  # waiting
    [*color("prefill").getRgb()[:3], 255],
    [*color("decode").getRgb()[:3], 235],
    [*color("backlog").getRgb()[:3], 255],  # preempted
    [*color("tool").getRgb()[:3], 255],  # KV transfer (P/D): the pools view's transfers-in-flight colour
], dtype=np.uint8)
# One LUT row per phase code, in the codes' order: the levels span them all, so each code
# takes its own row.
assert len(GANTT_LUT) == max(gantt.PHASES) + 1 and gantt.IDLE == 0
GANTT_LEVELS = (0, max(gantt.PHASES))
GANTT_LEGEND = ("行:按到达排序的请求;灰 等待,蓝 prefill,橙 decode,红 被抢占,绿 KV 传输 (P/D) · rows: requests by "
                "arrival; grey waiting, blue prefill, orange decode, red preempted, green KV transfer (P/D)")
MASK_ALPHA = 170  # the part of a strip still to come, faded under paper


def narrow_header(card: PlotCard) -> PlotCard:
    """Captions may be cut rather than widen the page past the window."""
    for label in card.findChildren(QtWidgets.QLabel):
        if label.property("role") == "caption":
            label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
    return card


def live_card(title: str, subtitle: str, height: int) -> PlotCard:
    """A plot that plays back: no grid (the costliest thing to repaint in a frame), fixed
    ranges set by the figure (no autorange work per frame), no mouse zoom."""
    card = narrow_header(PlotCard(title, subtitle))
    card.plot_widget.setMinimumHeight(height)
    card.plot.showGrid(x=False, y=False)
    card.plot.disableAutoRange()
    card.plot.setMouseEnabled(x=False, y=False)
    card.plot.hideButtons()
    return card


QUEUE_TITLE = "等待队列与运行序列"
QUEUE_TITLE_EN = "waiting queue and running sequences"


PREFIX_STATES = {" · prefix cache on": ("前缀缓存开", "prefix cache on"),
                 " · prefix cache off": ("前缀缓存关", "prefix cache off")}


def queue_title(side: str, name: str) -> str:
    """The queue plot's title for a scenario: the book's names are in the catalogs; a
    trace's file name is not, so its title is a "中文 · English" pair of its own (the
    parts before the Chinese one, side and file, show in both; a prefix cache state in each)."""
    if has_cjk(name):
        return f"{side} · {name} · {QUEUE_TITLE}"
    for suffix, (zh, en) in PREFIX_STATES.items():
        if name.endswith(suffix):
            return f"{side} · {name[:-len(suffix)]} · {zh} · {QUEUE_TITLE} · {en} · {QUEUE_TITLE_EN}"
    return f"{side} · {name} · {QUEUE_TITLE} · {QUEUE_TITLE_EN}"


class ReplayPlots(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._grid = QtWidgets.QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(12)
        self._grid.setVerticalSpacing(10)
        self.queue_plots: dict[str, PlotCard] = {}
        self.kv_plots: dict[str, PlotCard] = {}
        self.gantt_plots: dict[str, PlotCard] = {}
        self.gantt_images: dict[str, pg.ImageItem] = {}
        self.gantt_masks: dict[str, pg.LinearRegionItem] = {}
        self.now_labels: dict[str, pg.TextItem] = {}
        self.cursors: list[pg.InfiniteLine] = []
        self._side_cursors: dict[str, list[pg.InfiniteLine]] = {}
        self._figs: dict[str, F.ReplaySide] = {}
        self._t = 0.0
        self._stale: set[str] = set()  # plot keys not drawn at _t (out of view while playing)
        self._shown: dict[str, object] = {}  # what each part shows now: a frame sets only what changed
        self.built = False
        # Hidden until every plot is in: a plot joining a shown grid re-lays out (and
        # resizes) the plots before it, each turn.
        self.hide()

    def build_steps(self) -> list:
        """The plots, one plot per step (about 40 ms each): the panel builds them one per
        turn of the event loop, so the window answers while they appear."""
        steps = []
        for c, side in enumerate(REPLAY_SIDES):
            steps += [lambda c=c, side=side: self._build_queue(c, side), lambda c=c, side=side: self._build_kv(c, side),
                      lambda c=c, side=side: self._build_gantt(c, side)]
        steps += [self._build_cdf, self._link]
        return steps

    def _link(self) -> None:
        self.queue_plots["B"].plot.setYLink(self.queue_plots["A"].plot)
        self.queue_plots["B"].plot.setXLink(self.queue_plots["A"].plot)
        self.built = True
        self.show()
        for side, fig in list(self._figs.items()):
            self.draw_side(side, fig)

    def _cursor(self, side: str, card: PlotCard) -> None:
        cursor = pg.InfiniteLine(pos=0, angle=90, pen=pen("ink", 1.2))
        card.plot.addItem(cursor)
        self.cursors.append(cursor)
        self._side_cursors.setdefault(side, []).append(cursor)

    def _build_queue(self, c: int, side: str) -> None:
        q = live_card(f"{side} · 等待队列与运行序列", "waiting queue · running sequences", 190)
        q.plot.setLabel("left", "requests")
        q.plot.setLabel("bottom", "time", units="s")
        q.plot.addLegend(offset=(-10, 10))
        # No antialiasing and no fills on live curves; the faint full curves show where
        # each is heading.
        q.add_curve("waiting_all", pen=pg.mkPen(color("wait", 110), width=1), antialias=False)
        q.add_curve("running_all", pen=pg.mkPen(color("decode", 90), width=1), antialias=False)
        q.add_curve("waiting", pen=pen("muted", 2.5), name="waiting", antialias=False)
        q.add_curve("running", pen=pen("decode", 2.5), name="running", antialias=False)
        label = plot_text(anchor=(0, 0), size=10)
        q.plot.addItem(label)
        self.now_labels[side] = label
        self._cursor(side, q)
        self.queue_plots[side] = q
        self._grid.addWidget(q, 0, c)

    def _build_kv(self, c: int, side: str) -> None:
        kv = live_card(f"{side} · KV 池占用", "used blocks / pool", 150)
        kv.plot.setLabel("left", "KV pool", units="%")
        kv.plot.setLabel("bottom", "time", units="s")
        kv.plot.setYRange(0, 105, padding=0)
        kv.add_curve("kv_all", pen=pg.mkPen(color("state", 80), width=1), antialias=False)
        kv.add_curve("kv", pen=pen("state", 2), antialias=False)
        kv.plot.addItem(pg.InfiniteLine(pos=100, angle=0, pen=pen("capacity", 1, dashed=True)))
        self._cursor(side, kv)
        kv.plot.setXLink(self.queue_plots[side].plot)
        self.kv_plots[side] = kv
        self._grid.addWidget(kv, 1, c)

    def _build_gantt(self, c: int, side: str) -> None:
        g = live_card(f"{side} · 每个请求 (Gantt)", GANTT_LEGEND, 230)
        g.plot.setLabel("left", "request")
        g.plot.setLabel("bottom", "time", units="s")
        g.plot.invertY(True)
        image = pg.ImageItem(axisOrder="row-major")
        image.setLookupTable(GANTT_LUT)
        # The strip changes only when the replay is recomputed; its scaled rendering is
        # cached so a frame just blits it under the moving mask.
        image.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        g.plot.addItem(image)
        mask = pg.LinearRegionItem(values=(0, 1), movable=False, brush=pg.mkBrush(color("paper", MASK_ALPHA)), pen=pg.mkPen(None))
        g.plot.addItem(mask)
        self._cursor(side, g)
        g.plot.setXLink(self.queue_plots[side].plot)
        self.gantt_plots[side] = g
        self.gantt_images[side], self.gantt_masks[side] = image, mask
        self._grid.addWidget(g, 2, c)

    def _build_cdf(self) -> None:
        self.cdf_plot = live_card("TTFT 的累积分布 · CDF", "fraction of requests with TTFT ≤ x; dashed: the book's p95", 220)
        p = self.cdf_plot.plot
        p.setLabel("left", "fraction of requests")
        p.setLabel("bottom", "TTFT", units="s")
        p.setYRange(0, 1.02, padding=0)
        p.addLegend(offset=(-10, -10))
        self.cdf_plot.add_curve("A_all", pen=pg.mkPen(color("prefill", 70), width=1), antialias=False)
        self.cdf_plot.add_curve("B_all", pen=pg.mkPen(color("backlog", 70), width=1), antialias=False)
        self.cdf_plot.add_curve("A", pen=pen("prefill", 2.5), name="A", antialias=False)
        self.cdf_plot.add_curve("B", pen=pen("backlog", 2.5), name="B", antialias=False)
        p.addItem(pg.InfiniteLine(pos=0.95, angle=0, pen=pen("muted", 1, dashed=True)))
        self.book_p95_lines = {side: pg.InfiniteLine(pos=0, angle=90, pen=pen("prefill" if side == "A" else "backlog",
                                                                              1.2, dashed=True))
                               for side in REPLAY_SIDES}
        for line in self.book_p95_lines.values():
            p.addItem(line)
        self.cdf_note = plot_text(anchor=(0, 0), size=10)
        p.addItem(self.cdf_note)
        self._grid.addWidget(self.cdf_plot, 3, 0, 1, 2)

    # ---- a side's figure ----------------------------------------------------------
    def figure(self, side: str) -> F.ReplaySide | None:
        """The figure drawn for side, if any."""
        return self._figs.get(side)

    def draw_side(self, side: str, fig: F.ReplaySide) -> None:
        self._figs[side] = fig
        self._shown.clear()
        if not self.built:
            return  # drawn when the last plot is built
        q, kv, g = self.queue_plots[side], self.kv_plots[side], self.gantt_plots[side]
        q.curves["waiting_all"].setData(fig.disp_t, fig.disp_waiting)
        q.curves["running_all"].setData(fig.disp_t, fig.disp_running)
        kv.curves["kv_all"].setData(fig.disp_t, fig.disp_kv_pct)
        q.title_label.setText(f"<b>{queue_title(side, fig.name)}</b>")
        image = self.gantt_images[side]
        image.setImage(fig.gantt_codes, levels=GANTT_LEVELS, autoLevels=False)
        # Over 2,000 requests the strips are an evenly spaced subset (core.serving.gantt):
        # stretched over all of them, the axis counts requests, not rows.
        requests = max(int(fig.summary.get("requests", 0)), fig.gantt_codes.shape[0])
        image.setRect(QtCore.QRectF(0, 0, fig.t_end, requests))
        g.plot.setYRange(0, requests, padding=0)
        self.cdf_plot.curves[f"{side}_all"].setData(*F.cdf_curve(fig.ttft_sorted))
        line = self.book_p95_lines[side]
        line.setVisible(fig.book_ttft_p95_s is not None)
        if fig.book_ttft_p95_s is not None:
            line.setValue(fig.book_ttft_p95_s)
        self._set_ranges()

    def _set_ranges(self) -> None:
        figs = list(self._figs.values())
        t_end = max(f.t_end for f in figs)
        top = max(f.y_top for f in figs)
        self.queue_plots["A"].plot.setXRange(0, t_end, padding=0.01)
        self.queue_plots["A"].plot.setYRange(0, top, padding=0)
        for side in self._figs:
            self.now_labels[side].setPos(t_end * 0.01, top)
        x_max = max(float(f.ttft_sorted[-1]) for f in figs)
        self.cdf_plot.plot.setXRange(0, x_max, padding=0.02)
        self.cdf_note.setPos(x_max * 0.01, 1.0)

    # ---- one ▶ frame ----------------------------------------------------------------
    def draw_frame(self, t: float, playing: bool = False) -> None:
        """Show time t. While playing, plots out of view are skipped (and drawn when they
        come into view: catch_up)."""
        self._t = t
        self._stale.clear()
        if not self.built:
            return
        frames = {side: F.replay_frame(fig, t) for side, fig in self._figs.items()}
        for side, frame in frames.items():
            for key, card in (("queue", self.queue_plots[side]), ("kv", self.kv_plots[side]),
                              ("gantt", self.gantt_plots[side])):
                if playing and card.visibleRegion().isEmpty():
                    self._stale.add(f"{key}.{side}")
                    continue
                self._draw_part(key, side, frame, t)
        if playing and self.cdf_plot.visibleRegion().isEmpty():
            self._stale.add("cdf")
        else:
            self._draw_cdf(frames)

    def catch_up(self) -> None:
        """Draw the parts skipped while out of view that are in view now."""
        if not self._stale or not self.built:
            return
        frames = {side: F.replay_frame(fig, self._t) for side, fig in self._figs.items()}
        cards = {"queue": self.queue_plots, "kv": self.kv_plots, "gantt": self.gantt_plots}
        for name in list(self._stale):
            if name == "cdf":
                if not self.cdf_plot.visibleRegion().isEmpty():
                    self._draw_cdf(frames)
                    self._stale.discard(name)
                continue
            key, side = name.split(".")
            if side in frames and not cards[key][side].visibleRegion().isEmpty():
                self._draw_part(key, side, frames[side], self._t)
                self._stale.discard(name)

    def _draw_part(self, key: str, side: str, frame: dict, t: float) -> None:
        fig = self._figs[side]
        k = frame["k"]
        queue, kv, gantt = self._side_cursors[side]
        if key == "queue":
            q = self.queue_plots[side]
            if self._changed(f"queue.{side}", k):
                q.curves["waiting"].setData(fig.disp_t[:k], fig.disp_waiting[:k])
                q.curves["running"].setData(fig.disp_t[:k], fig.disp_running[:k])
            if self._changed(f"label.{side}", frame["label"]):
                self.now_labels[side].setText(frame["label"])
            queue.setValue(t)
        elif key == "kv":
            if self._changed(f"kv.{side}", k):
                self.kv_plots[side].curves["kv"].setData(fig.disp_t[:k], fig.disp_kv_pct[:k])
            kv.setValue(t)
        else:
            self.gantt_masks[side].setRegion((t, max(t, fig.t_end)))
            gantt.setValue(t)

    def _draw_cdf(self, frames: dict) -> None:
        for side, frame in frames.items():
            if self._changed(f"cdf.{side}", frame["done"]):
                self.cdf_plot.curves[side].setData(frame["cdf_x"], frame["cdf_y"])
        note = F.cdf_note(frames)
        if self._changed("cdf_note", note):
            self.cdf_note.setText(note)

    def _changed(self, part: str, value) -> bool:
        """True (and remembered) when part is to show something new."""
        if self._shown.get(part, self) == value:
            return False
        self._shown[part] = value
        return True
