"""图 3-24: the RL pipeline's roles, synchronous above asynchronous, played back."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from core.training.rl import figures as rl_figures
from core.training.rl import pipeline as rl_pipeline
from core.training.rl.figures import PipelineFigure
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.page import ReflowLayout, column, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, color, pen
from widgets.kit.timeline_player import TimelinePlayer
from widgets.training.kit import PlayedSection, PlotLabels, caption

ROLE_COLORS = {"rollout": "decode", "reward": "tool", "reference": "prefill", "update": "state", "sync": "sync"}
TITLES = {"synchronous": "同步 synchronous · 等新权重就绪再生成",
          "asynchronous": "异步 asynchronous · 生成与更新重叠,数据可能滞后"}


class PipelineView(QtWidgets.QWidget):
    """Synchronous and asynchronous schedules of the same roles, one above the other."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.figure: PipelineFigure | None = None
        self._layout = QtWidgets.QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.plots: dict[str, PlotCard] = {}
        self.bars: dict[str, dict[str, pg.BarGraphItem]] = {}
        self.labels: dict[str, PlotLabels] = {}
        self.cursors: dict[str, pg.InfiniteLine] = {}
        self.future: dict[str, pg.LinearRegionItem] = {}
        self.status: dict[str, pg.TextItem] = {}

    def add_plot(self, mode: str):
        """One mode's plot, in two steps (a generator: the panel runs a step per turn of
        the event loop): the plot, then its items."""
        card = PlotCard(TITLES[mode], "b·v = batch · weights version", illustrative=True)
        yield
        p = card.plot
        p.setMouseEnabled(x=True, y=False)
        p.getAxis("left").setTicks([[(rl_figures.role_y(r), rl_pipeline.ROLE_LABELS[r]) for r in rl_pipeline.ROLES]])
        p.setYRange(-0.6, len(rl_pipeline.ROLES) - 0.4, padding=0)
        self.bars[mode] = {}
        for role in rl_pipeline.ROLES:
            bars = pg.BarGraphItem(x0=[], y0=[], width=[], height=[], brush=brush(ROLE_COLORS[role], 220),
                                   pen=pen("paper", 1))
            p.addItem(bars)
            self.bars[mode][role] = bars
        self.labels[mode] = PlotLabels(color("paper"), size=8)
        self.labels[mode].setZValue(10)
        p.addItem(self.labels[mode])
        region = pg.LinearRegionItem(values=(0, 0), movable=False, brush=brush("paper", 170),
                                     pen=pg.mkPen(None))
        region.setZValue(20)
        p.addItem(region)
        cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        cursor.setZValue(30)
        p.addItem(cursor)
        status = plot_text(anchor=(1, 0), size=9)
        status.setZValue(35)
        p.addItem(status)
        self.future[mode], self.cursors[mode], self.status[mode] = region, cursor, status
        if self.plots:
            p.setXLink(next(iter(self.plots.values())).plot)
            p.setLabel("bottom", "time (s)")
        card.plot_widget.setMinimumHeight(190)
        card.setMaximumHeight(300)
        self.plots[mode] = card
        self._layout.addWidget(card)

    def show_figure(self, fig: PipelineFigure) -> None:
        self.figure = fig
        for mode in rl_figures.PIPELINE_MODES:
            for role, bars in fig.bars[mode].items():
                self.bars[mode][role].setOpts(x0=bars.x0, width=bars.width, y0=bars.y0, height=bars.height)
            self.labels[mode].set_labels(fig.labels[mode])
            self.plots[mode].plot.setXRange(0, fig.end_s, padding=0.01)

    def set_time(self, t: float) -> None:
        fig = self.figure
        if fig is None:
            return
        for mode, s in fig.schedules.items():
            self.cursors[mode].setValue(t)
            self.future[mode].setRegion((t, max(s.total_s, t) * 1.05 + 1e-9))
            self.status[mode].setText(fig.status_at(mode, t))
            view = self.plots[mode].plot.viewRange()
            self.status[mode].setPos(view[0][1], view[1][1])


class PipelineSection(PlayedSection):
    paths = ("cards.pipeline", "player.pipeline")
    player_name = "pipeline"

    def __init__(self, panel, layout: QtWidgets.QVBoxLayout):
        super().__init__(panel)
        self._layout = layout
        self.job_key = f"training.pipeline.{id(panel)}"

    def build(self):
        # The card beside the three schedules when the page is wide enough, above them when not.
        top = ReflowLayout(columns=2, stretch=(2, 3), stacked_first=1)  # the schedules first when stacked
        self.card = CalculatorCard(self.state.card("pipeline"), compact=True)
        left = column(self.card, caption("图 3-24:某个角色变慢,后继角色就要等。同步方案等新权重就绪再生成;"
                                         "异步让生成与更新重叠,但样本由旧版本权重生成(v = 生成时的权重版本)。"),
                      stretch_last=False)
        left.layout().addStretch(1)
        top.addWidget(left)
        self._layout.insertLayout(0, top)
        yield
        self.view = PipelineView()
        for mode in rl_figures.PIPELINE_MODES:
            yield from self.view.add_plot(mode)
            yield
        self.player = TimelinePlayer(duration=1.0, unit="s")
        self.player.setObjectName("pipeline_player")
        self.busy = BusyBadge(self.job_key, owner=self.view)
        row = QtWidgets.QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.player, 1)
        row.addWidget(self.busy)
        holder = QtWidgets.QWidget()
        holder.setLayout(row)
        top.addWidget(column(self.view, holder, stretch_last=False))
        self.player.position_changed.connect(lambda t: self.state.set_player("pipeline", t))

    def on_changed(self, path: str) -> None:
        if path == "player.pipeline":
            self.follow_position()
        else:
            self.refresh()

    def refresh(self) -> None:
        card = self.state.card("pipeline")
        jobs().submit(self.job_key, rl_figures.pipeline_figure, card.inputs, done=self._show_figure, context=self.view)

    def _show_figure(self, fig: PipelineFigure) -> None:
        self.view.show_figure(fig)
        position = self.start_position(fig.end_s)
        self.set_duration(fig.end_s)
        self.player.seek(position)
        self.view.set_time(self.player.position)
        self.panel.figure_drawn.emit("pipeline")

    def close(self) -> None:
        self.player.pause()
        jobs().cancel(self.job_key)
