"""A trace's `images` column: one request's images, as the trace loaders read them
(csv, jsonl, mooncake; core/serving/multimodal/ turns them into tokens and encoder work).

An entry is a list (JSON) or, in a CSV cell, items separated by ';' (or a JSON list):
  "HxW"               an image of its own (no id: never a cache hit)
  "ID:HxW[:BYTES]"    an image id (equal ids are the same image) with its size, and its file bytes
  {"id": "cat", "height": 480, "width": 640, "file_bytes": 81234}   (JSON; id and file_bytes optional)
Refusals are the loaders' ParamError('trace', ...) naming the row. Only text is parsed
here: the images' tokens and FLOPs come later (images.py), once per distinct size.
"""
from __future__ import annotations

import json
import re

from core.registry import ParamError
from core.serving.traces.guard import fail, short
from core.vision import calculator as vc

_SIZE = re.compile(r"^\s*(\d{1,7})\s*[xX×]\s*(\d{1,7})\s*$")
MAX_IMAGES = 256  # per request (the Vision panel's request holds as many)
MAX_ID_CHARS = 200
MAX_FILE_BYTES = 1 << 40
VALID = ("valid: a list of 'HxW', 'ID:HxW[:BYTES]' or {id, height, width, file_bytes}; in CSV items "
         "separated by ';'")


def parse_size(text: str, name: str = "image_size") -> tuple[int, int]:
    """'HxW' (x, X or ×) -> (height, width), each 1..MAX_SIDE pixels."""
    match = _SIZE.match(str(text))
    if not match:
        raise ParamError(name, f"got {text!r}; valid: HxW in pixels, e.g. 1280x1280")
    h, w = int(match.group(1)), int(match.group(2))
    if not (1 <= h <= vc.MAX_SIDE and 1 <= w <= vc.MAX_SIDE):
        raise ParamError(name, f"got {text!r}; valid: sides 1..{vc.MAX_SIDE:,} px")
    if max(h, w) / min(h, w) > vc.MAX_ASPECT:
        raise ParamError(name, f"got {text!r}; valid: aspect ratio at most {vc.MAX_ASPECT}:1 (the processor refuses longer strips)")
    return h, w


def parse_cell(value, row: int, word: str = "row") -> list[tuple]:
    """One request's images: [(image_id, height, width, file_bytes), ...]. Anonymous
    images get the id '#ROW.K' (their own)."""
    if value is None or value == "":
        return []
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                raise fail(f"{word} {row}: images {short(text)} is not a JSON list; {VALID}") from None
        else:
            value = [item for item in text.split(";") if item.strip()]
    if not isinstance(value, list):
        raise fail(f"{word} {row}: images is {short(value)}; {VALID}")
    if len(value) > MAX_IMAGES:
        raise fail(f"{word} {row}: {len(value)} images; valid: at most {MAX_IMAGES} per request")
    return [_item(item, row, k, word) for k, item in enumerate(value)]


def _item(item, row: int, k: int, word: str) -> tuple:
    try:
        if isinstance(item, dict):
            unknown = [key for key in item if key not in ("id", "height", "width", "file_bytes")]
            h, w = item.get("height"), item.get("width")
            if unknown or type(h) is not int or type(w) is not int:
                raise ParamError("images", f"{short(item)}")
            size = parse_size(f"{h}x{w}", "images")
            return (_id(item.get("id"), row, k, word), *size, _bytes(item.get("file_bytes", 0), row, word))
        if not isinstance(item, str):
            raise ParamError("images", short(item))
        parts = item.strip().split(":")
        if len(parts) == 1:
            return (f"#{row}.{k}", *parse_size(parts[0], "images"), 0)
        if len(parts) in (2, 3):
            if len(parts) == 3 and not parts[2].strip().isdigit():
                raise ParamError("images", short(item))
            fb = _bytes(int(parts[2]) if len(parts) == 3 else 0, row, word)
            return (_id(parts[0].strip(), row, k, word), *parse_size(parts[1], "images"), fb)
        raise ParamError("images", short(item))
    except ParamError as err:
        if err.param == "trace":
            raise
        raise fail(f"{word} {row}: image {k + 1} is {short(item)}; {VALID}") from None


def _id(value, row: int, k: int, word: str) -> str:
    if value is None:
        return f"#{row}.{k}"
    text = str(value)
    if not text or len(text) > MAX_ID_CHARS:
        raise fail(f"{word} {row}: image id {short(value)}; valid: 1..{MAX_ID_CHARS} characters")
    return text


def _bytes(value, row: int, word: str) -> int:
    if type(value) is not int or not 0 <= value <= MAX_FILE_BYTES:
        raise fail(f"{word} {row}: file_bytes {short(value)}; valid: a whole number of bytes in [0, 2^40]")
    return value
