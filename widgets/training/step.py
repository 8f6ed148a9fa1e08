"""The step page (图 3-20, 例题 3-3): a training step you can watch, layer by layer, with the
memory it takes, beside the card that computes it."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.training import figures
from core.training.figures import StepFigure
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.page import ReflowLayout, cap_to_view, column, follow_font
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import COLORS, brush, pen
from widgets.kit.timeline_player import TimelinePlayer
from widgets.training.kit import CachedLayer, FastBars, PlayedSection, Readout, Section, caption
from widgets.training.memory import MemoryView, readout_html

# The two plots together, in text lines (they grow with the zoom): tall enough to read,
# short enough that at zoom 1 the step, its readout and its player fit the page of a
# 1280x720 window.
STEP_VIEW_MIN_LINES = 30
# Each plot's own least height, in lines: the two cards' least must fit inside the view's,
# or the view squeezes them below it and clips their axes (talk scene 图 3-20 at 1280x720).
PLOT_MIN_LINES = 8


def _fit_min(card: PlotCard) -> None:
    follow_font(card.plot_widget, lambda w: w.setMinimumHeight(PLOT_MIN_LINES * w.fontMetrics().lineSpacing()))


class StepView(QtWidgets.QWidget):
    """Two plots sharing a time axis: layer x time blocks with activation lifetimes, and
    memory stacked by kind. show_figure() sets the static items once per figure;
    set_time() moves the playback (a handful of setData calls, no layout)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.figure: StepFigure | None = None
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        follow_font(self, lambda w: w.setMinimumHeight(STEP_VIEW_MIN_LINES * w.fontMetrics().lineSpacing()))
        self.readout = Readout(height=40)  # two lines: a narrow column wraps the readout
        self.readout.setObjectName("step_readout")

    def build(self):
        """The two plots and their items, a step per turn of the event loop (a generator)."""
        self.schedule_plot = PlotCard("图 3-20 · 前向逐层向上,反向逐层向下;激活从前向完成留到反向用完",
                                      "▲ forward, ▼ backward (2×); magenta: activations alive",
                                      illustrative=True)
        self.layout().addWidget(self.schedule_plot, 1)
        _fit_min(self.schedule_plot)
        yield
        p = self.schedule_plot.plot
        p.setLabel("left", "layer")
        p.setMouseEnabled(x=True, y=False)
        # Neighbouring micro-batches alternate in strength: one item (one brush) for each.
        self.lifetime_bars = FastBars(brush("activations", 55))
        self.forward_bars = (FastBars(brush("prefill", 235)), FastBars(brush("prefill", 150)))
        self.backward_bars = (FastBars(brush("decode", 235)), FastBars(brush("decode", 150)))
        self.optimizer_bar = FastBars(brush("tool", 220))
        self.alive_bars = FastBars(brush("activations", 230))
        static = [self.lifetime_bars, *self.forward_bars, *self.backward_bars, self.optimizer_bar]
        for item in (*static, self.alive_bars):
            p.addItem(item)
        # The schedule does not change while the step plays: drawn once into a pixmap, and
        # a frame blits it (thousands of blocks at 100 layers x 16 micro-batches).
        self.static_layer = CachedLayer(static)
        p.addItem(self.static_layer)
        self.static_layer.setZValue(0)
        self.alive_bars.setZValue(1)
        # Grid lines would make each axis's cached picture as large as the plot.
        p.showGrid(x=False, y=False)
        self.schedule_future = pg.LinearRegionItem(values=(0, 0), movable=False, brush=brush("paper", 170),
                                                   pen=pg.mkPen(None))
        self.schedule_future.setZValue(20)
        p.addItem(self.schedule_future)
        self.schedule_cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        self.schedule_cursor.setZValue(30)
        p.addItem(self.schedule_cursor)
        for name in ("left", "bottom"):
            p.getAxis(name).setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        yield
        self.memory = MemoryView()
        self.memory_plot = self.memory.plot
        self.layout().addWidget(self.memory_plot, 1)
        _fit_min(self.memory_plot)
        yield
        self.memory.add_items(x_link=p)
        self.kind_curves = self.memory.kind_curves
        self.capacity_line = self.memory.capacity_line
        self.memory_future = self.memory.future
        self.memory_cursor = self.memory.cursor

    def forward_count(self) -> int:
        return sum(b.count() for b in self.forward_bars)

    def show_figure(self, fig: StepFigure) -> None:
        """Set the static items for a new figure (once per change of the card or view)."""
        self.figure = fig
        for items, pair in ((self.forward_bars, fig.forward), (self.backward_bars, fig.backward)):
            for item, bars in zip(items, pair):
                item.set_bars(bars)
        self.optimizer_bar.set_bars(fig.optimizer)
        self.lifetime_bars.set_bars(fig.lifetimes)
        self.static_layer.invalidate()
        self.memory.show_figure(fig)
        p = self.schedule_plot.plot
        p.setYRange(0.4, fig.layers + 0.6, padding=0)
        p.getAxis("left").setTicks([fig.layer_ticks])

    def set_time(self, t: float) -> None:
        """Playback: reveal the step up to t."""
        fig = self.figure
        if fig is None:
            return
        frame = fig.frame_at(t)
        end = fig.duration_s * 1.02 + 1e-12
        self.schedule_cursor.setValue(frame.t)
        self.schedule_future.setRegion((frame.t, end))
        self.alive_bars.set_bars(frame.alive)
        self.memory.set_frame(frame, end)
        self.readout.setText(readout_html(frame))


