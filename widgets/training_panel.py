"""§3.4-3.5 as three pages: a training step you can watch (图 3-20, 例题 3-3), the FLOPs
beside 6ND, packing and label masking (图 3-23, 练习 3-6), and the RL cycle (图 3-24,
例题 3-4, 练习 3-7). Every number comes from core; schedules are computed there once and
this module only plays them back with setData on items created once."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core import catalog, rl, train_step, training
from core.train_step import BACKWARD, FORWARD, OPTIMIZER, STATE_KINDS, STATE_LABELS, StepTimeline
from core.units import GB, format_bytes, format_flops, format_seconds
from widgets.calculator_card import CalculatorCard
from widgets.panels import PanelInfo
from widgets.plot_card import PlotCard
from widgets.theme import COLORS, brush, color, pen
from widgets.timeline_player import TimelinePlayer

# Resident state in shades of the house's "状态驻留" purple; activations in the accent.
KIND_COLORS = {
    "weights": "#5b3a8e",
    "gradients": "#7d55b5",
    "master": "#a07fd0",
    "adam": "#c9b3ea",
    "activations": COLORS["accent"],
}
ROLE_COLORS = {"rollout": COLORS["decode"], "reward": COLORS["tool"], "reference": COLORS["prefill"],
               "update": COLORS["state"], "sync": COLORS["accent"]}
MAX_PIPELINE_LABELS = 24  # batch labels drawn per role; more batches go unlabelled
MAX_REWARD_BUTTONS = 8
PIXMAP_CACHE_KIB = 256 * 1024


def _text_item(anchor=(0, 1), size: int = 9, kind: str = "ink") -> pg.TextItem:
    item = pg.TextItem("", color=color(kind), anchor=anchor)
    font = item.textItem.font()
    font.setPointSize(size)
    item.setFont(font)
    return item


def _caption(text: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setProperty("role", "caption")
    label.setWordWrap(True)
    return label


def _column(*widgets: QtWidgets.QWidget, stretch: int | None = None) -> QtWidgets.QWidget:
    box = QtWidgets.QWidget()
    col = QtWidgets.QVBoxLayout(box)
    col.setContentsMargins(0, 0, 0, 0)
    col.setSpacing(6)
    for w in widgets:
        col.addWidget(w)
    if stretch is not None:
        col.setStretch(stretch, 1)
    return box


def _scroll_page() -> tuple[QtWidgets.QScrollArea, QtWidgets.QVBoxLayout]:
    scroll = QtWidgets.QScrollArea()
    scroll.setWidgetResizable(True)
    page = QtWidgets.QWidget()
    page.setObjectName("page")
    scroll.setWidget(page)
    layout = QtWidgets.QVBoxLayout(page)
    layout.setContentsMargins(14, 10, 14, 14)
    layout.setSpacing(10)
    return scroll, layout


# ======================================================================================
# The step view: schedule and memory of one training step, played back.


class StepView(QtWidgets.QWidget):
    """Two plots sharing a time axis: layer x time blocks with activation lifetimes, and
    memory stacked by kind against the card's capacity. show_timeline() sets the static
    items; set_time() moves the playback (a handful of setData calls)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        # Cached items live in QPixmapCache; its 10 MB default cannot hold two full-size
        # plots, and an evicted cache is a full repaint on every frame.
        if QtGui.QPixmapCache.cacheLimit() < PIXMAP_CACHE_KIB:
            QtGui.QPixmapCache.setCacheLimit(PIXMAP_CACHE_KIB)
        self.timeline: StepTimeline | None = None
        self._build_ui()

    def _build_ui(self) -> None:
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.schedule_plot = PlotCard("图 3-20 · 前向逐层向上,反向逐层向下;激活从前向完成留到反向用完",
                                      "blue forward ▲, orange backward ▼ (2×), teal: activation alive, green: update",
                                      illustrative=True)
        p = self.schedule_plot.plot
        p.setLabel("left", "layer")
        p.setMouseEnabled(x=True, y=False)
        self.forward_bars = pg.BarGraphItem(x0=[], y0=[], width=[], height=[], pen=pg.mkPen(None))
        self.backward_bars = pg.BarGraphItem(x0=[], y0=[], width=[], height=[], pen=pg.mkPen(None))
        self.optimizer_bar = pg.BarGraphItem(x0=[0], y0=[0], width=[0], height=[0], brush=brush("tool", 220), pen=pg.mkPen(None))
        self.lifetime_bars = pg.BarGraphItem(x0=[], y0=[], width=[], height=[], brush=brush("accent", 55), pen=pg.mkPen(None))
        self.alive_bars = pg.BarGraphItem(x0=[], y0=[], width=[], height=[], brush=brush("accent", 230), pen=pg.mkPen(None))
        for item in (self.lifetime_bars, self.forward_bars, self.backward_bars, self.optimizer_bar, self.alive_bars):
            p.addItem(item)
        # The schedule is static during playback: paint it once into a pixmap and blit it
        # each frame (thousands of bars at 100 layers x 16 micro-batches).
        for item in (self.lifetime_bars, self.forward_bars, self.backward_bars, self.optimizer_bar):
            item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.schedule_future = pg.LinearRegionItem(values=(0, 0), movable=False, brush=pg.mkBrush(255, 255, 255, 170),
                                                   pen=pg.mkPen(None))
        self.schedule_future.setZValue(20)
        p.addItem(self.schedule_future)
        self.schedule_cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        self.schedule_cursor.setZValue(30)
        p.addItem(self.schedule_cursor)
        # Colours are named by the panel's header chips; a legend here would cover blocks.
        self.forward_bars.setOpts(brush=brush("prefill"))
        self.backward_bars.setOpts(brush=brush("decode"))

        self.memory_plot = PlotCard("显存随时间 · memory per card, stacked by kind",
                                    "parameter state resident; activations rise and fall")
        m = self.memory_plot.plot
        m.setLabel("left", "GB")
        m.setLabel("bottom", "time in the step (s)")
        m.setMouseEnabled(x=True, y=False)
        m.setXLink(p)
        # Stacked: each kind drawn from 0 to its cumulative top, the top-most kind first.
        self.kind_curves: dict[str, pg.PlotDataItem] = {}
        for z, kind in enumerate(reversed(STATE_KINDS)):
            # Axis-aligned steps need no antialiasing; without it the fill is several times cheaper.
            c = self.memory_plot.add_curve(kind, pen=pg.mkPen(KIND_COLORS[kind], width=1), fillLevel=0,
                                           brush=pg.mkBrush(KIND_COLORS[kind]), antialias=False, skipFiniteCheck=True)
            c.setZValue(z)
            # The whole step is drawn once; playback only slides the fade over the future.
            c.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.kind_curves[kind] = c
        legend = m.addLegend(offset=(-8, -8), colCount=3, brush=pg.mkBrush(255, 255, 255, 225))
        legend.setZValue(40)
        for kind in STATE_KINDS:
            legend.addItem(self.kind_curves[kind], STATE_LABELS[kind])
        self.capacity_line = pg.InfiniteLine(angle=0, pen=pen("backlog", 2, dashed=True), label="",
                                             labelOpts={"position": 0.985, "color": COLORS["backlog"], "anchors": [(1, 1), (1, 1)]})
        self.capacity_line.setZValue(25)
        m.addItem(self.capacity_line)
        self.memory_future = pg.LinearRegionItem(values=(0, 0), movable=False, brush=pg.mkBrush(255, 255, 255, 185),
                                                 pen=pg.mkPen(None))
        self.memory_future.setZValue(20)
        m.addItem(self.memory_future)
        self.memory_cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        self.memory_cursor.setZValue(30)
        m.addItem(self.memory_cursor)
        self.readout = QtWidgets.QLabel()
        self.readout.setObjectName("step_readout")
        self.readout.setMinimumHeight(22)
        # Axes (with their grid lines) do not change while the step plays; pyqtgraph
        # would otherwise replay each axis picture on every frame.
        for plot in (p, m):
            for name in ("left", "bottom"):
                plot.getAxis(name).setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        layout.addWidget(self.schedule_plot, 1)
        layout.addWidget(self.memory_plot, 1)

    # ---- data -----------------------------------------------------------------------
    def show_timeline(self, tl: StepTimeline, capacity_text: str = "") -> None:
        """Set the static items for a new schedule (once per parameter change)."""
        self.timeline = tl
        phase = tl.block_phase
        mb_alpha = np.where(tl.block_micro_batch % 2 == 0, 235, 150)  # neighbouring micro-batches alternate
        for bars, which, kind in ((self.forward_bars, FORWARD, "prefill"), (self.backward_bars, BACKWARD, "decode")):
            sel = phase == which
            brushes = [brush(kind, int(a)) for a in mb_alpha[sel]]
            bars.setOpts(x0=tl.block_start_s[sel], width=tl.block_end_s[sel] - tl.block_start_s[sel],
                         y0=tl.block_layer[sel] + 0.6, height=np.full(sel.sum(), 0.8), brushes=brushes)
        opt = phase == OPTIMIZER
        self.optimizer_bar.setOpts(x0=tl.block_start_s[opt], width=np.maximum(tl.block_end_s[opt] - tl.block_start_s[opt], 0),
                                   y0=[0.6], height=[tl.layers - 0.2])
        self.lifetime_bars.setOpts(x0=tl.act_alloc_s, width=tl.act_free_s - tl.act_alloc_s,
                                   y0=tl.act_layer + 0.85, height=np.full(tl.act_layer.size, 0.3))
        self._cum_state = {}
        running = 0.0
        for kind in STATE_KINDS[:-1]:
            running += tl.state_bytes.get(kind, 0.0)
            self._cum_state[kind] = running
        self._state_total = running
        xs = np.array([0.0, tl.duration_s])
        for kind in STATE_KINDS[:-1]:
            level = self._cum_state[kind] / GB
            self.kind_curves[kind].setData(xs, np.array([level, level]))
        x_full, y_full = tl.stacked_until(tl.duration_s)
        self.kind_curves["activations"].setData(x_full, (y_full + running) / GB)
        capacity = tl.capacity_bytes
        self.capacity_line.setVisible(capacity is not None)
        if capacity is not None:
            self.capacity_line.setValue(capacity / GB)
            self.capacity_line.label.setFormat(capacity_text or f"capacity {capacity / GB:.0f} GB")
        top = max(running + tl.peak_activation_bytes, capacity or 0.0) / GB
        self.memory_plot.plot.setYRange(0, top * 1.12, padding=0)
        self.memory_plot.plot.setXRange(0, tl.duration_s, padding=0.01)
        self.schedule_plot.plot.setYRange(0.4, tl.layers + 0.6, padding=0)
        ticks = [(l + 1, str(l + 1)) for l in range(tl.layers) if tl.layers <= 12 or (l + 1) % max(tl.layers // 6, 1) == 0 or l == 0]
        self.schedule_plot.plot.getAxis("left").setTicks([ticks])

    def set_time(self, t: float) -> None:
        """Playback: reveal the step up to t."""
        tl = self.timeline
        if tl is None:
            return
        t = min(max(t, 0.0), tl.duration_s)
        self.schedule_cursor.setValue(t)
        self.memory_cursor.setValue(t)
        self.schedule_future.setRegion((t, tl.duration_s * 1.02 + 1e-12))
        self.memory_future.setRegion((t, tl.duration_s * 1.02 + 1e-12))
        alive = tl.alive_at(t)
        self.alive_bars.setOpts(x0=tl.act_alloc_s[alive], width=t - tl.act_alloc_s[alive],
                                y0=tl.act_layer[alive] + 0.85, height=np.full(alive.size, 0.3))
        activation = tl.activation_at(t)
        total = self._state_total + activation
        mbs = sorted(set(tl.act_micro_batch[alive].tolist()))
        who = f"micro-batch {mbs[0] + 1}/{tl.micro_batches}" if mbs else "—"
        over = tl.capacity_bytes is not None and total > tl.capacity_bytes
        ink = COLORS["backlog"] if over else COLORS["ink"]
        self.readout.setText(
            f"<b>t = {format_seconds(t)}</b> · {alive.size} layer activations alive ({who}) · "
            f"<span style='color:{ink}'>state {self._state_total / GB:,.1f} GB + activations "
            f"{activation / GB:,.1f} GB = <b>{total / GB:,.1f} GB</b>"
            + (f" &gt; {tl.capacity_bytes / GB:,.0f} GB capacity" if over else "") + "</span>")


# ======================================================================================
# The pipeline view of 图 3-24.


class PipelineView(QtWidgets.QWidget):
    """Synchronous and asynchronous schedules of the same roles, one above the other."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.schedules: dict[str, rl.PipelineSchedule] = {}
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plots: dict[str, PlotCard] = {}
        self.bars: dict[str, dict[str, pg.BarGraphItem]] = {}
        self.labels: dict[str, dict[str, list[pg.TextItem]]] = {}
        self.cursors: dict[str, pg.InfiniteLine] = {}
        self.future: dict[str, pg.LinearRegionItem] = {}
        self.status: dict[str, pg.TextItem] = {}
        titles = {"synchronous": "同步 synchronous · 等新权重就绪再生成",
                  "asynchronous": "异步 asynchronous · 生成与更新重叠,数据可能滞后"}
        first = None
        for mode in ("synchronous", "asynchronous"):
            card = PlotCard(titles[mode], "b·v = batch · weights version", illustrative=True)
            p = card.plot
            p.setMouseEnabled(x=True, y=False)
            p.getAxis("left").setTicks([[(len(rl.ROLES) - 1 - i, rl.ROLE_LABELS[r]) for i, r in enumerate(rl.ROLES)]])
            p.setYRange(-0.6, len(rl.ROLES) - 0.4, padding=0)
            self.bars[mode], self.labels[mode] = {}, {}
            for role in rl.ROLES:
                bars = pg.BarGraphItem(x0=[], y0=[], width=[], height=[], brush=brush(ROLE_COLORS[role], 220), pen=pen("paper", 1))
                p.addItem(bars)
                self.bars[mode][role] = bars
                texts = []
                for _ in range(MAX_PIPELINE_LABELS):
                    t = _text_item(anchor=(0.5, 0.5), size=8, kind="paper")
                    t.setZValue(10)
                    p.addItem(t)
                    texts.append(t)
                self.labels[mode][role] = texts
            region = pg.LinearRegionItem(values=(0, 0), movable=False, brush=pg.mkBrush(255, 255, 255, 170), pen=pg.mkPen(None))
            region.setZValue(20)
            p.addItem(region)
            cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
            cursor.setZValue(30)
            p.addItem(cursor)
            status = _text_item(anchor=(1, 0), size=9)
            status.setZValue(35)
            p.addItem(status)
            self.future[mode], self.cursors[mode], self.status[mode] = region, cursor, status
            if first is None:
                first = p
            else:
                p.setXLink(first)
                p.setLabel("bottom", "time (s)")
            card.plot_widget.setMinimumHeight(190)
            card.setMaximumHeight(300)
            self.plots[mode] = card
            layout.addWidget(card)

    def show_schedules(self, schedules: dict) -> None:
        self.schedules = schedules
        end = max(s.total_s for s in schedules.values())
        for mode, s in schedules.items():
            for i, role in enumerate(rl.ROLES):
                y = len(rl.ROLES) - 1 - i
                starts, ends = s.start_s[role], s.end_s[role]
                self.bars[mode][role].setOpts(x0=starts, width=ends - starts, y0=np.full(starts.size, y - 0.35),
                                              height=np.full(starts.size, 0.7))
                for k, text in enumerate(self.labels[mode][role]):
                    show = bool(k < s.batches and (ends[k] - starts[k]) > end / 80)
                    text.setVisible(show)
                    if show:
                        label = f"b{k + 1}·v{s.weight_version[k]}" if role == "rollout" else f"b{k + 1}"
                        text.setText(label)
                        text.setPos((starts[k] + ends[k]) / 2, y)
            self.plots[mode].plot.setXRange(0, end, padding=0.01)

    def set_time(self, t: float) -> None:
        for mode, s in self.schedules.items():
            self.cursors[mode].setValue(t)
            self.future[mode].setRegion((t, max(s.total_s, t) * 1.05 + 1e-9))
            done = int(np.count_nonzero(s.end_s["sync"] <= t))
            busy = [rl.ROLE_LABELS[r].split()[-1] for r in rl.ROLES if np.any((s.start_s[r] <= t) & (t < s.end_s[r]))]
            self.status[mode].setText(f"{done}/{s.batches} batches done · busy: {', '.join(busy) or 'idle'}")
            view = self.plots[mode].plot.viewRange()
            self.status[mode].setPos(view[0][1], view[1][1])


# ======================================================================================
# The panel


class TrainingPanel(QtWidgets.QWidget):
    """Training state, FLOPs and the RL cycle."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._build_ui()
        self._connect()
        self.refresh()

    # ---- construction -------------------------------------------------------------
    def _build_ui(self) -> None:
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        header = QtWidgets.QWidget()
        header.setObjectName("page")
        row = QtWidgets.QHBoxLayout(header)
        row.setContentsMargins(14, 10, 14, 2)
        title = QtWidgets.QLabel("§3.4–3.5 训练的计算与状态需求,强化学习 · Training state & RL")
        title.setProperty("role", "title")
        row.addWidget(title)
        row.addStretch(1)
        for text, kind in (("前向 forward", COLORS["prefill"]), ("反向 backward", COLORS["decode"]),
                           ("状态 state", KIND_COLORS["gradients"]), ("激活 activations", KIND_COLORS["activations"]),
                           ("更新 / 反馈", COLORS["tool"])):
            chip = QtWidgets.QLabel(f"<span style='color:{kind}'>■</span> {text}")
            chip.setProperty("role", "caption")
            row.addWidget(chip)
        outer.addWidget(header)
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        outer.addWidget(self.tabs, 1)
        self.tabs.addTab(self._step_page(), "训练一步 · step && memory")
        self.tabs.addTab(self._flops_page(), "运算量与 token · FLOPs, packing, labels")
        self.tabs.addTab(self._rl_page(), "强化学习 · RL cycle")

    # -- page 1: step ---------------------------------------------------------------
    def _step_page(self) -> QtWidgets.QWidget:
        scroll, layout = _scroll_page()
        top = QtWidgets.QHBoxLayout()
        top.setSpacing(12)
        self.step_card = CalculatorCard(train_step.STEP, compact=True)
        sliders = QtWidgets.QGroupBox("拖动 · drag")
        grid = QtWidgets.QGridLayout(sliders)
        self.micro_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.micro_slider.setObjectName("micro_batches_slider")
        self.micro_value = QtWidgets.QLabel()
        self.cards_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.cards_slider.setObjectName("cards_slider")
        self.cards_slider.setRange(1, 16)
        self.cards_value = QtWidgets.QLabel()
        grid.addWidget(QtWidgets.QLabel("micro-batches a"), 0, 0)
        grid.addWidget(self.micro_slider, 0, 1)
        grid.addWidget(self.micro_value, 0, 2)
        grid.addWidget(QtWidgets.QLabel("cards (state split evenly)"), 1, 0)
        grid.addWidget(self.cards_slider, 1, 1)
        grid.addWidget(self.cards_value, 1, 2)
        self.step_mode = QtWidgets.QComboBox()
        self.step_mode.setObjectName("step_mode")
        self.step_mode.addItem("Qwen3-8B 一步 · the model on the card (estimate)", "model")
        self.step_mode.addItem("图 3-20 示意 · 4 layers as the book draws it", "illustrative")
        grid.addWidget(QtWidgets.QLabel("view"), 2, 0)
        grid.addWidget(self.step_mode, 2, 1, 1, 2)
        self.step_verdict = QtWidgets.QLabel()
        self.step_verdict.setWordWrap(True)
        self.step_verdict.setObjectName("step_verdict")
        left = _column(sliders, self.step_verdict, self.step_card,
                       _caption("激活 = 每层为反向保存的张量(BF16,flash attention 不存注意力分数)的估算;"
                                "书中图 3-20 的时长为示意,这里按所选卡的 BF16 峰值 × MFU 折算。"
                                "“均分”只是把状态切开分给多卡保存的粗略示意(第 10 章)。"))
        left.layout().addStretch(1)
        left.setFixedWidth(440)
        self.step_view = StepView()
        self.step_player = TimelinePlayer(duration=1.0, unit="s")
        self.step_player.setObjectName("step_player")
        right = _column(self.step_view.readout, self.step_view, self.step_player, stretch=1)
        top.addWidget(left)
        top.addWidget(right, 1)
        holder = QtWidgets.QWidget()
        holder.setLayout(top)
        holder.setFixedHeight(850)
        layout.addWidget(holder)
        bottom = QtWidgets.QHBoxLayout()
        bottom.setSpacing(12)
        self.state_card = CalculatorCard(training.STATE, compact=True)
        self.linear_card = CalculatorCard(training.LINEAR, compact=True)
        bottom.addWidget(self.state_card, 1)
        bottom.addWidget(self.linear_card, 1)
        layout.addLayout(bottom)
        layout.addStretch(1)
        return scroll

    # -- page 2: FLOPs, packing, labels -----------------------------------------------
    def _flops_page(self) -> QtWidgets.QWidget:
        scroll, layout = _scroll_page()
        grid = QtWidgets.QGridLayout()
        grid.setSpacing(12)
        # 图 3-23
        self.flops_card = CalculatorCard(training.FLOPS, compact=True)
        self.flops_plot = PlotCard("图 3-23 · 6ND 与逐项核算", "Qwen3-8B, B=1, P=8192, full training")
        p = self.flops_plot.plot
        p.setLabel("left", "TFLOPs")
        p.getAxis("bottom").setTicks([[(0, "6ND 粗算"), (1, "逐项 item by item")]])
        p.setXRange(-0.5, 3.3, padding=0)
        p.setMouseEnabled(x=False, y=False)
        self.flops_parts = {
            "six_matrix": ("prefill", "层内矩阵 layer matrices"),
            "six_head": ("decode", "词表投影 lm_head"),
            "six_embedding": ("backlog", "词嵌入等 (6ND 多算) embedding + norms"),
            "item_matrix": ("prefill", ""),
            "item_head": ("decode", ""),
            "item_attention": ("tool", "注意力 attention (6ND 漏算)"),
            "item_recompute": ("wait", "重计算 recompute"),
        }
        self.flops_bars: dict[str, pg.BarGraphItem] = {}
        self.flops_texts: dict[str, pg.TextItem] = {}
        legend = p.addLegend(offset=(-6, -30), brush=pg.mkBrush(255, 255, 255, 220))
        for key, (kind, text) in self.flops_parts.items():
            bar = pg.BarGraphItem(x=[0], y0=[0], height=[0], width=0.62, brush=brush(kind, 215), pen=pen("paper", 1))
            p.addItem(bar)
            self.flops_bars[key] = bar
            label = _text_item(anchor=(0.5, 0.5), size=8, kind="paper")
            label.setZValue(5)
            p.addItem(label)
            self.flops_texts[key] = label
            if text:
                legend.addItem(bar, text)
        self.six_nd_line = pg.InfiniteLine(angle=0, pen=pen("ink", 1.2, dashed=True))
        p.addItem(self.six_nd_line)
        self.flops_ratio_text = _text_item(anchor=(0.5, 1), size=11)
        p.addItem(self.flops_ratio_text)
        grid.addWidget(_column(self.flops_card, self.flops_plot, stretch=1), 0, 0)

        # packing
        self.packing_card = CalculatorCard(training.PACKING, compact=True)
        self.split_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.split_slider.setObjectName("split_slider")
        self.split_label = QtWidgets.QLabel()
        split_row = QtWidgets.QWidget()
        hl = QtWidgets.QHBoxLayout(split_row)
        hl.setContentsMargins(0, 0, 0, 0)
        hl.addWidget(QtWidgets.QLabel("第一份文档 first document"))
        hl.addWidget(self.split_slider, 1)
        hl.addWidget(self.split_label)
        self.packing_plot = PlotCard("两份文档:配对与整层工作", "vs the split")
        q = self.packing_plot.plot
        q.setLabel("bottom", "first document (tokens); second = total − first")
        q.setLabel("left", "against one document")
        q.setYRange(0, 1.05, padding=0)
        q.setMouseEnabled(x=False, y=False)
        q.addLegend(offset=(-6, -6))
        self.pairs_curve = self.packing_plot.add_curve("pairs_ratio", pen=pen("tool", 2), name="查询—键配对 pairs")
        self.layer_curve = self.packing_plot.add_curve("layer_work_ratio", pen=pen("prefill", 2), name="整层工作 layer work")
        self.packing_marker = pg.ScatterPlotItem(size=10, brush=brush("backlog"), pen=pen("paper", 1))
        q.addItem(self.packing_marker)
        self.split_line = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.2, dashed=True))
        q.addItem(self.split_line)
        self.mask_plot = PlotCard("因果掩码 causal mask", "queries ↓ keys →")
        self.mask_plot.plot_widget.setMinimumHeight(200)
        mp = self.mask_plot.plot
        mp.hideAxis("left")
        mp.hideAxis("bottom")
        mp.setAspectLocked(True)
        mp.invertY(True)
        mp.setMouseEnabled(x=False, y=False)
        self.mask_image = pg.ImageItem(axisOrder="row-major")
        self.mask_image.setLookupTable(np.array([color("paper").getRgb()[:3], color("tool").getRgb()[:3]], dtype=np.ubyte))
        mp.addItem(self.mask_image)
        plots = QtWidgets.QHBoxLayout()
        plots.addWidget(self.packing_plot, 3)
        plots.addWidget(self.mask_plot, 2)
        packing_plots = QtWidgets.QWidget()
        packing_plots.setLayout(plots)
        grid.addWidget(_column(self.packing_card, split_row, packing_plots, stretch=2), 0, 1)

        # labels
        self.update_card = CalculatorCard(training.UPDATE, compact=True)
        self.update_plot = PlotCard("练习 3-6 · 只屏蔽标签 vs 只对监督 token 做词表投影", "FLOPs of one update")
        u = self.update_plot.plot
        u.setLabel("left", "TFLOPs")
        u.getAxis("bottom").setTicks([[(0, "只屏蔽损失 label masking"), (1, "跳过词表投影 skip projection")]])
        u.setXRange(-0.6, 2.5, padding=0)
        u.setMouseEnabled(x=False, y=False)
        self.trunk_bars = pg.BarGraphItem(x=[0, 1], y0=[0, 0], height=[0, 0], width=0.55, brush=brush("prefill", 200), pen=pen("paper", 1))
        self.head_bars = pg.BarGraphItem(x=[0, 1], y0=[0, 0], height=[0, 0], width=0.55, brush=brush("decode", 220), pen=pen("paper", 1))
        u.addItem(self.trunk_bars)
        u.addItem(self.head_bars)
        leg = u.addLegend(offset=(-6, 6))
        leg.addItem(self.trunk_bars, "主干 trunk (layers + attention)")
        leg.addItem(self.head_bars, "词表投影 lm_head")
        self.update_texts = [_text_item(anchor=(0.5, 1), size=9) for _ in range(2)]
        for t in self.update_texts:
            u.addItem(t)
        self.update_caption = _caption("")
        update_left = _column(self.update_card)
        update_left.layout().addStretch(1)
        grid.addWidget(update_left, 1, 0)
        grid.addWidget(_column(self.update_plot, self.update_caption, stretch=0), 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        layout.addStretch(1)
        return scroll

    # -- page 3: RL -------------------------------------------------------------------
    def _rl_page(self) -> QtWidgets.QWidget:
        scroll, layout = _scroll_page()
        top = QtWidgets.QHBoxLayout()
        top.setSpacing(12)
        self.pipeline_card = CalculatorCard(rl.PIPELINE, compact=True)
        self.pipeline_card.setMaximumWidth(470)
        self.pipeline_view = PipelineView()
        self.pipeline_player = TimelinePlayer(duration=1.0, unit="s")
        pipeline_left = _column(self.pipeline_card,
                                _caption("图 3-24:某个角色变慢,后继角色就要等。同步方案等新权重就绪再生成;"
                                         "异步让生成与更新重叠,但样本由旧版本权重生成(v = 生成时的权重版本)。"))
        pipeline_left.layout().addStretch(1)
        pipeline_left.setFixedWidth(440)
        top.addWidget(pipeline_left)
        top.addWidget(_column(self.pipeline_view, self.pipeline_player, stretch=0), 1)
        layout.addLayout(top)

        grid = QtWidgets.QGridLayout()
        grid.setSpacing(12)
        self.cycle_card = CalculatorCard(rl.CYCLE, compact=True)
        self.cycle_plot = PlotCard("例题 3-4 · F_cycle(n) = n(f_g + f_r) + F_u", "n_generate ≈ n_keep / a")
        c = self.cycle_plot.plot
        c.setLabel("bottom", "answers generated n")
        c.setLabel("left", "TFLOPs per cycle")
        c.setMouseEnabled(x=False, y=False)
        c.addLegend(offset=(6, 6))
        self.cycle_curves = {}
        for key, kind, name in (("total", "decode", "生成 generation f_g"), ("ref_top", "prefill", "参考 reference f_r"),
                                ("update", "state", "更新 update F_u")):
            self.cycle_curves[key] = self.cycle_plot.add_curve(key, pen=pen(kind, 1.5), fillLevel=0, brush=brush(kind, 150), name=name)
        self.cycle_curves["update"].setZValue(3)
        self.cycle_curves["ref_top"].setZValue(2)
        self.cycle_marker = pg.ScatterPlotItem(size=11, brush=brush("backlog"), pen=pen("paper", 1))
        self.cycle_marker.setZValue(10)
        c.addItem(self.cycle_marker)
        self.cycle_text = _text_item(anchor=(0, 1), size=9)
        self.cycle_text.setZValue(10)
        c.addItem(self.cycle_text)
        self.exercise_points = pg.ScatterPlotItem(size=9, symbol="d", brush=brush("ink"), pen=pen("paper", 1))
        self.exercise_points.setZValue(10)
        c.addItem(self.exercise_points)
        self.marginal_card = CalculatorCard(rl.MARGINAL, compact=True)
        grid.addWidget(_column(self.cycle_card, self.cycle_plot, stretch=1), 0, 0)
        marginal_col = _column(self.marginal_card, _caption(
            "练习 3-7:两次测量的周期总量连成直线,斜率 = 每条回答的 f_g + f_r,截距 = 一次更新 F_u(图中 ◆)。"
            "同结构教师对每条回答前向一次;权重独立发给每个副本。"))
        marginal_col.layout().addStretch(1)
        grid.addWidget(marginal_col, 0, 1)

        self.advantage_card = CalculatorCard(rl.ADVANTAGE, compact=True)
        buttons = QtWidgets.QWidget()
        bl = QtWidgets.QHBoxLayout(buttons)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(QtWidgets.QLabel("点击切换对错 · click to flip:"))
        self.reward_buttons: list[QtWidgets.QPushButton] = []
        for i in range(MAX_REWARD_BUTTONS):
            b = QtWidgets.QPushButton()
            b.setObjectName(f"reward_button_{i}")
            b.setFixedWidth(44)
            self.reward_buttons.append(b)
            bl.addWidget(b)
        bl.addStretch(1)
        self.advantage_plot = PlotCard("相同奖励,学习信号归零", "advantage = reward − group mean")
        a = self.advantage_plot.plot
        a.setLabel("left", "value")
        a.setMouseEnabled(x=False, y=False)
        self.reward_bars = pg.BarGraphItem(x=[], height=[], width=0.35, brush=brush("wait", 200), pen=pg.mkPen(None))
        self.advantage_bars = pg.BarGraphItem(x=[], height=[], width=0.35, pen=pg.mkPen(None))
        a.addItem(self.reward_bars)
        a.addItem(self.advantage_bars)
        leg = a.addLegend(offset=(-6, 6))
        leg.addItem(self.reward_bars, "奖励 reward")
        leg.addItem(self.advantage_bars, "优势 advantage")
        self.advantage_bars.setOpts(brush=brush("tool"))
        self.mean_line = pg.InfiniteLine(angle=0, pen=pen("muted", 1.2, dashed=True), label="group mean",
                                         labelOpts={"position": 0.05, "color": COLORS["muted"]})
        a.addItem(self.mean_line)
        a.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pen("ink", 1)))
        self.zero_banner = QtWidgets.QLabel()
        self.zero_banner.setObjectName("zero_banner")
        self.zero_banner.setWordWrap(True)
        grid.addWidget(_column(self.advantage_card, buttons, self.advantage_plot, self.zero_banner, stretch=2), 1, 0)

        self.loss_card = CalculatorCard(rl.LOSS_MEAN, compact=True)
        self.loss_plot = PlotCard("损失的平均方式 · weight of one token", "per micro-batch")
        lp = self.loss_plot.plot
        lp.setLabel("left", "weight of one token")
        lp.setMouseEnabled(x=False, y=False)
        self.weight_token_bars = pg.BarGraphItem(x=[], height=[], width=0.35, brush=brush("prefill", 210), pen=pg.mkPen(None))
        self.weight_mom_bars = pg.BarGraphItem(x=[], height=[], width=0.35, brush=brush("decode", 210), pen=pg.mkPen(None))
        lp.addItem(self.weight_token_bars)
        lp.addItem(self.weight_mom_bars)
        leg = lp.addLegend(offset=(-6, 6))
        leg.addItem(self.weight_token_bars, "token mean (Σ n 作分母)")
        leg.addItem(self.weight_mom_bars, "mean of means")
        self.loss_caption = _caption("")
        grid.addWidget(_column(self.loss_card, self.loss_plot, self.loss_caption, stretch=1), 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        layout.addStretch(1)
        return scroll

    # ---- signals ----------------------------------------------------------------------
    def _connect(self) -> None:
        self.step_card.computed.connect(self._on_step_changed)
        self.step_mode.currentIndexChanged.connect(lambda _: self._on_step_changed(self.step_card.result))
        self.micro_slider.valueChanged.connect(self._on_micro_slider)
        self.cards_slider.valueChanged.connect(lambda v: self.step_card.set_value("cards", v))
        self.step_player.position_changed.connect(self.step_view.set_time)
        self.flops_card.computed.connect(lambda _: self._refresh_flops())
        self.packing_card.computed.connect(lambda _: self._refresh_packing())
        self.split_slider.valueChanged.connect(self._on_split_slider)
        self.update_card.computed.connect(lambda _: self._refresh_update())
        self.pipeline_card.computed.connect(lambda _: self._refresh_pipeline())
        self.pipeline_player.position_changed.connect(self.pipeline_view.set_time)
        self.cycle_card.computed.connect(lambda _: self._refresh_cycle())
        self.marginal_card.computed.connect(lambda _: self._refresh_cycle())
        self.advantage_card.computed.connect(lambda _: self._refresh_advantage())
        for i, b in enumerate(self.reward_buttons):
            b.clicked.connect(lambda _=False, i=i: self._flip_reward(i))
        self.loss_card.computed.connect(lambda _: self._refresh_loss())

    def refresh(self) -> None:
        self._on_step_changed(self.step_card.result)
        self._refresh_flops()
        self._refresh_packing()
        self._refresh_update()
        self._refresh_pipeline()
        self._refresh_cycle()
        self._refresh_advantage()
        self._refresh_loss()

    # ---- step -------------------------------------------------------------------------
    def _on_step_changed(self, result: dict) -> None:
        v = self.step_card.values()
        illustrative = self.step_mode.currentData() == "illustrative"
        if illustrative:
            tl = train_step.illustrative_timeline(v["micro_batches"])
        else:
            tl = train_step.model_step(v["model"], v["sequences"], v["seq_len"], v["micro_batches"], v["cards"],
                                       v["card"], v["mfu"]).timeline
        fraction = self.step_player.position / self.step_player.duration if self.step_player.duration else 0.0
        hw = catalog.hardware(v["card"])
        self.step_view.show_timeline(tl, f"{hw.key} · {format_bytes(hw.memory_bytes, 'si')}")
        self.step_player.set_duration(tl.duration_s)
        # A changed setting keeps the playback at the same point of the step.
        position = tl.duration_s if fraction == 0.0 and not self.step_player.is_playing() else fraction * tl.duration_s
        self.step_player.seek(position)
        self._sync_step_sliders(v)
        self.cards_slider.setEnabled(not illustrative)
        if illustrative:
            whole = train_step.illustrative_timeline(1)
            self.step_verdict.setText(
                f"图 3-20 示意:{tl.layers} 层,同一 batch 拆成 {tl.micro_batches} 个 micro-batch。激活峰值 "
                f"{tl.peak_activation_bytes / GB:g} 示意单位(不拆分时 {whole.peak_activation_bytes / GB:g}):"
                "只剩一个 micro-batch 的量,总数据量不变。")
            return
        r = self.step_card.result
        fits = r["fits"] == 1
        self.step_verdict.setText(
            f"<span style='color:{COLORS['tool'] if fits else COLORS['backlog']}; font-weight:600'>"
            f"{'放得下 fits' if fits else '放不下 does not fit'}</span>: "
            f"state {format_bytes(r['resident_state_bytes'], 'si')} + activation peak "
            f"{format_bytes(r['peak_activation_bytes'], 'si')} = {format_bytes(r['peak_total_bytes'], 'si')} "
            f"per card vs {format_bytes(r['card_memory_bytes'], 'si')}. "
            f"{v['micro_batches']} micro-batch(es) of {r['tokens_per_micro_batch']:,} tokens; same data per step.")

    def _sync_step_sliders(self, values: dict) -> None:
        self._divisors = train_step.divisors(values["sequences"])
        with QtCore.QSignalBlocker(self.micro_slider):
            self.micro_slider.setRange(0, len(self._divisors) - 1)
            self.micro_slider.setValue(self._divisors.index(values["micro_batches"]))
        self.micro_value.setText(f"a = {values['micro_batches']}")
        with QtCore.QSignalBlocker(self.cards_slider):
            self.cards_slider.setMaximum(max(16, values["cards"]))
            self.cards_slider.setValue(values["cards"])
        self.cards_value.setText(f"{values['cards']} card(s)")

    def _on_micro_slider(self, index: int) -> None:
        self.step_card.set_value("micro_batches", self._divisors[index])

    # ---- FLOPs ------------------------------------------------------------------------
    def _refresh_flops(self) -> None:
        r = self.flops_card.result
        T = 1e12
        six = [("six_matrix", r["matrix_flops"]), ("six_head", r["lm_head_flops"]),
               ("six_embedding", r["embedding_overcount_flops"] + r["norm_overcount_flops"])]
        item = [("item_matrix", r["matrix_flops"]), ("item_head", r["lm_head_flops"]),
                ("item_attention", r["attention_flops"]), ("item_recompute", r["recompute_flops"])]
        for x, parts in ((0, six), (1, item)):
            base = 0.0
            for key, value in parts:
                self.flops_bars[key].setOpts(x=[x], y0=[base / T], height=[value / T])
                text = self.flops_texts[key]
                show = bool(value > 0.035 * r["total_flops"])
                text.setVisible(show)
                text.setText(format_flops(value, 4))
                text.setPos(x, (base + value / 2) / T)
                base += value
        self.six_nd_line.setValue(r["six_nd_flops"] / T)
        top = max(r["six_nd_flops"], r["total_flops"]) / T
        self.flops_ratio_text.setText(f"逐项 / 6ND = {r['ratio_vs_6nd']:.4f} ({(r['ratio_vs_6nd'] - 1) * 100:+.2f}%)")
        self.flops_ratio_text.setPos(0.5, top * 1.03)
        self.flops_plot.plot.setYRange(0, top * 1.12, padding=0)

    # ---- packing ----------------------------------------------------------------------
    def _refresh_packing(self) -> None:
        v = self.packing_card.values()
        r = self.packing_card.result
        seq = v["seq_len"]
        curve = training.packing_curve(v["model"], seq)
        self.pairs_curve.setData(curve["first_length"], curve["pairs_ratio"])
        self.layer_curve.setData(curve["first_length"], curve["layer_work_ratio"])
        lengths = v["doc_lengths"]
        first = lengths[0] if len(lengths) == 2 else None
        self.packing_marker.setData([first] * 2 if first else [], [r["pairs_ratio"], r["layer_work_ratio"]] if first else [])
        self.split_line.setVisible(first is not None)
        if first is not None:
            self.split_line.setValue(first)
        self.packing_plot.plot.setXRange(0, seq, padding=0.01)
        self.mask_image.setImage(training.packing_mask(lengths, seq), levels=(0, 1))
        with QtCore.QSignalBlocker(self.split_slider):
            self.split_slider.setRange(1, max(seq - 1, 1))
            self.split_slider.setSingleStep(max(seq // 128, 1))
            self.split_slider.setPageStep(max(seq // 16, 1))
            self.split_slider.setEnabled(len(lengths) <= 2 and seq > 1)
            if first is not None:
                self.split_slider.setValue(int(first))
        self.split_label.setText(
            " + ".join(f"{int(x):,}" for x in lengths[:6]) + (" + …" if len(lengths) > 6 else "")
            + f" · pairs {r['pairs_ratio']:.3f} · layer {r['layer_work_ratio']:.3f}")

    def _on_split_slider(self, first: int) -> None:
        seq = self.packing_card.values()["seq_len"]
        self.packing_card.set_value("doc_lengths", (float(first), float(seq - first)))

    # ---- labels -----------------------------------------------------------------------
    def _refresh_update(self) -> None:
        r = self.update_card.result
        T = 1e12
        trunk = r["step_flops_label_masking"] - r["lm_head_flops_all_rows"]
        heads = [r["lm_head_flops_all_rows"], r["lm_head_flops_supervised_rows"]]
        self.trunk_bars.setOpts(x=[0, 1], y0=[0, 0], height=[trunk / T, trunk / T])
        self.head_bars.setOpts(x=[0, 1], y0=[trunk / T, trunk / T], height=[h / T for h in heads])
        totals = [r["step_flops_label_masking"], r["step_flops_skip_projection"]]
        for i, (text, total) in enumerate(zip(self.update_texts, totals)):
            text.setText(format_flops(total, 5))
            text.setPos(i, total / T)
        self.update_plot.plot.setYRange(0, max(totals) / T * 1.12, padding=0)
        self.update_caption.setText(
            f"每次更新读 {r['input_tokens_per_update']:,} 个输入 token,损失只用 {r['supervised_tokens_per_update']:,} 个。"
            f"只屏蔽标签时词表投影照样对全部 {r['input_tokens_per_update']:,} 行执行;只对监督行投影省 "
            f"{format_flops(r['lm_head_flops_saved'])}(更新的 {r['saved_share_of_step'] * 100:.1f}%)。")

    # ---- RL ---------------------------------------------------------------------------
    def _refresh_pipeline(self) -> None:
        v = self.pipeline_card.values()
        args = (v["batches"], v["rollout_s"], v["reward_s"], v["reference_s"], v["update_s"], v["sync_s"])
        schedules = {"synchronous": rl.pipeline_schedule("synchronous", *args),
                     "asynchronous": rl.pipeline_schedule("asynchronous", *args, max_staleness=v["max_staleness"])}
        fraction = self.pipeline_player.position / self.pipeline_player.duration
        self.pipeline_view.show_schedules(schedules)
        end = max(s.total_s for s in schedules.values())
        self.pipeline_player.set_duration(end)
        position = end if fraction == 0.0 and not self.pipeline_player.is_playing() else fraction * end
        self.pipeline_player.seek(position)

    def _refresh_cycle(self) -> None:
        v = self.cycle_card.values()
        r = self.cycle_card.result
        m = self.marginal_card.result
        mv = self.marginal_card.values()
        n_max = max(128, r["n_generate"] * 1.25, mv["n_high"] * 1.1)
        curve = rl.cycle_curve(v["model"], v["prompt_tokens"], v["output_tokens"], v["n_keep"], int(n_max))
        T = 1e12
        n = curve["n_generate"]
        self.cycle_curves["update"].setData(n, curve["update"] / T)
        self.cycle_curves["ref_top"].setData(n, (curve["update"] + curve["reference"]) / T)
        self.cycle_curves["total"].setData(n, (curve["update"] + curve["reference"] + curve["generation"]) / T)
        self.cycle_marker.setData([r["n_generate"]], [r["cycle_flops"] / T])
        self.cycle_text.setText(f"  a = {v['keep_ratio']:g} → n = {r['n_generate']}: {format_flops(r['cycle_flops'])}"
                                f" ({r['ratio_vs_keep_all']:.2f}× keeping all)")
        self.cycle_text.setPos(r["n_generate"], r["cycle_flops"] / T)
        self.exercise_points.setData([mv["n_low"], mv["n_predict"], mv["n_high"], 0],
                                     [m["cycle_flops_low"] / T, m["predicted_cycle_flops"] / T, m["cycle_flops_high"] / T,
                                      m["fixed_update_flops"] / T])
        self.cycle_plot.plot.setXRange(0, n[-1], padding=0.01)

    def _flip_reward(self, i: int) -> None:
        rewards = list(self.advantage_card.values()["rewards"])
        if i < len(rewards):
            rewards[i] = 0.0 if rewards[i] >= 0.5 else 1.0
            self.advantage_card.set_value("rewards", tuple(rewards))

    def _refresh_advantage(self) -> None:
        rewards = self.advantage_card.values()["rewards"]
        r = self.advantage_card.result
        adv = np.asarray(r["advantages"])
        x = np.arange(len(rewards), dtype=float)
        self.reward_bars.setOpts(x=x - 0.19, height=list(rewards))
        brushes = [brush("tool" if a > 0 else "backlog", 220) for a in adv]
        self.advantage_bars.setOpts(x=x + 0.19, height=adv, brushes=brushes)
        self.mean_line.setValue(r["group_mean"])
        self.advantage_plot.plot.getAxis("bottom").setTicks([[(i, f"#{i + 1}") for i in range(len(rewards))]])
        low = min(0.0, float(adv.min()), min(rewards))
        high = max(1.0, float(adv.max()), max(rewards))
        self.advantage_plot.plot.setYRange(low - 0.1, high + 0.15, padding=0)
        self.advantage_plot.plot.setXRange(-0.7, len(rewards) - 0.3, padding=0)
        for i, b in enumerate(self.reward_buttons):
            b.setVisible(i < len(rewards))
            if i < len(rewards):
                b.setText(f"{i + 1}:{'✓' if rewards[i] >= 0.5 else '✗'}")
        if r["zero_signal"]:
            self.zero_banner.setText(f"<span style='color:{COLORS['backlog']}; font-weight:600'>优势全为零,策略梯度为零</span>:"
                                     "生成、评分、更新都做了,这组却没学到区分优劣的信号。")
        else:
            self.zero_banner.setText(f"{r['samples_with_signal']} of {len(rewards)} answers carry a signal; "
                                     f"group mean {r['group_mean']:g}.")

    def _refresh_loss(self) -> None:
        r = self.loss_card.result
        w1 = np.asarray(r["token_weight_token_mean"])
        w2 = np.asarray(r["token_weight_mean_of_means"])
        x = np.arange(w1.size, dtype=float)
        self.weight_token_bars.setOpts(x=x - 0.19, height=w1)
        self.weight_mom_bars.setOpts(x=x + 0.19, height=w2)
        counts = self.loss_card.values()["token_counts"]
        self.loss_plot.plot.getAxis("bottom").setTicks([[(i, f"μb{i + 1}: {int(c):,} tok") for i, c in enumerate(counts)]])
        self.loss_plot.plot.setXRange(-0.7, w1.size - 0.3, padding=0)
        self.loss_plot.plot.setYRange(0, max(w1.max(), w2.max()) * 1.15, padding=0)
        self.loss_caption.setText(
            f"token mean = {r['token_mean']:.4g},mean of means = {r['mean_of_means']:.4g}。"
            f"先各自求均值再平均,有效 token 少的 micro-batch 里每个 token 权重大 {r['max_weight_ratio']:.3g} 倍;"
            "累计各 micro-batch 时分母应是整个 batch 的有效 token 总数。")

    def close(self) -> bool:
        self.step_player.pause()
        self.pipeline_player.pause()
        return super().close()


PANEL = PanelInfo(key="training", title="训练与 RL · Training state & RL", section="3.4", order=4.0,
                  factory=TrainingPanel)
