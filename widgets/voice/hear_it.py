"""'Hear it': the p50 turn, then the p95 turn, through the sound device, as the model timed
them; a key barges in on the reply that is playing.

The device opens and the turns are laid out on the job runner (opening a PulseAudio device
can take seconds); audio.voice_playback plays them on its own threads; one QTimer pulls
the player's state for the status line and the playhead.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from audio.voice_playback import PlayerState, TurnAudio, TurnPlayer, play_order, turn_audio
from widgets.kit.jobs import jobs
from widgets.kit.page import caption

FRAME_MS = 33  # the status line and playhead follow the playback at ~30 Hz
BARGE_IN_KEY = "B"
PLAY_ORDER = ("p50", "p95")


def lay_out(engine, turns: list[tuple[str, Any]], chunk_s: float) -> list[TurnAudio]:
    """On a worker: open the engine's sink and lay the turns out at its rate."""
    sink = engine.sink
    sink.wait_ready(5.0)
    return [turn_audio(turn, sink.rate_hz, label, chunk_s=chunk_s) for label, turn in turns]


class HearIt(QtWidgets.QFrame):
    """The card: ▶ p50 → p95, barge-in, stop, and what the device did."""

    playback_started = QtCore.Signal()
    turn_started = QtCore.Signal(str)  # 'p50' or 'p95': the turn now playing
    playback_finished = QtCore.Signal(list)  # one measured summary per turn played
    barged_in = QtCore.Signal(float)  # the moment, on the playing turn's clock (s)

    def __init__(self, engine_factory: Callable[[], Any], parent=None):
        super().__init__(parent)
        self.setProperty("role", "card")
        self._engine_factory = engine_factory  # opened on the first ▶ only: a snapshot never opens a device
        self.engine = None
        self.player: TurnPlayer | None = None
        self._key = f"voice.hear_it.{id(self)}"
        self._label = ""
        self._playing = False
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        title = QtWidgets.QLabel("<b>听一听 · Hear it</b>")
        layout.addWidget(title)
        layout.addWidget(caption("用户一句话,然后是模型算出的静默和回复:先 p50,再 p95。欠载听得见,是回复里的断口。"
                                 " · The user's phrase, then the silence and the reply as modelled: p50, then p95."
                                 " Underruns are audible gaps."))
        row = QtWidgets.QHBoxLayout()
        self.play_button = QtWidgets.QPushButton(f"▶ {play_order(PLAY_ORDER)}")
        self.play_button.setToolTip("Play the p50 turn, then the p95 turn, through the sound device")
        self.barge_button = QtWidgets.QPushButton(f"插话 barge-in ({BARGE_IN_KEY})")
        self.barge_button.setToolTip("Speak over the reply now: mute, backend stop, release (key B)")
        self.stop_button = QtWidgets.QPushButton("■")
        self.stop_button.setToolTip("Stop playing")
        self.stop_button.setMaximumWidth(48)
        for b in (self.play_button, self.barge_button, self.stop_button):
            row.addWidget(b)
        row.addStretch(1)
        layout.addLayout(row)
        self.status_label = caption("", name="hear_it_status")
        layout.addWidget(self.status_label)
        self.barge_shortcut = QtGui.QShortcut(QtGui.QKeySequence(BARGE_IN_KEY), self)
        self.barge_shortcut.setContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._on_frame)
        self.play_button.clicked.connect(self._request_play)
        self.barge_button.clicked.connect(self.barge_in)
        self.barge_shortcut.activated.connect(self.barge_in)
        self.stop_button.clicked.connect(self.stop)
        self._turns: Callable[[], tuple[list[tuple[str, Any]], float]] = lambda: ([], 0.02)
        self._update_buttons()

    # ---- control ----------------------------------------------------------------------
    def set_turns_source(self, turns: Callable[[], tuple[list[tuple[str, Any]], float]]) -> None:
        """Where ▶ gets its (label, Turn) pairs and chunk length (s): the panel's latest good run."""
        self._turns = turns

    @property
    def playing(self) -> bool:
        return self._playing

    def _request_play(self) -> None:
        turns, chunk_s = self._turns()
        if not turns:
            self.status_label.setText("还没有结果 · no run yet")
            return
        if self.engine is None:
            self.engine = self._engine_factory()
            self.player = TurnPlayer(self.engine)
        self.status_label.setText("打开声音设备… · opening the sound device…")
        self.play_button.setEnabled(False)
        jobs().submit(self._key, lay_out, self.engine, turns, chunk_s, context=self, done=self._start, failed=self._failed)

    def play(self) -> None:
        self._request_play()

    def _start(self, audios: list[TurnAudio]) -> None:
        self.player.play(audios)
        self._playing = True
        self._label = ""
        self._timer.start()
        self._update_buttons()
        self.status_label.setText(self.engine.status)
        self.playback_started.emit()

    def _failed(self, message: str) -> None:
        self._update_buttons()
        if message:
            self.status_label.setText(f"播放失败 · could not play: {message.strip().splitlines()[-1]}")

    def barge_in(self) -> None:
        if self.player is None or not self._playing:
            return
        m = self.player.barge_in()
        if m is not None:
            self.barged_in.emit(float(m.interrupt_s))

    def stop(self) -> None:
        jobs().cancel(self._key)
        if self.player is not None:
            self.player.stop()
        self._finish()

    # ---- frames -----------------------------------------------------------------------
    def state(self) -> PlayerState | None:
        return self.player.state() if self.player is not None else None

    def _on_frame(self) -> None:
        st = self.player.state()
        if st.label and st.label != self._label:
            self._label = st.label
            self.turn_started.emit(st.label)
        if st.label:
            self.status_label.setText(f"{st.label} · {st.clock_s:5.2f} s · {self.engine.status}")
        if not st.playing:
            self._finish()

    def _finish(self) -> None:
        was = self._playing
        self._playing = False
        self._timer.stop()
        self._update_buttons()
        if not was or self.player is None:
            return
        summaries = [r.summary() for r in self.player.runs]
        zh, en = [], []
        for s in summaries:
            first = s["first_handover_s"]
            lag = "—" if first is None else f"{(first - s['model_first_handover_s']) * 1e3:+.0f} ms"
            silence = f"{s['model_silence_s'] * 1e3:.0f} ms"
            runs = f"{s['underruns']}/{s['model_underruns']}"
            zh.append(f"{s['label']}:静默 {silence},实测比模型 {lag},欠载 {runs}")
            en.append(f"{s['label']}: silence {silence}, played vs model {lag}, underruns {runs}")
        self.status_label.setText(";".join(zh) + " · " + "; ".join(en))
        self.playback_finished.emit(summaries)

    def _update_buttons(self) -> None:
        busy = jobs().busy(self._key)
        self.play_button.setEnabled(not self._playing and not busy)
        self.barge_button.setEnabled(self._playing)
        self.stop_button.setEnabled(self._playing or busy)

    def close_player(self) -> None:
        """Stop playing and close the device (the panel's close)."""
        self._timer.stop()
        jobs().cancel(self._key)
        if self.player is not None:
            self.player.stop()
        if self.engine is not None:
            self.engine.close()
