"""A calibration profile: the card, the engine it was measured on, the fitted step-time
coefficients, coefficient sets drawn for uncertainty and the runs they came from, in one
TOML file that `hardware=PROFILE.toml` or `profile=PROFILE.toml` takes wherever hardware=
is taken (core/serving/simulate_keys.py: simulate, sweep, the panels).

    format = "load-lab-profile"
    version = 1
    model = "tiny-llama-cpu"
    hardware = "core/data/hardware/cpu-2core.toml"   # the card's key or file, as given
    engine = "vLLM 0.32.0+cpu"
    [card]            # the card's figures, the keys of a hardware TOML (core/hardware_config.py)
    [settings]        # how the measured server ran (block_size, num_gpu_blocks, ...)
    [coefficients]    # `lab simulate serving` keys: coef_*=, bandwidth_efficiency=, prefill_mfu=
    [fit]             # the loss, the keys fitted, convergence, bands
    [[runs]]          # file, sha256, requests, fit error
    [[samples]]       # coefficient sets (bootstrap refits), the fitted keys only

A catalog card (hardware = a catalog key) is taken from the catalog itself, so the
profile's replays equal hardware=KEY's bit for bit; a card from a file from [card].

Here in core.serving, not core.calibrate (which re-exports it): simulate_keys reads
profiles, and core.calibrate imports core.serving (import-linter: no circles). The TOML
writer at the end writes the profile's plain data (tomllib reads, the standard library
does not write); floats by repr, so they read back bit for bit. No Qt here.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

from core import catalog
from core.atomic_file import write_atomic
from core.hardware_config import VALID as CARD_VALID
from core.hardware_config import HardwareSpec, card_from_table, load_hardware
from core.model_config.reading import read_small_file, shown_path
from core.registry import ParamError
from core.serving.step_defaults import DEFAULTS as STEP_DEFAULTS

FORMAT = "load-lab-profile"
VERSION = 1
# The coefficients a profile may set, by their `lab simulate serving` names: the card's two
# efficiencies, the basis step model's terms and the API server's (the front end's: ms, us).
FRONTEND_KEYS = ("frontend_request_ms", "frontend_input_token_us", "frontend_output_token_us")
COEF_KEYS = ("bandwidth_efficiency", "prefill_mfu") + tuple(STEP_DEFAULTS) + FRONTEND_KEYS
COEF_RANGE = {"bandwidth_efficiency": (1e-3, 1.0), "prefill_mfu": (1e-3, 1.0)}
COEF_RANGE.update({k: (0.0, 1.0) if k.endswith("_s") else (0.0, 100.0) for k in STEP_DEFAULTS})
COEF_RANGE.update({"frontend_request_ms": (0.0, 1e4), "frontend_input_token_us": (0.0, 1e4),
                   "frontend_output_token_us": (0.0, 1e6)})
MAX_SAMPLES = 10_000
VALID = f'a profile written by lab calibrate (format = "{FORMAT}", [card], [coefficients])'


@dataclass
class Profile:
    model: str
    hardware: str
    card: dict
    engine: str | None = None
    settings: dict = field(default_factory=dict)
    coefficients: dict = field(default_factory=dict)
    samples: list = field(default_factory=list)
    runs: list = field(default_factory=list)
    fit: dict = field(default_factory=dict)
    path: str | None = None  # where it was read from

    def to_toml(self) -> str:
        head = ("# Load Lab calibration profile (lab calibrate). Use it as hardware=THIS.toml or\n"
                "# profile=THIS.toml in lab simulate serving / lab sweep serving (explicit keys win).\n")
        data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "model": self.model, "hardware": self.hardware}
        if self.engine:
            data["engine"] = self.engine
        data.update(card=_plain(self.card), settings=_plain(self.settings),
                    coefficients={k: float(v) for k, v in self.coefficients.items()}, fit=_plain(self.fit))
        data["runs"] = [_plain(r) for r in self.runs]
        data["samples"] = [{k: float(v) for k, v in s.items()} for s in self.samples]
        return head + dumps(data)

    def card_spec(self) -> HardwareSpec:
        """The card as a HardwareSpec: the catalog's own for a catalog key, else [card]."""
        if self.hardware in catalog.hardware_keys():
            return load_hardware(self.hardware)
        where = f"{shown_path(self.path)} [card]" if self.path else "the profile's [card]"
        return card_from_table(self.card, where, self.hardware, valid=CARD_VALID)


def card_table(card: HardwareSpec) -> dict:
    """A card's figures under a hardware TOML's keys (None and empty left out)."""
    out: dict[str, Any] = {"name": card.name, "memory_bytes": card.memory_bytes,
                           "bandwidth_bytes_per_s": card.bandwidth_bytes_per_s,
                           "peak_flops": {k: float(v) for k, v in card.peak_flops.items()},
                           "source": card.source, "price_per_card_hour": card.price_per_card_hour,
                           "price_source": card.price_source, "link_kind": card.link_kind,
                           "link_bandwidth_bytes_per_s": card.link_bandwidth_bytes_per_s,
                           "link_latency_s": card.link_latency_s, "link_source": card.link_source}
    return {k: (float(v) if isinstance(v, int) and not isinstance(v, bool) else v)
            for k, v in out.items() if v not in (None, "")}


def save_profile(profile: Profile, path) -> None:
    """Written whole or not at all (core/atomic_file.py)."""
    write_atomic(path, profile.to_toml().encode("utf-8"))


