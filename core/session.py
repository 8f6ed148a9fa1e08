"""A session as data: every panel's state and the window's look, in one `.lab.json` file.

Pure Python (the window applies it in lab/session.py). A file is read whole, checked whole
and only then applied, so a bad one changes nothing: `read_session` refuses anything that
is not a regular file of at most MAX_BYTES holding this schema (a newer version too, with a
message that says so), and `check_panels` loads each panel's state into a fresh model
first (a dry run). `write_session` writes a temporary file beside the target and renames
it over, so a crash or a full disk never leaves half a session.

Schema (VERSION 2):
    {"format": "load-lab-session", "version": 2, "saved_at": "2026-...Z",
     "current_panel": "request", "window": {"x": 0, "y": 0, "width": 1280, "height": 720,
     "maximized": false}, "zoom": 1.0, "theme": "light", "language": "both",
     "panels": {"<key>": <PanelModel JSON>, ...}}
A panel missing from "panels" opens as a new panel does.

Migrations: MIGRATIONS[n] turns a version-n session into version n + 1.
    1 -> 2: version 1 had no language switch (every label was "中文 · English"): "both".
"""
from __future__ import annotations

import datetime
import json
import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from core.atomic_file import write_atomic
from core.file_guard import FileRefused, check_depth, read_regular
from core.look import MAX_ZOOM, MIN_ZOOM
from core.registry import ParamError
from core.talk import STATE_MODELS, model_class

FORMAT = "load-lab-session"
VERSION = 2
SUFFIX = ".lab.json"
MAX_BYTES = 8 * 1024 * 1024  # a session is a few kB; anything this big is not one
MAX_DEPTH = 64  # a panel's state nests a few levels; the JSON parser recurses per level
LANGUAGES = ("zh", "en", "both")
ZOOM_RANGE = (MIN_ZOOM, MAX_ZOOM)  # what the window can show
WINDOW_RANGE = (-100_000, 100_000)  # pixels: any real screen layout fits


class SessionError(ValueError):
    """A session that cannot be read, checked or written; the message says why."""


def _v1_to_v2(data: dict) -> dict:
    return {**data, "version": 2, "language": "both"}


MIGRATIONS: dict[int, Callable[[dict], dict]] = {1: _v1_to_v2}


def make_session(current_panel: str, window: Mapping[str, Any], zoom: float, theme: str, language: str,
                 panels: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A session of the current version from its parts (checked, as a read one is)."""
    data = {"format": FORMAT, "version": VERSION,
            "saved_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "current_panel": current_panel, "window": dict(window), "zoom": float(zoom), "theme": theme,
            "language": language, "panels": {k: v for k, v in panels.items()}}
    check_session(data)
    return data


def dumps(data: Mapping[str, Any]) -> str:
    """The file's text: stable key order, so an unchanged session writes the same bytes."""
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True, allow_nan=False) + "\n"


# ---- reading ------------------------------------------------------------------------------
def read_session(path: str) -> dict[str, Any]:
    """The session in path, migrated to VERSION and checked (panels' contents aside: see
    check_panels). SessionError saying what is wrong, and nothing read half."""
    try:
        raw = read_regular(path, MAX_BYTES)
    except FileRefused as err:
        reason = str(err)
        if reason.startswith("not a regular file"):
            reason += f"; a session is a {SUFFIX} file"
        elif "bytes" in reason:
            reason += f"; a session is at most {MAX_BYTES:,} bytes"
        raise SessionError(f"{path}: {reason}") from None
    return parse_session(raw, path)


