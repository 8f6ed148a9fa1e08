"""How the chosen model runs on its cards: the deployment keys `lab simulate serving` takes
(tp, pp, ep, quantization, kv_cache_dtype, gpu_memory_utilization) and the client's
max_concurrency, as fields under the model and hardware pickers; plus the step-time
coefficients a profile or a calibration sets (core.calibrate). Both are the state's
(ServingState's deployment card and coefficients: sessions and undo carry them); the
section expands them on each change, whoever made it.

`deploy` expands them as the CLI does (core.serving.simulate_keys.expand_checked with the
pickers' model= and hardware=): every key at its default and no coefficients leaves the
replays as the book's (serving.replay's roofline); otherwise the model is put on its cards
(per-card weights, the KV pool from the card's memory) and priced by the basis step-time
model with the front end on, the CLI's defaults for a deployment. A key the expansion
refuses (a model that does not fit) shows its message next to the field it names; the
last good deployment and its replays stay."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.format import format_bytes
from core.registry import ParamError, get
from core.serving import bench_keys
from core.serving import simulate_keys as keys
from core.serving.deployment_card import HEADING, NAMES, PARAMS
from core.serving.model_choice import BYTES
from core.serving.state import ServingState
from core.state_model import CardModel
from widgets.kit.i18n import notifier
from widgets.kit.page import ReflowLayout, caption
from widgets.kit.param_form import ParamForm, param_text

LABELS = {"tp": "张量并行 · tp", "pp": "流水线并行 · pp", "ep": "专家并行 · ep", "quantization": "权重精度 · quantization",
          "kv_cache_dtype": "KV 精度 · kv_cache_dtype", "gpu_memory_utilization": "显存占比 · gpu_memory_utilization",
          "max_concurrency": "并发上限 · max_concurrency"}
LEAD = ("与命令行模拟的部署参数相同;全为默认时回放即书中的(屋顶线步时),否则按基函数步时模型并开启前端 · "
        "the deployment keys of lab simulate serving: at their defaults the replays are the book's (its roofline); "
        "otherwise the model is split over its cards and priced by the basis step-time model, front end on")
BOOK_TEXT = "书中的部署:一张卡,BF16 · the book's deployment: one card, BF16, the roofline step model"


@dataclass(frozen=True)
class Deployed:
    """What the replays run with besides their cards. key: the keys as given (equal keys,
    equal replays); values: serving.replay's values the deployment sets in replay A."""

    key: tuple = ()
    expanded: Any = None  # core.serving.simulate_keys.Expanded; None: the book's roofline
    got: Mapping[str, Any] = field(default_factory=dict)  # the client's keys (max_concurrency)
    values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.expanded is not None

    def cost(self, inputs):
        """The basis step-time model over replay inputs (None: the card's roofline)."""
        return None if self.expanded is None else self.expanded.step_cost(inputs)

    def client(self, inputs, workload=None):
        """config -> config with the client's limit and the front end, as the CLI's
        (None: the engine alone)."""
        frontend = self.active
        got = dict(self.got)
        replicas = int(inputs["replicas"])
        if workload is not None:
            got = bench_keys.with_trace_limit(got, workload, replicas)
        if not bench_keys.active(got, frontend):
            return None
        sessions = getattr(workload, "sessions", None) is not None
        return lambda config: bench_keys.with_client(config, got, frontend, replicas, sessions)

    def text(self) -> str:
        """One line on what the deployment sets (the section's caption)."""
        if self.expanded is None:
            return BOOK_TEXT if not self.got else f"{BOOK_TEXT}; max_concurrency {self.got['max_concurrency']}"
        d = self.expanded.deployment.report()
        given = [(k, v) for k, v in self.key if k not in ("model", "hardware")]
        coefs = sum(1 for k, _ in given if k not in NAMES)
        shown = ", ".join(f"{k}={v}" for k, v in given if k in NAMES) or "the defaults"
        pool = format_bytes(d["kv_pool_bytes_per_card"], BYTES)  # the panel's one byte system
        zh = f"基函数步时模型:{len(given) - coefs} 个部署参数,{coefs} 个步时系数;每卡 KV 池 {pool}"
        en = f"basis step-time model: {shown}; {coefs} step-time coefficients; KV pool {pool} per card"
        return f"{zh} · {en}"

