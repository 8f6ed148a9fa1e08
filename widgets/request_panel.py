"""§3.1.1-3.1.2 as one page: the anatomy of a request (图 3-1, 练习 3-1), the three time
metrics with a draggable queue (图 3-2), p95 by nearest rank, state occupancy in byte·s
(图 3-3) and cost per success. Numbers come from core; this module only draws them."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core import cost, metrics, request, state
from core.units import GiB, format_bytes, format_seconds
from widgets.calculator_card import CalculatorCard
from widgets.page import column, marker_line, plot_text, scroll_page, two_column_grid
from widgets.panels import PanelInfo
from widgets.plot_card import PlotCard
from widgets.theme import COLORS, LEGEND, brush, pen
from widgets.timeline_player import TimelinePlayer

MAX_OCCUPANCY_ARRIVALS = 5000  # keeps 图 3-3 cheap at any λ
_TIMELINE_ROWS = {"queue": 3, "prepare": 3, "prefill": 3, "thinking": 3, "decode": 3}
_SEGMENT_COLOR = {"queue": "wait", "prepare": "tool", "prefill": "prefill", "thinking": "state", "decode": "decode"}
_SEGMENT_TEXT = {"queue": "排队 queue", "prepare": "输入准备", "prefill": "prefill", "thinking": "思考 thinking",
                 "decode": "decode"}


class RequestPanel(QtWidgets.QWidget):
    """The Request & Metrics panel."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._build_ui()
        self._connect()
        self.refresh()

    # ---- construction -------------------------------------------------------
    def _build_ui(self) -> None:
        layout = scroll_page(self, "")
        layout.addWidget(self._header())
        layout.addLayout(two_column_grid([
            self._anatomy_section(), self._split_section(), self._timeline_section(),
            self._percentile_section(), self._area_section(), self._cost_section()]))
        layout.addStretch(1)

    def _header(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        title = QtWidgets.QLabel("§3.1 从单次请求到持续到达的负载 · Request & Metrics")
        title.setProperty("role", "title")
        row.addWidget(title)
        row.addStretch(1)
        for kind, text in LEGEND[:5]:
            chip = QtWidgets.QLabel(f"<span style='color:{COLORS[kind]}'>■</span> {text}")
            chip.setProperty("role", "caption")
            row.addWidget(chip)
        return box

    def _anatomy_section(self) -> QtWidgets.QWidget:
        self.anatomy_card = CalculatorCard(request.ANATOMY, compact=False)
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
        self.decode_curve = self.anatomy_plot.add_curve(
            "decode_context", pen=pen("decode", 2), fillLevel=0, brush=brush("decode", 70), stepMode=None)
        self.step_cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        p.addItem(self.step_cursor)
        self.step_label = plot_text(anchor=(0, 1))
        p.addItem(self.step_label)
        self.step_player = TimelinePlayer(duration=1, speed=100, unit="steps")
        self.step_player.set_speed(100)
        return column(self.anatomy_card, self.anatomy_plot, self.step_player, stretch_last=False)

    def _split_section(self) -> QtWidgets.QWidget:
        self.split_card = CalculatorCard(request.SPLIT)
        self.split_plot = PlotCard("练习 3-1 · 总输出相同,请求数不同", "1 request vs n in lockstep")
        p = self.split_plot.plot
        p.setLabel("left", "count")
        self.split_bars_one = pg.BarGraphItem(x=[0, 2, 4], height=[0, 0, 0], width=0.7, brush=brush("wait", 200))
        self.split_bars_many = pg.BarGraphItem(x=[0.8, 2.8, 4.8], height=[0, 0, 0], width=0.7, brush=brush("decode"))
        p.addItem(self.split_bars_one)
        p.addItem(self.split_bars_many)
        axis = p.getAxis("bottom")
        axis.setTicks([[(0.4, "prefill calls"), (2.4, "decode steps"), (4.4, "weight reads")]])
        self.split_legend = p.addLegend(offset=(-10, 10))
        self.split_legend.addItem(self.split_bars_one, "1 request")
        self.split_legend.addItem(self.split_bars_many, "n requests")
        self.split_labels = [plot_text(anchor=(0.5, 1), size=9) for _ in range(6)]
        for label in self.split_labels:
            p.addItem(label)
        return column(self.split_card, self.split_plot)

    def _timeline_section(self) -> QtWidgets.QWidget:
        self.timeline_card = CalculatorCard(metrics.TIMELINE)
        self.timeline_plot = PlotCard("图 3-2 · 缩短哪一段,只改变包含它的指标", "drag the queue's edge", illustrative=True)
        p = self.timeline_plot.plot
        p.setLabel("bottom", "time since arrival t_a (s)")
        p.hideAxis("left")
        p.setYRange(-0.2, 4.3)
        p.setMouseEnabled(x=False, y=False)
        self.segment_bars = {kind: pg.BarGraphItem(x0=[0], x1=[0], y0=[2.6], y1=[3.4], brush=brush(_SEGMENT_COLOR[kind]),
                                                   pen=pg.mkPen(None)) for kind in _TIMELINE_ROWS}
        self.segment_labels = {kind: plot_text(anchor=(0.5, 0.5), size=9, kind="paper") for kind in _TIMELINE_ROWS}
        for kind in _TIMELINE_ROWS:
            p.addItem(self.segment_bars[kind])
            p.addItem(self.segment_labels[kind])
        self.token_ticks = p.plot([], [], pen=None, symbol="t1", symbolSize=6, symbolBrush=brush("decode"), symbolPen=None)
        self.queue_region = pg.LinearRegionItem(values=(0, 1), brush=brush("wait", 40), hoverBrush=brush("wait", 80),
                                                pen=pen("wait", 2))
        self.queue_region.lines[0].setMovable(False)
        self.queue_region.setToolTip("Drag the right edge: the queue grows or shrinks")
        p.addItem(self.queue_region)
        # Brackets for the three metrics.
        self.metric_curves = {name: p.plot([], [], pen=pen(kind, 2.5)) for name, kind in
                              (("ttft", "prefill"), ("t_request", "ink"), ("t_token", "decode"))}
        self.metric_labels = {name: plot_text(anchor=(0, 0.5), size=10) for name in self.metric_curves}
        for label in self.metric_labels.values():
            p.addItem(label)
        self.useful_line = marker_line(p, "state", label="首个有用输出", position=0.95, width=2)
        return column(self.timeline_card, self.timeline_plot)

    def _percentile_section(self) -> QtWidgets.QWidget:
        self.percentile_card = CalculatorCard(metrics.PERCENTILE)
        self.percentile_plot = PlotCard("p95 · 最近秩法,排队、首响应、完成分别排序", "40 requests (示意)", illustrative=True)
        p = self.percentile_plot.plot
        p.setLabel("bottom", "rank (ascending)")
        p.setLabel("left", "seconds")
        p.addLegend(offset=(10, 10))
        self.ranked_curves = {}
        for key, kind, name in (("queue_s", "wait", "排队 queue"), ("ttft_s", "prefill", "首响应 TTFT"),
                                ("completion_s", "decode", "完成 completion")):
            self.ranked_curves[key] = self.percentile_plot.add_curve(
                key, pen=pen(kind, 2), symbol="o", symbolSize=4, symbolBrush=brush(kind), symbolPen=None, name=name)
        self.rank_line = marker_line(p, "backlog")
        self.rank_label = plot_text(anchor=(1, 0), size=10, kind="backlog")
        p.addItem(self.rank_label)
        self.breakdown_label = QtWidgets.QLabel()
        self.breakdown_label.setProperty("role", "caption")
        self.breakdown_label.setWordWrap(True)
        return column(self.percentile_card, self.percentile_plot, self.breakdown_label, stretch_last=False)

    def _area_section(self) -> QtWidgets.QWidget:
        self.area_card = CalculatorCard(state.AREA)
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
        self.success_card = CalculatorCard(cost.SUCCESS)
        self.success_message = QtWidgets.QLabel()
        self.success_message.setWordWrap(True)
        self.success_message.setObjectName("success_message")
        self.compare_card = CalculatorCard(cost.COMPARE)
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
        return column(self.success_card, self.success_message, self.compare_card, self.cost_plot)

    def _connect(self) -> None:
        self.anatomy_card.computed.connect(lambda _: self._refresh_anatomy())
        self.step_player.position_changed.connect(self._on_step_position_changed)
        self.split_card.computed.connect(lambda _: self._refresh_split())
        self.timeline_card.computed.connect(lambda _: self._refresh_timeline())
        self.queue_region.sigRegionChanged.connect(self._on_queue_dragged)
        self.percentile_card.computed.connect(lambda _: self._refresh_percentile())
        self.area_card.computed.connect(lambda _: self._refresh_area())
        self.success_card.computed.connect(lambda _: self._refresh_success())
        self.compare_card.computed.connect(lambda _: self._refresh_compare())

    # ---- refresh --------------------------------------------------------------
    def refresh(self) -> None:
        self._refresh_anatomy()
        self._refresh_split()
        self._refresh_timeline()
        self._refresh_percentile()
        self._refresh_area()
        self._refresh_success()
        self._refresh_compare()

    def _refresh_anatomy(self) -> None:
        v = self.anatomy_card.values()
        S, P, G = v["context_tokens"], v["input_tokens"], v["output_tokens"]
        contexts = request.decode_contexts(S, P, G)
        # The prefill is one call; draw it a few percent of the axis wide so it stays visible.
        width = max(0.8, G * 0.025)
        self.restored_bar.setOpts(x=[-width / 2], height=[S], width=width)
        self.prefill_bar.setOpts(x=[-width / 2], y0=[S], height=[P], width=width)
        steps = np.arange(1, contexts.size + 1)
        self.decode_curve.setData(steps, contexts)
        self.anatomy_plot.plot.setXRange(-width, max(G, 2), padding=0.02)
        self.anatomy_plot.plot.setYRange(0, max(S + P + G, 1) * 1.08, padding=0)
        self.step_player.set_duration(max(G - 1, 1))
        self._on_step_position_changed(self.step_player.position)

    def _on_step_position_changed(self, position: float) -> None:
        v = self.anatomy_card.values()
        S, P, G = v["context_tokens"], v["input_tokens"], v["output_tokens"]
        j = min(int(position), max(G - 2, 0))
        if G <= 1:
            self.step_cursor.setValue(0)
            self.step_label.setText(f"prefill only: context {S + P:,}, no decode step")
            self.step_label.setPos(0, S + P)
            return
        self.step_cursor.setValue(j + 1)
        self.step_label.setText(f"decode j={j:,}: context S+P+j = {S + P + j:,}")
        self.step_label.setPos(min(j + 1, (G - 1) * 0.55), S + P + j)

    def _refresh_split(self) -> None:
        many = self.split_card.result
        one = request.SPLIT.run({**self.split_card.values(), "requests": 1})
        keys = ("prefill_calls", "decode_steps_total", "weight_read_rounds")
        ones = [one[k] for k in keys]
        manys = [many[k] for k in keys]
        self.split_bars_one.setOpts(height=ones)
        self.split_bars_many.setOpts(height=manys)
        xs = [0, 2, 4, 0.8, 2.8, 4.8]
        for label, x, value in zip(self.split_labels, xs, ones + manys):
            label.setText(f"{value:,}")
            label.setPos(x, value)
        self.split_plot.plot.setYRange(0, max(ones + manys) * 1.18, padding=0)
        self.split_plot.plot.setXRange(-0.6, 5.4, padding=0)

    def _refresh_timeline(self) -> None:
        v = self.timeline_card.values()
        tl = metrics.RequestTimeline(**v)
        out = self.timeline_card.result
        for kind in _TIMELINE_ROWS:
            self.segment_bars[kind].setOpts(x0=[0], x1=[0])
            self.segment_labels[kind].setText("")
        for kind, start, end in tl.segments():
            self.segment_bars[kind].setOpts(x0=[start], x1=[end])
            self.segment_labels[kind].setText(_SEGMENT_TEXT[kind] if end - start > tl.t_last * 0.07 else "")
            self.segment_labels[kind].setPos((start + end) / 2, 3.0)
        n_tokens = tl.thinking_tokens + tl.output_tokens
        token_times = tl.t_first + np.arange(n_tokens) * tl.token_interval_s
        self.token_ticks.setData(token_times, np.full(n_tokens, 2.45))
        blocker = QtCore.QSignalBlocker(self.queue_region)
        self.queue_region.setRegion((0, tl.queue_s))
        del blocker
        brackets = {"ttft": (0.0, tl.t_first, 1.9), "t_request": (0.0, tl.t_last, 1.2),
                    "t_token": (tl.t_first, tl.t_last, 0.5)}
        texts = {"ttft": f"TTFT = {format_seconds(out['ttft_s'])}",
                 "t_request": f"T_request = {format_seconds(out['t_request_s'])}",
                 "t_token": "T_token = " + (format_seconds(out["t_token_s"]) if out["t_token_s"] is not None else "—")}
        for name, (a, b, y) in brackets.items():
            self.metric_curves[name].setData([a, a, b, b], [y + 0.15, y, y, y + 0.15])
            self.metric_labels[name].setText(texts[name])
            self.metric_labels[name].setPos(a + (b - a) * 0.02, y - 0.22)
        self.useful_line.setValue(tl.t_first_useful)
        self.useful_line.setVisible(tl.thinking_tokens > 0)
        self.timeline_plot.plot.setXRange(0, tl.t_last * 1.04, padding=0)

    def _on_queue_dragged(self) -> None:
        low, high = self.queue_region.getRegion()
        if low != 0:  # the queue always starts at arrival
            blocker = QtCore.QSignalBlocker(self.queue_region)
            self.queue_region.setRegion((0, max(high, 0)))
            del blocker
        self.timeline_card.set_value("queue_s", round(max(high, 0.0), 3))

    def _refresh_percentile(self) -> None:
        values = self.percentile_card.values()
        q = values["q"]
        observed = metrics.illustrative_observations()
        lines = []
        for key, curve in self.ranked_curves.items():
            ranked = np.sort(observed[key])
            curve.setData(np.arange(1, ranked.size + 1), ranked)
            p = metrics.percentile(ranked.tolist(), q)
            lines.append(f"{key.replace('_s', '')}: p{q * 100:g} = {format_seconds(p['value'])} (rank {p['rank']})")
        result = self.percentile_card.result
        rank = metrics.nearest_rank(len(observed["queue_s"]), q)
        self.rank_line.setValue(rank)
        self.rank_label.setText(f"⌈{q:g}·n⌉ = {rank}")
        self.rank_label.setPos(rank, float(np.max(observed["completion_s"])))
        self.breakdown_label.setText(
            f"Your {result['n']} values: p{q * 100:g} is the {result['rank']}-th = {result['value']:g}.  "
            "Ranked separately (示意): " + " · ".join(lines) + ". The long waits sit in the queue, not the decode.")

    def _refresh_area(self) -> None:
        v = self.area_card.values()
        rate, m0, tau = v["arrival_rate_per_s"], v["state_bytes"], v["wait_s"]
        horizon = max(3 * tau, 5 / rate, 1e-6)
        horizon = min(horizon, MAX_OCCUPANCY_ARRIVALS / rate)
        t, m = state.occupancy_series(rate, m0, tau, horizon)
        self.occupancy_curve.setData(t, m / GiB)
        mean = self.area_card.result["mean_occupancy_bytes"]
        self.mean_line.setValue(mean / GiB)
        self.mean_line.label.setFormat(f"λ·M0·τ = {format_bytes(mean)}")
        first_start = horizon - tau if horizon > tau else 0.0
        self.task_area.setRegion((first_start, first_start + tau))
        self.task_label.setText(f"one task: M0·τ = {format_bytes(m0 * tau).replace('B', 'B·s', 1)}")
        self.task_label.setPos(first_start, max(m.max() / GiB, m0 / GiB) * 1.1 if m.size else 1)
        self.area_plot.plot.setYRange(0, max(float(m.max()) / GiB if m.size else 0, mean / GiB, m0 / GiB) * 1.25, padding=0)
        self.area_plot.plot.setXRange(0, horizon, padding=0.01)

    def _refresh_success(self) -> None:
        r = self.success_card.result
        if r["cost_per_success"] is None:
            self.success_message.setText(
                f"<span style='color:{COLORS['backlog']}'>零成功:只记录消耗与失败。</span> Consumed "
                f"{r['total_cost']:g}, {r['failures']:,} failures; no success cost to report.")
        else:
            self.success_message.setText(
                f"Every attempt is in the numerator, only successes in the denominator: "
                f"{r['total_cost']:g} / {self.success_card.values()['successes']:,} = {r['cost_per_success']:g} per success.")

    def _refresh_compare(self) -> None:
        v = self.compare_card.values()
        r = self.compare_card.result
        p2 = np.linspace(max(v["c2"] / (v["c1"] / v["p1"]) / 4, 0.02), 1.0, 200)
        self.method2_curve.setData(p2, v["c2"] / p2)
        self.method1_line.setValue(r["cost_per_success_1"])
        self.break_even_line.setValue(r["break_even_p2"])
        self.break_even_line.setVisible(r["break_even_p2"] <= 1.0)
        self.current_point.setData([v["p2"]], [r["cost_per_success_2"]])
        top = max(r["cost_per_success_1"], r["cost_per_success_2"]) * 2.2
        self.cost_plot.plot.setYRange(0, top, padding=0)
        self.cost_plot.plot.setXRange(0, 1.02, padding=0)

    def close(self) -> bool:
        self.step_player.pause()
        return super().close()


PANEL = PanelInfo(key="request", title="请求与指标 · Request & Metrics", section="3.1", order=1.0,
                  factory=RequestPanel)
