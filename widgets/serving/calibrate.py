"""Calibrate (issue 13) in the Serving panel: measured runs (`vllm bench serve` or `lab
observe` result.json files; the trace the replays show when it is one) fitted by
core.calibrate.fit.calibrate on the job runner with a progress bar and ✕, for the model,
card and deployment the pickers above give. Then the first run's measured TTFT and ITL
beside its replay before and after the fit, every run's metrics with their errors, the
coefficients with their bands (p5-p95; widgets/serving/calibrate_view.py draws them), and
Save profile… (core.calibrate.profile.save_profile: whole or not at all). Use in replays
and Load profile… set the pickers' card and the coefficients (the deployment section).

A refused input or a failed save shows its message next to its control; the panel keeps
running and the last good calibration stays."""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.cancel import CancelToken
from core.registry import ParamError
from widgets.kit.jobs import jobs
from widgets.kit.page import caption
from widgets.serving.calibrate_rows import CompareFigure, first_run_figure
from widgets.serving.calibrate_view import CalibrationView
from widgets.serving.trace_source import in_language

PROGRESS_STEPS = 1000
RESULT_FILTER = "vllm bench / lab observe results (*.json);;所有文件 · All files (*)"
PROFILE_FILTER = "Load Lab profiles (*.toml);;所有文件 · All files (*)"
HEADING = "校准 · Calibrate: fit the step-time model to measured runs"
LEAD = ("打开实测结果(基准测试或观测写出的 JSON 文件),按上面的模型、硬件与部署回放并拟合步时系数 · "
        "open measured results (vllm bench serve or lab observe result.json): each run is replayed with the model, "
        "card and deployment above and the step-time coefficients are fitted to its TTFT, TPOT and E2E")
NO_RUNS = "尚无实测结果 · no measured runs yet: open one, or open a vllm bench result as the trace"
CANCELLED = "校准已取消 · calibration cancelled; the coefficients stay as they were"


@dataclass(frozen=True)
class Outcome:
    """A calibration done on the worker, with the first run's figure (None if it could
    not be replayed) and the inputs it was made of."""

    calibration: Any
    figure: CompareFigure | None
    paths: tuple[str, ...]
    raw: Mapping[str, str]


def calibrate_job(paths: tuple[str, ...], raw: Mapping[str, str], report: Callable[[float, str], None],
                  cancel: CancelToken):
    """On the worker: the Outcome, or ('refused', field, message) for input the lab
    refuses (a value, not an exception: the panel shows the message, not a traceback)."""
    from core.calibrate import fit

    try:
        cal = fit.calibrate(list(paths), dict(raw), progress=report, cancel=lambda: cancel.cancelled)
        cancel.check()
        figure = first_run_figure(cal, paths, raw, cancel)
    except ParamError as err:
        return ("refused", err.param, err.message)
    return Outcome(cal, figure, tuple(paths), dict(raw))


class _Relay(QtCore.QObject):
    """Progress from the worker thread, received on the GUI thread (queued)."""

    progressed = QtCore.Signal(int, float, str)


