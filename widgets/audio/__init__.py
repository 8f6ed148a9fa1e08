"""§3.3.3 实时播放 as something you can hear: chunks streamed through a jitter buffer to a
sound device, with the book's figure (图 3-18/3-19) drawn from the model and the measured
run drawn over it live.

The panel is a view of an AudioState (core/audio/state.py); its figures come from
core/audio/figures.py, computed on the job runner (a long adaptive stream takes a second
to lay out), and ▶ opens the device and renders the audio there too. The engine
(audio.engine) plays the stream on its own real-time threads and logs what happened into
rings that one ~60 Hz QTimer drains into an audio.live.LiveTrace; the plots draw the part
in view.

    controls.py    ▶ ✕ ■, source, device, presets, the stream's card, the measured summary
    player.py      the live stream: play, interrupt, stop and the per-frame drawing
    live_plots.py  图 3-18/3-19 with the live run, B(t), the waveform
    exercises.py   练习 3-5, the drain, the speech frame loop
"""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets

from audio.engine import StreamEngine, StreamRun
from audio.live import LiveTrace
from audio.sources import SourceError, WavSource
from core.audio.figures import compare_figure, drain_figure, figure_at_hand, timeline_figure
from core.audio.state import VIRTUAL_DEVICE, AudioState
from core.units import format_seconds
from widgets.audio.controls import DEVICE_STATUS, Controls, prefetch_devices
from widgets.audio.exercises import Exercises
from widgets.audio.live_plots import LivePlots
from widgets.audio.player import StreamPlayer
from widgets.kit.jobs import jobs
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import Reflow, page_header, scroll_page
from widgets.kit.panels import PanelInfo
from widgets.kit.turns import InTurns

FRAME_MS = 16  # the GUI pulls from the engine's rings at ~60 Hz
PLOTS_MIN_EM = 28  # the live plots beside the controls get at least this many line heights
LEGEND = (("arrival", "到达 arrival", "●"), ("ink", "原定播放 scheduled", "|"), ("played", "实际播放 played", "▬"),
          ("underrun", "欠载 underrun", "▼"))
LEAD = ("B<sub>audio</sub>(t) = A(t) − P(t):已到达的可播放时长 − 已播放时长。播放期间 P(t) 每秒涨 1 秒,A(t) 随数据块跳跃增长;"
        "余量降到零而下一块没到,声音就断。")


