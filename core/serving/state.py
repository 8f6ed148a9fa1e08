"""The Serving panel's state (§3.1.3), pure Python: every value the panel lets a user change.

Cards: the request mix, the bandwidth-bound decode rate, the backlog, and the two replays
side by side. Replay B is A with its own shares of long-input requests per window: every
other value of B follows A (the state copies them on each change of A), so B is "the same
run, another mix". The replays are deferred cards: whoever owns the job runner computes
them off the GUI thread (core.serving.figures.replay_side) and hands the result back with
`set_result`.

View options: the backlog preset shown in the picker ("" = custom; choosing one fills the
backlog card, editing the card picks the preset it matches), the band over seeds (on:
recomputed for each edit of the replays) and the SLOs of goodput (0 = none). Players: the
banner's ▶ and the replays' ▶, in simulated seconds.

A trace (core.serving.trace_source.TraceSource: a file's path and how to read it) replaces
the book's windows in both replays. The state keeps the path and options (saved in
sessions), never the data: whoever owns the job runner loads it and hands the workload
back with `trace_loaded_ok`, or the refusal with `trace_failed` (the last good workload and
its replays stay). When the trace carries prefix information, A replays it with prefix
caching as its card says and B the other way (the cache's effect side by side).

The model and card (core.serving.model_choice: a catalog key or a file each) fill A's
model and hardware fields as `lab simulate serving model= hardware=` does, B following;
a refused file keeps the last good choice and replays. The model.config card counts the
chosen model; its config and the model picker are one (an edit of either moves both).

The deployment (core.serving.deployment_card): the card of the CLI's deployment keys and
the step-time coefficients a profile or a calibration sets (a panel field of its own,
"coefficients", always in the JSON so that undo can take a set back to none).

The pools (core.serving.pools_card): the P/D fields, whose run (replay A's workload on a
prefill and a decode pool) the pools section computes on the job runner. The images
(core.serving.images_card): the image fields, whose run the images section computes.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.registry import Param, ParamError
from core.serving import backlog as bl
from core.serving.deployment_card import DEPLOYMENT, check_coefficients
from core.serving.images_card import IMAGES
from core.serving.model_choice import MODEL_CHOICE
from core.serving.pools_card import POOLS
from core.serving.replay import SCENARIOS
from core.serving.trace_source import PARAMS as TRACE_PARAMS
from core.serving.trace_source import TraceSource, has_prefix_info, parse_trace_source
from core.serving.workload import Workload
from core.state_model import CardModel, PanelModel

REPLAY_SIDES = ("A", "B")
B_SHARES = SCENARIOS["shift"]["params"]["shares_long_input"]  # B opens on the book's 9:1 then 1:9
BAND_SEEDS = 5
TRACE_OPTIONS = tuple(p.name for p in TRACE_PARAMS)
# The SLOs of goodput (view options; the panel's fields show these Params).
SLO_PARAMS = (
    Param("slo_ttft_ms", "ms", 0.0, "goodput counts the requests whose TTFT is at most this (0: no SLO)", 0, 1e9),
    Param("slo_tpot_ms", "ms", 0.0, "goodput counts the requests whose TPOT is at most this (0: no SLO)", 0, 1e9),
)


class FollowerCard(CardModel):
    """A replay card that takes every value of its leader but its own (B's shares): each
    update, the form's or the state's, applies over the leader's current values, so fixing
    B's shares after A changed its windows works."""

    def __init__(self, leader: CardModel, own: tuple[str, ...] = ("shares_long_input",)):
        super().__init__(leader.calculator, deferred=True)
        self.leader, self.own = leader, own

    def _base(self) -> dict:
        """The leader's values (checked already: not parsed again) with this card's own."""
        base = dict(self.leader.inputs)
        base.update({k: self.inputs[k] for k in self.own})
        return base


class ServingState(PanelModel):
    key = "serving"
    CARDS = (
        ("mix", "serving.mix"),
        ("rate", "serving.decode_rate"),
        ("backlog", "serving.backlog"),
        # Before the replays: a session's saved replay values, restored after it, win.
        ("model_choice", MODEL_CHOICE),
        ("your_model", "model.config"),
        ("deployment", DEPLOYMENT),  # after the choice it expands with, before the replays it sets
        ("pools", POOLS),  # the P/D fields (pools=, kv_link=, kv_transfer=): a run of replay A's workload
        ("images", IMAGES),  # the image fields (image_share=, ...): a run of replay A's workload with images
        ("replay_a", "serving.replay", True),
        ("replay_b", "serving.replay", True),
    )
    VIEW = {"backlog_preset": "shift", "band": False, "slo_ttft_ms": 0.0, "slo_tpot_ms": 0.0}
    PLAYERS = ("banner", "replay")

    def __init__(self) -> None:
        super().__init__()
        self.trace: TraceSource | None = None  # the source asked for (what the fields show)
        self.trace_errors: dict[str, str] = {}  # field -> why the latest edit of the source was refused
        self.trace_message = ""  # why the latest load failed, or that it was cancelled
        self.trace_workload: Workload | None = None  # the loaded data (never saved)
        self.trace_loaded: TraceSource | None = None  # the source trace_workload came from
        self._trace_generation = 0  # counts workloads: a replay's result names the one it ran
        self._trace_refused: TraceSource | None = None  # the source whose load failed (not tried again)
        b = FollowerCard(self.card("replay_a"))
        b.changed.connect(lambda c: self.changed.emit("cards.replay_b", c))
        self.cards["replay_b"] = b
        b.update({"shares_long_input": B_SHARES})
        self._a_inputs = self.card("replay_a").inputs
        self.card("replay_a").changed.connect(self._follow_a)
        self._choice_applied = self.card("model_choice").inputs
        self.coefficients: dict[str, float] = {}  # the step-time coefficients ({}: the defaults)
        self.changed.connect(self._on_changed)
        self.set_view("backlog_preset", bl.matching_preset(self.card("backlog").inputs))

    def replay(self, side: str) -> CardModel:
        """The card of replay side 'A' or 'B'."""
        return self.cards[f"replay_{side.lower()}"]

    def reset(self) -> None:
        super().reset()
        self.card("replay_b").update({"shares_long_input": B_SHARES})
        self.set_coefficients({})
        self.clear_trace()

    def set_coefficients(self, coefficients: Mapping[str, float]) -> None:
        """The step-time coefficients (a profile's, a calibration's; {}: the defaults);
        ParamError naming the key if refused. Emits ('coefficients', set) on a change."""
        checked = check_coefficients(coefficients)
        if checked != self.coefficients:
            self.coefficients = checked
            self.changed.emit("coefficients", dict(checked))

    def set_view(self, name: str, value: Any) -> None:
        _check_view(name, value)
        super().set_view(name, value)

    # ---- the model and card ---------------------------------------------------------
    def set_model_choice(self, raw: Mapping[str, Any]) -> bool:
        """Choose the model and/or hardware (catalog keys or paths); True when taken."""
        return self.card("model_choice").update(raw)

    def model_choice_edited(self) -> list[str]:
        """A's fields that no longer hold the choice's values (edited by hand since)."""
        values = (self.card("model_choice").result or {}).get("replay_values") or {}
        inputs = self.replay("A").inputs
        return [k for k, v in values.items() if k in inputs and inputs[k] != v]

    def _apply_model_choice(self, choice: CardModel) -> None:
        """A takes the values of a new, valid choice (B follows A); the model.config card
        counts the same model."""
        if choice.errors or choice.inputs == self._choice_applied or choice.result_inputs != choice.inputs:
            return
        self._choice_applied = choice.inputs
        assert choice.result is not None  # its result is for its inputs
        self.card("your_model").update({"config": choice.inputs["model"]})
        self.replay("A").update(dict(choice.result["replay_values"]))

    # ---- the trace source -----------------------------------------------------------
    def set_trace(self, raw: Mapping[str, Any], retry: bool = False) -> bool:
        """Parse raw values (text from the fields, or JSON values) over the current source;
        'path' opens a new file. On a refused edit the source stays and trace_errors says
        why, per field. A source whose load failed is tried again when it changes, or with
        retry (the file was opened again). Emits ('trace', source) on any change, and on a
        retry; True when valid."""
        base = self.trace.to_json() if self.trace is not None else {}
        try:
            source = parse_trace_source({**base, **raw})
        except ParamError as err:
            return self._set_trace(self.trace, {err.param: err.message}, self.trace_message)
        message = self.trace_message
        if source != self.trace or retry:
            self._trace_refused, message = None, ""  # a new source or option: worth a try
        return self._set_trace(source, {}, message, force=retry)

    def clear_trace(self) -> None:
        """Back to the book's windows."""
        changed_data = self.trace_workload is not None
        self.trace_workload = self.trace_loaded = self._trace_refused = None
        if changed_data:
            self._trace_generation += 1
        self._set_trace(None, {}, "")
        if changed_data:
            self.changed.emit("trace.workload", None)

    def trace_refused(self) -> bool:
        """The source asked for was refused (or its load cancelled): the replays, if of a
        trace, are of trace_loaded, the last good one."""
        return self.trace is not None and self.trace == self._trace_refused

    def trace_pending(self) -> bool:
        """A source is asked for whose data is neither loaded nor refused yet."""
        return self.trace is not None and self.trace not in (self.trace_loaded, self._trace_refused)

    def trace_loaded_ok(self, source: TraceSource, workload: Workload) -> bool:
        """Take the data loaded for source; False (and dropped) if the source changed since."""
        if source != self.trace:
            return False
        self.trace_workload, self.trace_loaded, self._trace_refused = workload, source, None
        self._trace_generation += 1
        self._set_trace(source, {}, "")
        self.changed.emit("trace.workload", workload)
        return True

    def trace_failed(self, source: TraceSource, message: str, field: str | None = None) -> bool:
        """The load of source was refused (message says why; field: the option it names,
        if any) or cancelled. The source stays asked for (its fields can be fixed, a
        session saves it) and is not loaded again; the last good data and replays stay."""
        if source != self.trace:
            return False
        self._trace_refused = source
        errors = {field: message} if field in TRACE_OPTIONS else {}
        self._set_trace(source, errors, "" if errors else message)
        return True

    def replay_prefix_caching(self, side: str) -> bool | None:
        """Prefix caching for side's replay of the trace: A as its card says, B the other
        way; None without a trace that carries prefix information (the switch changes nothing)."""
        if self.trace_workload is None or not has_prefix_info(self.trace_workload):
            return None
        on = bool(self.replay("A").inputs.get("prefix_caching", True))
        return on if side == "A" else not on

    def replay_source(self, side: str) -> tuple | None:
        """What a replay of side runs on besides its card: None for the book's windows, else
        (the workload's number, replay_prefix_caching). A result names the source it ran
        on; one of another source is not current."""
        if self.trace_workload is None:
            return None
        return (self._trace_generation, self.replay_prefix_caching(side))

    def replay_current(self, side: str) -> bool:
        """The side's result is of its current inputs and source (or its edit was refused)."""
        card = self.replay(side)
        if card.errors:
            return True
        return card.result_inputs == card.inputs and (card.result or {}).get("source") == self.replay_source(side)

    def _set_trace(self, source: TraceSource | None, errors: dict, message: str, force: bool = False) -> bool:
        changed = (source, errors, message) != (self.trace, self.trace_errors, self.trace_message)
        self.trace, self.trace_errors, self.trace_message = source, errors, message
        if changed or force:
            self.changed.emit("trace", source)
        return not errors

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["coefficients"] = dict(self.coefficients)
        if self.trace is not None:
            data["trace"] = self.trace.to_json()
        return data

    def load_json(self, data: Mapping[str, Any], checked: Mapping[str, Any] | None = None) -> None:
        raw = data.get("trace")
        try:
            source = None if raw is None else parse_trace_source(raw)
        except ParamError as err:
            raise ParamError(f"trace.{err.param}", err.message) from None
        except (TypeError, AttributeError):
            raise ParamError("trace", f"got {raw!r}; valid: an object with path and options") from None
        for name, value in (data.get("view", {}) or {}).items():
            _check_view(name, value)
        coefficients = check_coefficients(data.get("coefficients", {}) or {})
        previous = self.coefficients
        # Before the cards: the deployment they restore expands with these, and the replay
        # values restored after it win.
        self.set_coefficients(coefficients)
        try:
            super().load_json(data, checked)
        except Exception:
            self.set_coefficients(previous)  # a bad state changes nothing
            raise
        if source is None:
            self.clear_trace()
        elif source != self.trace:
            self._set_trace(source, {}, "")  # the panel loads it (and says so if the file is gone)

    def _follow_a(self, a: CardModel) -> None:
        """B takes every value of A but its shares (an invalid pair shows on B's shares).
        Only on a change of A's inputs: A's result arriving leaves B (and its errors) be."""
        if a.inputs != self._a_inputs:
            self._a_inputs = a.inputs
            self.card("replay_b").update({})

    def _on_changed(self, path: str, value: Any) -> None:
        if path == "cards.model_choice":
            self._apply_model_choice(value)
        elif path == "cards.your_model" and not value.errors:
            # The card and the picker name one model: a config typed in the card is chosen too.
            if value.inputs["config"] != self.card("model_choice").inputs["model"]:
                self.set_model_choice({"model": value.inputs["config"]})
        elif path == "view.backlog_preset" and value:
            self.card("backlog").update(bl.preset_params(value))
        elif path == "cards.backlog":
            self.set_view("backlog_preset", bl.matching_preset(value.inputs))


def _check_view(name: str, value: Any) -> None:
    """Ranges of the view options that have one; ParamError naming the option."""
    if name == "backlog_preset" and value not in ("", *bl.PRESETS):
        raise ParamError("view.backlog_preset", f"got {value!r}; valid: one of {', '.join(bl.PRESETS)} or '' (custom)")
    if name in ("slo_ttft_ms", "slo_tpot_ms"):
        try:
            ok = float(value) >= 0 and float(value) < 1e9
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ParamError(f"view.{name}", f"got {value!r}; valid: [0, 1e9) ms (0: no SLO)")
