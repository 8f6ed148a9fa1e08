"""The keys `lab simulate serving` takes besides serving.replay's parameters, each checked
here with a ParamError naming it: the book's scenario, seeds, goodput SLOs, how a trace is
read (format, time_scale, window, limit, trace_model, trace_log_type, hash_block_tokens),
and model= / hardware=, which like scenario= set defaults for the replay's parameters
(keys given explicitly win); with the deployment keys (tp, pp, ep, quantization,
kv_cache_dtype, gpu_memory_utilization: core/serving/deployment_params.py) they put the
model on its cards, priced by the basis step-time model unless step_model=roofline (its
coefficients are keys too: coef_tp_comm=, ...; core/serving/step_defaults.py)
(core/serving/deployment.py), which sets the per-card figures and, with hardware=, the
KV pool from the card's memory. Moved here from lab/simulate_keys.py (the sweep's evaluator,
core/sweep/serving.py, reads them too). No Qt here.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.registry import Param, ParamError, get
from core.serving import aliases, bench_keys, traces
from core.serving import replay as rp
from core.serving.deployment import Deployment
from core.serving.deployment_params import DEPLOYMENT_KEYS, DEPLOYMENT_PARAMS
from core.serving.model_choice import ModelHardware, choose
from core.serving.pd_params import PD_PARAMS, PD_TEXT_KEYS
from core.serving.profile import choose_with_profile, is_profile, read_cached
from core.serving.step_basis import BasisCost, from_deployment
from core.serving.step_defaults import DEFAULTS as STEP_DEFAULTS
from core.serving.step_defaults import HELP as STEP_HELP
from core.serving.step_defaults import for_card as step_defaults_for
from core.serving.vllm_metrics import MAX_SLO_MS
from core.serving.workload import MAX_REQUESTS
from core.units import NumberError, parse_number

MAX_TEXT_CHARS = 200
OPEN_END_S = sys.float_info.max  # window=START: (the loader takes finite seconds)
# Keys given as text and checked here (no Param kind fits): name -> help.
TEXT_KEYS = {
    "window": "replay only the trace's requests arriving in [START, END) seconds of the trace (before "
              "time_scale; either side may be empty: 60: or :600; times take suffixes, 1min:2min)",
    "trace_model": "keep only the trace's rows of this model (BurstGPT's Model column; model= names the served model)",
    "trace_log_type": "keep only the trace's rows of this log type (BurstGPT: Conversation log or API log)",
    "model": "the served model: a catalog key, a Hugging Face config.json, or a Hugging Face id (Qwen/Qwen3-8B: its "
             "config.json from the local Hugging Face cache, HF_HOME; nothing is downloaded); sets weights, KV per token and the "
             "step cost's FLOPs (explicit keys win)",
    "hardware": "the card: a catalog key or a small TOML (memory, bandwidth, peak FLOP/s); sets bandwidth, peak "
                "FLOP/s, the token budget and price_per_card_hour when the card has a price (explicit keys win)",
    "lengths": bench_keys.LENGTHS_HELP,
    "profile": "a calibration profile (lab calibrate --out P.toml): its card (unless hardware= is given), its "
               "model (unless model= is given) and its fitted coefficients (keys given win); hardware=P.toml "
               "does the same",
}
# Prefill/decode pools (issue 15, core/serving/disagg/keys.py): the P/D keys, in one block.
TEXT_KEYS.update(PD_TEXT_KEYS)
# Image requests (issue 15, core/serving/multimodal/: its report reads them), in one block.
# None defaults: the encoder's own (core/serving/multimodal/encoder.py, images.py).
MM_PARAMS = (
    Param("image_share", "", 0.0, "share of requests carrying one image of image_size= (spread evenly)", 0, 1),
    Param("image_ids", "images", 0, "distinct image ids the images cycle through in turn (0: every image its own; "
          "K: an encoder cache of K images hits)", 0, 1 << 30, kind="int"),
    Param("encoder_cache_size", "tokens", None, "vLLM's encoder cache: visual tokens of encoder output kept across "
          "requests of the same image id (default: vLLM's, the encoder budget; 0: none); hits decided in arrival "
          "order", 0, 1 << 30, kind="int"),
    Param("max_num_encoder_input_tokens", "tokens", None, "encoder tokens one step may admit (vLLM's; default: "
          "token_budget)", 1, 1 << 30, kind="int"),
    Param("encoder_mfu", "", None, "the vision tower's fraction of the card's BF16 dense peak (default: the "
          "chapter's 40%)", 0, 1, min_exclusive=True),
    Param("epd_encoders", "cards", 0, "EPD: encoder cards in front of the engine, first come first served, "
          "shipping EC over ec_link_gb_s= (0: the encoder runs in the instance, vLLM V1)", 0, 1024, kind="int"),
    Param("ec_link_gb_s", "GB/s", 50.0, "the link EC crosses from the encoders to the prefill instance (EPD; "
          "default one 400 Gbit/s NIC)", 0, 1e6, min_exclusive=True),
    Param("ec_link_latency_s", "s", 10e-6, "fixed time of one EC transfer (EPD)", 0, 10),
    Param("image_link_gb_s", "GB/s", None, "ship the image (the book's first handoff): each request's image "
          "files cross a link of this bandwidth, one after another, before the instance that encodes them "
          "(default: the images are there at arrival)", 0, 1e6, min_exclusive=True),
    Param("image_link_latency_s", "s", 10e-6, "fixed time of one image transfer (image_link_gb_s=)", 0, 10),
)
MM_TEXT_KEYS = {
    "image_size": "the size of image_share='s images, HxW pixels (default 640x640, the book's)",
    "vision_model": "the vision tower: a catalog key (default qwen3-vl-4b-vision) or a Qwen3-VL config.json "
                    "(its vision_config)",
}
TEXT_KEYS.update(MM_TEXT_KEYS)
TRACE_KEYS = ("format", "time_scale", "window", "limit", "trace_model", "trace_log_type", "hash_block_tokens")
STEP_MODELS = ("basis", "roofline")
# The basis step-time model's coefficients (core/serving/step_defaults.py: defaults and
# sources); issue 13's calibration writes fitted values for these keys.
STEP_PARAMS = (
    Param("step_model", "", "basis", "the step-time model of a deployment (model=, hardware=, tp=...): basis = "
          "roofline + communication, launch, per-sequence and per-request terms (core/serving/step_basis.py); "
          "roofline = serving.replay's three knobs (the book's run)", kind="choice", choices=STEP_MODELS),
) + tuple(
    Param(name, "s" if name.endswith("_s") else "", default, STEP_HELP[name] + " (basis step model)", 0,
          1.0 if name.endswith("_s") else 100.0)
    for name, default in STEP_DEFAULTS.items())
STEP_KEYS = tuple(p.name for p in STEP_PARAMS)


def trace_formats() -> tuple[str, ...]:
    return tuple(traces.FORMATS)


def extra_params() -> tuple:
    """The Params among the extra keys (listed in --help like the replay's own)."""

    return (
        Param("scenario", "", None, "one of the book's two runs (sets shares_long_input): "
              + "; ".join(f"{k} = {v['label']}" for k, v in rp.SCENARIOS.items()),
              kind="choice", choices=tuple(rp.SCENARIOS)),
        Param("seeds", "", (0,), "run each seed and report every metric as min / median / max", 0, 2**31 - 1,
              kind="floats", max_items=1000),
        Param("slo_ttft_ms", "ms", None, "goodput SLO on time to first token (vLLM --goodput ttft:MS)", 0, MAX_SLO_MS,
              min_exclusive=True),
        Param("slo_tpot_ms", "ms", None, "goodput SLO on time per output token (vLLM --goodput tpot:MS)", 0, MAX_SLO_MS,
              min_exclusive=True),
        Param("slo_e2el_ms", "ms", None, "goodput SLO on end-to-end latency (vLLM --goodput e2el:MS)", 0, MAX_SLO_MS,
              min_exclusive=True),
        Param("format", "", "auto", "how to read the trace (auto: by its header)", kind="choice",
              choices=trace_formats()),
        Param("time_scale", "", 1.0, "speed of the trace's arrivals: 2 replays them twice as fast, 0.5 at half "
              "the rate (BurstGPT's README)", 1e-6, 1e6),
        Param("limit", "requests", None, "replay only the trace's first N requests (after window); of a file over "
              "256 MiB only the first N rows are read", 1, MAX_REQUESTS, kind="int"),
        Param("hash_block_tokens", "tokens", 512, "prompt tokens per hash id of a Mooncake trace", 1, 1 << 20,
              kind="int"),
    ) + DEPLOYMENT_PARAMS + STEP_PARAMS + bench_keys.PARAMS + PD_PARAMS + MM_PARAMS


def param(name: str):
    return next(p for p in extra_params() if p.name == name)


def names() -> tuple[str, ...]:
    return tuple(p.name for p in extra_params()) + tuple(TEXT_KEYS) + ("trace",)


def parse_window(text: str) -> tuple[float, float]:
    """'START:END' seconds (suffixes allowed, either side empty) -> (start_s, end_s)."""

    valid = "valid: START:END seconds with 0 <= START < END (e.g. 0:600, 1min:2min, 60:)"
    start_text, sep, end_text = str(text).partition(":")
    if not sep:
        raise ParamError("window", f"got {text!r}; {valid}")
    try:
        start = parse_number(start_text, "s") if start_text.strip() else 0.0
        end = parse_number(end_text, "s") if end_text.strip() else OPEN_END_S
    except NumberError as err:
        raise ParamError("window", f"got {text!r} ({err}); {valid}") from None
    if not (0 <= start < end):
        raise ParamError("window", f"got {text!r}; {valid}")
    return start, end


def parse_text_key(name: str, text: str) -> str:

    value = str(text).strip()
    if not value or len(value) > MAX_TEXT_CHARS:
        raise ParamError(name, f"got {text!r}; valid: a name of 1..{MAX_TEXT_CHARS} characters")
    return value


def pop_extras(raw: dict) -> dict:
    """Take the extra keys out of raw (text values), check each; returns name -> value."""

    got: dict[str, Any] = {}
    for p in extra_params():
        if p.name in raw:
            got[p.name] = bench_keys.parse(p.name, raw.pop(p.name)) if p in bench_keys.PARAMS else p.parse(raw.pop(p.name))
    if "window" in raw:
        got["window"] = parse_window(raw.pop("window"))
    for name in ("trace_model", "trace_log_type", "model", "hardware", "trace", "lengths", "profile") + tuple(PD_TEXT_KEYS) + tuple(MM_TEXT_KEYS):
        if name in raw:
            got[name] = parse_text_key(name, raw.pop(name))
    if "seeds" in got:
        if any(not float(x).is_integer() for x in got["seeds"]):
            raise ParamError("seeds", f"got {got['seeds']!r}; valid: {param('seeds').range_text()} (whole numbers)")
        if "trace" in got:
            raise ParamError("seeds", "a trace has fixed arrivals; valid: seeds only without trace=")
        got["seeds"] = [int(x) for x in got["seeds"]]
    if "trace" not in got:
        for name in TRACE_KEYS:
            if name in got:
                raise ParamError(name, "applies to a trace; valid: with trace=FILE")
    got = bench_keys.implied(got)  # --num-prompts alone: vllm bench serve's default dataset, random
    bench_keys.check(got)
    return got


@dataclass(frozen=True)
class Expanded:
    """`lab simulate serving`'s keys checked once: the replay keys (text values as given,
    defaults from scenario=, model= and hardware= filled in), the extra keys, the price's
    source note and the model/hardware choice itself."""

    raw: dict
    got: dict
    price_note: str | None
    choice: ModelHardware
    deployment: Deployment | None = None  # built when model=, hardware= or a deployment key is given
    step_coefs: dict | None = None  # the basis model's coefficients (None: the roofline)
    profile: Any = None  # the calibration profile given (profile= or hardware=P.toml): its samples give bands

    def step_cost(self, values) -> BasisCost | None:
        """The deployment's basis step-time model over serving.replay's resolved values
        (None: the replay's own roofline)."""
        if self.deployment is None or self.step_coefs is None:
            return None
        return from_deployment(self.deployment, values, self.step_coefs)


def expand(raw: dict, unknown: Callable[[], str]) -> tuple[dict, dict, str | None]:
    """expand_checked's (raw, got, price note), for callers that need no more."""
    e = expand_checked(raw, unknown)
    return e.raw, e.got, e.price_note


def expand_checked(raw: dict, unknown: Callable[[], str]) -> Expanded:
    """raw (text values) as serving.replay takes it. A key neither serving.replay nor the
    extra keys know is refused with the message unknown() gives (each command words its
    own); scenario=, model= and hardware= then fill the replay keys raw leaves unset (keys
    given win), the card's price included. raw itself is not changed."""
    raw = dict(raw)
    profile = apply_profile(raw)
    got = pop_extras(raw)
    known = {p.name for p in get("serving.replay").params}
    for key in raw:
        if key not in known:
            raise aliases.unknown_key(key, known | set(names()), unknown())
    if "scenario" in got:
        for key, value in rp.SCENARIOS[got["scenario"]]["params"].items():
            raw.setdefault(key, ",".join(str(v) for v in value) if isinstance(value, tuple) else str(value))
    given = set(raw)
    choice = choose_cached(got.get("model"), got.get("hardware"))
    for key, value in choice.replay_values.items():
        if key in known:
            raw.setdefault(key, value)
    if "scenario" not in got:  # a book scenario keeps its run's settings
        for key, count in choice.batch_defaults.items():
            raw.setdefault(key, str(count))
    deployment = None
    coefs = None
    if choice.model or choice.hardware or any(k in got for k in DEPLOYMENT_KEYS + STEP_KEYS):
        deployment = _deploy(raw, given, got, choice)
        if got.get("step_model", "basis") == "basis":
            coefs = {k: got.get(k, v) for k, v in step_defaults_for(deployment.card, deployment.compute_dtype).items()}
    return Expanded(raw, got, _price_default(raw, got, choice), choice, deployment, coefs, profile)


def apply_profile(raw: dict):
    """profile=P.toml, or hardware=P.toml naming a profile (core/serving/profile.py): the
    profile's coefficients, model and card fill the keys raw leaves unset (in place);
    returns the profile, or None when none is given."""
    path = raw.get("profile")
    key = "profile"
    if path is None and is_profile(raw.get("hardware")):
        path, key = raw["hardware"], "hardware"
    if path is None:
        return None
    try:
        prof = read_cached(str(path).strip())
    except (ParamError, OSError) as err:
        raise ParamError(key, getattr(err, "message", None) or f"{path}: {err}") from None
    raw.setdefault("hardware", str(path).strip())
    raw.setdefault("model", prof.model)
    off = str(raw.get("frontend", "")).strip().lower() == "off"
    for name, value in prof.coefficients.items():
        if not (off and name.startswith("frontend_")):  # the front end switched off takes none of its keys
            raw.setdefault(name, repr(float(value)))
    return prof


def _deploy(raw: dict, given: set, got: dict, choice: ModelHardware) -> Deployment:
    """The model on its cards (the book's model or card standing in for one not given);
    its per-card figures fill raw's replay keys the user did not give. The KV pool: with
    hardware= it comes from the card's memory (gpu_memory_utilization) unless
    kv_pool_bytes= is given; without hardware= the form's pool (the book's 24 GiB)
    stands. A pool given per card becomes one TP rank's pool through every PP stage."""
    params = {p.name: p for p in get("serving.replay").params}
    params.update((p.name, p) for p in DEPLOYMENT_PARAMS)

    def value(name):
        if name in got:
            return got[name]
        return params[name].parse(raw[name]) if name in raw else params[name].default

    pool = value("kv_pool_bytes") if "kv_pool_bytes" in given or not choice.hardware else None
    d = choice.deployment(tp=value("tp"), pp=value("pp"), ep=value("ep"), dp=value("replicas"),
                          quantization=value("quantization"), kv_cache_dtype=value("kv_cache_dtype"),
                          gpu_memory_utilization=value("gpu_memory_utilization"), kv_pool_bytes=pool,
                          token_budget=value("token_budget"), max_num_seqs=value("max_num_seqs"),
                          block_size=value("block_size"))
    for key, number in d.replay_values().items():
        if key not in given:
            raw[key] = number
    if pool is None or d.pp > 1:
        raw["kv_pool_bytes"] = d.engine_kv_pool_bytes
    return d


def _price_default(raw: dict, got: dict, choice: ModelHardware) -> str | None:
    """hardware= sets price_per_card_hour too (its catalog or TOML figure, into raw);
    returns the price's source note, or None when that card has no price and none was
    given (no cost then)."""
    if "price_per_card_hour" in raw:
        return "given (price_per_card_hour=)"
    if "hardware" not in got:
        return f"{rp.BOOK_CARD_KEY}: {rp.BOOK_CARD_PRICE_SOURCE}"
    if choice.price_per_card_hour is None:
        return None
    raw["price_per_card_hour"] = choice.price_per_card_hour
    return choice.price_source


def choose_cached(model: str | None, hardware: str | None) -> ModelHardware:
    """choose(model, hardware), read again only when a file changed (a sweep expands the
    same keys at every point: each file is read and parsed once, not once a point)."""
    return _choose(model or None, hardware or None, _stamp(model), _stamp(hardware))


@lru_cache(maxsize=64)
def _choose(model: str | None, hardware: str | None, model_stamp: tuple, hardware_stamp: tuple) -> ModelHardware:
    if is_profile(hardware):
        assert hardware is not None  # is_profile said it is a file
        return choose_with_profile(model, hardware)
    return choose(model, hardware)


def _stamp(path: str | None) -> tuple:
    """A file's identity and version (() for a catalog key or nothing): the cache's key."""
    if not path:
        return ()
    try:
        info = os.stat(path)
    except OSError:
        return ()
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def model_defaults(got: dict) -> dict:
    """serving.replay parameter values model= and hardware= imply (none given: {});
    core.serving.model_choice expands them (the Serving panel's pickers do the same)."""
    return dict(choose_cached(got.get("model"), got.get("hardware")).replay_values)


def load_kwargs(got: dict, progress) -> dict:
    """load_trace's keyword arguments for the trace keys given: the options checked once
    (traces.trace_options, naming the field) and the progress bar."""
    kwargs: dict = {"options": traces.trace_options(**{name: got[name] for name in TRACE_KEYS if name in got})}
    if progress is not None:
        kwargs["progress"] = progress
    return kwargs