def raw_keys(inputs: Mapping[str, Any], coefficients: Mapping[str, float]) -> dict[str, str]:
    """The CLI's key=value text of the deployment card's inputs off their defaults and of
    the coefficients (what `lab simulate serving` and core.calibrate take)."""
    raw = {}
    for p in PARAMS:
        value = inputs[p.name]
        if value != p.parse(p.default) and not (p.name == "max_concurrency" and not value):
            raw[p.name] = param_text(p, value)
    raw.update({name: repr(float(v)) for name, v in coefficients.items()})
    return raw


def deploy(model: str, hardware: str, inputs: Mapping[str, Any], coefficients: Mapping[str, float]) -> Deployed:
    """The deployment of the pickers' model and card with the card's inputs and the
    coefficients; ParamError naming the field when refused."""
    raw = raw_keys(inputs, coefficients)
    got = {"max_concurrency": int(raw.pop("max_concurrency"))} if "max_concurrency" in raw else {}
    key = tuple(sorted(raw.items())) + tuple(sorted(got.items()))
    if not raw:
        return Deployed(key=key, got=got)
    key = (("model", model), ("hardware", hardware)) + key
    replay_names = {p.name for p in get("serving.replay").params}
    expanded = keys.expand_checked({"model": model, "hardware": hardware, **raw},
                                   lambda: "valid: a deployment key or a step-time coefficient")
    values = {k: v for k, v in expanded.raw.items() if k in replay_names}
    return Deployed(key=key, expanded=expanded, got=got, values=values)


