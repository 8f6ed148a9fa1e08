"""The Plan panel's sweep form: the knobs and their values (v1,v2,… or start:stop:step), the
seeds, the SLOs, the capacity search, and the engine (a local process pool and its
workers, or a Ray cluster's address, both kept in the window's settings).

The form only gathers text: `raw()` is the `lab sweep serving KEY=VALUE` dictionary and
core.sweep parses it; a refusal comes back as a field name and shows on the line under
that field (`show_error`)."""
from __future__ import annotations

import os
import shlex
from typing import Any

from PySide6 import QtCore, QtWidgets

from widgets.kit.page import caption

# (key, label, placeholder): the knobs swept most often, in the form's order (their texts
# live in core.sweep.plan_state.PlanState's view options).
KNOBS = (
    ("replicas", "副本数 · replicas", "1,2,4"),
    ("router", "路由 · router", "round_robin,least_kv"),
    ("max_num_seqs", "并发上限 · max_num_seqs", "32,64,128"),
    ("token_budget", "每步 token · token_budget", "2048,8192"),
    ("model", "模型 · model", "qwen3-8b or a config.json"),
    ("hardware", "显卡 · hardware", "h100-sxm,a100-80gb"),
    ("scenario", "场景 · scenario", "uniform | shift"),
    ("seeds", "种子 · seeds", "0-3"),
)
SLOS = (
    ("slo_ttft_ms", "TTFT ≤ (ms)", "2000"),
    ("slo_tpot_ms", "TPOT ≤ (ms)", "100"),
    ("slo_e2el_ms", "E2EL ≤ (ms)", "30000"),
)
OTHER = "other"  # free KEY=VALUE pairs (trace=..., rates_per_s=..., …)
ENGINES = (("local", "本机进程池 · local pool"), ("ray", "集群 · Ray cluster"))
# Keys in the window's settings (values, not widget indices).
SETTING_ENGINE, SETTING_WORKERS, SETTING_ADDRESS = "plan/engine", "plan/workers", "plan/cluster_address"


class Field(QtWidgets.QWidget):
    """A line edit with its error line right under it."""

    def __init__(self, key: str, placeholder: str = "", text: str = "", parent=None):
        super().__init__(parent)
        self.key = key
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(1)
        self.edit = QtWidgets.QLineEdit(text)
        self.edit.setPlaceholderText(placeholder)
        self.edit.setObjectName(f"plan_{key}")
        self.error_label = QtWidgets.QLabel("")
        self.error_label.setProperty("role", "error")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        col.addWidget(self.edit)
        col.addWidget(self.error_label)
        self.edit.textEdited.connect(lambda _t: self.show_error(None))

    def text(self) -> str:
        return self.edit.text().strip()

    def show_error(self, message: str | None) -> None:
        self.error_label.setText(message or "")
        self.error_label.setVisible(bool(message))
        self.edit.setProperty("invalid", "true" if message else "false")
        self.edit.style().unpolish(self.edit)
        self.edit.style().polish(self.edit)


