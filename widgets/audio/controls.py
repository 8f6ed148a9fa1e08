"""The Audio panel's left column: ▶ / ✕ / ■, source, device, presets, the stream's card and
what the last run measured. A view of AudioState: every choice goes to the state, and the
widgets follow the state's changes."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from audio.sinks import output_devices
from audio.sources import SOURCE_KINDS
from core.audio.presets import PRESETS, preset_label, preset_tooltip
from core.audio.state import DEFAULT_DEVICE, VIRTUAL_DEVICE, AudioState
from core.units import format_seconds
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.jobs import BusyBadge
from widgets.kit.page import caption, fixed_lines, min_chars, narrow_headers
from widgets.kit.theme import COLORS

# The status line under a chosen device (its name, the system's, is in the box above).
DEVICE_STATUS = "选中的设备在 ▶ 时打开 · the chosen device opens on ▶"

VIRTUAL_LABEL = "virtual clock (no device)"
_prefetched: list = []  # output_devices() as the window's warm-up listed them, taken once


def prefetch_devices() -> None:
    """List the output devices now, off the GUI thread (the window's warm-up): importing
    PortAudio and asking it took a first visit a sixth of a second."""
    _prefetched[:] = [output_devices()]


def _devices() -> tuple[list[str], str | None]:
    """The prefetched list once (a panel built later asks again: a device may have come)."""
    return _prefetched.pop() if _prefetched else output_devices()


class Controls(QtWidgets.QWidget):
    """Transport, source, device, presets, the timeline card and the measured summary."""

    def __init__(self, state: AudioState, busy_key: str, parent=None):
        super().__init__(parent)
        self.state = state
        min_chars(self, 56)
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(8)

        transport = QtWidgets.QGroupBox("播放 · Stream")
        grid = QtWidgets.QGridLayout(transport)
        self.play_button = QtWidgets.QPushButton("▶ Play")
        self.play_button.setToolTip("Stream the chunks to the sound device (P or Space)")
        self.interrupt_button = QtWidgets.QPushButton("✕ Interrupt")
        self.interrupt_button.setToolTip("Barge in (I): mute at the next device quantum, then backend stop, then release")
        self.stop_button = QtWidgets.QPushButton("■ Stop")
        self.stop_button.setToolTip("Stop at once (Esc)")
        for i, b in enumerate((self.play_button, self.interrupt_button, self.stop_button)):
            b.setMinimumHeight(30)
            grid.addWidget(b, 0, i)
        grid.addWidget(QtWidgets.QLabel("source"), 1, 0)
        self.source_box = QtWidgets.QComboBox()
        self.source_box.addItems(list(SOURCE_KINDS))
        self.source_box.setToolTip("voice: synthetic voice-like signal · tone · chirp · wav: a PCM WAV file")
        grid.addWidget(self.source_box, 1, 1)
        self.wav_button = QtWidgets.QPushButton("Open WAV…")
        grid.addWidget(self.wav_button, 1, 2)
        grid.addWidget(QtWidgets.QLabel("device"), 2, 0)
        self.device_box = QtWidgets.QComboBox()
        names, self.no_device_reason = _devices()
        self.device_names = names
        for name in names:
            self.device_box.addItem(name, name)
        self.device_box.addItem(VIRTUAL_LABEL, VIRTUAL_DEVICE)
        grid.addWidget(self.device_box, 2, 1, 1, 2)
        self.status_label = caption(name="audio_status")
        # Fixed height: a new status must not relayout (and repaint) the whole page mid-stream.
        fixed_lines(self.status_label, 2)
        grid.addWidget(self.status_label, 3, 0, 1, 3)
        self.busy = BusyBadge(busy_key, owner=self, text="opening the device…")
        grid.addWidget(self.busy, 4, 0, 1, 2)
        self.follow_box = QtWidgets.QCheckBox("follow ▶")
        self.follow_box.setToolTip("While a long stream plays, the timeline turns pages to follow now")
        grid.addWidget(self.follow_box, 4, 2)
        presets = QtWidgets.QGridLayout()  # three to a row: each label whole, none elided
        presets.setSpacing(4)
        self.preset_buttons: dict[str, QtWidgets.QToolButton] = {}
        for i, key in enumerate(PRESETS):
            b = QtWidgets.QToolButton()
            b.setText(preset_label(key))
            b.setToolTip(preset_tooltip(key))
            b.setCheckable(True)
            b.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)
            presets.addWidget(b, i // 3, i % 3)
            self.preset_buttons[key] = b
        grid.addLayout(presets, 5, 0, 1, 3)
        col.addWidget(transport)

        self.timeline_card = narrow_headers(CalculatorCard(state.timeline, compact=True))
        col.addWidget(self.timeline_card)
        self.measured_label = QtWidgets.QLabel("measured: press ▶ to stream")
        self.measured_label.setObjectName("audio_measured")
        self.measured_label.setWordWrap(True)
        self.measured_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        fixed_lines(self.measured_label, 7, extra=0)
        self.measured_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        col.addWidget(self.measured_label)
        col.addStretch(1)

        self._show_state()
        # A "中文 · English" pair: the reason is the sound library's English, so it stays on the English side.
        self.show_status(DEVICE_STATUS if names else
                         f"没有可用的声卡,虚拟时钟输出保持同样的时序 · no device: {self.no_device_reason}; "
                         "the virtual clock sink keeps the same timing")
        # user -> state
        self.source_box.currentTextChanged.connect(lambda text: state.set_view("source", text))
        self.device_box.currentIndexChanged.connect(lambda _: state.set_view("device", self._device_choice()))
        self.follow_box.toggled.connect(lambda on: state.set_view("follow", on))
        for key, button in self.preset_buttons.items():
            button.clicked.connect(lambda _=False, k=key: self._choose_preset(k))

    # ---- state -> widgets -------------------------------------------------------------
    def on_view_changed(self, name: str) -> None:
        if name in ("source", "device", "follow", "preset"):
            self._show_state()

    def sizeHint(self):
        """As narrow as the controls can be: the width beside them goes to the live plots."""
        hint = super().sizeHint()
        return QtCore.QSize(max(self.minimumSizeHint().width(), self.minimumWidth()), hint.height())

    def _show_state(self) -> None:
        s = self.state
        for box, value in ((self.source_box, s.view("source")),):
            if box.currentText() != value:
                box.blockSignals(True)
                box.setCurrentText(value)
                box.blockSignals(False)
        index = self._device_index(s.view("device"))
        if self.device_box.currentIndex() != index:
            self.device_box.blockSignals(True)
            self.device_box.setCurrentIndex(index)
            self.device_box.blockSignals(False)
        if self.follow_box.isChecked() != s.view("follow"):
            self.follow_box.blockSignals(True)
            self.follow_box.setChecked(s.view("follow"))
            self.follow_box.blockSignals(False)
        for key, button in self.preset_buttons.items():
            button.setChecked(key == s.view("preset"))

    def _device_index(self, device: str) -> int:
        """The combo row of a state's device ("" = the default: 'default' when listed)."""
        if device == VIRTUAL_DEVICE or not self.device_names:
            return self.device_box.count() - 1
        name = device or ("default" if "default" in self.device_names else self.device_names[0])
        return self.device_names.index(name) if name in self.device_names else self.device_box.count() - 1

    def _device_choice(self) -> str:
        data = self.device_box.currentData()
        if data == VIRTUAL_DEVICE:
            return VIRTUAL_DEVICE
        default = "default" if "default" in self.device_names else (self.device_names[0] if self.device_names else "")
        return DEFAULT_DEVICE if data == default else data

    def _choose_preset(self, key: str) -> None:
        self.state.apply_preset(key)
        self._show_state()  # a refused preset leaves its button unchecked

    # ---- status -------------------------------------------------------------------------
    def show_status(self, text: str, error: bool = False) -> None:
        self.status_label.setText(text)
        self.status_label.setStyleSheet(f"color: {COLORS['backlog']};" if error else "")

    def show_error(self, err: Exception) -> None:
        field = getattr(err, "param", getattr(err, "field", ""))
        message = getattr(err, "message", str(err))
        self.show_status(f"cannot play: {field}: {message}", error=True)

    def show_summary(self, s: dict) -> None:
        self.measured_label.setText(summary_text(s))

    def set_playing(self, playing: bool, preparing: bool = False) -> None:
        self.stop_button.setEnabled(playing)
        self.interrupt_button.setEnabled(playing)
        self.play_button.setEnabled(not preparing)
        self.play_button.setText("↻ Restart" if playing else "▶ Play")


def summary_text(s: dict) -> str:
    """What a run measured beside what the model says (rich text)."""
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
    return text


