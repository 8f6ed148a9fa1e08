"""§3.1.1-3.1.2 as one page: the anatomy of a request (图 3-1, 练习 3-1), the three time
metrics with a draggable queue (图 3-2), p95 by nearest rank, state occupancy in byte·s
(图 3-3) and cost per success with the attempts behind it (图 3-9, §3.2.2).

The panel is a view of core.request.state.RequestState: edits go to the model, and each
change of the model redraws what core.request.figures computed for it."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.request import figures
from core.request.state import RequestState
from widgets.kit.binding import FigureBinding
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import StagedGrid, caption, column, marker_line, page_header, plot_text, scroll_page
from widgets.kit.panels import PanelInfo
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import LEGEND, brush, pen, span
from widgets.kit.timeline_player import TimelinePlayer

_SEGMENT_COLOR = {"queue": "wait", "prepare": "tool", "prefill": "prefill", "thinking": "state", "decode": "decode"}
_BRACKET_COLOR = {"ttft": "prefill", "t_request": "ink", "t_token": "decode"}
_RANKED_COLOR = {"queue_s": "wait", "ttft_s": "prefill", "completion_s": "decode"}


class RequestPanel(FigureBinding, QtWidgets.QWidget):
    """The Request & Metrics panel."""

    def __init__(self, state: RequestState | None = None, parent=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else RequestState()
        layout = scroll_page(self, "")
        layout.addWidget(page_header("§3.1 从单次请求到持续到达的负载 · Request & Metrics", LEGEND[:5]))
        self._grid = StagedGrid(self, layout, [
            self._anatomy_section, self._split_section, self._timeline_section,
            self._percentile_section, self._area_section, self._cost_section], then=self._bind)
        layout.addStretch(1)

    # ---- construction -------------------------------------------------------

    def _anatomy_section(self) -> QtWidgets.QWidget:
        self.anatomy_card = CalculatorCard(self.state.card("anatomy"), compact=False)
        self.anatomy_plot = PlotCard("图 3-1 · 一次 prefill,接着逐个 decode", "context at the start of each call")
        p = self.anatomy_plot.plot
        p.setLabel("bottom", "call (0 = prefill, then decode step j+1)")
        p.setLabel("left", "context tokens")
        p.setDownsampling(auto=True, mode="peak")
        p.setClipToView(True)
        self.restored_bar = pg.BarGraphItem(x=[0], height=[0], width=0.8, brush=brush("wait", 170), pen=pen("wait", 1))
        self.prefill_bar = pg.BarGraphItem(x=[0], height=[0], y0=[0], width=0.8, brush=brush("prefill"), pen=pen("prefill", 1))
        p.addItem(self.restored_bar)
        p.addItem(self.prefill_bar)
        # The fill is its own item (not exported): the area under the straight decode line.
        self.decode_fill = p.plot([], [], pen=None, fillLevel=0, brush=brush("decode", 70))
        self.decode_curve = self.anatomy_plot.add_curve("decode_context", pen=pen("decode", 2))
        self.step_cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        p.addItem(self.step_cursor)
        self.step_label = plot_text(anchor=(0, 1))
        p.addItem(self.step_label)
        self.step_player = TimelinePlayer(duration=1, speed=self.state.view("step_speed"), unit="steps")
        return column(self.anatomy_card, self.anatomy_plot, self.step_player, stretch_last=False)

    def _split_section(self) -> QtWidgets.QWidget:
        self.split_card = CalculatorCard(self.state.card("split"))
        self.split_plot = PlotCard("练习 3-1 · 总输出相同,请求数不同", "1 request vs n in lockstep")
        p = self.split_plot.plot
        p.setLabel("left", "count")
        self.split_bars_one = pg.BarGraphItem(x=list(figures.SPLIT_X_ONE), height=[0, 0, 0], width=0.7, brush=brush("wait", 200))
        self.split_bars_many = pg.BarGraphItem(x=list(figures.SPLIT_X_MANY), height=[0, 0, 0], width=0.7, brush=brush("decode"))
        p.addItem(self.split_bars_one)
        p.addItem(self.split_bars_many)
        p.getAxis("bottom").setTicks([[(0.4, "prefill calls"), (2.4, "decode steps"), (4.4, "weight reads")]])
        self.split_legend = p.addLegend(offset=(10, 10))  # top left, over the short prefill-call bars
        self.split_legend.addItem(self.split_bars_one, "1 request")
        self.split_legend.addItem(self.split_bars_many, "n requests")
        self.split_labels = [plot_text(anchor=(0.5, 1), size=9) for _ in range(6)]
        for label in self.split_labels:
            p.addItem(label)
        return column(self.split_card, self.split_plot)

    def _timeline_section(self) -> QtWidgets.QWidget:
        self.timeline_card = CalculatorCard(self.state.card("timeline"))
        self.timeline_plot = PlotCard("图 3-2 · 缩短哪一段,只改变包含它的指标", "drag the queue's edge", illustrative=True)
        p = self.timeline_plot.plot
        p.setLabel("bottom", "time since arrival t_a (s)")
        p.hideAxis("left")
        p.setYRange(-0.2, 4.3)
        p.setMouseEnabled(x=False, y=False)
        y0, y1 = figures.SEGMENT_Y
        self.segment_bars = {kind: pg.BarGraphItem(x0=[0], x1=[0], y0=[y0], y1=[y1], brush=brush(_SEGMENT_COLOR[kind]),
                                                   pen=pg.mkPen(None)) for kind in figures.SEGMENT_KINDS}
        self.segment_labels = {kind: plot_text(anchor=(0.5, 0.5), size=9, kind="paper") for kind in figures.SEGMENT_KINDS}
        for kind in figures.SEGMENT_KINDS:
            p.addItem(self.segment_bars[kind])
            p.addItem(self.segment_labels[kind])
        self.token_ticks = p.plot([], [], pen=None, symbol="t1", symbolSize=6, symbolBrush=brush("decode"), symbolPen=None)
        self.queue_region = pg.LinearRegionItem(values=(0, 1), brush=brush("wait", 40), hoverBrush=brush("wait", 80),
                                                pen=pen("wait", 2))
        self.queue_region.lines[0].setMovable(False)
        self.queue_region.setToolTip("Drag the right edge: the queue grows or shrinks")
        p.addItem(self.queue_region)
        # Brackets for the three metrics.
        self.metric_curves = {name: p.plot([], [], pen=pen(kind, 2.5)) for name, kind in _BRACKET_COLOR.items()}
        self.metric_labels = {name: plot_text(anchor=(0, 0.5), size=10) for name in self.metric_curves}
        for label in self.metric_labels.values():
            p.addItem(label)
        self.useful_line = marker_line(p, "state", label="首个有用输出", position=0.95, width=2)
        return column(self.timeline_card, self.timeline_plot)

    def _percentile_section(self) -> QtWidgets.QWidget:
        self.percentile_card = CalculatorCard(self.state.card("percentile"))
        self.percentile_plot = PlotCard("p95 · 最近秩法,排队、首响应、完成分别排序", "40 requests (示意)", illustrative=True)
        p = self.percentile_plot.plot
        p.setLabel("bottom", "rank (ascending)")
        p.setLabel("left", "seconds")
        p.addLegend(offset=(10, 10))
        self.ranked_curves = {}
        for key, name in figures.RANKED:
            kind = _RANKED_COLOR[key]
            self.ranked_curves[key] = self.percentile_plot.add_curve(
                key, pen=pen(kind, 2), symbol="o", symbolSize=4, symbolBrush=brush(kind), symbolPen=None, name=name)
        self.rank_line = marker_line(p, "backlog")
        self.rank_label = plot_text(anchor=(1, 0), size=10, kind="backlog")
        p.addItem(self.rank_label)
        self.breakdown_label = caption()
        return column(self.percentile_card, self.percentile_plot, self.breakdown_label, stretch_last=False)

    def _area_section(self) -> QtWidgets.QWidget:
        self.area_card = CalculatorCard(self.state.card("area"))
        self.area_plot = PlotCard("图 3-3 · 状态没变大,但这段时间别人用不了", "M(t) of tasks waiting, each holding M0 for τ")
        p = self.area_plot.plot
        p.setLabel("bottom", "time (s)")
        p.setLabel("left", "state held (GiB)")
        self.occupancy_curve = self.area_plot.add_curve("occupancy_gib", pen=pen("state", 2), fillLevel=0,
                                                        brush=brush("state", 60))
        self.mean_line = marker_line(p, "ink", vertical=False, label="λ·M0·τ", position=0.05, anchors=[(0, 1), (0, 1)])
        self.task_area = pg.LinearRegionItem(values=(0, 1), movable=False, brush=brush("backlog", 45), pen=pg.mkPen(None))
        p.addItem(self.task_area)
        self.task_label = plot_text(anchor=(0, 1), size=10, kind="backlog")
        p.addItem(self.task_label)
        return column(self.area_card, self.area_plot)

    def _cost_section(self) -> QtWidgets.QWidget:
        self.success_card = CalculatorCard(self.state.card("success"))
        self.success_message = QtWidgets.QLabel()
        self.success_message.setWordWrap(True)
        self.success_message.setObjectName("success_message")
        self.compare_card = CalculatorCard(self.state.card("compare"))
        self.cost_plot = PlotCard("练习 3-3 · 每个成功任务的成本", "method 2's cost per success as p2 moves")
        p = self.cost_plot.plot
        p.setLabel("bottom", "p2 (success rate of method 2)")
        p.setLabel("left", "cost per success")
        p.addLegend(offset=(-10, 10))
        self.method2_curve = self.cost_plot.add_curve("method2", pen=pen("decode", 2.5), name="c2 / p2")
        self.method1_line = marker_line(p, "prefill", vertical=False, label="c1/p1", position=0.92, width=2)
        self.break_even_line = marker_line(p, "backlog", label="break-even p2", position=0.85)
        self.current_point = self.cost_plot.add_curve("current", pen=None, symbol="o", symbolSize=10,
                                                      symbolBrush=brush("decode"), symbolPen=pen("ink", 1))
        # 图 3-9 right under the success card (a talk's 图 3-9 scene starts here); it draws
        # both methods of the 练习 3-3 card below it.
        return column(self.success_card, self.success_message, self._attempts_plot(), self.compare_card, self.cost_plot)

    def _attempts_plot(self) -> PlotCard:
        """图 3-9: both methods' 100 attempts as stacked cost bars, failures on top."""
        self.attempts_plot = PlotCard("图 3-9 · 各尝试 100 次:失败也进分子", "c, p of both methods: 练习 3-3 card below")
        p = self.attempts_plot.plot
        p.setLabel("left", "cost of 100 attempts")
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        x = list(figures.ATTEMPT_X)
        self.success_cost_bars = pg.BarGraphItem(x=x, height=[0, 0], width=0.55, brush=brush("decode"), pen=pen("decode", 1))
        self.failure_cost_bars = pg.BarGraphItem(x=x, height=[0, 0], y0=[0, 0], width=0.55, brush=brush("backlog", 200),
                                                 pen=pen("backlog", 1))
        p.addItem(self.success_cost_bars)
        p.addItem(self.failure_cost_bars)
        legend = p.addLegend(offset=(10, 10))
        legend.addItem(self.success_cost_bars, "成功的尝试 succeeded")
        legend.addItem(self.failure_cost_bars, "失败的尝试 failed")
        self.attempt_labels = [plot_text(anchor=(0.5, 1), size=9) for _ in x]
        for label in self.attempt_labels:
            p.addItem(label)
        self.attempts_plot.add_curve("failure_cost", pen=None)  # the bars' numbers, for CSV export
        return self.attempts_plot

    def _bind(self) -> None:
        """Every section exists: follow the state and draw it."""
        self._connect()
        self.refresh()

    def is_ready(self) -> bool:
        """Every section built and drawn (snapshots, tests and benchmarks wait on this)."""
        return self._grid.done

    def _connect(self) -> None:
        self.bind_figures({
            "cards.anatomy": self._on_anatomy_changed, "cards.split": self._on_split_changed,
            "cards.timeline": self._on_timeline_changed, "cards.percentile": self._on_percentile_changed,
            "cards.area": self._on_area_changed, "cards.success": self._on_success_changed,
            "cards.compare": self._on_compare_changed, "player.steps": self._on_step_changed,
            "view.step_speed": self._on_speed_changed,
        })
        # Widget -> model.
        self.step_player.position_changed.connect(lambda position: self.state.set_player("steps", position))
        self.step_player.speed_box.currentIndexChanged.connect(
            lambda i: self.state.set_view("step_speed", self.step_player.speed_box.itemData(i)))
        self.queue_region.sigRegionChanged.connect(self._on_queue_dragged)

    # ---- model -> widgets ------------------------------------------------------
    def _on_anatomy_changed(self) -> None:
        if self._fresh("anatomy") is None:
            return
        fig = figures.anatomy_figure(self.state.card("anatomy").result_inputs)
        self.restored_bar.setOpts(**{k: [v] if k != "width" else v for k, v in fig["restored"].items()})
        self.prefill_bar.setOpts(**{k: [v] if k != "width" else v for k, v in fig["prefill"].items()})
        self.decode_curve.setData(fig["steps"], fig["contexts"])
        self.decode_fill.setData(*fig["fill"])
        self.anatomy_plot.plot.setXRange(*fig["x_range"], padding=0.02)
        self.anatomy_plot.plot.setYRange(*fig["y_range"], padding=0)
        self.step_player.set_duration(fig["duration"])
        if self.state.player("steps") > fig["duration"]:
            self.state.set_player("steps", fig["duration"])  # the answer got shorter
        self._on_step_changed()

    def _on_step_changed(self) -> None:
        position = self.state.player("steps")
        if position != self.step_player.position:
            self.step_player.seek(position)
        fig = figures.anatomy_cursor(self.state.card("anatomy").result_inputs, position)
        self.step_cursor.setValue(fig["x"])
        self.step_label.setText(fig["text"])
        self.step_label.setAnchor(fig["anchor"])
        self.step_label.setPos(*fig["pos"])

    def _on_speed_changed(self) -> None:
        speed = self.state.view("step_speed")
        if speed != self.step_player.speed:
            self.step_player.set_speed(speed)

    def _on_split_changed(self) -> None:
        fresh = self._fresh("split")
        if fresh is None:
            return
        fig = figures.split_figure(*fresh)
        self.split_bars_one.setOpts(height=fig["one"])
        self.split_bars_many.setOpts(height=fig["many"])
        for label, (text, pos) in zip(self.split_labels, fig["labels"]):
            label.setText(text)
            label.setPos(*pos)
        self.split_plot.plot.setYRange(*fig["y_range"], padding=0)
        self.split_plot.plot.setXRange(*fig["x_range"], padding=0)

    def _on_timeline_changed(self) -> None:
        fresh = self._fresh("timeline")
        if fresh is None:
            return
        fig = figures.timeline_figure(*fresh)
        for kind, seg in fig["segments"].items():
            self.segment_bars[kind].setOpts(x0=[seg["x0"]], x1=[seg["x1"]])
            self.segment_labels[kind].setText(seg["text"])
            self.segment_labels[kind].setPos(*seg["pos"])
        self.token_ticks.setData(*fig["tokens"])
        blocker = QtCore.QSignalBlocker(self.queue_region)
        self.queue_region.setRegion(fig["queue"])
        del blocker
        for name, bracket in fig["brackets"].items():
            self.metric_curves[name].setData(bracket["x"], bracket["y"])
            self.metric_labels[name].setText(bracket["text"])
            self.metric_labels[name].setPos(*bracket["pos"])
        self.useful_line.setValue(fig["useful"])
        self.useful_line.setVisible(fig["useful_visible"])
        self.timeline_plot.plot.setXRange(*fig["x_range"], padding=0)

    def _on_percentile_changed(self) -> None:
        fresh = self._fresh("percentile")
        if fresh is None:
            return
        fig = figures.percentile_figure(*fresh)
        for key, curve in self.ranked_curves.items():
            curve.setData(*fig["curves"][key])
        self.rank_line.setValue(fig["rank"])
        self.rank_label.setText(fig["rank_text"])
        self.rank_label.setPos(*fig["rank_pos"])
        self.breakdown_label.setText(fig["breakdown"])

    def _on_area_changed(self) -> None:
        fresh = self._fresh("area")
        if fresh is None:
            return
        fig = figures.area_figure(*fresh)
        self.occupancy_curve.setData(fig["t"], fig["m_gib"])
        self.mean_line.setValue(fig["mean_gib"])
        self.mean_line.label.setFormat(fig["mean_text"])
        self.task_area.setRegion(fig["task"])
        self.task_label.setText(fig["task_text"])
        self.task_label.setPos(*fig["task_pos"])
        self.area_plot.plot.setYRange(*fig["y_range"], padding=0)
        self.area_plot.plot.setXRange(*fig["x_range"], padding=0.01)

    def _on_success_changed(self) -> None:
        fresh = self._fresh("success")
        if fresh is None:
            return
        fig = figures.success_figure(*fresh)
        self.success_message.setText((span("backlog", fig["alert"]) + " " if fig["alert"] else "") + fig["text"])

    def _on_compare_changed(self) -> None:
        fresh = self._fresh("compare")
        if fresh is None:
            return
        fig = figures.compare_figure(*fresh)
        self._draw_attempts(figures.attempts_figure(*fresh))
        self.method2_curve.setData(fig["p2"], fig["cost2"])
        self.method1_line.setValue(fig["method1"])
        self.break_even_line.setValue(fig["break_even"])
        self.break_even_line.setVisible(fig["break_even_visible"])
        self.current_point.setData(*fig["current"])
        self.cost_plot.plot.setYRange(*fig["y_range"], padding=0)
        self.cost_plot.plot.setXRange(*fig["x_range"], padding=0)

    def _draw_attempts(self, fig: dict) -> None:
        self.success_cost_bars.setOpts(x=fig["x"], height=fig["success_cost"])
        self.failure_cost_bars.setOpts(x=fig["x"], height=fig["failure_cost"], y0=fig["success_cost"])
        for label, (text, pos) in zip(self.attempt_labels, fig["labels"]):
            label.setText(text)
            label.setPos(*pos)
        self.attempts_plot.curves["failure_cost"].setData(fig["x"], fig["failure_cost"])
        self.attempts_plot.plot.getAxis("bottom").setTicks(fig["ticks"])
        self.attempts_plot.plot.setYRange(*fig["y_range"], padding=0)
        self.attempts_plot.plot.setXRange(*fig["x_range"], padding=0)

    # ---- widgets -> model ------------------------------------------------------
    def _on_queue_dragged(self) -> None:
        low, high = self.queue_region.getRegion()
        if low != 0:  # the queue always starts at arrival
            blocker = QtCore.QSignalBlocker(self.queue_region)
            self.queue_region.setRegion((0, max(high, 0)))
            del blocker
        self.state.card("timeline").update({"queue_s": round(max(high, 0.0), 3)})

    def closeEvent(self, event):
        self._grid.stop()
        if self._grid.done:
            self.step_player.pause()
        self.unbind_figures()
        super().closeEvent(event)


PANEL = PanelInfo(key="request", title="请求与指标 · Request & Metrics", section="3.1", order=1.0,
                  factory=RequestPanel)
