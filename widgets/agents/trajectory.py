"""The measured code-agent runs (§3.2.1, §3.2.3) and their replay through the engine: a
timeline of model and tool spans per round (thinking on above, off below, one time axis),
cold vs cached prefill per round, and the engine's cached tokens beside the measured ones
with the gaps between tokens (ITL). A mixin of AgentsPanel; figures come from
core.agents.trace_figures. The replay card is deferred: its CalculatorCard runs it on the
job runner."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from core.agents import trace_figures as figures
from widgets.agents.kit import still_plot
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import column, marker_line, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.plot_labels import wrap_in_plot
from widgets.kit.theme import brush, pen


def _bars(kind: str, alpha: int = 200, outline: bool = True) -> pg.BarGraphItem:
    return pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush(kind, alpha),
                           pen=pen("paper", 1) if outline else pg.mkPen(None))


ITL_SUBTITLE = "share of gaps per bin, every call of every copy"


class TrajectorySections:
    """Built by _trajectory_section and _replay_section; drawn by the handlers of
    trajectory_handlers()."""

    def _trajectory_section(self) -> QtWidgets.QWidget:
        self.trajectory_card = CalculatorCard(self.state.card("trajectory"))
        self.timeline_plot = PlotCard("代码任务轨迹:模型、工具、再模型 · model, tools, model again", figures.ROUND_LEGEND)
        p = self.timeline_plot.plot
        p.setLabel("bottom", "time (s)")
        p.setYRange(*figures.Y_RANGE, padding=0)
        p.setMouseEnabled(x=True, y=False)
        self.timeline_bars = {lane: {kind: _bars(color) for kind, color in
                                     (("model", "prefill"), ("tool", "tool"), ("other", "wait"))}
                              for lane in figures.LANE_Y}
        self.timeline_labels: dict[str, list[pg.TextItem]] = {}
        self._wrap_connected = False
        self.timeline_totals = {lane: plot_text(anchor=(0, 1)) for lane in figures.LANE_Y}
        for lane in figures.LANE_Y:
            for item in self.timeline_bars[lane].values():
                p.addItem(item)
            self.timeline_labels[lane] = [plot_text(anchor=(0.5, 0.5), kind="paper", size=9)
                                          for _ in figures.ROUND_LABELS.get(lane, ())]
            for item in (*self.timeline_labels[lane], self.timeline_totals[lane]):
                p.addItem(item)
        self.prefill_plot = still_plot("四轮代码修复任务的缓存收益 · cold vs cached prefill",
                                       "红:每轮全量重算;蓝:只算未命中的部分 · red: the whole prompt each round; "
                                       "blue: the uncached suffix only", "round", "prefill TFLOPs")
        q = self.prefill_plot.plot
        self.cold_bars = pg.BarGraphItem(x=[], height=[], width=0.38, brush=brush("backlog", 170), pen=pg.mkPen(None))
        self.cached_bars = pg.BarGraphItem(x=[], height=[], width=0.38, brush=brush("prefill"), pen=pg.mkPen(None))
        q.addItem(self.cold_bars)
        q.addItem(self.cached_bars)
        self.prefill_text = plot_text(anchor=(0, 0))
        q.addItem(self.prefill_text)
        self._draw_timeline()
        return column(self.trajectory_card, self.timeline_plot, self.prefill_plot)

    def _replay_section(self) -> QtWidgets.QWidget:
        self.replay_card = CalculatorCard(self.state.card("replay"))
        self.cache_plot = still_plot("同一轨迹回放:引擎找到的前缀 · engine vs measured cached tokens",
                                     "bars: prompt and measured hits per round (first copy); dots: the engine's hits",
                                     "round", "tokens")
        p = self.cache_plot.plot
        self.prompt_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=brush("wait", 90), pen=pg.mkPen(None))
        self.measured_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=brush("state"), pen=pg.mkPen(None))
        p.addItem(self.prompt_bars)
        p.addItem(self.measured_bars)
        self.engine_points = self.cache_plot.add_curve("engine", pen=None, symbol="o", symbolSize=10,
                                                       symbolBrush=brush("decode"), symbolPen=pen("ink", 1))
        self.cache_text = plot_text(anchor=(0, 0))
        p.addItem(self.cache_text)
        self.cache_wrap = wrap_in_plot(p, self.cache_text)  # a narrow column cut it ("…cached to")
        self.itl_plot = still_plot("token 间隔分布 · gaps between tokens (ITL) in the replay", ITL_SUBTITLE,
                                   "gap between two tokens (ms)", "share of gaps (%)")
        q = self.itl_plot.plot
        self.itl_curve = self.itl_plot.add_curve("itl", stepMode="center", fillLevel=0, brush=brush("decode", 120),
                                                 pen=pen("decode", 1.5))
        self.itl_median = marker_line(q, "ink", label="median", position=0.92)
        self.itl_p99 = marker_line(q, "backlog", label="p99", position=0.8)
        return column(self.replay_card, self.cache_plot, self.itl_plot)

    def trajectory_handlers(self) -> dict:
        return {"cards.trajectory": self._on_trajectory_changed, "cards.replay": self._on_replay_changed}

    # ---- model -> widgets ------------------------------------------------------
    def _draw_timeline(self) -> None:
        """Both measured runs: they are data, not inputs, so drawn once."""
        fig = figures.timeline_figure()
        for lane, drawn in fig["lanes"].items():
            for kind in ("model", "tool", "other"):
                self.timeline_bars[lane][kind].setOpts(**drawn[kind])
            for item, (text, pos) in zip(self.timeline_labels[lane], drawn["labels"]):
                item.setText(text)
                item.setPos(*pos)
            self.timeline_totals[lane].setText(drawn["total_text"])
            self.timeline_totals[lane].setPos(*drawn["total_pos"])
            self.timeline_totals[lane].setAnchor(drawn["total_anchor"])
        self._total_widths = {lane: drawn["total_width"] for lane, drawn in fig["lanes"].items()}
        self.timeline_plot.plot.getAxis("left").setTicks([fig["y_ticks"]])
        self.timeline_plot.plot.setXRange(*fig["x_range"], padding=0)
        if not self._wrap_connected:  # once: each draw connecting again stacked up calls
            self.timeline_plot.plot.vb.sigResized.connect(self._wrap_timeline_totals)
            self._wrap_connected = True
        self._wrap_timeline_totals()

    def _wrap_timeline_totals(self) -> None:
        """The lanes' texts wrap at the room they have (a 中文 · English pair is two lines)."""
        view = self.timeline_plot.plot.vb.width()
        for lane, share in self._total_widths.items():
            self.timeline_totals[lane].setTextWidth(max(view * share - 6, 80))

    def _on_trajectory_changed(self) -> None:
        fresh = self._fresh("trajectory")
        if fresh is None:
            return
        fig = figures.prefill_figure(*fresh)
        self.cold_bars.setOpts(x=fig["x_cold"], height=fig["cold"], width=fig["width"])
        self.cached_bars.setOpts(x=fig["x_cached"], height=fig["cached"], width=fig["width"])
        self.prefill_plot.plot.getAxis("bottom").setTicks([fig["ticks"]] if fig["ticks"] else None)
        self.prefill_text.setText(fig["text"])
        self.prefill_text.setPos(*fig["text_pos"])
        self.prefill_plot.plot.setXRange(*fig["x_range"], padding=0)
        self.prefill_plot.plot.setYRange(*fig["y_range"], padding=0)

    def _on_replay_changed(self) -> None:
        fresh = self._fresh("replay")
        if fresh is None:
            return
        _, result = fresh
        fig = figures.replay_cache_figure(result)
        self.prompt_bars.setOpts(x=fig["x"], height=fig["input"])
        self.measured_bars.setOpts(x=fig["x"], height=fig["measured"])
        self.engine_points.setData(fig["x"], fig["engine"])
        self.cache_text.setText(fig["text"])
        self.cache_text.setPos(*fig["text_pos"])
        self.cache_wrap.wrap()
        self.cache_plot.plot.getAxis("bottom").setTicks([fig["ticks"]] if fig["ticks"] else None)
        self.cache_plot.plot.setXRange(*fig["x_range"], padding=0)
        self.cache_plot.plot.setYRange(*fig["y_range"], padding=0)
        itl = figures.itl_figure(result)
        self.itl_curve.setData(itl["edges"], itl["share"])
        for line, value in ((self.itl_median, itl["median"]), (self.itl_p99, itl["p99"])):
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(value)
        self.itl_plot.set_subtitle(f"{ITL_SUBTITLE} · {itl['text']}")
        self.itl_plot.plot.setXRange(*itl["x_range"], padding=0.02)
        self.itl_plot.plot.setYRange(*itl["y_range"], padding=0)
