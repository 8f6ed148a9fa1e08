"""The replays' trace source: open (or drop) a trace file, how to read it (format, time
scale, window, row limit, BurstGPT's filters), what was loaded, and back to the book's
windows. The file loads on the job runner with a progress bar and ✕; a refused file shows
its message here and the last good replay stays (core.serving.state.ServingState holds
the source; core.serving.trace_source reads it).

Progress arrives on the worker thread: `_ProgressRelay` carries it to the GUI thread
through a queued signal, at most every PROGRESS_STEP of the file."""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.cancel import CancelToken
from core.registry import ParamError
from core.serving import replay as rp
from core.serving import trace_source as ts
from core.serving.state import ServingState
from core.serving.traces import request_token_limit
from widgets.kit.i18n import language
from widgets.kit.i18n_tree import translate_tree
from widgets.kit.jobs import jobs
from widgets.kit.page import ReflowLayout, fixed_lines
from widgets.kit.param_form import ParamField

PROGRESS_STEPS = 1000  # the bar's range
PROGRESS_STEP = 0.01  # a worker reports again only this much further on
TRACE_FILTER = "Traces (*.csv *.jsonl *.json *.ndjson *.txt);;All files (*)"
CANCELLED = "读取已取消 · loading cancelled; the replays shown are kept"
HINT = ("拖入或打开一个请求轨迹文件,用它替换书中的到达窗口 · drop a trace file on the panel or open one to replay it "
        "instead of the book's windows: CSV/JSONL, Azure, BurstGPT, Mooncake, Vidur, vllm bench serve JSON, sessions")
# Label pairs of the options (not calculator parameters: no catalog entry behind their names).
FIELD_LABELS = {"format": "格式 · format", "time_scale": "到达加速 · time_scale", "window_s": "时间窗 · window_s (s)",
                "limit": "行数上限 · limit (rows)", "trace_model": "模型筛选 · trace_model",
                "trace_log_type": "日志类型 · trace_log_type"}


def _fixed_label(name: str, role: str, lines: int) -> QtWidgets.QLabel:
    """A wrapping label `lines` high that keeps its place when hidden."""
    label = QtWidgets.QLabel("")
    label.setObjectName(name)
    label.setProperty("role", role)
    label.setWordWrap(True)
    fixed_lines(label, lines)
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QtWidgets.QSizePolicy.Policy.Ignored)
    policy.setRetainSizeWhenHidden(True)
    label.setSizePolicy(policy)
    return label


class _ProgressRelay(QtCore.QObject):
    """Emitted on a worker thread, received on the GUI thread (queued)."""

    progressed = QtCore.Signal(int, float)  # load number, fraction


