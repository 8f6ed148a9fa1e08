"""Talk files: an ordered list of scenes a speaker steps through, read from TOML.

A scene is one panel's state (a PanelModel JSON fragment: cards, view, players, and the
vision panel's image) plus what the talk shows around it: a title, an annotation (the
book's caption, shown large), notes for the presenter, the card to scroll to (focus), the
UI zoom and whether the panel's ▶ starts on entry. Where the page scrolls to: the figure
whose title holds `figure` (checked by the window, which draws the titles), else the
section of the `focus` card. Every scene is checked by loading it
into the panel's own state model, so a talk refuses exactly what a session or the panel
would refuse, with the same field names.

A bad scene does not refuse the talk: it keeps its place with one message naming the
scene (number and title) and the field, and the talk opens at the first good scene. A
file that is not TOML, or has no good scene, is refused whole (ParamError).
Pure Python: no Qt, no Pillow (an image's size comes from the caller's probe).
"""
from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.file_guard import FileRefused, check_depth, read_regular
from core.look import MAX_ZOOM, MIN_ZOOM
from core.registry import ParamError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python): the same parser as a package
    import tomli as tomllib

# Panel key (as `lab snapshot --list` prints it) -> its state model, "module:Class".
STATE_MODELS = {
    "request": "core.request.state:RequestState",
    "serving": "core.serving.state:ServingState",
    "plan": "core.rl.plan_state:PlanState",
    "agents": "core.agents.state:AgentsState",
    "vision": "core.vision.state:VisionState",
    "audio": "core.audio.state:AudioState",
    "voice": "core.voice.state:VoiceState",
    "training": "core.training_state:TrainingState",
    "scaling": "core.scaling.state:ScalingState",
    "verify": "core.verify_state:VerifyState",
}

# The keys a [[scene]] table may hold, with what each must be.
SCENE_KEYS = {
    "panel": "a panel key", "title": "text", "annotation": "text", "notes": "text",
    "cards": "a table of card slot -> table of parameter = value",
    "view": "a table of view option = value",
    "players": "a table of player = position, or player = { position = p, speed = s }",
    "autoplay": "true, false or a player name", "focus": "a card slot to scroll to",
    "figure": "text of a figure's title to scroll to (e.g. 图 3-20)",
    "ranges": "a table of figure title text -> { x = [low, high], y = [low, high] }",
    "image": "an image file, relative to the talk file (vision)", "zoom": "a UI zoom factor 0.5..3",
}
ZOOM_RANGE = (MIN_ZOOM, MAX_ZOOM)
# A talk is tens of scenes in tens of kB; each scene builds and checks a panel's state.
MAX_TALK_BYTES = 1024 * 1024
MAX_TALK_DEPTH = 32
MAX_SCENES = 500

# (path) -> (height, width, file_bytes) of an image file, or ParamError.
ImageProbe = Callable[[str], "tuple[int, int, int]"]


@dataclass(frozen=True)
class Scene:
    """One step of a talk. `state` is the panel's whole state as its model writes it
    (to_json), so applying a scene and resetting to it are one load_json."""

    number: int  # 1-based, as in the file
    panel: str
    title: str = ""
    annotation: str = ""
    notes: str = ""
    state: dict = field(default_factory=dict)
    focus: str = ""  # card slot whose section is scrolled into view ("" = top of the page)
    figure: str = ""  # text of the title of the figure scrolled to the top (before focus)
    autoplay: str = ""  # player to start on entry ("" = none)
    image: str = ""  # absolute path of the vision scene's image ("" = none)
    zoom: float | None = None  # UI zoom for this scene (None: the talk's)
    # Plot ranges: figure title text -> {"x": (low, high), "y": (low, high)} (either or both).
    ranges: dict = field(default_factory=dict)
    speeds: dict = field(default_factory=dict)  # player -> ▶ speed its panel keeps in no view option
    error: str = ""  # why this scene cannot be shown ("" = good)

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def label(self) -> str:
        """'scene 3 «图 3-2 …»': how messages name this scene."""
        return f"scene {self.number}" + (f" «{self.title}»" if self.title else "")


@dataclass(frozen=True)
class Talk:
    path: str
    title: str
    scenes: tuple[Scene, ...]

    @property
    def errors(self) -> list[str]:
        """One message per bad scene, naming it and the field."""
        return [s.error for s in self.scenes if s.error]

    @property
    def first_good(self) -> int:
        """Index of the scene the talk opens at."""
        return next(i for i, s in enumerate(self.scenes) if s.ok)

    def scene(self, number: int) -> Scene:
        """Scene by its 1-based number; ParamError naming --scene with the valid range."""
        if not 1 <= number <= len(self.scenes):
            raise ParamError("--scene", f"got {number}; valid: 1..{len(self.scenes)} ({os.path.basename(self.path)} "
                             f"has {len(self.scenes)} scenes)")
        return self.scenes[number - 1]