def load_profile(path, *, param: str = "profile") -> Profile:
    """Read and check a profile; ParamError naming param, the file and the field."""
    text, _ = read_small_file(str(path), param, VALID)
    where = shown_path(str(path))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ParamError(param, f"{where}: not valid TOML ({err}); valid: {VALID}") from None
    if data.get("format") != FORMAT:
        raise ParamError(param, f"{where}: format is {data.get('format')!r}; valid: {VALID}")
    if data.get("version") != VERSION:
        raise ParamError(param, f"{where}: version {data.get('version')!r}; valid: {VERSION}")
    for key in ("model", "hardware"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ParamError(param, f"{where}: field {key}: missing or not text; valid: {VALID}")
    for key in ("card", "settings", "coefficients", "fit"):
        if not isinstance(data.get(key, {}), dict):
            raise ParamError(param, f"{where}: field {key}: not a table; valid: {VALID}")
    coefs = _coefficients(data.get("coefficients", {}), f"{where}: field coefficients", param)
    samples = data.get("samples", [])
    if not isinstance(samples, list) or len(samples) > MAX_SAMPLES:
        raise ParamError(param, f"{where}: field samples: not a list of at most {MAX_SAMPLES} tables; valid: {VALID}")
    checked = [_coefficients(s, f"{where}: field samples[{i}]", param) for i, s in enumerate(samples)]
    runs = data.get("runs", [])
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        raise ParamError(param, f"{where}: field runs: not an array of tables; valid: {VALID}")
    prof = Profile(model=data["model"].strip(), hardware=data["hardware"].strip(), card=dict(data.get("card", {})),
                   engine=data.get("engine") if isinstance(data.get("engine"), str) else None,
                   settings=dict(data.get("settings", {})), coefficients=coefs, samples=checked, runs=runs,
                   fit=dict(data.get("fit", {})), path=str(path))
    prof.card_spec()  # a bad [card] is refused here, naming its field
    return prof


def _coefficients(table, where: str, param: str) -> dict[str, float]:
    if not isinstance(table, dict):
        raise ParamError(param, f"{where}: not a table; valid: {VALID}")
    out = {}
    for key, value in table.items():
        if key not in COEF_KEYS:
            import difflib
            close = difflib.get_close_matches(key, COEF_KEYS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ParamError(param, f"{where}.{key}: unknown coefficient{hint}; valid: {', '.join(COEF_KEYS)}")
        low, high = COEF_RANGE[key]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or not low <= value <= high:
            raise ParamError(param, f"{where}.{key}: got {value!r}; valid: a number in [{low:g}, {high:g}]")
        out[key] = float(value)
    return out


def is_profile(path) -> bool:
    """True for a readable .toml file that says it is a profile (a card's TOML is not)."""
    if not path or not str(path).lower().endswith(".toml"):
        return False
    try:
        info = os.stat(os.path.expanduser(str(path)))
    except OSError:
        return False
    return _is_profile(os.path.expanduser(str(path)), (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))


@lru_cache(maxsize=64)
def _is_profile(path: str, stamp: tuple) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return f'format = "{FORMAT}"'.encode() in head


def read_cached(path) -> Profile:
    """load_profile, read again only when the file changed (a sweep expands its keys at
    every point)."""
    p = os.path.expanduser(str(path))
    info = os.stat(p)
    return _read(p, (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))


@lru_cache(maxsize=16)
def _read(path: str, stamp: tuple) -> Profile:
    return load_profile(path)


def _plain(value):
    """numpy values and tuples as TOML takes them; None dropped."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value if v is not None]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    return value


def choose_with_profile(model: str | None, path: str):
    """model_choice.choose(model, hardware) where hardware= names a profile: its card (the
    profile's model when model is None), chosen by choose() itself from the profile's card
    (the catalog's for a catalog key): the same defaults as for that card given as
    hardware=. ParamErrors name hardware."""
    import dataclasses

    from core.serving.model_choice import choose

    try:
        prof = read_cached(path)
    except ParamError as err:
        raise ParamError("hardware", err.message) from None
    choice = choose(model or prof.model, prof.hardware, card=prof.card_spec())
    return dataclasses.replace(choice, hardware=str(path))


# -- the TOML writer: strings, booleans, numbers, lists, tables, arrays of tables --------
BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def dumps(data: dict) -> str:
    lines: list[str] = []
    _table(lines, data, ())
    return "\n".join(lines).strip("\n") + "\n"


def _key(name: str) -> str:
    return name if BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # JSON's escapes are TOML basic-string escapes
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if hasattr(v, "item"):  # a numpy scalar
        return _value(v.item())
    raise TypeError(f"no TOML form for {type(v).__name__}")


def _is_tables(v) -> bool:
    return isinstance(v, (list, tuple)) and bool(v) and all(isinstance(x, dict) for x in v)


def _table(lines: list[str], data: dict, path: tuple) -> None:
    for k, v in data.items():
        if v is None or isinstance(v, dict) or _is_tables(v):
            continue
        lines.append(f"{_key(str(k))} = {_value(v)}")
    for k, v in data.items():
        if isinstance(v, dict):
            sub = path + (str(k),)
            lines.append("")
            lines.append("[" + ".".join(_key(p) for p in sub) + "]")
            _table(lines, v, sub)
    for k, v in data.items():
        if _is_tables(v):
            sub = path + (str(k),)
            for item in v:
                lines.append("")
                lines.append("[[" + ".".join(_key(p) for p in sub) + "]]")
                _table(lines, item, sub)
