"""Keyword arguments as the command line's text: one conversion, so the API runs the very
checks and defaults the CLI runs (a value is refused with the same ParamError)."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from core.registry import ParamError
from core.serving import aliases
from lab.cli import config_file


def text(name: str, value: Any) -> str:
    """A Python value as its command-line spelling: numbers exactly (floats by repr), bools
    true/false, paths as text, lists and tuples comma-joined (a list of lists: the
    sweep's alternatives, ';'-joined)."""
    scalar = config_file.scalar_text(value)
    if scalar is not None:
        return scalar
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "item") and not hasattr(value, "__len__"):  # a numpy scalar
        return text(name, value.item())
    if isinstance(value, (list, tuple, range)) or hasattr(value, "tolist"):
        items = list(value.tolist() if hasattr(value, "tolist") else value)
        if items and all(isinstance(v, (list, tuple)) for v in items):
            return ";".join(text(name, v) for v in items)
        return ",".join(text(name, v) for v in items)
    raise ParamError(name, f"got {value!r}; valid: a number, text, true/false, a path or a list of them")


def as_text(values: Mapping[str, Any], known: Iterable[str] | None = None, rest: str | None = None) -> dict[str, str]:
    """values under our names (vLLM's and dashed spellings too, as on the command line, and
    vLLM's on/off flags as bools), as text. With known and rest, a key outside known is refused as the CLI refuses it."""
    names = None if known is None else list(known)
    out: dict[str, str] = {}
    for key, value in values.items():
        if value is None:
            continue  # None: the default, as leaving the key out
        hit = aliases.flag(f"--{key}", names) if isinstance(value, bool) else None
        if hit is not None:  # vLLM's on/off flag as a keyword: enable_prefix_caching=False is prefix_caching=false
            name, on = hit
            out[name] = "true" if (on == "true") == value else "false"
            continue
        name = aliases.canonical(key, names)
        if names is not None and rest is not None and name not in names:
            raise aliases.unknown_key(name, names, rest)
        out[name] = text(name, value)
    return aliases.expand_goodput(out, names)  # goodput="ttft:2000 tpot:50" as vllm bench serve's


def with_config(config: str | os.PathLike | None, given: dict[str, str]) -> dict[str, str]:
    """A --config file's keys under the keywords' (the keywords win, as the command line does)."""
    if config is None:
        return given
    values = dict(config_file.load(os.fspath(config)).values)
    values.update(given)
    return values