class AudioPanel(StreamPlayer, QtWidgets.QWidget):
    """The Audio panel: model figure + live run, controls, exercise cards."""

    stream_started = QtCore.Signal()
    stream_finished = QtCore.Signal(dict)  # the run's measured summary
    interrupted = QtCore.Signal()
    play_failed = QtCore.Signal(str)  # the stream could not start (the reason is also in the status line)
    figure_drawn = QtCore.Signal(str)  # 'timeline', 'compare' or 'drain'

    def __init__(self, state: AudioState | None = None, parent=None, engine: StreamEngine | None = None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else AudioState()
        self._engine = engine  # opened lazily on the first ▶, so a snapshot never opens a device
        self._owns_engine = engine is None
        self._run: StreamRun | None = None
        self._trace: LiveTrace | None = None
        self._drawn: dict[str, object] = {}  # figure -> the inputs it was drawn from
        self._last_health = 0.0
        self._frame_no = 0
        self._closed = False
        self.frame_times_s: list[float] = []  # GUI frame durations while streaming (bench)
        self._keys = {k: f"audio.{k}.{id(self)}" for k in ("prepare", "timeline", "compare")}
        self._timer = QtCore.QTimer(self)
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.setInterval(FRAME_MS)
        self._built = False
        self._layout = scroll_page(self, "")
        self._layout.setSpacing(10)
        self._layout.addWidget(page_header("§3.3.3 实时播放:每一块都要按时到 · Audio streaming", LEGEND, LEAD))
        # A piece per event-loop turn (each takes about a quarter of a second to build: built
        # at once they held the window for a second on a first visit); all at once without a
        # running loop (tests, snapshots, scripts).
        self.plots = LivePlots(deferred=True)  # their plots and the exercises' cards a step each
        self.exercises = Exercises(self.state, deferred=True)
        self._build = InTurns(self, [self._build_controls, self._build_plots, *self.plots.build_steps(),
                                     self._build_exercises, *self.exercises.build_steps(), self._bind],
                              first_now=True)

    # ---- construction -------------------------------------------------------------
    def _build_controls(self) -> None:
        self.controls = Controls(self.state, self._keys["prepare"])

    def _build_plots(self) -> None:
        # Controls beside the live plots when both fit; stacked, the plots first (the keys
        # play and stop without the buttons in view).
        self._layout.addWidget(Reflow(self.controls, self.plots, natural=True, grow=1, min_column_em=PLOTS_MIN_EM,
                                      stacked_first=1), 1)

    def _build_exercises(self) -> None:
        self._layout.addWidget(self.exercises)
        self.controls.timeline_card.busy.add_key(self._keys["timeline"])

    def _bind(self) -> None:
        """Every piece exists: follow the state (as it is now: a session may have loaded
        while the pieces were built) and draw."""
        self.exercises.compare_card.busy.add_key(self._keys["compare"])
        self._connect()
        for name in ("source", "device", "follow", "preset"):
            self.controls.on_view_changed(name)
        self._draw_drain()
        for name in ("timeline", "compare"):
            self._figure_for(name)
        self._update_buttons()
        self._built = True

    def _connect(self) -> None:
        c = self.controls
        c.play_button.clicked.connect(self.play)
        c.stop_button.clicked.connect(self.stop)
        c.interrupt_button.clicked.connect(self.interrupt)
        c.wav_button.clicked.connect(self._choose_wav)
        c.timeline_card.computed.connect(lambda _: self._figure_for("timeline"))
        self.exercises.compare_card.computed.connect(lambda _: self._figure_for("compare"))
        self._timer.timeout.connect(self._on_frame)
        self.state.changed.connect(self._on_state_changed)
        jobs().busy_changed.connect(self._on_busy_changed)

    # Attributes tests and talks reach for, where they live now.
    timeline_card = property(lambda self: self.controls.timeline_card)
    compare_card = property(lambda self: self.exercises.compare_card)
    drain_card = property(lambda self: self.exercises.drain_card)
    frames_card = property(lambda self: self.exercises.frames_card)
    play_button = property(lambda self: self.controls.play_button)
    stop_button = property(lambda self: self.controls.stop_button)
    interrupt_button = property(lambda self: self.controls.interrupt_button)
    preset_buttons = property(lambda self: self.controls.preset_buttons)
    status_label = property(lambda self: self.controls.status_label)
    measured_label = property(lambda self: self.controls.measured_label)

    # ---- state -> views -------------------------------------------------------------
    def _on_state_changed(self, path: str, value) -> None:
        if self._closed or not shiboken6.isValid(self):
            return
        kind, _, name = path.partition(".")
        if kind == "view":
            self.controls.on_view_changed(name)
            if name == "device":
                self._on_device_changed()
        elif path == "player.stream" and not self.playing:
            self.plots.set_now(None)  # while playing, the timeline's frames draw now
        elif path == "cards.drain":
            self._draw_drain()

    def _figure_for(self, name: str) -> None:
        """Draw a deferred card's figure once its result is in: the layout of the stream (up
        to a second) was done by the card's job; the figure then takes a few ms, or goes to
        the job runner when the layout is not at hand."""
        card = self.state.card(name)
        inputs, result = card.result_inputs, card.result
        if result is None or inputs != card.inputs or self._drawn.get(name) == inputs:
            return
        fn = timeline_figure if name == "timeline" else compare_figure
        if figure_at_hand(name, inputs):  # the card's job laid the stream out: a few ms of slicing
            self._draw_figure(name, inputs, fn(inputs, result))
        else:
            jobs().submit(self._keys[name], fn, inputs, result, context=self,
                          done=lambda fig, name=name, inputs=inputs: self._draw_figure(name, inputs, fig))

    def _draw_figure(self, name: str, inputs, fig) -> None:
        if self._closed or inputs != self.state.card(name).inputs:
            return  # an edit came meanwhile: its own figure follows
        if name == "timeline":
            self.plots.draw_model(fig)
        else:
            self.exercises.draw_compare(fig)
        self._drawn[name] = inputs
        self.figure_drawn.emit(name)

    def _draw_drain(self) -> None:
        card = self.state.card("drain")
        if card.result is not None:
            self.exercises.draw_drain(drain_figure(card.result_inputs, card.result))
            self.figure_drawn.emit("drain")

    def is_ready(self) -> bool:
        """Built, every figure drawn for the current inputs and nothing computing (tests, bench)."""
        return self._built and all(self._drawn.get(n) == self.state.card(n).inputs for n in ("timeline", "compare")) and \
            not any(jobs().busy(k) for k in self._keys.values())

    # ---- source and device ------------------------------------------------------------
    def _choose_wav(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open a PCM WAV file", "", "WAV (*.wav)")
        if path:
            self.set_wav(path)

    def set_wav(self, path: str) -> bool:
        """Use a WAV file as the source; False (and the reason shown) when it is not usable."""
        try:
            duration = WavSource(path).duration_s()
        except SourceError as err:
            self.controls.show_status(f"cannot use the file: {err.message}", error=True)
            return False
        self.state.set_view("wav_path", path)
        self.state.set_view("source", "wav")
        self.controls.show_status(f"wav: {path} ({format_seconds(duration)}) · the stream plays the first "
                                  f"chunks × chunk_ms of it")
        return True

    def _on_device_changed(self) -> None:
        """A new device opens on the next ▶ (on the job runner)."""
        if self._run is not None and not self._run.finished:
            self.stop()
        if self._engine is not None:
            device = self.state.view("device")
            self._engine.choose_device(device or None, prefer_device=device != VIRTUAL_DEVICE)
        self.controls.show_status(DEVICE_STATUS)

    def close(self) -> bool:
        if not shiboken6.isValid(self):  # freed already (widgets/kit/lifetime.py): nothing to close
            return True
        if self._closed:
            return super().close()
        self._closed = True
        self._build.stop()
        self._timer.stop()
        preparing = jobs().busy(self._keys["prepare"])
        for key in self._keys.values():
            jobs().cancel(key)
        if self._run is not None:
            self._run.stop()
        if self._owns_engine and self._engine is not None and not preparing:
            self._engine.close()  # (a device still opening is closed by its job when it returns)
        self._engine = None if self._owns_engine else self._engine
        try:
            jobs().busy_changed.disconnect(self._on_busy_changed)
        except (RuntimeError, TypeError):
            pass
        if self._built:  # connected when the last piece was built
            self.state.changed.disconnect(self._on_state_changed)
        return super().close()


def warm_up() -> None:
    """The window's warm-up job (lab.main_window.import_panel_modules): what a first visit
    would otherwise do on the GUI thread."""
    prefetch_devices()


PANEL = PanelInfo(key="audio", title="实时播放 · Audio", section="3.3.3", order=3.33, factory=AudioPanel)
