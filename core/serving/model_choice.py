"""The served model and card of a replay: model= and hardware= as `lab simulate serving`
takes them and the Serving panel's pickers show them. Each is a catalog key or a file (a
Hugging Face config.json; a small TOML of the card's figures) and sets defaults for
serving.replay's parameters: weights and KV per token, the step cost's FLOPs, bandwidth,
peak FLOP/s and (from the card's memory) vLLM's default token budget. A card with a
price per card-hour (catalog or TOML) sets price_per_card_hour too, with its source note
(card_price: the CLI's hardware= and the panel's picker read it alike). No Qt here.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from core import catalog
from core.format import format_bytes, format_flops
from core.hardware_config import HardwareSpec, card_replay_values, hardware_replay_params, load_hardware
from core.model_config import ModelSpec, config_model_keys, model_spec
from core.registry import BookRef, Calculator, Output, Param, ParamError
from core.serving.deployment import Deployment, plan
from core.serving.step_cost import default_max_num_seqs, default_token_budget

BOOK_MODEL = "qwen3-8b"  # the book's run: its values are serving.replay's defaults
BOOK_HARDWARE = "rtx-pro-6000-blackwell"
# What a choice sets, in serving.replay's names (the KV pool stays the form's).
MODEL_FIELDS = ("weights_bytes", "kv_bytes_per_token", "matrix_flops_per_token", "lm_head_flops_per_row",
                "attention_flops_per_pair")
HARDWARE_FIELDS = ("bandwidth_bytes_per_s", "peak_flops", "token_budget")
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")  # a note with Chinese stays out of a pair's English side


def model_keys() -> tuple[str, ...]:
    """Catalog models the counting takes (the pickers' named choices)."""
    return config_model_keys() or (BOOK_MODEL,)


@functools.cache
def hardware_keys() -> tuple[str, ...]:
    """Catalog cards with memory, bandwidth and a BF16 peak (the pickers' named choices).
    The catalog is fixed for the process: computed once."""
    usable = []
    for key in catalog.hardware_keys():
        try:
            hardware_replay_params(key)
        except ParamError:
            continue
        usable.append(key)
    return tuple(usable) or (BOOK_HARDWARE,)


@dataclass(frozen=True)
class ModelHardware:
    """model= and hardware= checked once, at the edge: each file read and parsed once, and
    everything downstream (the replay's values, the price, the names) read from here;
    deployment() puts the model on its cards. A field is None where its key was not given."""

    model: str | None
    hardware: str | None
    spec: ModelSpec | None
    card: HardwareSpec | None
    replay_values: Mapping[str, float]  # serving.replay's values the choice sets (no price)
    price_per_card_hour: float | None
    price_source: str
    # vLLM's server defaults on this card that the book's form does not take from a card
    # (the form keeps the book's 64 sequences): `lab simulate serving hardware=` applies
    # them where the key is not given.
    batch_defaults: Mapping[str, int] = dataclasses.field(default_factory=dict)

    def deployment(self, **how) -> Deployment:
        """The model on its cards (core.serving.deployment.plan's keywords: tp, pp, ep,
        dp, quantization, kv_cache_dtype, gpu_memory_utilization, kv_pool_bytes, ...).
        The book's model or card stands in for the one not given; ParamError names the
        field when it does not fit."""
        spec = self.spec or model_spec(BOOK_MODEL)
        card = self.card or load_hardware(BOOK_HARDWARE)
        return plan(spec, card, **how)


def choose(model: str | None, hardware: str | None, card: HardwareSpec | None = None) -> ModelHardware:
    """Check model= and hardware= (catalog keys or files; None or "": not given) once;
    ParamErrors name model or hardware (and the file's field). card: hardware's card read
    already (a calibration profile's), in place of loading hardware."""
    values: dict[str, float] = {}
    spec = None
    price, source = None, ""
    batch: dict[str, int] = {}
    if model:
        spec = _named("model", model_spec, str(model))
        values.update(spec.replay_params())
    if hardware:
        card = card if card is not None else _named("hardware", load_hardware, str(hardware))
        figures = _named("hardware", lambda _: card_replay_values(card), str(hardware))
        memory = figures.pop("memory_bytes")
        # vLLM's default budget is 2048 on an A100 whatever its memory (step_cost).
        name = f"{hardware} {card.name}".lower()
        values["token_budget"] = default_token_budget(memory, is_a100="a100" in name)
        batch["max_num_seqs"] = default_max_num_seqs(memory, is_a100="a100" in name)
        values.update(figures)
        price = None if card.price_per_card_hour is None else float(card.price_per_card_hour)
        source = card.price_source
    return ModelHardware(model or None, hardware or None, spec, card if hardware else None, values, price, source,
                         batch)


def expand_model_hardware(got: Mapping[str, Any]) -> dict[str, float]:
    """serving.replay parameter values that got's "model" and "hardware" (each a catalog
    key or a file's path; either may be absent) imply; errors are ParamErrors naming
    model or hardware (and the file's field)."""
    return dict(choose(got.get("model"), got.get("hardware")).replay_values)


def card_price(hardware: str) -> tuple[float | None, str]:
    """(USD per card-hour or None, its source note) of a catalog card or a card's TOML,
    errors named hardware: what hardware= sets price_per_card_hour to."""
    choice = choose(None, hardware)
    return choice.price_per_card_hour, choice.price_source


def _named(key: str, load: Callable[[str], Any], text: str) -> Any:
    """load(text) with its errors named after the key the user typed."""
    try:
        return load(text)
    except ParamError as err:
        if err.param == key:
            raise
        raise ParamError(key, f"{err.param}: {err.message}") from None


# The book's run, as its caption names it.
BOOK_NAMES = {BOOK_MODEL: "Qwen3-8B", BOOK_HARDWARE: "RTX PRO 6000"}


def _compute(model: str, hardware: str) -> dict:
    choice = choose(model, hardware)
    values = dict(choice.replay_values)
    if choice.price_per_card_hour is not None:  # a card without a list price leaves the form's price as it is
        values["price_per_card_hour"] = choice.price_per_card_hour
    assert choice.spec is not None and choice.card is not None  # the pickers always give both
    return {"replay_values": values, "price_source": choice.price_source,
            "model_name": BOOK_NAMES.get(model) or choice.spec.name,
            "hardware_name": BOOK_NAMES.get(hardware) or choice.card.name}


# The Serving panel's one byte system: its calculators' (serving.replay, serving.decode_rate,
# model.config print SI, as the book's 15.14 GB), so one value never reads two ways there.
BYTES = "si"


def choice_text(result: Mapping[str, Any] | None) -> str:
    """Lines on what a choice sets in the replays: the model's and the card's (English
    values, translated by the panel's catalog), then its price as a "中文 · English" pair:
    the English side says where the price is from (a note in Chinese only in the
    tooltip, price_note: a pair's English side holds no Chinese)."""
    if not result:
        return ""
    v = result["replay_values"]
    model = (f"<b>{result['model_name']}</b>: weights read per step {format_bytes(v['weights_bytes'], BYTES)} · KV "
             f"{format_bytes(v['kv_bytes_per_token'], BYTES)}/token · {format_flops(v['matrix_flops_per_token'])}/token")
    card = (f"<b>{result['hardware_name']}</b>: {format_bytes(v['bandwidth_bytes_per_s'], BYTES)}/s · "
            f"{format_flops(v['peak_flops']).replace('FLOPs', 'FLOP/s')} BF16 · token budget {int(v['token_budget']):,}")
    price = v.get("price_per_card_hour")
    if price is None:
        cost = ("此卡无标价,表单的 price_per_card_hour 不变 · no list price for this card: the form's "
                "price_per_card_hour stays (USD per card-hour)")
    else:
        note = str(result.get("price_source") or "")
        shown = f" ({escape(note, quote=False)})" if note and not _CJK.search(note) else ""
        cost = f"每卡时价格 ${price:.2f}(来源见提示) · price ${price:.2f}/card-hour{shown}"
    return f"{model}<br>{card}<br>{cost}"


def price_note(result: Mapping[str, Any] | None) -> str:
    """Where the chosen card's price is from ("" without a choice or a note): the tooltip."""
    return str((result or {}).get("price_source") or "")


def _calculator() -> Calculator:
    """The pickers as a card (not a registered calculator: the panel's own form): a refused
    file keeps the last good choice and shows why next to its field."""
    return Calculator(
        name="serving.model_choice",
        title="模型与硬件 · model and hardware",
        ref=BookRef("3.1.3"),
        params=(
            Param("model", "", BOOK_MODEL, "the served model: a catalog model or a Hugging Face config.json; sets "
                  "weights, KV per token and the step cost's FLOPs", kind="path", choices=model_keys(),
                  label="模型 · model"),
            Param("hardware", "", BOOK_HARDWARE, "the card: a catalog card or a small TOML (memory, bandwidth, peak "
                  "FLOP/s); sets bandwidth, peak FLOP/s, the token budget and its price per card-hour", kind="path",
                  choices=hardware_keys(), label="硬件 · hardware"),
        ),
        outputs=(Output("replay_values", "", "serving.replay's values the choice sets", kind="series"),
                 Output("model_name", "", "the model's name", kind="series"),
                 Output("hardware_name", "", "the card's name", kind="series"),
                 Output("price_source", "", "where the card's price per card-hour is from", kind="series")),
        compute=_compute,
    )


MODEL_CHOICE = _calculator()