class CalibrateSection(QtWidgets.QWidget):
    """Runs, Calibrate with progress and ✕, the result, Save / Use / Load profile."""

    finished = QtCore.Signal(object)  # the Outcome shown, or None (refused, failed or cancelled)
    applied = QtCore.Signal(object)  # the profile or calibration applied to the replays

    def __init__(self, key: str, raw_keys: Callable[[], dict], apply: Callable[[Any], str | None], parent=None):
        """raw_keys(): the calibration's keys (model=, hardware=, deployment keys) now;
        apply(profile): set the panel's card and coefficients, or the message why not."""
        super().__init__(parent)
        self.key, self._raw_keys, self._apply = key, raw_keys, apply
        self.paths: list[str] = []
        self._from_trace = False  # the runs are the replays' trace (a new trace replaces them)
        self.outcome: Outcome | None = None
        self._serial = 0
        self._running = False
        self._relay = _Relay(self)
        self._relay.progressed.connect(self._on_progress, QtCore.Qt.ConnectionType.QueuedConnection)
        self._build_ui()
        self.show_runs()

    def _build_ui(self) -> None:
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 8, 0, 0)
        col.setSpacing(4)
        heading = QtWidgets.QLabel(HEADING)
        heading.setObjectName("calibrate_heading")
        heading.setStyleSheet("font-weight: 600;")
        heading.setWordWrap(True)
        col.addWidget(heading)
        col.addWidget(caption(LEAD))
        row = QtWidgets.QHBoxLayout()
        self.open_button = _button("打开结果 · Open results…", "calibrate_open",
                                   "Measured runs to fit (several: one fit over all, with leave-one-run-out errors)")
        self.calibrate_button = _button("校准 · Calibrate", "calibrate_run",
                                        "Fit the step-time coefficients to the runs (core.calibrate.fit.calibrate)")
        self.calibrate_button.setStyleSheet("font-weight: 600;")
        self.runs_label = QtWidgets.QLabel("")
        self.runs_label.setObjectName("calibrate_runs")
        self.runs_label.setProperty("role", "caption")
        self.runs_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.progress_row = QtWidgets.QWidget()
        prog = QtWidgets.QHBoxLayout(self.progress_row)
        prog.setContentsMargins(0, 0, 0, 0)
        self.progress_label = QtWidgets.QLabel("校准中 · calibrating")
        self.progress_label.setProperty("role", "caption")
        self.progress_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.progress_bar = QtWidgets.QProgressBar()
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(10)
        self.cancel_button = QtWidgets.QToolButton()
        self.cancel_button.setText("✕")
        self.cancel_button.setObjectName("calibrate_cancel")
        self.cancel_button.setToolTip("Stop the calibration; the coefficients stay as they were")
        prog.addWidget(self.progress_label, 2)
        prog.addWidget(self.progress_bar, 1)
        prog.addWidget(self.cancel_button)
        # The runs and the progress share one place: a run coming and going re-lays out nothing.
        self._runs_or_progress = QtWidgets.QStackedWidget()
        self._runs_or_progress.addWidget(self.runs_label)
        self._runs_or_progress.addWidget(self.progress_row)
        self._runs_or_progress.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                             QtWidgets.QSizePolicy.Policy.Preferred)
        row.addWidget(self.open_button)
        row.addWidget(self._runs_or_progress, 1)
        row.addWidget(self.calibrate_button)
        col.addLayout(row)
        self.message = _message("calibrate_message")
        col.addWidget(self.message)
        self.view = CalibrationView()
        self.view.setVisible(False)
        col.addWidget(self.view)
        actions = QtWidgets.QHBoxLayout()
        self.use_button = _button("用于回放 · Use in replays", "calibrate_use",
                                  "Replay both sides with the fitted coefficients and the profile's card")
        self.save_button = _button("保存配置 · Save profile…", "calibrate_save",
                                   "Write the profile (card, engine, coefficients, samples, runs) as TOML: "
                                   "hardware=P.toml or profile=P.toml in lab simulate / sweep serving")
        self.load_button = _button("载入配置 · Load profile…", "calibrate_load",
                                   "Set the card and the step-time coefficients from a saved profile")
        for b in (self.use_button, self.save_button, self.load_button):
            actions.addWidget(b)
        actions.addStretch(1)
        col.addLayout(actions)
        self.profile_message = _message("calibrate_profile_message")
        col.addWidget(self.profile_message)
        self.open_button.clicked.connect(self.choose_runs)
        self.calibrate_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.use_button.clicked.connect(self.use)
        self.save_button.clicked.connect(self.choose_save)
        self.load_button.clicked.connect(self.choose_load)

    # ---- the runs ---------------------------------------------------------------------
    def choose_runs(self) -> None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(self, "打开实测结果 · Open measured results", "",
                                                          RESULT_FILTER)
        if paths:
            self.set_runs(paths)

    def set_runs(self, paths, from_trace: bool = False) -> None:
        self.paths = [str(p) for p in paths]
        self._from_trace = from_trace
        self.show_runs()

    def offer_trace(self, path: str | None) -> None:
        """The replays' trace when it carries measured values (None: it does not): the run
        to calibrate on unless runs were opened here; a later trace replaces it."""
        if self.paths and not self._from_trace:
            return  # the user's own runs stay
        if [path] != self.paths:
            self.set_runs([path] if path else [], from_trace=True)

    def show_runs(self) -> None:
        if self.paths:
            names = ", ".join(os.path.basename(p) for p in self.paths)
            self.runs_label.setText(f"实测结果 {len(self.paths)} 个(文件见提示) · measured runs: {len(self.paths)} ({names})")
        else:
            self.runs_label.setText(NO_RUNS)
        self.runs_label.setToolTip("\n".join(self.paths))
        in_language(self.runs_label)
        self._show_buttons()

    def _show_buttons(self) -> None:
        self.calibrate_button.setEnabled(bool(self.paths) and not self._running)
        self.open_button.setEnabled(not self._running)
        cal = self.outcome.calibration if self.outcome is not None else None
        has_fit = cal is not None and bool(cal.converged) and not self._running
        self.use_button.setEnabled(has_fit)
        self.save_button.setEnabled(has_fit)

    # ---- calibrating on the job runner -------------------------------------------------
    def is_running(self) -> bool:
        return self._running

    def start(self) -> bool:
        """Calibrate the runs for the keys above; False (said next to the button) if not."""
        if not self.paths or self._running:
            return False
        try:
            raw = dict(self._raw_keys())
        except ParamError as err:
            self._say(self.message, f"{err.param}: {err.message}")
            return False
        self._serial += 1
        serial, relay, paths = self._serial, self._relay, tuple(self.paths)
        last = [-1.0]

        def report(fraction: float, text: str = "") -> None:  # on the worker thread
            if fraction - last[0] >= 1 / PROGRESS_STEPS or fraction >= 1.0:
                last[0] = fraction
                relay.progressed.emit(serial, float(fraction), str(text))

        def work(cancel: CancelToken):
            return calibrate_job(paths, raw, report, cancel)

        self._running = True
        self._say(self.message, "")
        self.progress_bar.setValue(0)
        self.progress_label.setText("校准中 · calibrating")
        in_language(self.progress_label)
        self._runs_or_progress.setCurrentWidget(self.progress_row)
        self._show_buttons()
        jobs().submit(self.key, work, context=self, done=lambda out, s=serial: self._on_done(s, out),
                      failed=lambda text, s=serial: self._on_failed(s, text))
        return True

    def cancel(self) -> None:
        if not self._running:
            return
        jobs().cancel(self.key)
        self._end()
        self._say(self.message, CANCELLED)
        self.finished.emit(None)

    def _on_progress(self, serial: int, fraction: float, text: str) -> None:
        if serial != self._serial or not self._running or not shiboken6.isValid(self):
            return
        self.progress_bar.setValue(int(round(min(max(fraction, 0.0), 1.0) * PROGRESS_STEPS)))
        shown = f"校准中 {fraction:.0%} · calibrating {fraction:.0%}" + (f": {text}" if text else "")
        if shown != self.progress_label.text():
            self.progress_label.setText(shown)
            in_language(self.progress_label)

    def _on_done(self, serial: int, out) -> None:
        if serial != self._serial or not self._running:
            return
        self._end()
        if isinstance(out, tuple):
            _, field, message = out
            self._say(self.message, f"{field}: {message}" if field else message)
            self.finished.emit(None)
            return
        self.outcome = out
        cal = out.calibration
        text = "" if cal.converged else f"未收敛,保留默认系数 · did not converge, the defaults are kept: {cal.message}"
        self._say(self.message, text)
        self.view.draw(out)
        self.view.setVisible(True)
        in_language(self.view)
        self._show_buttons()
        self.finished.emit(out)

    def _on_failed(self, serial: int, text: str) -> None:
        if serial != self._serial or not self._running:
            return
        self._end()
        last = text.strip().splitlines()[-1] if text.strip() else "failed"
        self._say(self.message, f"校准失败 · calibration failed: {last}")
        self.finished.emit(None)

    def _end(self) -> None:
        self._running = False
        self._runs_or_progress.setCurrentWidget(self.runs_label)
        self._show_buttons()

    # ---- the profile -------------------------------------------------------------------
    def use(self) -> bool:
        """The fitted profile in both replays (the card and the coefficients)."""
        if self.outcome is None or not self.outcome.calibration.converged:
            return False
        return self._apply_profile(self.outcome.calibration.profile)

    def choose_save(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "保存配置 · Save profile", "profile.toml", PROFILE_FILTER)
        if path:
            self.save(path)

    def save(self, path: str) -> bool:
        """Write the fitted profile to path (whole or not at all); the error beside the
        button when it cannot be written."""
        from core.calibrate.profile import save_profile

        if self.outcome is None or not self.outcome.calibration.converged:
            return False
        try:
            save_profile(self.outcome.calibration.profile, path)
        except (OSError, ParamError, ValueError, TypeError) as err:
            why = getattr(err, "message", None) or str(err)
            self._say(self.profile_message, f"保存失败:{path}({why}) · could not save {path}: {why}")
            return False
        self._say(self.profile_message, f"已保存 · saved {path}", error=False)
        return True

    def choose_load(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "载入配置 · Load profile", "", PROFILE_FILTER)
        if path:
            self.load(path)

    def load(self, path: str) -> bool:
        """Read a profile and set the panel's card and coefficients from it."""
        from core.calibrate.profile import load_profile

        try:
            profile = load_profile(path)
        except (OSError, ParamError, ValueError) as err:
            why = getattr(err, "message", None) or str(err)
            self._say(self.profile_message, f"载入失败:{path}({why}) · could not load {path}: {why}")
            return False
        if not self._apply_profile(profile):
            return False
        self._say(self.profile_message, f"已载入 · loaded {path}", error=False)
        return True

    def _apply_profile(self, profile) -> bool:
        why = self._apply(profile)
        if why:
            self._say(self.profile_message, f"无法使用:{why} · not applied: {why}")
            return False
        self._say(self.profile_message, "")
        self.applied.emit(profile)
        return True

    @staticmethod
    def _say(label: QtWidgets.QLabel, text: str, error: bool = True) -> None:
        label.setProperty("role", "error" if error else "caption")
        label.style().unpolish(label)
        label.style().polish(label)
        label.setText(text)
        label.setVisible(bool(text))
        in_language(label)


def _button(text: str, name: str, tip: str) -> QtWidgets.QPushButton:
    b = QtWidgets.QPushButton(text)
    b.setObjectName(name)
    b.setToolTip(tip)
    return b


def _message(name: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel("")
    label.setObjectName(name)
    label.setProperty("role", "error")
    label.setWordWrap(True)
    label.setVisible(False)
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
