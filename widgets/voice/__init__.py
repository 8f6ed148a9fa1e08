"""Issue 13, One clock: a voice-agent turn from the user's last word to the first sound of
the reply, through the loaded serving engine and the jitter buffer, drawn and heard.

A view of VoiceState (the load, turns, seed and the turn shown); the turns come from
core.voice.simulate_voice on the job runner (the latest edit wins, the last good run stays
when an edit is refused); audio.voice_playback plays them.

A drag of the load slider must stay smooth (a frame within 16 ms, issue 13): a run that comes
back while the drag goes on (another replay is due, or the slider is held) is drawn live, one
figure per display frame and data only (live_ranges.py); the last run is drawn in full once the
drag is over, so what stays on screen is what a fresh panel at that value shows.

    turn_timeline.py  the swimlane under the background's queue and KV
    histogram.py      the silence histogram over all turns
    stages.py         the stages' names and colours, the figures' clock
    live_ranges.py    drawing during a drag: cached axes, ranges that only grow
    captions.py       the run's percentiles and the shown turn's breakdown in words
    boxes.py          the page's column and row boxes
    hear_it.py        ▶ p50 → p95 through the sound device, barge-in on a key
    core/voice/state.py  VoiceState (a core PanelModel)
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtWidgets

from audio.engine import StreamEngine
from core.cancel import NEVER
from core.voice import VoiceParams, simulate_voice
from core.voice.state import RATE_STEP_PER_S, VoiceState
from widgets.kit.helper_process import helper
from widgets.kit.jobs import jobs
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import Reflow, caption, page_header, scroll_page
from widgets.kit.panels import PanelInfo
from widgets.kit.turns import InTurns
from widgets.voice.boxes import fitted_column
from widgets.voice.captions import breakdown_text, summary_text
from widgets.voice.controls import Controls
from widgets.voice.hear_it import PLAY_ORDER, HearIt
from widgets.voice.histogram import SilenceHistogram
from widgets.voice.stages import S_TO_MS
from widgets.voice.turn_timeline import TurnTimeline

LEGEND = (("backlog", "排队 · queue"), ("prefill", "预填充 · prefill"), ("decode", "解码 · decode"), ("tool", "TTS"),
          ("state", "缓冲 · buffer"))
LEAD = ("每一段在同一个时钟上;排队与预填充来自服务背景流量的同一个引擎。"
        " · Every stage on one clock; queue and prefill come from the engine serving the background.")
TIMELINE_MIN_EM = 24  # a column's least width, in line heights: narrower, the two stack
FRAME_MS = 16  # live figures: at most one per display frame
SETTLE_S = 0.08  # no edit for this long (and the slider let go): the drag is over, draw in full
# Drawn in turn during a drag, one a frame (each repaints one view): the swimlane's bars,
# its chunk and token marks, the background above it, the silence histogram.
LIVE_FIGURES = ("lanes", "marks", "background", "histogram")


def simulate(raw: dict[str, str], cancel=None):
    """On a worker: the values checked here (a refusal names its field), the model's run in
    the helper process (a replay on this thread held the GIL against the GUI's repaints)."""
    params = VoiceParams.from_raw(raw)
    return helper().call(simulate_voice, params, cancel=cancel or NEVER)


class VoicePanel(QtWidgets.QWidget):
    run_drawn = QtCore.Signal(dict)  # what the figures show now (lanes, silence, marks, load)
    run_refused = QtCore.Signal(str, str)  # field, message: an edit the model refused
    live_drawn = QtCore.Signal(dict)  # a figure drawn live during a drag: values, run (serial), figure, complete

    def __init__(self, state: VoiceState | None = None, parent=None, engine=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else VoiceState()
        self._engine = engine
        self.run: Any = None  # the last good core.voice VoiceRun
        self.run_values: dict[str, str] | None = None  # the values it was computed from
        self.drawn: dict = {}
        self._closed = False
        self._key = f"voice.run.{id(self)}"
        self._stale = False  # the state changed while a replay ran: replay again when it returns
        self._live_todo: list[str] = []  # figures still to draw live for self.run
        self._live_next = 0  # the figure a new live run starts with (round robin: none starves)
        self._needs_full = False  # live figures are on screen: the full draw is still due
        self._last_edit = 0.0  # time.monotonic() of the last edit of the run's values
        self._run_serial = 0  # runs received: live_drawn says which one a figure shows
        self._built = False  # every piece is on the page (they come one per event-loop turn)
        self._layout = scroll_page(self, "")
        self._layout.setSpacing(8)
        self._layout.addWidget(page_header("一个时钟:语音智能体的一轮 · One clock: a voice-agent turn", LEGEND, LEAD))
        self._layout.addWidget(self._controls())
        self._connect()
        self._submit()  # the run computes (in the helper process) while the figures are built
        # A piece per event-loop turn (built at once they held the window for a second on a
        # first visit); all at once without a running loop (tests, snapshots, scripts).
        self.timeline = TurnTimeline(deferred=True)
        # The header and the controls go on screen first (widgets/kit/turns.py).
        self._build = InTurns(self, [*self.timeline.build_steps(), self._build_right, self._bind])

    # ---- construction ---------------------------------------------------------------
    def _build_right(self) -> None:
        self.histogram = SilenceHistogram()
        self.hear_it = HearIt(self._make_engine)
        self.hear_it.set_turns_source(self._turns_to_play)
        self.breakdown_label = caption("", name="voice_breakdown")
        left = fitted_column(self.timeline.background, self.timeline.swimlane, stretch=1)
        right = fitted_column(self.histogram.card, self.breakdown_label, self.hear_it, stretch=0)
        self.summary_label = self.histogram.card.subtitle_label  # p50/p95/p99 of this run, under the title
        self._layout.addWidget(Reflow(left, right, stretch=(3, 2), min_column_em=TIMELINE_MIN_EM), 1)

    def _bind(self) -> None:
        """Every piece exists: follow the player and draw the run if it is back already."""
        self.hear_it.turn_started.connect(self._on_turn_playing)
        self.hear_it.barged_in.connect(self._on_barged_in)
        self.hear_it.playback_finished.connect(lambda _: self.timeline.set_cursor(None))
        self.hear_it.playback_started.connect(lambda: self.timeline.set_barge_in(None))
        self.hear_it.playback_started.connect(self._cursor_timer.start)
        self.hear_it.playback_finished.connect(lambda _: self._cursor_timer.stop())
        self._built = True
        if self.run is not None:
            self._draw()

    def _controls(self) -> QtWidgets.QWidget:
        """Load, turns and seed, and which turn is drawn (controls.py); their fields here."""
        controls = Controls(self.state, self)
        for name in ("load_slider", "load_label", "turns_spin", "seed_spin", "shown_buttons", "error_label"):
            setattr(self, name, getattr(controls, name))
        self._show_load()
        return controls

    def _connect(self) -> None:
        self.load_slider.valueChanged.connect(lambda v: self.state.set_view("rate_per_s", round(v * RATE_STEP_PER_S, 6)))
        self.turns_spin.valueChanged.connect(lambda v: self.state.set_view("turns", v))
        self.seed_spin.valueChanged.connect(lambda v: self.state.set_view("seed", v))
        for name, b in self.shown_buttons.items():
            b.toggled.connect(lambda on, name=name: on and self.state.set_view("shown", name))
        self.state.changed.connect(self._on_state_changed)
        self._cursor_timer = QtCore.QTimer(self)
        self._cursor_timer.setInterval(33)
        self._cursor_timer.timeout.connect(self._on_cursor_frame)
        self._frame_timer = QtCore.QTimer(self)
        self._frame_timer.setInterval(FRAME_MS)
        self._frame_timer.timeout.connect(self._on_live_frame)
        self.load_slider.sliderReleased.connect(self._settle)
        self._settle_timer = QtCore.QTimer(self)
        self._settle_timer.setSingleShot(True)
        self._settle_timer.timeout.connect(self._settle)

    # ---- state -> model -> views ----------------------------------------------------------
    def _on_state_changed(self, path: str, value) -> None:
        if self._closed or not shiboken6.isValid(self):
            return
        name = path.partition(".")[2]
        if name != "shown":
            self._last_edit = time.monotonic()
        if name == "rate_per_s":
            self._show_load()
            self._sync(self.load_slider, int(round(value / RATE_STEP_PER_S)))
        elif name == "turns":
            self._sync(self.turns_spin, value)
        elif name == "seed":
            self._sync(self.seed_spin, value)
        if name == "shown":
            self.shown_buttons[value].setChecked(True)
            self._draw()
        else:
            self._submit()

    @staticmethod
    def _sync(widget, value) -> None:
        if widget.value() != value:
            widget.blockSignals(True)
            widget.setValue(value)
            widget.blockSignals(False)

    def _show_load(self) -> None:
        rate = self.state.view("rate_per_s")
        self.load_label.setText(f"{rate:g} req/s" if rate > 0 else "无 none")

    def _submit(self) -> None:
        """Replay the state's values. While a replay runs, an edit only marks it stale: when
        it returns it is drawn and the latest values go next (a drag draws as fast as the
        replays come back, and ends on its last value; cancelling on every step would draw
        nothing until the drag stops)."""
        if jobs().busy(self._key):
            self._stale = True
            return
        self._stale = False
        raw = self.state.voice_raw()
        jobs().submit(self._key, simulate, raw, context=self,
                      done=lambda run, raw=raw: self._on_run(raw, run), failed=self._on_failed)

    def _next(self) -> None:
        if self._stale and not self._closed:
            QtCore.QTimer.singleShot(0, self, self._submit)  # after the runner has let go of the key

    def _on_run(self, raw: dict[str, str], run) -> None:
        if self._closed:
            return
        self.run, self.run_values = run, raw
        self._run_serial += 1
        self.error_label.setVisible(False)
        if not self._built:
            pass  # drawn once the figures are built (_bind)
        elif self._dragging():
            self._draw_live()  # the drag goes on: keep each frame cheap
        else:
            self._draw()
        self._next()

    def _on_failed(self, message: str) -> None:
        """A refused edit (ParamError from core.voice): its field and valid range next to the
        controls; the figures keep the last good run."""
        if self._closed:
            return
        if not message:  # cancelled
            self._next()
            return
        last = message.strip().splitlines()[-1]
        field, text = "", last
        if "ParamError" in last:
            text = last.split(":", 1)[1].strip()
            field = text.split(":", 1)[0].strip()
        if not self._stale:  # a later edit is on its way: this refusal is already history
            self.error_label.setText(f"⚠ {text}")
            self.error_label.setVisible(True)
            self.run_refused.emit(field, text)
        self._settle()  # a drag that ended on a refused value: the last good run, in full
        self._next()

    def _shown_turn(self, shown: str | None = None):
        run = self.run
        index = run.turn_index(VoiceState.percentile_of(shown or self.state.view("shown")))
        return index, run.turns[index]

    def _draw_live(self) -> None:
        """Queue this run's figures for the next frames (a newer run replaces the queue)."""
        if not self._needs_full:
            self._set_live(True)
        self._needs_full = True
        n = len(LIVE_FIGURES)
        self._live_todo = [LIVE_FIGURES[(self._live_next + i) % n] for i in range(n)]
        if not self._frame_timer.isActive():
            self._frame_timer.start()

    def _on_live_frame(self) -> None:
        """One live figure per frame: data only, fixed or growing ranges, no labels."""
        if not self._live_todo or self._closed or self.run is None:
            self._frame_timer.stop()
            return
        figure = self._live_todo.pop(0)
        self._live_next = (LIVE_FIGURES.index(figure) + 1) % len(LIVE_FIGURES)
        run, turn, chunk_s = self.run, self._shown_turn()[1], self._chunk_s()
        if figure == "lanes":
            self.timeline.show_lanes(turn, chunk_s, live=True)
        elif figure == "marks":
            self.timeline.show_marks(turn, chunk_s)
        elif figure == "background":
            self.timeline.show_background(run.background, live=True, turn=turn, chunk_s=chunk_s)
        else:
            self.histogram.show(self._silences_ms(), run.summary, live=True)
        self.live_drawn.emit({"values": dict(self.run_values or {}), "run": self._run_serial, "figure": figure,
                              "complete": not self._live_todo})
        if not self._live_todo:
            self._frame_timer.stop()
            self._settle()

    def _set_live(self, on: bool) -> None:
        """Into or out of live drawing: cached axes; the captions greyed (their numbers are
        the last full draw's; new text would lay the page out again at every frame)."""
        self.timeline.set_live(on)
        self.histogram.set_live(on)
        for label in (self.summary_label, self.breakdown_label):
            label.setEnabled(not on)

    def _dragging(self) -> bool:
        """Edits still coming: a replay is due, the slider is held, or the last edit is recent."""
        return (self._stale or self.load_slider.isSliderDown()
                or time.monotonic() - self._last_edit < SETTLE_S)

    def _settle(self) -> None:
        """The drag is over (slider let go, the last replay back, no edit for SETTLE_S): the
        full draw. Until then, look again when SETTLE_S has passed (a later run's arrival or
        the slider's release also look)."""
        if not self._needs_full or self._closed or self._stale or jobs().busy(self._key):
            return
        quiet_s = time.monotonic() - self._last_edit
        if self.load_slider.isSliderDown():
            return
        if quiet_s < SETTLE_S:
            self._settle_timer.start(max(1, int((SETTLE_S - quiet_s) * 1e3) + 1))
        else:
            self._draw()

    def _silences_ms(self) -> np.ndarray:
        return np.array([t.silence_s for t in self.run.turns], dtype=float) * S_TO_MS

    def _draw(self) -> None:
        """Every figure and label for self.run, in full (ranges, labels): a fresh panel's picture."""
        run = self.run
        if run is None or not self._built:
            return
        self._live_todo = []
        self._frame_timer.stop()
        self._settle_timer.stop()
        if self._needs_full:
            self._needs_full = False
            self._set_live(False)
        shown = self.state.view("shown")
        index, turn = self._shown_turn(shown)
        drawn = self.timeline.show_turn(turn, run.background, self._chunk_s())
        hist = self.histogram.show(self._silences_ms(), run.summary)
        self.summary_label.setText(summary_text(run.summary))
        self._show_breakdown(turn, shown)
        self.drawn = {**drawn, "shown": shown, "index": index, "marks": hist["marks"], "counts": hist["counts"],
                      "values": dict(self.run_values or {}), "run": self._run_serial}
        self.run_drawn.emit(self.drawn)

    def _chunk_s(self) -> float:
        """The run's playback chunk (core.voice's chunk_ms), in seconds."""
        return float(getattr(self.run.params, "chunk_ms", 20.0)) / S_TO_MS

    def _show_breakdown(self, turn, shown: str) -> None:
        self.breakdown_label.setText(breakdown_text(turn, shown))

    # ---- Hear it ---------------------------------------------------------------------
    def _make_engine(self):
        if self._engine is None:
            self._engine = StreamEngine()
        return self._engine

    def _turns_to_play(self) -> tuple[list[tuple[str, Any]], float]:
        if self.run is None:
            return [], 0.02
        return [(name, self._shown_turn(name)[1]) for name in PLAY_ORDER], self._chunk_s()

    def _on_turn_playing(self, label: str) -> None:
        if label in self.shown_buttons:
            self.state.set_view("shown", label)  # the swimlane shows the turn being heard

    def _on_cursor_frame(self) -> None:
        st = self.hear_it.state()
        player = self.hear_it.player
        if st is None or player is None or player.run is None:
            return
        audio = player.run.audio
        # Playback clock -> the turn's clock: the user's last word is 0 on both axes.
        self.timeline.set_cursor((st.clock_s - audio.user_end_s) * S_TO_MS)

    def _on_barged_in(self, at_s: float) -> None:
        player = self.hear_it.player
        if player is not None and player.run is not None:
            self.timeline.set_barge_in((at_s - player.run.audio.user_end_s) * S_TO_MS)

    # ---- life ------------------------------------------------------------------------
    def is_ready(self) -> bool:
        return (self._built and self.run is not None and not jobs().busy(self._key) and not self._stale
                and not self._needs_full)

    def close(self) -> bool:
        if not shiboken6.isValid(self):  # freed already (widgets/kit/lifetime.py): nothing to close
            return True
        self._closed = True
        self._build.stop()
        self._cursor_timer.stop()
        self._frame_timer.stop()
        self._settle_timer.stop()
        jobs().cancel(self._key)
        if hasattr(self, "hear_it"):  # built (pieces come one per event-loop turn)
            self.hear_it.close_player()
        try:
            self.state.changed.disconnect(self._on_state_changed)
        except (RuntimeError, TypeError):
            pass
        return super().close()


PANEL = PanelInfo(key="voice", title="一个时钟 · Voice turn", section="3.3.3", order=3.34, factory=VoicePanel)
