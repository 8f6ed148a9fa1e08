"""A request's images as the vision calculators take them: one height, width and file size
per image, where one width or one file size may stand for all."""
from __future__ import annotations

from collections.abc import Sequence

from core.registry import ParamError

BOOK_FILE_BYTES = 800_000  # "压缩截图 0.8 MB (给定输入)"


def _ints(name: str, values: Sequence[float]) -> list[int]:
    out = []
    for v in values:
        if not float(v).is_integer():
            raise ParamError(name, f"got {v:g}, not a whole number; valid: whole pixels/bytes")
        out.append(int(v))
    return out


def expand_images(heights: Sequence[float], widths: Sequence[float], file_bytes: Sequence[float] | None = None) -> list[tuple]:
    """(height, width, file_bytes) per image. widths and file_bytes may be one value that
    applies to every image, or one value per image."""
    hs = _ints("heights", heights)
    n = len(hs)

    def spread(name, values):
        vals = _ints(name, values)
        if len(vals) == 1:
            return vals * n
        if len(vals) != n:
            raise ParamError(name, f"got {len(vals)} values for {n} images; valid: 1 value or {n} values")
        return vals

    ws = spread("widths", widths)
    fb = spread("file_bytes", file_bytes) if file_bytes is not None else [0] * n
    return list(zip(hs, ws, fb))