class StepSection(PlayedSection):
    """Sliders, the verdict and the train.step card on the left; the step played on the right."""

    paths = ("cards.step", "view.step_view", "player.step")
    player_name = "step"

    def __init__(self, panel, layout: QtWidgets.QVBoxLayout):
        super().__init__(panel)
        self._layout = layout
        self.card_model = self.state.card("step")
        self.job_key = f"training.step.{id(panel)}"
        self._divisors: list[int] = []
        self._submitted = None  # (result, view) whose figure was asked for last

    def build(self):
        self.holder = QtWidgets.QWidget()
        # Controls beside the step when the page is wide enough, above it when not.
        top = ReflowLayout(self.holder, columns=2, stretch=(5, 7), stacked_first=1)  # the step first when stacked
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
        cards_label = QtWidgets.QLabel("cards (state split evenly)")
        cards_label.setWordWrap(True)  # a narrow column wraps it rather than widen the page
        grid.addWidget(cards_label, 1, 0)
        grid.addWidget(self.cards_slider, 1, 1)
        grid.addWidget(self.cards_value, 1, 2)
        self.step_mode = QtWidgets.QComboBox()
        self.step_mode.setObjectName("step_mode")
        # Whole items when there is room; elided, not widening the page, when there is not.
        self.step_mode.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.step_mode.setMinimumContentsLength(22)
        self.step_mode.addItem("Qwen3-8B 一步 · the model on the card (estimate)", "model")
        self.step_mode.addItem("图 3-20 示意 · 4 layers as the book draws it", "illustrative")
        grid.addWidget(QtWidgets.QLabel("view"), 2, 0)
        grid.addWidget(self.step_mode, 2, 1, 1, 2)
        self.verdict = QtWidgets.QLabel()
        self.verdict.setWordWrap(True)
        self.verdict.setObjectName("step_verdict")
        yield
        self.card = CalculatorCard(self.card_model, compact=True)
        left = column(sliders, self.verdict, self.card,
                      caption("激活 = 每层为反向保存的张量(BF16,flash attention 不存注意力分数)的估算;"
                              "书中图 3-20 的时长为示意,这里按所选卡的 BF16 峰值 × MFU 折算。"
                              "“均分”只是把状态切开分给多卡保存的粗略示意(第 10 章)。"), stretch_last=False)
        left.layout().addStretch(1)
        top.addWidget(left)
        self._layout.insertWidget(0, self.holder)
        yield
        self.view = StepView()
        yield from self.view.build()
        yield
        self.player = TimelinePlayer(duration=1.0, unit="s")
        self.player.setObjectName("step_player")
        self.busy = BusyBadge(self.job_key, owner=self.view)
        readout_row = QtWidgets.QHBoxLayout()
        readout_row.addWidget(self.view.readout, 1)
        readout_row.addWidget(self.busy)
        head = QtWidgets.QWidget()
        head.setLayout(readout_row)
        readout_row.setContentsMargins(0, 0, 0, 0)
        right = column(head, self.view, self.player, stretch_last=False)
        right.layout().setStretch(1, 1)
        cap_to_view(right, self._layout.parentWidget().parentWidget())  # the step fits the page's view
        top.addWidget(right)
        self.micro_slider.valueChanged.connect(self._on_micro_slider)
        self.cards_slider.valueChanged.connect(lambda v: self.card_model.update({"cards": v}))
        self.step_mode.currentIndexChanged.connect(
            lambda i: self.state.set_view("step_view", self.step_mode.itemData(i)))
        self.player.position_changed.connect(lambda t: self.state.set_player("step", t))

    # ---- state -> widgets -----------------------------------------------------------
    def on_changed(self, path: str) -> None:
        if path == "player.step":
            self.follow_position()
        elif path == "cards.step" and self._submitted is not None and self._submitted[0] is self.card_model.result \
                and self._submitted[1] == self.state.view("step_view"):
            self._sync_controls(dict(self.card_model.inputs), self.state.view("step_view"))  # only errors moved
        else:
            self.refresh()

    def refresh(self) -> None:
        """Sync the controls now; the figure comes from the job runner (latest edit wins)."""
        model = self.card_model
        values = dict(model.inputs)
        view = self.state.view("step_view")
        self._sync_controls(values, view)
        if model.result is None:
            return
        inputs = model.result_inputs if model.result_inputs is not None else model.inputs
        self._submitted = (model.result, view)
        jobs().submit(self.job_key, figures.step_figure, inputs, model.result, view,
                      done=self._show_figure, context=self.view)

    def _sync_controls(self, values: dict, view: str) -> None:
        self._divisors = figures.micro_batch_choices(values["sequences"])
        with QtCore.QSignalBlocker(self.micro_slider):
            self.micro_slider.setRange(0, len(self._divisors) - 1)
            if values["micro_batches"] in self._divisors:
                self.micro_slider.setValue(self._divisors.index(values["micro_batches"]))
        self.micro_value.setText(f"a = {values['micro_batches']}")
        with QtCore.QSignalBlocker(self.cards_slider):
            self.cards_slider.setMaximum(max(16, values["cards"]))
            self.cards_slider.setValue(values["cards"])
        self.cards_value.setText(f"{values['cards']} card(s)")
        with QtCore.QSignalBlocker(self.step_mode):
            self.step_mode.setCurrentIndex(self.step_mode.findData(view))
        self.cards_slider.setEnabled(view != "illustrative")

    def _show_figure(self, fig: StepFigure) -> None:
        self.view.show_figure(fig)
        position = self.start_position(fig.duration_s)
        self.set_duration(fig.duration_s)
        self.player.seek(position)
        self.view.set_time(self.player.position)
        ok = {True: COLORS["tool"], False: COLORS["backlog"]}.get(fig.verdict_fits)
        head = (f"<span style='color:{ok}; font-weight:600'>{fig.verdict_head}</span>" if ok else fig.verdict_head)
        self.verdict.setText(head + fig.verdict_body)
        self.panel.figure_drawn.emit("step")

    # ---- widgets -> state -----------------------------------------------------------
    def _on_micro_slider(self, index: int) -> None:
        if 0 <= index < len(self._divisors):
            self.card.set_value("micro_batches", self._divisors[index])

    def close(self) -> None:
        self.player.pause()
        jobs().cancel(self.job_key)


class StateSection(Section):
    """例题 3-3's state card and the three matmuls of a linear layer, side by side."""

    def __init__(self, panel, layout: QtWidgets.QVBoxLayout):
        super().__init__(panel)
        self._layout = layout

    def build(self):
        row = ReflowLayout(columns=2)
        self.state_card = CalculatorCard(self.state.card("state"), compact=True)
        yield
        self.linear_card = CalculatorCard(self.state.card("linear"), compact=True)
        row.addWidget(self.state_card)
        row.addWidget(self.linear_card)
        self._layout.insertLayout(1, row)
        yield