def parse_session(raw: bytes | str, where: str = "session") -> dict[str, Any]:
    """Decode, migrate and check a session's text."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        check_depth(text, MAX_DEPTH, "json")
        data = json.loads(text, parse_constant=_refuse_constant)
    except UnicodeDecodeError as err:
        raise SessionError(f"{where}: not UTF-8 text (byte {err.start}); not a session file") from None
    except json.JSONDecodeError as err:
        raise SessionError(f"{where}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg}); "
                           "the file is damaged or cut short") from None
    except (ValueError, RecursionError, FileRefused) as err:
        raise SessionError(f"{where}: not valid JSON ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionError(f"{where}: not a Load Lab session (no \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SessionError(f"{where}: version: got {version!r}; valid: a whole number 1..{VERSION}")
    if version > VERSION:
        raise SessionError(f"{where}: written by a newer Load Lab (session version {version}); "
                           f"this one reads versions 1..{VERSION}. Nothing was changed.")
    while data["version"] < VERSION:
        data = MIGRATIONS[data["version"]](data)
    try:
        check_session(data)
    except SessionError as err:
        raise SessionError(f"{where}: {err}") from None
    return data


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a session holds")


def check_session(data: Mapping[str, Any]) -> None:
    """Every field of a current-version session, but the panels' contents; SessionError
    naming the field and what it may be."""
    _need(isinstance(data.get("current_panel"), str), "current_panel", data.get("current_panel"), "a panel name")
    window: Any = data.get("window")  # _need refuses what is not a dict
    _need(isinstance(window, dict), "window", window, "{x, y, width, height, maximized}")
    for name in ("x", "y", "width", "height"):
        value = window.get(name)
        low = 1 if name in ("width", "height") else WINDOW_RANGE[0]
        _need(isinstance(value, int) and not isinstance(value, bool) and low <= value <= WINDOW_RANGE[1],
              f"window.{name}", value, f"a whole number of pixels {low}..{WINDOW_RANGE[1]}")
    _need(isinstance(window.get("maximized", False), bool), "window.maximized", window.get("maximized"), "true or false")
    zoom = data.get("zoom")
    _need(isinstance(zoom, (int, float)) and not isinstance(zoom, bool) and math.isfinite(zoom)
          and ZOOM_RANGE[0] <= zoom <= ZOOM_RANGE[1], "zoom", zoom, f"a number {ZOOM_RANGE[0]}..{ZOOM_RANGE[1]}")
    _need(isinstance(data.get("theme"), str) and 0 < len(data["theme"]) <= 40, "theme", data.get("theme"),
          "a theme name")
    _need(data.get("language") in LANGUAGES, "language", data.get("language"), " / ".join(LANGUAGES))
    panels: Any = data.get("panels")
    _need(isinstance(panels, dict), "panels", panels, "an object of panel name -> panel state")
    for key, state in panels.items():
        _need(isinstance(state, dict), f"panels.{key}", type(state).__name__, "a panel state object")


def _need(ok: bool, field: str, got: Any, valid: str) -> None:
    if not ok:
        shown = repr(got)
        raise SessionError(f"{field}: got {shown[:60] + '…' if len(shown) > 60 else shown}; valid: {valid}")


# ---- panels -------------------------------------------------------------------------------
def panel_model_classes() -> dict[str, type]:
    """Each panel's state model class by panel key, as core.talk.STATE_MODELS names them
    (a session checks panels not built yet too)."""
    return {key: model_class(key) for key in STATE_MODELS}


def check_panels(panels: Mapping[str, Mapping[str, Any]], models: Mapping[str, Callable[[], Any]]) -> dict[str, dict]:
    """Load each panel's state into a new model (models: key -> a factory of its PanelModel)
    and return every known panel's full state: the file's, or a new panel's for those the
    file leaves out. SessionError naming the panel and the field if one is refused."""
    unknown = sorted(set(panels) - set(models))
    if unknown:
        raise SessionError(f"panels.{unknown[0]}: unknown panel; valid: {', '.join(sorted(models))}")
    checked: dict[str, dict] = {}
    for key, factory in models.items():
        model = factory()
        if key in panels:
            cards = _check_cards(key, panels[key], model)
            try:
                model.load_json(panels[key], cards)
            except (ParamError, KeyError, TypeError, ValueError, AttributeError) as err:
                raise SessionError(f"panels.{key}: {err}") from None
            refused = {f"{slot}.{field}": message for slot, card in model.cards.items()
                       for field, message in card.errors.items()}
            if refused:
                field, message = next(iter(refused.items()))
                raise SessionError(f"panels.{key}.cards.{field}: {message}")
        checked[key] = model.to_json()
    return checked


def _check_cards(key: str, state: Mapping[str, Any], model: Any) -> dict:
    """Each card's values against its calculator, so the message names the card: slot ->
    its checked Inputs (load_json takes them as they are)."""
    cards = state.get("cards", {})
    if not isinstance(cards, dict):
        raise SessionError(f"panels.{key}.cards: got {type(cards).__name__}; valid: an object of card -> values")
    checked = {}
    for slot, values in cards.items():
        card = model.cards.get(slot)
        if card is None:
            raise SessionError(f"panels.{key}.cards.{slot}: unknown card; valid: {', '.join(model.cards)}")
        if not isinstance(values, dict):
            raise SessionError(f"panels.{key}.cards.{slot}: got {type(values).__name__}; valid: an object of values")
        try:
            checked[slot] = card.calculator.resolve(values)
        except ParamError as err:
            raise SessionError(f"panels.{key}.cards.{slot}.{err}") from None
    return checked


# ---- writing ------------------------------------------------------------------------------
def write_session(path: str, data: Mapping[str, Any]) -> None:
    """Write data to path atomically (core.atomic_file: a temporary file in the same folder,
    flushed, then renamed over path). SessionError if the folder cannot be written; no file
    is left half."""
    text = dumps(data).encode("utf-8")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        write_atomic(path, text)
    except OSError as err:
        where = f"cannot write in {folder}" if err.filename == folder else "cannot write"
        raise SessionError(f"{path}: {where} ({err.strerror or err}); nothing was written") from None