def model_class(panel: str):
    """The panel's state model class (KeyError for an unknown key)."""
    module, _, name = STATE_MODELS[panel].partition(":")
    return getattr(importlib.import_module(module), name)


def state_model(panel: str):
    """A fresh state model of the panel."""
    return model_class(panel)()


def load_talk(path: str | os.PathLike, probe_image: ImageProbe | None = None) -> Talk:
    """Read and check a talk file. ParamError('talk', …) if it cannot be read, is not TOML
    or has no good scene; bad scenes are kept, each with its message."""
    path = os.fspath(path)
    try:  # the guard session files have: a regular file, its size, its nesting (core/file_guard.py)
        text = read_regular(path, MAX_TALK_BYTES).decode("utf-8")
        check_depth(text, MAX_TALK_DEPTH, "toml")
        data = tomllib.loads(text)
    except FileRefused as err:
        raise ParamError("talk", f"{path}: {err}; valid: a readable .toml file of at most {MAX_TALK_BYTES:,} bytes, "
                         f"nested at most {MAX_TALK_DEPTH} levels") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise ParamError("talk", f"{path}: not TOML ({err}); valid: a [[scene]] list, see README 'Talks'") from None
    return parse_talk(data, path, probe_image)


def parse_talk(data: Mapping[str, Any], path: str = "talk.toml", probe_image: ImageProbe | None = None) -> Talk:
    """A talk from parsed TOML (see load_talk)."""
    unknown = sorted(set(data) - {"title", "scene"})
    if unknown:
        raise ParamError("talk", f"{path}: unknown key {unknown[0]!r}; valid: title, [[scene]]")
    tables = data.get("scene")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise ParamError("talk", f"{path}: no scenes; valid: one or more [[scene]] tables")
    if len(tables) > MAX_SCENES:
        raise ParamError("talk", f"{path}: {len(tables):,} scenes; valid: at most {MAX_SCENES:,} [[scene]] tables")
    base = os.path.dirname(os.path.abspath(path))
    models: dict[str, Any] = {}  # one checking model per panel, shared by its scenes
    scenes = tuple(_scene(i + 1, table, base, models, probe_image) for i, table in enumerate(tables))
    if not any(s.ok for s in scenes):
        raise ParamError("talk", f"{path}: no good scene; " + " | ".join(s.error for s in scenes))
    title = data.get("title", "")
    return Talk(path, title if isinstance(title, str) else "", scenes)


def _scene(number: int, table: Mapping[str, Any], base: str, models: dict, probe: ImageProbe | None) -> Scene:
    title = table.get("title", "") if isinstance(table.get("title", ""), str) else ""
    panel = table.get("panel", "")
    try:
        return _checked_scene(number, title, table, base, models, probe)
    except ParamError as err:
        label = Scene(number, str(panel), title).label
        message = f"{label}: {err.param}: {err.message}"
        return Scene(number, str(panel), title, error=message)


def _checked_scene(number: int, title: str, table: Mapping[str, Any], base: str, models: dict,
                   probe: ImageProbe | None) -> Scene:
    for key in table:
        if key not in SCENE_KEYS:
            raise ParamError(key, f"unknown scene key; valid: {', '.join(SCENE_KEYS)}")
    panel = table.get("panel")
    if panel not in STATE_MODELS:
        raise ParamError("panel", f"got {panel!r}; valid: {', '.join(STATE_MODELS)}" if panel is not None
                         else f"required; valid: {', '.join(STATE_MODELS)}")
    texts = {k: _text(table, k) for k in ("title", "annotation", "notes", "focus", "figure", "image")}
    fragment: dict[str, Any] = {"panel": panel}
    for group in ("cards", "view", "players"):
        value = table.get(group, {})
        if not isinstance(value, dict):
            raise ParamError(group, f"got {value!r}; valid: {SCENE_KEYS[group]}")
        fragment[group] = value
    fragment["players"], speeds = _player_speeds(fragment["players"], fragment["view"], model_class(panel))
    for slot, values in fragment["cards"].items():
        if not isinstance(values, dict):
            raise ParamError(f"cards.{slot}", f"got {values!r}; valid: a table of parameter = value")
    if panel not in models:
        models[panel] = state_model(panel)
    model = models[panel]
    image = texts["image"]
    if image:
        image = _image_fragment(fragment, model, os.path.normpath(os.path.join(base, image)), probe)
    checked = {}
    for slot, values in fragment["cards"].items():  # the field named with its card
        if slot in model.cards:
            try:
                checked[slot] = model.check_card(slot, values)
            except ParamError as err:
                raise ParamError(f"cards.{slot}.{err.param}", err.message) from None
    model.load_json(fragment, checked)  # everything the panel itself checks: cards, values, view, players
    focus = texts["focus"] or next(iter(fragment["cards"]), "")
    if focus and focus not in model.cards:
        raise ParamError("focus", f"no card {focus!r}; valid: {', '.join(model.cards) or 'none'}")
    return Scene(number, panel, title, texts["annotation"], texts["notes"], model.to_json(), focus, texts["figure"],
                 _autoplay(table.get("autoplay", False), model), image, _zoom(table.get("zoom")),
                 _ranges(table.get("ranges", {})), speeds)