class SweepForm(QtWidgets.QFrame):
    run_requested = QtCore.Signal()
    cancel_requested = QtCore.Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setProperty("role", "card")
        self.setObjectName("plan_form")
        self.fields: dict[str, Field] = {}
        self._settings = None
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(10, 8, 10, 8)
        col.setSpacing(6)
        title = QtWidgets.QLabel("<b>扫描设置 · What to sweep</b>")
        col.addWidget(title)
        col.addWidget(caption("每格写 v1,v2,… 或 起:止:步,组合成网格 · "
                              "each knob takes v1,v2,… or start:stop:step; lists multiply into a grid"))
        col.addLayout(self._grid(KNOBS))
        self.fields[OTHER] = Field(OTHER, "trace=… rates_per_s=8,8 kv_pool_bytes=…")
        other = QtWidgets.QFormLayout()
        other.addRow("其他 · other keys", self.fields[OTHER])
        col.addLayout(other)
        col.addWidget(caption("<b>SLO</b> · 目标与容量搜索 · targets and capacity search"))
        col.addLayout(self._grid(SLOS, columns=3))
        search_row = QtWidgets.QHBoxLayout()
        self.search_box = QtWidgets.QCheckBox("容量搜索 · search max rate")
        self.search_box.setToolTip("search=max_rate: per setting, the highest arrival rate whose SLO attainment "
                                   "stays at or above the share given (bisection)")
        self.fields["attainment"] = Field("attainment", "0.9")
        search_row.addWidget(self.search_box)
        search_row.addWidget(QtWidgets.QLabel("达标率 · attainment"))
        search_row.addWidget(self.fields["attainment"], 1)
        col.addLayout(search_row)
        col.addLayout(self._engine_row())
        col.addLayout(self._folder_row())
        col.addLayout(self._run_row())
        self.status = caption("", name="plan_status")
        col.addWidget(self.status)
        col.addStretch(1)  # a row taller than the form leaves the space under it
        self.set_running(False)

    def _grid(self, specs, columns: int = 2) -> QtWidgets.QGridLayout:
        grid = QtWidgets.QGridLayout()
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        for i, (key, label, placeholder) in enumerate(specs):
            r, c = divmod(i, columns)
            field = self.fields[key] = Field(key, placeholder)
            name = QtWidgets.QLabel(label)
            name.setProperty("role", "caption")
            grid.addWidget(name, 2 * r, c)
            grid.addWidget(field, 2 * r + 1, c)
        return grid

    def _engine_row(self) -> QtWidgets.QHBoxLayout:
        row = QtWidgets.QHBoxLayout()
        self.engine_box = QtWidgets.QComboBox()
        self.engine_box.setObjectName("plan_engine")
        for value, text in ENGINES:
            self.engine_box.addItem(text, value)
        self.workers_box = QtWidgets.QSpinBox()
        self.workers_box.setObjectName("plan_workers")
        self.workers_box.setRange(1, 256)
        self.workers_box.setValue(max(1, os.cpu_count() or 1))
        self.workers_box.setPrefix("workers ")
        self.fields["--address"] = Field("--address", "ray://head:10001 or 10.0.0.5:6379 (empty: a local Ray)")
        row.addWidget(self.engine_box)
        row.addWidget(self.workers_box)
        row.addWidget(self.fields["--address"], 1)
        self.engine_box.currentIndexChanged.connect(self._on_engine_changed)
        self.workers_box.valueChanged.connect(lambda v: self._save(SETTING_WORKERS, int(v)))
        self.fields["--address"].edit.editingFinished.connect(
            lambda: self._save(SETTING_ADDRESS, self.fields["--address"].text()))
        self._on_engine_changed()
        return row

    def _folder_row(self) -> QtWidgets.QHBoxLayout:
        """Where results.csv / .parquet and summary.json go (empty: kept in memory only); a
        folder of the same sweep is resumed, its finished points reused."""
        row = QtWidgets.QHBoxLayout()
        name = QtWidgets.QLabel("结果文件夹 · folder")
        name.setToolTip("lab sweep --out: results.csv, results.parquet, summary.json; run again to resume")
        self.fields["--out"] = Field("--out", "results folder (empty: memory only)")
        self.force_box = QtWidgets.QCheckBox("覆盖 · --force")
        self.force_box.setToolTip("take over a folder written by a different sweep")
        row.addWidget(name)
        row.addWidget(self.fields["--out"], 1)
        row.addWidget(self.force_box)
        return row

    def out_dir(self) -> str | None:
        return self.fields["--out"].text() or None

    def _run_row(self) -> QtWidgets.QHBoxLayout:
        row = QtWidgets.QHBoxLayout()
        self.run_button = QtWidgets.QPushButton("▶ 运行 · Run")
        self.run_button.setObjectName("plan_run")
        self.cancel_button = QtWidgets.QPushButton("■ 取消 · Cancel")
        self.cancel_button.setObjectName("plan_cancel")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("%v / %m")
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress, 1)
        self.run_button.clicked.connect(self.run_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)
        return row

    # ---- values ---------------------------------------------------------------------
    def engine(self) -> str:
        return str(self.engine_box.currentData())

    def workers(self) -> int:
        return int(self.workers_box.value())

    def address(self) -> str:
        return self.fields["--address"].text()

    def raw(self) -> dict[str, str]:
        """The `lab sweep serving` keys as text (empty fields left out); a malformed
        'other' pair raises ValueError naming it."""
        raw = {key: f.text() for key, f in self.fields.items()
               if key not in (OTHER, "attainment", "--address", "--out") and f.text()}
        for pair in shlex.split(self.fields[OTHER].text()):
            key, eq, value = pair.partition("=")
            if not eq or not key:
                raise ValueError(f"{pair!r} is not KEY=VALUE")
            raw[key.strip()] = value.strip()
        if self.search_box.isChecked():
            raw["search"] = "max_rate"
            if self.fields["attainment"].text():
                raw["attainment"] = self.fields["attainment"].text()
        return raw

    def set_values(self, values: dict[str, str]) -> None:
        """Fill fields by key (tests, a saved sweep); unknown keys go to 'other'."""
        extra = []
        for key, value in values.items():
            if key in self.fields:
                self.fields[key].edit.setText(value)
            elif key == "search":
                self.search_box.setChecked(value == "max_rate")
            else:
                extra.append(f"{key}={value}")
        if extra:
            self.fields[OTHER].edit.setText(" ".join([self.fields[OTHER].text(), *extra]).strip())

    # ---- errors and state -----------------------------------------------------------------
    def clear_errors(self) -> None:
        for f in self.fields.values():
            f.show_error(None)

    def show_error(self, field: str, message: str) -> None:
        """message under field's line: a knob, an SLO, '--address' (and '--engine', in the
        engine's row); a key typed among the other pairs, or none, shows under 'other'."""
        key = "--address" if field == "--engine" else field if field in self.fields else field.lstrip("-")
        if key in self.fields and key != OTHER:
            self.fields[key].show_error(message)
        else:
            self.fields[OTHER].show_error(f"{field}: {message}" if field else message)

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)

    # ---- state ----------------------------------------------------------------------------
    def bind_state(self, state: Any) -> None:
        """Show state's sweep (a core.sweep.plan_state.PlanState) and write every edit back to it;
        a change of the state (a session, reset, undo) shows in the fields."""
        self._state = state
        for key, field in self.fields.items():
            name = _view_name(key)
            if name in state.VIEW:
                field.edit.setText(state.view(name))
                field.edit.textChanged.connect(lambda text, n=name: self._state.set_view(n, text.strip()))
        self.search_box.setChecked(bool(state.view("search")))
        self.search_box.toggled.connect(lambda on: self._state.set_view("search", bool(on)))
        state.changed.connect(self._on_state_changed)

    def unbind_state(self) -> None:
        if getattr(self, "_state", None) is not None:
            self._state.changed.disconnect(self._on_state_changed)

    def _on_state_changed(self, path: str, value: Any) -> None:
        name = path.removeprefix("view.")
        if name == "search":
            self.search_box.setChecked(bool(value))
            return
        field = self.fields.get("--out" if name == "out" else name)
        if path.startswith("view.") and field is not None and field.edit.text().strip() != value:
            field.edit.setText(value)

    # ---- settings ------------------------------------------------------------------------
    def bind_settings(self, settings: Any) -> None:
        """Take the engine, workers and address saved in settings (get/set of values), and
        save them there on each change."""
        self._settings = None  # no writes while the saved values are put in
        engine = str(settings.get(SETTING_ENGINE, "local") or "local")
        index = self.engine_box.findData(engine)
        self.engine_box.setCurrentIndex(max(0, index))
        try:
            self.workers_box.setValue(int(settings.get(SETTING_WORKERS, self.workers_box.value())))
        except (TypeError, ValueError):
            pass
        self.fields["--address"].edit.setText(str(settings.get(SETTING_ADDRESS, "") or ""))
        self._settings = settings

    def _save(self, key: str, value: Any) -> None:
        if self._settings is not None:
            self._settings.set(key, value)

    def _on_engine_changed(self) -> None:
        ray = self.engine() == "ray"
        self.fields["--address"].setVisible(ray)
        self.workers_box.setVisible(not ray)
        self._save(SETTING_ENGINE, self.engine())


def _view_name(key: str) -> str:
    """The state's view option of a field ('--out' is 'out'; '--address' is a setting)."""
    return "out" if key == "--out" else key