def in_language(widget: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """widget's labels, hidden ones too, in the chosen language now (the window translates a
    panel when it is made; these sections come later, and some show only later)."""
    if language() != "both":
        translate_tree(widget)
    return widget


def dropped_path(mime: QtCore.QMimeData) -> str | None:
    """The local file a drag carries (the first one), or None."""
    if mime is None or not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and url.toLocalFile():
            return url.toLocalFile()
    return None


def load_source(source: ts.TraceSource, max_request_tokens: int | None, report, cancel: CancelToken):
    """On the worker: the workload, or ('refused', field, message) for a file the lab refuses
    (a value, not an exception, so the panel shows the message rather than a traceback)."""
    try:
        return ts.load(source, max_request_tokens, progress=report, cancel=cancel)
    except ParamError as err:
        return ("refused", err.param, err.message)


class TraceSourceSection(QtWidgets.QWidget):
    """The source row above the replays' form."""

    loading_changed = QtCore.Signal(bool)
    progressed = QtCore.Signal(float)  # on the GUI thread, throttled

    def __init__(self, state: ServingState, key: str, parent=None):
        super().__init__(parent)
        self.state = state
        self.key = key
        self._serial = 0
        self._loading: ts.TraceSource | None = None
        self._relay = _ProgressRelay(self)
        self._relay.progressed.connect(self._on_progress, QtCore.Qt.ConnectionType.QueuedConnection)
        self._build_ui()
        self.show_state()

    def _build_ui(self) -> None:
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        row = QtWidgets.QHBoxLayout()
        self.open_button = QtWidgets.QPushButton("打开 trace · Open trace…")
        self.open_button.setObjectName("open_trace")
        self.open_button.setToolTip("Replay a trace file instead of the book's windows (or drop a file on the panel): "
                                    "CSV/JSONL, Azure, BurstGPT, Mooncake, Vidur, vllm bench serve JSON, sessions")
        self.path_label = QtWidgets.QLabel("")
        self.path_label.setProperty("role", "caption")
        self.path_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.clear_button = QtWidgets.QPushButton("清除 · Clear")
        self.clear_button.setObjectName("clear_trace")
        self.clear_button.setToolTip("Back to the book's windows")
        self.prefix_box = QtWidgets.QCheckBox("前缀缓存 · prefix caching")
        self.prefix_box.setObjectName("prefix_caching")
        self.prefix_box.setToolTip("vLLM automatic prefix caching for A (B the other way when the trace carries "
                                   "prefix information: Mooncake hash_ids or sessions)")
        self.progress_row = QtWidgets.QWidget()
        prog = QtWidgets.QHBoxLayout(self.progress_row)
        prog.setContentsMargins(0, 0, 0, 0)
        self.progress_label = QtWidgets.QLabel("读取 · loading")
        self.progress_label.setProperty("role", "caption")
        self.progress_bar = QtWidgets.QProgressBar()
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(10)
        self.cancel_button = QtWidgets.QToolButton()
        self.cancel_button.setText("✕")
        self.cancel_button.setObjectName("cancel_trace")
        self.cancel_button.setToolTip("Stop loading; the replays shown stay")
        prog.addWidget(self.progress_label)
        prog.addWidget(self.progress_bar, 1)
        prog.addWidget(self.cancel_button)
        # The path and the progress share one place: a load coming and going re-lays out
        # nothing else on the page.
        self._path_or_progress = QtWidgets.QStackedWidget()
        self._path_or_progress.addWidget(self.path_label)
        self._path_or_progress.addWidget(self.progress_row)
        self._path_or_progress.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        row.addWidget(self.open_button)
        row.addWidget(self._path_or_progress, 1)
        row.addWidget(self.prefix_box)
        row.addWidget(self.clear_button)
        col.addLayout(row)
        self.options = QtWidgets.QWidget()
        grid = ReflowLayout(self.options, columns=3, min_column_em=16, spacing=8, fill=False)
        self.fields: dict[str, ParamField] = {}
        for param in ts.PARAMS:
            field = ParamField(param)
            field.label.setProperty("i18n_key", None)
            field.label.setText(FIELD_LABELS[param.name])
            if param.kind == "text":
                tip = f"<b>{param.name}</b>: {param.help}<br>valid: text of at most {ts.MAX_FILTER_CHARS} characters"
                field.label.setToolTip(tip)
                field.edit.setToolTip(tip)
            field.edited.connect(lambda name=param.name: self._on_field_edited(name))
            self.fields[param.name] = field
            grid.addWidget(field)
        col.addWidget(self.options)
        # The summary at a fixed height: each load changes it without re-laying out the page.
        # The message takes room only when there is one (a refused file: rare, and worth it).
        self.summary = _fixed_label("trace_summary", "caption", 2)
        self.message = QtWidgets.QLabel("")
        self.message.setObjectName("trace_message")
        self.message.setProperty("role", "error")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        self.message.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.summary)
        col.addWidget(self.message)
        self.open_button.clicked.connect(self.choose_file)
        self.clear_button.clicked.connect(self.clear)
        self.cancel_button.clicked.connect(self.cancel)
        self.prefix_box.toggled.connect(lambda on: self.state.replay("A").update({"prefix_caching": on}))

    def take_drops_on(self, widget: QtWidgets.QWidget) -> None:
        """A file dropped on widget (or a child that takes no drops) opens as the trace."""
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):
        kind = event.type()
        if kind in (QtCore.QEvent.Type.DragEnter, QtCore.QEvent.Type.DragMove, QtCore.QEvent.Type.Drop):
            path = dropped_path(event.mimeData())
            if path is None:
                event.ignore()
                return True
            event.acceptProposedAction()
            if kind == QtCore.QEvent.Type.Drop:
                self.open_path(path)
            return True
        return super().eventFilter(watched, event)

    # ---- user actions -----------------------------------------------------------------
    def choose_file(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "打开 trace · Open trace", "", TRACE_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str) -> bool:
        """Replay the trace at path (a new file, or the same one again)."""
        return self.state.set_trace({"path": path}, retry=True)

    def clear(self) -> None:
        self.cancel(quiet=True)
        self.state.clear_trace()

    def cancel(self, quiet: bool = False) -> None:
        source = self._loading
        if source is None:
            return
        jobs().cancel(self.key)
        self._end_loading()
        if not quiet:
            self.state.trace_failed(source, CANCELLED)

    def _on_field_edited(self, name: str) -> None:
        if self.state.trace is None:
            return
        raw = {n: f.raw() for n, f in self.fields.items() if f.has_error}
        raw[name] = self.fields[name].raw()
        self.state.set_trace(raw)

    # ---- the state, shown -------------------------------------------------------------
    def show_state(self) -> None:
        """Draw the source, its options and errors, and what is loaded; start a load the
        state asks for."""
        s = self.state
        source = s.trace
        on = source is not None
        # A refused file is named in the message; the line shows what the replays are of.
        kept = s.trace_loaded if s.trace_refused() and s.trace_loaded is not None else None
        shown = kept or source
        self.path_label.setText(shown.path if on else "书中的到达窗口 · the book's arrival windows")
        self.path_label.setToolTip(shown.path if on else "")
        self.clear_button.setEnabled(on or s.trace_workload is not None)
        self.options.setEnabled(on)
        values = source.to_json() if on else {p.name: p.default for p in ts.PARAMS}
        for name, field in self.fields.items():
            field.show_error(s.trace_errors.get(name))
            if name not in s.trace_errors:
                value = values[name]
                field.show_value(tuple(value) if isinstance(value, list) else value)
        message = s.trace_message
        if message and s.trace_workload is None and message != CANCELLED:
            message += " — the book's run is kept"
        elif message and kept is not None and message != CANCELLED:
            message += f" — still replaying {kept.name}"
        if message != self.message.text():
            self.message.setText(message)
            self.message.setVisible(bool(message))
        self.summary.setText(ts.summary_text(s.trace_loaded, s.trace_workload) if s.trace_workload is not None else HINT)
        self.show_prefix_caching()
        if s.trace_pending() and self._loading != source:
            self._start(source)
        elif source is None and self._loading is not None:
            self.cancel(quiet=True)

    def show_prefix_caching(self) -> None:
        """The box shows replay A's prefix_caching (the form edits it too)."""
        on = bool(self.state.replay("A").inputs.get("prefix_caching", True))
        if self.prefix_box.isChecked() != on:
            blocker = QtCore.QSignalBlocker(self.prefix_box)
            self.prefix_box.setChecked(on)
            del blocker

    # ---- loading on the job runner ---------------------------------------------------
    def _start(self, source: ts.TraceSource) -> None:
        self._serial += 1
        serial, relay = self._serial, self._relay
        last = [-1.0]

        def report(fraction: float) -> None:  # on the worker thread
            if fraction - last[0] >= PROGRESS_STEP or fraction >= 1.0:
                last[0] = fraction
                relay.progressed.emit(serial, float(fraction))

        try:
            limit = request_token_limit(rp.config_from(self.state.replay("A").inputs))
        except (ParamError, ZeroDivisionError):
            limit = None

        def work(cancel: CancelToken):
            return load_source(source, limit, report, cancel)

        self._loading = source
        self.progress_bar.setValue(0)
        self.progress_label.setText(f"读取 · loading {source.name}")
        in_language(self.progress_label)
        self._path_or_progress.setCurrentWidget(self.progress_row)
        self.loading_changed.emit(True)
        jobs().submit(self.key, work, context=self,
                      done=lambda out, s=source: self._on_loaded(s, out),
                      failed=lambda text, s=source: self._on_failed(s, text))

    def _on_progress(self, serial: int, fraction: float) -> None:
        if serial != self._serial or self._loading is None or not shiboken6.isValid(self):
            return
        self.progress_bar.setValue(int(round(min(max(fraction, 0.0), 1.0) * PROGRESS_STEPS)))
        self.progressed.emit(fraction)

    def _on_loaded(self, source: ts.TraceSource, out) -> None:
        if source != self._loading:
            return
        self._end_loading()
        if isinstance(out, tuple):
            _, field, message = out
            self.state.trace_failed(source, message, field)
        else:
            self.state.trace_loaded_ok(source, out)

    def _on_failed(self, source: ts.TraceSource, text: str) -> None:
        if source != self._loading:
            return
        self._end_loading()
        last = text.strip().splitlines()[-1] if text.strip() else "failed"
        self.state.trace_failed(source, f"读取失败 · loading failed: {last}")

    def _end_loading(self) -> None:
        self._loading = None
        self._path_or_progress.setCurrentWidget(self.path_label)
        self.loading_changed.emit(False)