class DeploymentSection(QtWidgets.QWidget):
    """The deployment fields (a form over its own card) and a line on what they set.
    deployed(Deployed) follows each accepted change."""

    deployed_changed = QtCore.Signal(object)

    def __init__(self, state: ServingState, parent=None):
        super().__init__(parent)
        self.state = state
        self.choice = state.card("model_choice")  # the pickers' card: model= and hardware=
        self.card = state.card("deployment")
        self.deployed = Deployed()
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 4, 0, 0)
        col.setSpacing(4)
        heading = QtWidgets.QLabel(HEADING)
        heading.setObjectName("deployment_heading")
        heading.setStyleSheet("font-weight: 600;")
        col.addWidget(heading)
        col.addWidget(caption(LEAD))
        self.form = ParamForm(self.card)
        # Owned by the box and hidden (its fields move into the grid): a parentless form
        # would outlive the panel as a stray top-level that zoom changes still visit.
        self.form.setParent(self)
        self.form.hide()
        grid = ReflowLayout(columns=2, min_column_em=12, spacing=8, fill=False)
        for name in NAMES:  # two columns of the form's fields: seven fields stay short
            f = self.form.field(name)
            f.label.setProperty("i18n_key", None)
            f.label.setText(LABELS[name])
            f.edit.setObjectName(f"deploy_{name}")
            grid.addWidget(f)
        # A bound method, not a lambda: the app-lifetime notifier must not hold the box.
        notifier().language_changed.connect(self._on_language_changed)
        col.addLayout(grid)
        self.message = QtWidgets.QLabel("")
        self.message.setObjectName("deployment_message")
        self.message.setProperty("role", "error")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        col.addWidget(self.message)
        self.summary = caption(BOOK_TEXT, name="deployment_summary")
        col.addWidget(self.summary)
        self.form.values_changed.connect(lambda _: self.apply())
        self.choice.changed.connect(self._on_choice_changed)
        state.changed.connect(self._on_state_changed)
        if self.card.inputs != self.card.calculator.default_inputs or self.coefficients:
            self.apply()  # a restored state's deployment (the panel takes it once connected)

    @property
    def coefficients(self) -> dict[str, float]:
        return self.state.coefficients

    def _on_state_changed(self, path: str, _value) -> None:
        if path == "coefficients" and shiboken6.isValid(self):
            self.apply()

    def disconnect_state(self) -> None:
        """Stop following the state (the panel closes; the state may outlive it)."""
        self.state.changed.disconnect(self._on_state_changed)
        self.choice.changed.disconnect(self._on_choice_changed)

    def _on_language_changed(self, _lang: str) -> None:
        QtCore.QTimer.singleShot(0, self, self._align_labels)

    def _align_labels(self) -> None:
        """Both columns' inputs start at one x: every label as wide as the widest (in the
        language shown; again when it changes)."""
        if not shiboken6.isValid(self):
            return
        labels = [self.form.field(n).label for n in NAMES]
        width = max(label.fontMetrics().horizontalAdvance(label.text()) + 6 for label in labels)
        for label in labels:
            label.setMinimumWidth(width)

    def showEvent(self, event):
        self._align_labels()
        super().showEvent(event)

    def field(self, name: str):
        return self.form.field(name)

    def _on_choice_changed(self, card: CardModel) -> None:
        if not shiboken6.isValid(self) or card.errors:
            return
        if not self.deployed.active:
            if self._off_defaults():
                self.apply()  # keys the last choice refused may fit this one
            return
        if not self.apply():
            # The same keys do not fit the new model or card: the replays are the choice's
            # own (the book's step model) until the field is fixed; its error says why.
            self.deployed = Deployed(got=self.deployed.got)
            self.summary.setText(self.deployed.text())
            self.deployed_changed.emit(self.deployed)

    def _off_defaults(self) -> bool:
        return bool(raw_keys(self.card.inputs, self.coefficients))

    def set_coefficients(self, coefficients: Mapping[str, float]) -> bool:
        """The step-time coefficients into the state (a profile's, a calibration's; {}:
        the defaults), tried first: refused, the message shows and the state keeps its own."""
        coefficients = {k: float(v) for k, v in coefficients.items()}
        inputs = self.choice.inputs
        try:
            deploy(str(inputs["model"]), str(inputs["hardware"]), self.card.inputs, coefficients)
            self.state.set_coefficients(coefficients)
        except ParamError as err:
            self._show_error(err)
            return False
        return True

    def apply(self) -> bool:
        """Expand the current keys; on success emit deployed_changed, else show why next to
        the field (or under the form) and keep the last good deployment."""
        inputs = self.choice.inputs
        try:
            d = deploy(str(inputs["model"]), str(inputs["hardware"]), self.card.inputs, self.coefficients)
        except ParamError as err:
            self._show_error(err)
            return False
        self._show_error(None)
        self.summary.setText(d.text())
        if d.key != self.deployed.key or d.values != self.deployed.values:
            self.deployed = d
            self.deployed_changed.emit(d)
        return True

    def show_replay_refusal(self, err: ParamError | None) -> None:
        """A key the replays refuse with their other values (max_concurrency with several
        replicas), next to its field; None clears what this showed before."""
        shown = getattr(self, "_refused_by_replay", None)
        if shown is not None and (err is None or err.param != shown):
            self.form.field(shown).show_error(None)
        self._refused_by_replay = err.param if err is not None else None
        if err is not None:
            self.form.field(err.param).show_error(f"{err.message} (replayed without it)")

    def _show_error(self, err: ParamError | None) -> None:
        for name in NAMES:
            if not self.card.errors.get(name):
                self.form.field(name).show_error(err.message if err is not None and err.param == name else None)
        text = f"{err.param}: {err.message}" if err is not None and err.param not in NAMES else ""
        self.message.setText(text)
        self.message.setVisible(bool(text))
