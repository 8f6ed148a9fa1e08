"""Reading a small, untrusted JSON or TOML file a user names (a model's config.json, a
card's TOML) and taking typed fields out of it, every refusal a ParamError naming the
parameter, the file and the field."""
from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Mapping
from typing import Any, Literal, overload

from core.registry import ParamError

# A Hugging Face config.json is a few kB (DeepSeek-V3's: 1.7 kB); a card's TOML is smaller.
MAX_CONFIG_BYTES = 1_000_000


def config_file(path: str, param: str, names: tuple[str, ...] = ("config.json",)) -> str:
    """A model's folder, as the Hub downloads it, stands for its config.json (the first of
    names inside it); any other path is itself. A folder without one is refused."""
    folder = os.path.expanduser(str(path))
    if os.path.isdir(folder):
        for name in names:
            if os.path.isfile(os.path.join(folder, name)):
                return os.path.join(str(path), name)
        raise ParamError(param, f"{shown_path(path)}: a folder without {' or '.join(names)}; valid: a Hugging Face "
                         "config.json, or the model's folder holding it")
    return path


def read_small_file(path: str, param: str, what: str) -> tuple[str, tuple]:
    """(text, identity) of a regular UTF-8 file of at most MAX_CONFIG_BYTES.

    Opened without blocking and checked on the open descriptor, so a FIFO, a device
    (/dev/zero) or a directory is refused, not read. identity = (device, inode, size,
    mtime_ns): a cache key that changes when the file does.
    """
    shown = shown_path(path)
    path = os.path.expanduser(str(path))  # '~/models/config.json' as a shell would read it
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise ParamError(param, f"{shown}: cannot open ({err.strerror or err}); valid: {what}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ParamError(param, f"{shown}: not a regular file; valid: {what}")
        if info.st_size > MAX_CONFIG_BYTES:
            raise ParamError(param, f"{shown}: {info.st_size:,} bytes; valid: {what} of at most "
                             f"{MAX_CONFIG_BYTES:,} bytes")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)  # the file may have grown since fstat
    except OSError as err:
        raise ParamError(param, f"{shown}: cannot read ({err.strerror or err}); valid: {what}") from None
    finally:
        os.close(fd)
    if len(raw) > MAX_CONFIG_BYTES:
        raise ParamError(param, f"{shown}: over {MAX_CONFIG_BYTES:,} bytes; valid: {what}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ParamError(param, f"{shown}: not UTF-8 text (byte {err.start}); valid: {what}") from None
    return text, (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def parse_json_object(text: str, where: str, param: str, what: str) -> dict:
    """The top-level JSON object of text (NaN and Infinity refused, as JSON has neither)."""
    def refuse_constant(name: str):
        raise ValueError(f"{name} is not JSON")

    try:
        data = json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as err:
        raise ParamError(param, f"{where}: not valid JSON (line {err.lineno}, column {err.colno}: "
                         f"{err.msg}); valid: {what}") from None
    except (ValueError, RecursionError) as err:  # NaN, or nesting deeper than any config
        raise ParamError(param, f"{where}: not a config ({str(err)[:60] or 'nested too deep'}); valid: {what}") from None
    if not isinstance(data, dict):
        raise ParamError(param, f"{where}: the top level is a {type(data).__name__}, not an object; valid: {what}")
    return data


class Fields:
    """Typed access to one object of a config: each refusal names file and field.

    prefix: where this object sits (e.g. 'vision_config.'), so the field names match
    what the user sees in the file.
    """

    def __init__(self, data: Mapping[str, Any], where: str, param: str, valid: str, prefix: str = ""):
        self.data = data
        self.where = where
        self.param = param
        self.valid = valid
        self.prefix = prefix

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def refuse(self, name: str, why: str, valid: str | None = None) -> ParamError:
        return ParamError(self.param, f"{self.where}: field {self.prefix}{name}: {why}; valid: {valid or self.valid}")

    def missing(self, name: str) -> ParamError:
        return ParamError(self.param, f"{self.where}: missing field {self.prefix}{name}; valid: {self.valid}")

    # A default, or a required field, always gives a number: the types say so to the callers.
    @overload
    def whole(self, name: str, low: int, high: int, default: int, *, required: bool = ...) -> int: ...
    @overload
    def whole(self, name: str, low: int, high: int, default: None = None, *,
              required: Literal[True] = True) -> int: ...
    @overload
    def whole(self, name: str, low: int, high: int, default: None = None, *, required: bool) -> int | None: ...

    def whole(self, name: str, low: int, high: int, default: int | None = None, *, required: bool = True) -> int | None:
        """A whole number in [low, high]; default when absent (or null), else refused."""
        value = self.data.get(name)
        if value is None:
            if default is not None or not required:
                return default
            raise self.missing(name)
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            value = int(value)  # 4096.0 written by some exporters
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.refuse(name, f"got {_short(value)}", f"a whole number in [{low:,}, {high:,}]")
        if not low <= value <= high:
            raise self.refuse(name, f"got {value:,}", f"a whole number in [{low:,}, {high:,}]")
        return value

    @overload
    def number(self, name: str, low: float, high: float, *, required: Literal[True] = True) -> float: ...
    @overload
    def number(self, name: str, low: float, high: float, *, required: bool) -> float | None: ...

    def number(self, name: str, low: float, high: float, *, required: bool = True) -> float | None:
        """A finite number in [low, high], or None when absent and not required."""
        value = self.data.get(name)
        if value is None:
            if required:
                raise self.missing(name)
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
            raise self.refuse(name, f"got {_short(value)}", f"a number in [{low:g}, {high:g}]")
        if not low <= float(value) <= high:
            raise self.refuse(name, f"got {float(value):g}", f"a number in [{low:g}, {high:g}]")
        return float(value)

    def flag(self, name: str, default: bool) -> bool:
        value = self.data.get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.refuse(name, f"got {_short(value)}", "true or false")
        return value

    def text(self, name: str, default: str | None = None, max_chars: int = 200) -> str | None:
        value = self.data.get(name)
        if value is None:
            return default
        if not isinstance(value, str) or len(value) > max_chars:
            raise self.refuse(name, f"got {_short(value)}", f"a text of at most {max_chars} characters")
        return value

    def whole_list(self, name: str, low: int, high: int, max_items: int) -> tuple[int, ...]:
        """A list of whole numbers in [low, high] (absent or null: empty)."""
        value = self.data.get(name)
        if value is None:
            return ()
        if not isinstance(value, list) or len(value) > max_items:
            raise self.refuse(name, f"got {_short(value)}", f"a list of at most {max_items:,} whole numbers")
        out = []
        for item in value:
            if isinstance(item, bool) or not isinstance(item, int) or not low <= item <= high:
                raise self.refuse(name, f"item {_short(item)}", f"whole numbers in [{low:,}, {high:,}]")
            out.append(item)
        return tuple(out)

    def child(self, name: str) -> Fields | None:
        """The nested object name (e.g. text_config), or None when absent."""
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.refuse(name, f"got {_short(value)}", "an object")
        return Fields(value, self.where, self.param, self.valid, f"{self.prefix}{name}.")


def display_name(path: str, data: Mapping[str, Any]) -> str:
    """A model's name: the config's _name_or_path, else its folder (for config.json) or file name."""
    named = data.get("_name_or_path")
    if isinstance(named, str) and 0 < len(named) <= 120:
        return named.rstrip("/").split("/")[-1]
    stem = os.path.splitext(os.path.basename(str(path)))[0]
    folder = os.path.basename(os.path.dirname(os.path.abspath(str(path))))
    return folder if stem == "config" and folder else stem


def shown_path(path: str) -> str:
    """The path as a refusal quotes it: one short line."""
    text = str(path)
    return repr(text) if len(text) <= 80 else repr("…" + text[-70:])


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:30] + "…"

