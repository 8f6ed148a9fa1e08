"""The chapter's banner: decode demand of three one-minute segments against the cards'
bandwidth bound (虚线 = 100%), with ▶ moving a cursor and the backlog they build. Draws
core.serving.figures.banner_figure."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from core.serving import figures as F
from widgets.kit.page import plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen
from widgets.serving.replay_plots import narrow_header


class BannerSection(PlotCard):
    def __init__(self, parent=None):
        super().__init__("▶ 需求与能力 · decode demand against capacity",
                         "bars: decode steps/s as % of the cards' bandwidth bound", parent=parent)
        self.plot_widget.setMinimumHeight(250)
        narrow_header(self)
        p = self.plot
        p.setLabel("left", "decode demand", units="% of capacity")
        p.setLabel("bottom", "time", units="s")
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        p.disableAutoRange()
        zeros = np.zeros(len(F.BANNER_SEGMENTS))
        xs = F.SEGMENT_S * (np.arange(len(F.BANNER_SEGMENTS)) + 0.5)
        self.bars = pg.BarGraphItem(x=xs, height=zeros, width=F.BANNER_BAR_WIDTH_S, brush=brush("decode", 190),
                                    pen=pen("decode", 1))
        self.over = pg.BarGraphItem(x=xs, height=zeros, y0=zeros + 100, width=F.BANNER_BAR_WIDTH_S,
                                    brush=brush("backlog", 220), pen=pen("backlog", 1))
        p.addItem(self.bars)
        p.addItem(self.over)
        self.capacity_line = pg.InfiniteLine(pos=100, angle=0, pen=pen("capacity", 1.5, dashed=True))
        p.addItem(self.capacity_line)
        # Sits in the gap above the low middle bar, so it never covers a bar.
        self.capacity_label = plot_text(anchor=(1, 0), size=9)
        p.addItem(self.capacity_label)
        self.labels = [plot_text(anchor=(0.5, 1), size=9) for _ in F.BANNER_SEGMENTS]
        for label in self.labels:
            p.addItem(label)
        self.cursor = pg.InfiniteLine(pos=0, angle=90, pen=pen("ink", 1.5))
        p.addItem(self.cursor)
        self.status = plot_text(anchor=(0, 0), size=10)
        p.addItem(self.status)
        self.add_curve("demand_pct", pen=None)  # the bars' numbers, for CSV export
        self.fig: dict | None = None

    def draw(self, fig: dict) -> None:
        self.fig = fig
        self.bars.setOpts(x=fig["x"], height=fig["under"], width=fig["bar_width"])
        self.over.setOpts(x=fig["x"], height=fig["over"], width=fig["bar_width"])
        for label, text, pos in zip(self.labels, fig["labels"], fig["label_pos"]):
            label.setText(text)
            label.setPos(*pos)
        self.plot.setYRange(*fig["y_range"], padding=0)
        self.plot.setXRange(*fig["x_range"], padding=0.01)
        self.status.setPos(*fig["status_pos"])
        self.capacity_label.setText(fig["capacity_text"])
        self.capacity_label.setPos(*fig["capacity_pos"])
        self.curves["demand_pct"].setData(fig["export_x"], fig["export_y"])
        self.plot.getAxis("bottom").setTicks(fig["ticks"])

    def draw_frame(self, t: float) -> None:
        self.cursor.setValue(t)
        if self.fig is not None:
            self.status.setText(F.banner_status(self.fig, t))


class BannerDrawing:
    """The banner and backlog of a ServingPanel (cheap: drawn on the GUI thread). A mixin
    of ServingPanel; needs self.state, self.banner, self.backlog_plot and, once built,
    self.banner_player."""

    def _draw_banner(self) -> None:
        rate = self.state.card("rate")
        if self.banner is None or not rate.result:
            return
        self.banner.draw(F.banner_figure(self.state.card("mix").inputs, rate.inputs, rate.result))
        self._draw_banner_frame(self.state.player("banner"))

    def _draw_banner_frame(self, t: float) -> None:
        if self.banner is None or not hasattr(self, "banner_player"):
            return
        if self.banner_player.position != t:
            self.banner_player.seek(t)
        self.banner.draw_frame(t)
        if self.backlog_plot is not None:
            self.backlog_plot.draw_cursor(t)

    def _draw_backlog(self) -> None:
        if self.backlog_plot is None:
            return
        card = self.state.card("backlog")
        self.backlog_plot.draw(F.backlog_figure(card.inputs, card.result))