def _text(table: Mapping[str, Any], key: str) -> str:
    value = table.get(key, "")
    if not isinstance(value, str):
        raise ParamError(key, f"got {value!r}; valid: {SCENE_KEYS[key]}")
    return value.strip() if key != "notes" else value


def _autoplay(value: Any, model) -> str:
    players = tuple(model.PLAYERS)
    if value is False:
        return ""
    if not players:
        raise ParamError("autoplay", f"the {model.key} panel has no ▶ player; valid: false")
    if value is True:
        return players[0]
    if value in players:
        return value
    raise ParamError("autoplay", f"got {value!r}; valid: true, false or one of {', '.join(players)}")


def _zoom(value: Any) -> float | None:
    if value is None:
        return None
    low, high = ZOOM_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise ParamError("zoom", f"got {value!r}; valid: a number {low:g}..{high:g}")
    return float(value)


def _player_speeds(players: dict, view: dict, model) -> tuple[dict, dict]:
    """Positions for the state; each speed into the view option that holds it (request's
    step_speed), else apart (a speed only the ▶ widget keeps)."""
    positions, speeds = {}, {}
    for name, value in players.items():
        if not isinstance(value, dict):
            positions[name] = value
            continue
        if name not in model.PLAYERS:
            raise ParamError(f"players.{name}", f"unknown; valid: {', '.join(model.PLAYERS) or 'none'}")
        extra = set(value) - {"position", "speed"}
        if extra:
            raise ParamError(f"players.{name}.{sorted(extra)[0]}", "unknown; valid: position, speed")
        if "position" in value:
            positions[name] = value["position"]
        if "speed" in value:
            speed = value["speed"]
            if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not math.isfinite(speed) \
                    or speed <= 0:
                raise ParamError(f"players.{name}.speed", f"got {speed!r}; valid: a number > 0")
            option = next((o for o in (f"{name}_speed", f"{name.rstrip('s')}_speed") if o in model.VIEW), None)
            if option is not None:
                view[option] = float(speed)
            else:
                speeds[name] = float(speed)
    return positions, speeds


def _ranges(value: Any) -> dict:
    """{figure text: {"x"|"y": (low, high)}}; ParamError naming ranges.<figure>.<axis>."""
    if not isinstance(value, dict):
        raise ParamError("ranges", f"got {value!r}; valid: {SCENE_KEYS['ranges']}")
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for figure, axes in value.items():
        if not figure.strip() or not isinstance(axes, dict) or not axes or set(axes) - {"x", "y"}:
            raise ParamError(f"ranges.{figure}", f"got {axes!r}; valid: {{ x = [low, high], y = [low, high] }}")
        out[figure] = {}
        for axis, pair in axes.items():
            ok = (isinstance(pair, list) and len(pair) == 2
                  and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in pair)
                  and pair[0] < pair[1])
            if not ok:
                raise ParamError(f"ranges.{figure}.{axis}", f"got {pair!r}; valid: [low, high] with low < high")
            out[figure][axis] = (float(pair[0]), float(pair[1]))
    return out


def _image_fragment(fragment: dict, model, path: str, probe: ImageProbe | None) -> str:
    """Make the vision fragment's request hold this one image (its size from probe)."""
    if model.key != "vision":
        raise ParamError("image", f"the {model.key} panel shows no image; valid: only on a vision scene")
    if not os.path.isfile(path):
        raise ParamError("image", f"no file {path}; valid: an image file, relative to the talk file")
    if probe is None:
        raise ParamError("image", "cannot read image sizes here; valid: open the talk with `lab talk` or "
                         "`lab snapshot --talk`")
    height, width, file_bytes = probe(path)
    request = dict(fragment["cards"].get("request", {}))
    request.update({"heights": [height], "widths": [width], "file_bytes": [file_bytes]})
    fragment["cards"] = {**fragment["cards"], "request": request}
    fragment["images"] = [path]
    fragment["view"] = {**fragment["view"], "image": path}
    return path
