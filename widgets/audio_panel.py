"""§3.3.3 实时播放 as something you can hear: chunks streamed through a jitter buffer to a
sound device, with the book's figure (图 3-18/3-19) drawn from the model and the measured
run drawn over it live.

The model (core.audio_timing) gives arrival dots, scheduled ticks, playback bars, B(t)
and the three interrupt moments; the engine (audio.engine) plays the stream for real and
logs what happened into rings that one 60 Hz QTimer drains. Plot items are created once
and updated with setData/setOpts. This module draws; it computes nothing itself.
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from audio import events as ev
from audio.engine import StreamEngine, StreamRun
from audio.sinks import open_sink, output_devices
from audio.sources import SOURCE_KINDS, SourceError, WavSource, make_source
from core import audio_frames, audio_timing
from core.registry import ParamError
from core.units import format_seconds
from widgets.calculator_card import CalculatorCard
from widgets.page import scroll_page
from widgets.panels import PanelInfo
from widgets.plot_card import PlotCard
from widgets.theme import COLORS, brush, color, pen

FRAME_MS = 16  # the GUI pulls from the engine's rings at ~60 Hz
HEALTH_EVERY_S = 0.25  # how often the device's liveness is checked while playing
FOLLOW_WINDOW_S = 1.2  # while playing a long stream, the timeline follows "now" over this window
WAVE_POINTS = 400  # waveform columns drawn per frame
VIRTUAL = "virtual clock (no device)"

# name: (label, overrides of audio.timeline's parameters). Values not named keep the book's.
PRESETS = {
    "book": ("书 · 网络 5 ms", {}),
    "spike": ("尖峰 5,5,50,5", {"network_ms": "5,5,50,5"}),
    "long_spike": ("长流 + 80 ms 尖峰", {"chunks": 150, "network_ms": "5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,85,5",
                                         "interrupt_at_ms": 2500}),
    "jitter": ("抖动 + 尖峰 (示意)", {"chunks": 250, "jitter_ms": 4, "spike_prob": 0.04, "spike_ms": 70,
                                    "interrupt_at_ms": 4000}),
    "adaptive": ("自适应缓冲", {"chunks": 250, "jitter_ms": 4, "spike_prob": 0.04, "spike_ms": 70, "adaptive": True,
                           "interrupt_at_ms": 4000}),
}
_PRESET_KEYS = ("chunks", "network_ms", "jitter_ms", "spike_prob", "spike_ms", "adaptive", "interrupt_at_ms")

_MOMENTS = (
    ("interrupt", "打断", "ink"),
    ("mute", "设备静音", "backlog"),
    ("backend_stop", "后端停止", "decode"),
    ("release", "释放缓冲/状态", "state"),
)


def _narrow(card):
    """Let a card's one-line header labels shrink (clipped) rather than widen the card, so
    it fits a narrow column (the shared cards size headers to their text); the full text
    stays in the tooltip. Output names and values are left alone."""
    outputs = getattr(card, "outputs", None)
    for label in card.findChildren(QtWidgets.QLabel):
        if outputs is not None and outputs.isAncestorOf(label):
            continue
        if label.property("role") in ("ref", "tag", "caption"):
            label.setMinimumWidth(1)
            if not label.toolTip():
                label.setToolTip(label.text())
    return card


def _label_item(text: str = "", kind: str = "ink", anchor=(0, 1), size: int = 9) -> pg.TextItem:
    item = pg.TextItem(text, color=color(kind), anchor=anchor)
    font = item.textItem.font()
    font.setPointSize(size)
    item.setFont(font)
    return item


class AudioPanel(QtWidgets.QWidget):
    """The Audio panel: model figure + live run, controls, exercise cards."""

    stream_started = QtCore.Signal()
    stream_finished = QtCore.Signal(dict)  # the run's measured summary
    interrupted = QtCore.Signal()
    play_failed = QtCore.Signal(str)  # the stream could not start (the reason is also in the status line)

    def __init__(self, parent=None, engine: StreamEngine | None = None):
        super().__init__(parent)
        self._engine = engine  # opened lazily on the first ▶, so a snapshot never opens a device
        self._owns_engine = engine is None
        self._run: StreamRun | None = None
        self._wav_path = ""
        self._measured: dict[str, list] = {}
        self._last_health = 0.0
        self.frame_times_s: list[float] = []  # GUI frame durations while streaming (bench)
        self._build_ui()
        self._connect()
        self._reset_measured()
        self.refresh()

    # ---- construction -------------------------------------------------------
    def _build_ui(self) -> None:
        layout = scroll_page(self, "")
        layout.setSpacing(10)
        layout.addWidget(self._header())
        body = QtWidgets.QHBoxLayout()
        body.setSpacing(12)
        body.addWidget(self._controls(), 0)
        body.addWidget(self._plots(), 1)
        layout.addLayout(body, 1)
        layout.addLayout(self._exercise_row())

        self._timer = QtCore.QTimer(self)
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.setInterval(FRAME_MS)
        self._open_timer = QtCore.QTimer(self)  # polls a device being opened off the GUI thread
        self._open_timer.setInterval(50)
        self._opening = None

    def _header(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        col = QtWidgets.QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(2)
        row = QtWidgets.QHBoxLayout()
        title = QtWidgets.QLabel("§3.3.3 实时播放:每一块都要按时到 · Audio streaming")
        title.setProperty("role", "title")
        row.addWidget(title)
        row.addStretch(1)
        for kind, text in (("tool", "● 到达 arrival"), ("ink", "| 原定播放 scheduled"), ("decode", "▬ 实际播放 played"),
                           ("backlog", "▼ 欠载 underrun")):
            chip = QtWidgets.QLabel(f"<span style='color:{COLORS[kind]}'>{text.split(' ')[0]}</span> "
                                    f"{' '.join(text.split(' ')[1:])}")
            chip.setProperty("role", "caption")
            row.addWidget(chip)
        col.addLayout(row)
        formula = QtWidgets.QLabel(
            "B<sub>audio</sub>(t) = A(t) − P(t):已到达的可播放时长 − 已播放时长。播放期间 P(t) 每秒涨 1 秒,A(t) 随数据块跳跃增长;"
            "余量降到零而下一块没到,声音就断。")
        formula.setProperty("role", "caption")
        formula.setWordWrap(True)
        col.addWidget(formula)
        return box

    def _controls(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        box.setMinimumWidth(430)
        box.setMaximumWidth(470)
        col = QtWidgets.QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(8)

        transport = QtWidgets.QGroupBox("播放 · Stream")
        grid = QtWidgets.QGridLayout(transport)
        self.play_button = QtWidgets.QPushButton("▶ Play")
        self.play_button.setToolTip("Stream the chunks to the sound device (P)")
        self.stop_button = QtWidgets.QPushButton("■ Stop")
        self.stop_button.setToolTip("Stop at once (Esc)")
        self.interrupt_button = QtWidgets.QPushButton("✕ Interrupt")
        self.interrupt_button.setToolTip("Barge in (I): mute at the next device quantum, then backend stop, then release")
        for b in (self.play_button, self.stop_button, self.interrupt_button):
            b.setMinimumHeight(30)
        grid.addWidget(self.play_button, 0, 0)
        grid.addWidget(self.interrupt_button, 0, 1)
        grid.addWidget(self.stop_button, 0, 2)
        grid.addWidget(QtWidgets.QLabel("source"), 1, 0)
        self.source_box = QtWidgets.QComboBox()
        self.source_box.addItems(list(SOURCE_KINDS))
        self.source_box.setToolTip("voice: synthetic voice-like signal · tone · chirp · wav: a PCM WAV file")
        grid.addWidget(self.source_box, 1, 1)
        self.wav_button = QtWidgets.QPushButton("Open WAV…")
        grid.addWidget(self.wav_button, 1, 2)
        grid.addWidget(QtWidgets.QLabel("device"), 2, 0)
        self.device_box = QtWidgets.QComboBox()
        names, reason = output_devices()
        for name in names:
            self.device_box.addItem(name, name)
        self.device_box.addItem(VIRTUAL, None)
        if "default" in names:
            self.device_box.setCurrentIndex(names.index("default"))
        grid.addWidget(self.device_box, 2, 1, 1, 2)
        self.status_label = QtWidgets.QLabel(
            f"device: {self.device_box.currentText()} (opens on ▶)" if names else f"no device: {reason} · "
            "the virtual clock sink keeps the same timing")
        self.status_label.setObjectName("audio_status")
        self.status_label.setWordWrap(True)
        self.status_label.setProperty("role", "caption")
        # Fixed height: a new status must not relayout (and repaint) the whole page mid-stream.
        self.status_label.setFixedHeight(2 * self.status_label.fontMetrics().lineSpacing() + 4)
        grid.addWidget(self.status_label, 3, 0, 1, 3)
        presets = QtWidgets.QHBoxLayout()
        presets.setSpacing(4)
        self.preset_buttons: dict[str, QtWidgets.QToolButton] = {}
        for key, (label, _) in PRESETS.items():
            b = QtWidgets.QToolButton()
            b.setText(label)
            b.setToolTip(", ".join(f"{k}={v}" for k, v in PRESETS[key][1].items()) or "the book's defaults")
            presets.addWidget(b)
            self.preset_buttons[key] = b
        grid.addLayout(presets, 4, 0, 1, 3)
        col.addWidget(transport)

        self.timeline_card = _narrow(CalculatorCard(audio_timing.TIMELINE, compact=True))
        col.addWidget(self.timeline_card)
        self.measured_label = QtWidgets.QLabel("measured: press ▶ to stream")
        self.measured_label.setObjectName("audio_measured")
        self.measured_label.setWordWrap(True)
        self.measured_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.measured_label.setFixedHeight(7 * self.measured_label.fontMetrics().lineSpacing())
        self.measured_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        col.addWidget(self.measured_label)
        col.addStretch(1)

        for seq, slot in (("P", self.play), ("I", self.interrupt), ("Esc", self.stop)):
            sc = QtGui.QShortcut(QtGui.QKeySequence(seq), self)
            sc.setContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        return box

    def _plots(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        col = QtWidgets.QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(8)

        # 图 3-18/3-19: chunks against time.
        self.timeline_plot = _narrow(PlotCard("图 3-18 / 3-19 · 抖动缓冲与打断",
                                      "圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放 (model; live run drawn over it)"))
        p = self.timeline_plot.plot
        p.setLabel("bottom", "time since chunk 0 began (ms)")
        p.setLabel("left", "chunk")
        p.invertY(True)
        p.setMinimumHeight(300)
        p.setClipToView(True)  # long streams: only the chunks in view are drawn
        self.model_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("decode", 150), pen=pen("decode", 0.5))
        self.silenced_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("wait", 60), pen=pen("wait", 0.5))
        self.live_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("prefill", 170), pen=pen("prefill", 0.5))
        for item in (self.silenced_bars, self.model_bars, self.live_bars):
            p.addItem(item)
        self.tick_curve = self.timeline_plot.add_curve("scheduled", pen=pen("ink", 1.6), connect="pairs")
        self.arrival_curve = self.timeline_plot.add_curve(
            "arrival", pen=None, symbol="o", symbolSize=7, symbolBrush=brush("tool", 230), symbolPen=pen("tool", 1))
        self.live_arrival_curve = self.timeline_plot.add_curve(
            "live_arrival", pen=None, symbol="o", symbolSize=10, symbolBrush=None, symbolPen=pen("prefill", 1.5))
        self.stall_curve = self.timeline_plot.add_curve(
            "stall", pen=None, symbol="t", symbolSize=10, symbolBrush=brush("backlog", 230), symbolPen=None)
        self.first_play_line = pg.InfiniteLine(angle=90, pen=pen("muted", 1, dashed=True),
                                               label="首播", labelOpts={"position": 0.97, "color": COLORS["muted"]})
        p.addItem(self.first_play_line)
        self.now_line = pg.InfiniteLine(angle=90, pen=pen("accent", 1.5))
        self.now_line.setVisible(False)
        p.addItem(self.now_line)
        self.moment_lines: dict[str, pg.InfiniteLine] = {}
        self.live_moment_lines: dict[str, pg.InfiniteLine] = {}
        for i, (key, text, kind) in enumerate(_MOMENTS):
            line = pg.InfiniteLine(angle=90, pen=pen(kind, 1.2, dashed=True), label=text,
                                   labelOpts={"position": 0.05 + 0.09 * i, "color": COLORS[kind], "fill": (255, 255, 255, 200)})
            p.addItem(line)
            self.moment_lines[key] = line
            live = pg.InfiniteLine(angle=90, pen=pen(kind, 2.2))
            live.setVisible(False)
            p.addItem(live)
            self.live_moment_lines[key] = live
        self.timeline_note = _label_item("", "muted", anchor=(1, 1))
        p.addItem(self.timeline_note)
        col.addWidget(self.timeline_plot, 3)

        lower = QtWidgets.QHBoxLayout()
        lower.setSpacing(8)
        # B(t) with underrun markers.
        self.level_plot = _narrow(PlotCard("缓冲余量 B(t) = A(t) − P(t)",
                                           "model (filled) · measured in the callback (thin line) · after the mute, "
                                           "arrived audio waits until release"))
        q = self.level_plot.plot
        q.setLabel("bottom", "time (ms)")
        q.setLabel("left", "buffered audio (ms)")
        q.setClipToView(True)
        self.level_curve = self.level_plot.add_curve("model_B", pen=pen("state", 2), fillLevel=0, brush=brush("state", 50))
        self.target_curve = self.level_plot.add_curve("target", pen=pen("muted", 1.2, dashed=True))
        self.live_level_curve = self.level_plot.add_curve("measured_B", pen=pen("prefill", 1.2), antialias=False)
        self.underrun_curve = self.level_plot.add_curve(
            "underrun", pen=None, symbol="t", symbolSize=12, symbolBrush=brush("backlog", 230), symbolPen=None)
        self.live_underrun_curve = self.level_plot.add_curve(
            "live_underrun", pen=None, symbol="x", symbolSize=12, symbolPen=pen("backlog", 2))
        lower.addWidget(self.level_plot, 3)
        # Live waveform of what the callback wrote.
        self.wave_plot = _narrow(PlotCard("输出波形 · live waveform", "the last 100 ms the callback wrote"))
        w = self.wave_plot.plot
        w.setLabel("bottom", "ms before now")
        w.setYRange(-0.6, 0.6, padding=0)
        w.setXRange(-100, 0, padding=0)
        w.setMouseEnabled(x=False, y=False)
        self.wave_curve = self.wave_plot.add_curve("wave", pen=pen("decode", 1), antialias=False)
        # Grid lines belong to the axes, which then re-render with every change in the
        # view: the live plots go without, so a frame repaints only what moved (and the
        # GUI thread never holds the GIL long enough to starve the audio callback).
        for card in (self.timeline_plot, self.level_plot, self.wave_plot):
            card.plot.showGrid(x=False, y=False)
        lower.addWidget(self.wave_plot, 2)
        col.addLayout(lower, 2)
        return box

    def _exercise_row(self) -> QtWidgets.QLayout:
        row = QtWidgets.QHBoxLayout()
        row.setSpacing(12)
        self.compare_card = _narrow(CalculatorCard(audio_timing.BUFFER_COMPARE, compact=True))
        self.compare_card.form.setVisible(False)  # its stream follows the main form; only A/B buffers are its own
        compare_box = QtWidgets.QWidget()
        cb = QtWidgets.QVBoxLayout(compare_box)
        cb.setContentsMargins(0, 0, 0, 0)
        self.compare_plot = _narrow(PlotCard("练习 3-5 · 40 ms 与 60 ms 初始缓冲", "same stream, two buffers"))
        cp = self.compare_plot.plot
        cp.setLabel("bottom", "time (ms)")
        cp.invertY(True)
        cp.getAxis("left").setTicks([[(0, "A"), (1, "B")]])
        self.compare_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("decode", 160), pen=pen("decode", 0.5))
        self.compare_stalls = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("backlog", 200), pen=None)
        cp.addItem(self.compare_bars)
        cp.addItem(self.compare_stalls)
        self.compare_labels = [_label_item("", "ink", anchor=(0, 1)) for _ in range(2)]
        for item in self.compare_labels:
            cp.addItem(item)
        cb.addWidget(self.compare_plot)
        cb.addWidget(self.compare_card)
        row.addWidget(compare_box, 1)

        self.drain_card = _narrow(CalculatorCard(audio_timing.DRAIN, compact=True))
        drain_box = QtWidgets.QWidget()
        db = QtWidgets.QVBoxLayout(drain_box)
        db.setContentsMargins(0, 0, 0, 0)
        self.drain_plot = _narrow(PlotCard("到达跟不上播放,缓冲只是延后中断", "A(t), P(t) and B(t) for a steady trickle"))
        dp = self.drain_plot.plot
        dp.setLabel("bottom", "time (s)")
        dp.setLabel("left", "audio (s)")
        self.drain_arrived = self.drain_plot.add_curve("A", pen=pen("tool", 2), name="A(t)")
        self.drain_played = self.drain_plot.add_curve("P", pen=pen("decode", 2), name="P(t)")
        self.drain_level = self.drain_plot.add_curve("B", pen=pen("state", 2), fillLevel=0, brush=brush("state", 60))
        self.drain_line = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5, dashed=True), label="耗尽",
                                          labelOpts={"position": 0.9, "color": COLORS["backlog"]})
        dp.addItem(self.drain_line)
        db.addWidget(self.drain_plot)
        db.addWidget(self.drain_card)
        row.addWidget(drain_box, 1)

        self.frames_card = _narrow(CalculatorCard(audio_frames.FRAMES, compact=True))
        frames_box = QtWidgets.QWidget()
        fb = QtWidgets.QVBoxLayout(frames_box)
        fb.setContentsMargins(0, 0, 0, 0)
        fb.addWidget(self.frames_card)
        fb.addStretch(1)
        row.addWidget(frames_box, 1)
        return row

    def _connect(self) -> None:
        self.timeline_card.computed.connect(lambda _: self._on_timeline_changed())
        self.compare_card.computed.connect(lambda _: self._refresh_compare())
        self.drain_card.computed.connect(lambda _: self._refresh_drain())
        self.play_button.clicked.connect(self.play)
        self.stop_button.clicked.connect(self.stop)
        self.interrupt_button.clicked.connect(self.interrupt)
        self.wav_button.clicked.connect(self._choose_wav)
        self.device_box.currentIndexChanged.connect(self._on_device_changed)
        self._timer.timeout.connect(self._on_frame)
        self._open_timer.timeout.connect(self._check_opened)
        for key, button in self.preset_buttons.items():
            button.clicked.connect(lambda _=False, k=key: self.apply_preset(k))

    # ---- model ----------------------------------------------------------------
    def refresh(self) -> None:
        self._refresh_model()
        self._refresh_compare()
        self._refresh_drain()
        self._update_buttons()

    def _values(self) -> dict:
        return self.timeline_card.values()

    def model_timeline(self) -> audio_timing.Timeline:
        return audio_timing.stream_timeline(self._values())

    def _on_timeline_changed(self) -> None:
        # The 练习 3-5 card compares buffers on the same stream as the main form.
        stream = {k: v for k, v in self._values().items() if k in {p.name for p in audio_timing.BUFFER_COMPARE.params}}
        self.compare_card.form.set_values(stream)
        self._refresh_model()

    def _refresh_model(self) -> None:
        tl = self._model = self.model_timeline()
        out = self.timeline_card.result
        ms = 1e3
        idx = np.arange(tl.n, dtype=float)
        mute_at = out["mute_at_s"]
        start, end = tl.play_start, tl.play_end
        heard_end = np.minimum(end, mute_at)
        heard = heard_end > start
        self.model_bars.setOpts(x0=start[heard] * ms, x1=heard_end[heard] * ms, y0=idx[heard] - 0.28, y1=idx[heard] + 0.28)
        cut_start = np.maximum(start, mute_at)
        cut = end > cut_start
        self.silenced_bars.setOpts(x0=cut_start[cut] * ms, x1=end[cut] * ms, y0=idx[cut] - 0.28, y1=idx[cut] + 0.28)
        ticks_x = np.repeat(tl.deadline * ms, 2)
        ticks_y = np.ravel(np.column_stack([idx - 0.42, idx + 0.42]))
        self.tick_curve.setData(ticks_x, ticks_y)
        self.arrival_curve.setData(tl.arrival * ms, idx)
        stalls = tl.underruns()
        self.stall_curve.setData((tl.play_start[stalls] - tl.stall[stalls]) * ms, idx[stalls] - 0.5)
        self.first_play_line.setValue(tl.first_playback_s * ms)
        moments = {"interrupt": self._values()["interrupt_at_ms"] / ms, "mute": mute_at,
                   "backend_stop": out["backend_stop_at_s"], "release": out["release_at_s"]}
        for key, t in moments.items():
            self.moment_lines[key].setValue(t * ms)
        # Show the interrupt moments when they fall in the stream; a far-off interrupt
        # should not squash the figure.
        in_stream = moments["interrupt"] <= tl.finish_s
        for key in moments:
            self.moment_lines[key].setVisible(in_stream)
        right = (max(tl.finish_s, out["release_at_s"]) if in_stream else tl.finish_s) * 1.04 * ms
        self._full_x = (0.0, right)
        self.timeline_plot.plot.setXRange(0, right, padding=0)
        self.timeline_plot.plot.setYRange(-1, tl.n, padding=0)
        self.timeline_note.setText(
            f"stalls {out['underruns']} · {format_seconds(out['total_stall_s'])} · "
            f"interrupt → mute {format_seconds(out['interrupt_to_mute_s'])}")
        self.timeline_note.setPos(right, tl.n)

        t = np.linspace(0, tl.finish_s + tl.chunk_s, 1500)
        level = tl.buffer_level(t, stop_s=mute_at, release_s=out["release_at_s"])
        self.level_curve.setData(t * ms, level * ms)
        if tl.adaptive:
            self.target_curve.setData(tl.play_start * ms, tl.target * ms)
        else:
            self.target_curve.setData([], [])
        self.underrun_curve.setData((tl.play_start[stalls] - tl.stall[stalls]) * ms, np.zeros(stalls.size))
        self.level_plot.plot.setXRange(0, right, padding=0)
        self.level_plot.plot.setYRange(0, max(float(level.max()) * ms, tl.buffer_s * ms, 1.0) * 1.1, padding=0)

    def _refresh_compare(self) -> None:
        v = self.compare_card.values()
        rows = []
        for row, key in enumerate(("buffer_a_ms", "buffer_b_ms")):
            tl = audio_timing.stream_timeline(v, v[key])
            rows.append((row, tl))
        x0, x1, y0, y1, sx0, sx1, sy0, sy1 = ([] for _ in range(8))
        for row, tl in rows:
            x0 += list(tl.play_start * 1e3)
            x1 += list(tl.play_end * 1e3)
            y0 += [row - 0.18] * tl.n
            y1 += [row + 0.18] * tl.n
            for i in tl.underruns():
                sx0.append((tl.play_start[i] - tl.stall[i]) * 1e3)
                sx1.append(tl.play_start[i] * 1e3)
                sy0.append(row - 0.26)
                sy1.append(row + 0.26)
        self.compare_bars.setOpts(x0=x0, x1=x1, y0=y0, y1=y1)
        self.compare_stalls.setOpts(x0=sx0, x1=sx1, y0=sy0, y1=sy1)
        r = self.compare_card.result
        right = max(r["finish_a_s"], r["finish_b_s"]) * 1e3
        texts = (f"A {v['buffer_a_ms']:g} ms: 首播 {format_seconds(r['first_playback_a_s'])}, "
                 f"停顿 {r['underruns_a']} 次 {format_seconds(r['total_stall_a_s'])}",
                 f"B {v['buffer_b_ms']:g} ms: 首播 {format_seconds(r['first_playback_b_s'])}, "
                 f"停顿 {r['underruns_b']} 次 {format_seconds(r['total_stall_b_s'])}")
        for (row, _), label, text in zip(rows, self.compare_labels, texts):
            label.setText(text)
            label.setPos(0, row - 0.22)
        self.compare_plot.plot.setXRange(0, right * 1.05, padding=0)
        self.compare_plot.plot.setYRange(-0.75, 1.4, padding=0)

    def _refresh_drain(self) -> None:
        v = self.drain_card.values()
        r = self.drain_card.result
        horizon = 2 * r["dry_at_s"] if r["dry_at_s"] else 10.0
        t, arrived, played, level = audio_timing.drain_series(v["arrival_rate_s_per_s"], v["buffered_s"], horizon)
        self.drain_arrived.setData(t, arrived)
        self.drain_played.setData(t, played)
        self.drain_level.setData(t, level)
        self.drain_line.setVisible(r["dry_at_s"] is not None)
        if r["dry_at_s"] is not None:
            self.drain_line.setValue(r["dry_at_s"])
            self.drain_line.label.setFormat(f"耗尽 {format_seconds(r['dry_at_s'])}")

    def apply_preset(self, key: str) -> None:
        _, overrides = PRESETS[key]
        defaults = audio_timing.TIMELINE.defaults()
        values = {k: defaults[k] for k in _PRESET_KEYS}
        values.update(overrides)
        self.timeline_card.form.set_values({k: audio_timing.TIMELINE.param(k).parse(v) for k, v in values.items()})

    # ---- live stream ----------------------------------------------------------
    @property
    def engine(self) -> StreamEngine:
        if self._engine is None:
            device = self.device_box.currentData()
            self._engine = StreamEngine(device=device, prefer_device=device is not None or
                                        self.device_box.currentText() != VIRTUAL)
        return self._engine

    @property
    def run(self) -> StreamRun | None:
        return self._run

    def _source(self):
        kind = self.source_box.currentText()
        return make_source(kind, self._wav_path)

    def play(self) -> bool:
        """Start streaming the form's stream. False (with the reason shown) if it cannot.

        The first ▶ opens the sound device; PulseAudio can take a second or two to start
        calling back, so that happens off the GUI thread and the stream starts when ready."""
        if self._run is not None and not self._run.finished:
            self.stop()
        try:
            source = self._source()
            audio_timing.TIMELINE.resolve(self._values())
        except (ParamError, SourceError) as err:
            self._show_error(err)
            return False
        # Opening the device (PulseAudio can take ~2 s to start calling back) and rendering
        # the audio happen off the GUI thread; the stream starts when both are done.
        engine = self.engine
        values = self._values()
        what = "opening the device and preparing" if not engine.has_sink else "preparing"
        self._show_status(f"{what} {values['chunks'] * values['chunk_ms'] / 1000:g} s of {self.source_box.currentText()}…")
        self.play_button.setEnabled(False)
        errors: list = []

        def work() -> None:
            try:
                engine.prepare(values, source)
            except (ParamError, SourceError) as err:
                errors.append(err)

        worker = threading.Thread(target=work, daemon=True, name="audio-prepare")
        worker.start()
        self._opening = (worker, source, errors)
        self._open_timer.start()
        return True

    def _check_opened(self) -> None:
        worker, source, errors = self._opening
        if worker.is_alive():
            return
        self._open_timer.stop()
        self._opening = None
        self.play_button.setEnabled(True)
        if errors:
            self._show_error(errors[0])
            self.play_failed.emit(str(errors[0]))
            return
        self._start(source)

    def _start(self, source) -> bool:
        try:
            run = self.engine.start(self._values(), source=source)
        except (ParamError, SourceError) as err:
            self._show_error(err)
            return False
        self._run = run
        self._reset_measured()
        self._show_status(self.engine.status)
        self._last_health = time.perf_counter()
        self.now_line.setVisible(True)
        self._timer.start()
        self._update_buttons()
        self.stream_started.emit()
        return True

    def _show_error(self, err: Exception) -> None:
        field = getattr(err, "param", getattr(err, "field", ""))
        message = getattr(err, "message", str(err))
        self._show_status(f"cannot play: {field}: {message}", error=True)

    def stop(self) -> None:
        if self._run is not None:
            self._run.stop()
            self._on_frame()
        self._finish()

    def interrupt(self) -> None:
        if self._run is None or self._run.finished:
            return
        if self._run.interrupt() is not None:
            self.interrupted.emit()

    def _finish(self) -> None:
        was_active = self._timer.isActive()
        self._timer.stop()
        self.now_line.setVisible(False)
        if self._run is not None:
            self._show_summary(self._run.summary())
            self.timeline_plot.plot.setXRange(*self._full_x, padding=0)
            self.timeline_plot.plot.setYRange(-1, self._model.n, padding=0)
            self.level_plot.plot.setXRange(*self._full_x, padding=0)
        self._update_buttons()
        if was_active and self._run is not None:
            self.stream_finished.emit(self._run.summary())

    def _reset_measured(self) -> None:
        self._page = (-1.0, -1.0)
        self._frame_no = 0
        self._measured = {k: [] for k in ("arr_t", "arr_i", "play_t", "play_i", "under_t", "level_t", "level_v")}
        self._moments_seen: dict[str, float] = {}
        for curve in (self.live_arrival_curve, self.live_level_curve, self.live_underrun_curve):
            curve.setData([], [])
        self.live_bars.setOpts(x0=[], x1=[], y0=[], y1=[])
        for line in self.live_moment_lines.values():
            line.setVisible(False)

    def _on_frame(self) -> None:
        """One GUI frame: drain the rings, update persistent items."""
        run = self._run
        if run is None:
            return
        t_start = time.perf_counter()
        pulled = run.pull()
        m = self._measured
        e = pulled.events
        for kind, keys in ((ev.ARRIVAL, ("arr_t", "arr_i")), (ev.PLAY, ("play_t", "play_i"))):
            got = e.of(kind)
            m[keys[0]].extend(got.t.tolist())
            m[keys[1]].extend(got.chunk.tolist())
        m["under_t"].extend(e.of(ev.UNDERRUN).t.tolist())
        m["level_t"].extend(pulled.level_t.tolist())
        m["level_v"].extend(pulled.level_s.tolist())
        names = {ev.INTERRUPT: "interrupt", ev.MUTE: "mute", ev.BACKEND_STOP: "backend_stop", ev.RELEASE: "release"}
        if "interrupt" not in self._moments_seen and run.control.moments is not None:
            # The dashed lines now show what the model predicts for this interrupt.
            im = run.control.moments
            for key, t in (("interrupt", im.interrupt_s), ("mute", im.mute_at_s),
                           ("backend_stop", im.backend_stop_at_s), ("release", im.release_at_s)):
                self.moment_lines[key].setValue(t * 1e3)
                self.moment_lines[key].setVisible(True)
        for kind, key in names.items():
            got = e.of(kind)
            if got.t.size and key not in self._moments_seen:
                self._moments_seen[key] = float(got.t[0])
                self.live_moment_lines[key].setValue(got.t[0] * 1e3)
                self.live_moment_lines[key].setVisible(True)
        if not self.isVisible():
            # Another panel is showing: keep draining the rings, draw nothing.
            self._check_health(t_start)
            if pulled.finished:
                self._finish()
            return
        ms = 1e3
        if len(e):
            self.live_arrival_curve.setData(np.asarray(m["arr_t"]) * ms, np.asarray(m["arr_i"], dtype=float))
            play_t = np.asarray(m["play_t"])
            play_i = np.asarray(m["play_i"], dtype=float)
            ends = play_t + run.timeline.chunk_s
            if "mute" in self._moments_seen:
                ends = np.minimum(ends, self._moments_seen["mute"])
            self.live_bars.setOpts(x0=play_t * ms, x1=ends * ms, y0=play_i - 0.12, y1=play_i + 0.12)
            under = np.asarray(m["under_t"])
            self.live_underrun_curve.setData(under * ms, np.zeros(under.size))
        self._frame_no += 1
        if pulled.level_t.size and (self._frame_no % 2 == 0 or pulled.finished):  # B(t) at 30 Hz is plenty
            self.live_level_curve.setData(np.asarray(m["level_t"]) * ms, np.asarray(m["level_v"]) * ms)
        # Peak-preserving decimation to ~2 points per screen column keeps the paint cheap.
        wave = pulled.wave
        rate = run.playout.rate_hz
        step = max(1, wave.size // WAVE_POINTS)
        usable = wave[wave.size % step:].reshape(-1, step)
        peaks = np.empty(usable.shape[0] * 2, np.float32)
        peaks[0::2] = usable.min(axis=1)
        peaks[1::2] = usable.max(axis=1)
        x = (np.repeat(np.arange(usable.shape[0]) * step, 2) - usable.size) / rate * ms
        self.wave_curve.setData(x, peaks)
        now = pulled.now
        self.now_line.setValue(now * ms)
        if self._full_x[1] > FOLLOW_WINDOW_S * 1.5 * ms and not (self._page[0] <= now < self._page[0] + 0.85 * FOLLOW_WINDOW_S):
            # Turn the page (rather than scroll every frame): axes re-render only then.
            left = max(0.0, now - FOLLOW_WINDOW_S * 0.15)
            self._page = (left, left + FOLLOW_WINDOW_S)
            self.timeline_plot.plot.setXRange(left * ms, (left + FOLLOW_WINDOW_S) * ms, padding=0)
            self.level_plot.plot.setXRange(left * ms, (left + FOLLOW_WINDOW_S) * ms, padding=0)
            # Chunks in view: from those due at the left edge to those captured by the right.
            tl = run.timeline
            lo = max(0, int(np.searchsorted(tl.deadline, left)) - 3)
            hi = min(tl.n, int(np.searchsorted(tl.captured, left + FOLLOW_WINDOW_S)) + 1)
            self.timeline_plot.plot.setYRange(lo - 1, max(hi, lo + 5), padding=0)
        self._check_health(t_start)
        self.frame_times_s.append(time.perf_counter() - t_start)
        if pulled.finished and (run.released or run.playout.finished or run.sink.renderer is not run.playout):
            # one last frame has drawn everything; stop pulling
            self._finish()

    def _check_health(self, now: float) -> None:
        """A few times a second: has the device gone away? (The engine then carries on
        with the virtual sink and says so.)"""
        if now - self._last_health > HEALTH_EVERY_S:
            self._last_health = now
            if self.engine.poll():
                self._show_status(self.engine.status, error=True)

    def _show_summary(self, s: dict) -> None:
        def f(x):
            return "—" if x is None else format_seconds(x)

        text = (f"<b>measured</b> ({s['sink']}): first playback {f(s['first_playback_s'])} "
                f"(model {f(s['model_first_playback_s'])}) · played {s['chunks_played']}/{s['chunks']} "
                f"{'in order' if s['played_in_order'] else '<b>OUT OF ORDER</b>'} · underruns {s['underruns']} "
                f"(model {s['model_underruns']}) · stall {f(s['total_stall_s'])} (model {f(s['model_total_stall_s'])})"
                f" · late vs model {s['late_vs_model']}")
        if "interrupt_s" in s:
            text += (f"<br><b>interrupt</b> at {f(s['interrupt_s'])}: mute {f(s['mute_at_s'])} "
                     f"(model {f(s['model_mute_at_s'])}) · backend stop {f(s['backend_stop_at_s'])} "
                     f"(model {f(s['model_backend_stop_at_s'])}) · release {f(s['release_at_s'])} "
                     f"(model {f(s['model_release_at_s'])})")
        self.measured_label.setText(text)

    def _show_status(self, text: str, error: bool = False) -> None:
        self.status_label.setText(text)
        self.status_label.setStyleSheet(f"color: {COLORS['backlog']};" if error else "")

    def _update_buttons(self) -> None:
        playing = self._timer.isActive()
        self.stop_button.setEnabled(playing)
        self.interrupt_button.setEnabled(playing)
        self.play_button.setText("↻ Restart" if playing else "▶ Play")

    def _choose_wav(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open a PCM WAV file", "", "WAV (*.wav)")
        if path:
            self.set_wav(path)

    def set_wav(self, path: str) -> bool:
        """Use a WAV file as the source; False (and the reason shown) when it is not usable."""
        try:
            duration = WavSource(path).duration_s()
        except SourceError as err:
            self._show_status(f"cannot use the file: {err.message}", error=True)
            return False
        self._wav_path = path
        self.source_box.setCurrentText("wav")
        self._show_status(f"wav: {path} ({format_seconds(duration)}) · the stream plays the first "
                          f"chunks × chunk_ms of it")
        return True

    def _on_device_changed(self) -> None:
        """A new device is opened on the next ▶ (off the GUI thread)."""
        if self._run is not None and not self._run.finished:
            self.stop()
        if self._engine is not None and self._owns_engine:
            self._engine.close()
            self._engine = None
        elif self._engine is not None:
            device = self.device_box.currentData()
            self._engine.use_sink(open_sink(48_000, 0.010, device, prefer_device=self.device_box.currentText() != VIRTUAL))
        self._show_status(f"device: {self.device_box.currentText()} (opens on ▶)")

    def close(self) -> bool:
        self._timer.stop()
        self._open_timer.stop()
        if self._opening is not None:  # let a device that is being opened finish first
            self._opening[0].join(timeout=6.0)
            self._opening = None
        if self._run is not None:
            self._run.stop()
        if self._owns_engine and self._engine is not None:
            self._engine.close()
            self._engine = None
        return super().close()


PANEL = PanelInfo(key="audio", title="实时播放 · Audio", section="3.3.3", order=3.33, factory=AudioPanel)
