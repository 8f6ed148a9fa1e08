"""Safe image loading: any common format and mode to an RGB array for display.

The figures of §3.3.1 depend only on the image's size (after EXIF orientation) and its
file bytes; the pixels are only for people to look at. So a very large image is decoded
at reduced scale (JPEG draft mode) and shrunk for display, while `width`/`height` keep
the full size every calculation uses.

Untrusted files: only regular files are read (a fifo, a device or a link to one is
refused before any read, so nothing blocks); the header is read first and the pixel count
checked against a configurable limit before any decoding; decompression bombs, truncated,
unreadable and non-image files all raise ImageLoadError (one error type, a ParamError
naming the 'image' field and the file), never a crash or a hang. 16-bit, 32-bit and float
images become 8-bit a strip at a time, so memory stays near one byte per pixel.

A load takes a CancelToken (core.cancel): the decoder reads the file through it, so a
cancelled load stops at its next block and raises Cancelled.
"""
from __future__ import annotations

import math
import os
import stat as stat_mode
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from core.cancel import NEVER, Cancelled, CancelToken
from core.registry import ParamError
from core.vision.pixel_limit import PIXEL_LIMIT_DEFAULT, PIXEL_LIMIT_HARD

SUPPORTED_FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "BMP", "TIFF", "MPO")
FILE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff")
# Pillow's own warning threshold (about 89.5 MP): a 24 MP photo passes easily, a bomb does not.
DEFAULT_MAX_PIXELS = Image.MAX_IMAGE_PIXELS or PIXEL_LIMIT_DEFAULT
# Pillow refuses images above twice its own limit no matter what we ask; we never lift
# Pillow's global limit (other threads share it), so ours cannot go higher.
HARD_MAX_PIXELS = min(2 * DEFAULT_MAX_PIXELS - 1, PIXEL_LIMIT_HARD)
DEFAULT_MAX_FILE_BYTES = 1 << 30
DISPLAY_MAX_SIDE = 2048

_EXIF_ORIENTATION = 0x0112
# EXIF orientation → the transpose that shows the picture upright (as ImageOps.exif_transpose).
_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_ORIENTATION_TEXT = {2: "mirrored", 3: "rotated 180°", 4: "flipped", 5: "transposed", 6: "rotated 90° clockwise",
                     7: "transversed", 8: "rotated 90° counter-clockwise"}


class ImageLoadError(ParamError):
    """A file that cannot (or should not) be loaded as an image."""

    def __init__(self, message: str, path: str | os.PathLike | None = None):
        self.path = str(path) if path is not None else None
        name = Path(path).name if path is not None else "image"
        super().__init__("image", f"{name}: {message}")


@dataclass(frozen=True)
class LoadedImage:
    """An image ready for the panel: full-size facts plus a display array."""

    name: str
    path: str | None
    format: str  # 'PNG', 'JPEG', ... or 'generated'
    mode: str  # the file's own mode ('RGBA', 'P', 'I;16', 'CMYK', ...)
    width: int  # full size after EXIF orientation: what the model is given
    height: int
    file_bytes: int
    pixels: np.ndarray  # (rows, cols, 3) uint8, possibly downsampled for display
    frames: int = 1
    orientation: int = 1
    notes: tuple[str, ...] = field(default=())

    @property
    def display_scale(self) -> float:
        """Display pixels per image pixel (1.0 unless shown downsampled)."""
        return self.pixels.shape[1] / self.width

    @property
    def megapixels(self) -> float:
        return self.width * self.height / 1e6


def load_image(path: str | os.PathLike, max_pixels: int = DEFAULT_MAX_PIXELS,
               display_max_side: int = DISPLAY_MAX_SIDE, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
               cancel: CancelToken = NEVER) -> LoadedImage:
    """Load an image file for display and measurement, or raise ImageLoadError.

    cancel: checked at every block the decoder reads (and between the steps after), so a
    cancelled load of a large file stops within milliseconds and raises Cancelled."""
    with _checked_open(path, max_pixels, max_file_bytes, cancel) as (im, p, file_bytes):
        return _decode(im, p, file_bytes, display_max_side, cancel)


@dataclass(frozen=True)
class LoadOutcome:
    """One file of a batch: the image, or why it was refused (one line naming the file)."""

    path: str
    image: LoadedImage | None = None
    error: str = ""


def load_images(paths: Sequence[str | os.PathLike], max_pixels: int = DEFAULT_MAX_PIXELS,
                display_max_side: int = DISPLAY_MAX_SIDE, cancel: CancelToken = NEVER) -> list[LoadOutcome]:
    """Load several files in order (a job of the panel); each file's failure is kept
    beside the others' images. Raises Cancelled when cancelled, ParamError for a bad
    max_pixels."""
    _check_max_pixels(max_pixels)
    out = []
    for path in paths:
        cancel.check()
        try:
            out.append(LoadOutcome(str(path), load_image(path, max_pixels, display_max_side, cancel=cancel)))
        except ImageLoadError as err:
            out.append(LoadOutcome(str(path), error=str(err)))
    return out


def _check_max_pixels(max_pixels: int) -> None:
    if not 1 <= max_pixels <= HARD_MAX_PIXELS:
        raise ParamError("max_pixels", f"got {max_pixels}; valid: [1, {HARD_MAX_PIXELS}] pixels")


class _CheckedReader:
    """The file as Pillow reads it, checking a cancel token at every read: decoders pull
    the file in blocks, so a cancelled decode stops at its next block."""

    def __init__(self, raw, cancel: CancelToken):
        self._raw, self._cancel = raw, cancel
        self.name = raw.name

    def read(self, size: int = -1) -> bytes:
        self._cancel.check()
        return self._raw.read(size)

    def readinto(self, buffer) -> int:
        self._cancel.check()
        return self._raw.readinto(buffer)

    def __getattr__(self, name):  # seek, tell, fileno, ...: as the file does
        return getattr(self._raw, name)


def _open_regular(p: Path):
    """Open for reading without blocking (a fifo), then check what was opened: a regular
    file (not a device, a fifo or a directory). Returns (binary file, size)."""
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except PermissionError:
        raise ImageLoadError("cannot read: permission denied", p) from None
    except OSError as exc:
        raise ImageLoadError(f"cannot read: {(exc.strerror or str(exc)).lower()}", p) from None
    try:
        st = os.fstat(fd)
        if not stat_mode.S_ISREG(st.st_mode):
            raise ImageLoadError("not a regular file", p)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


@contextmanager
def _checked_open(path: str | os.PathLike, max_pixels: int, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                  cancel: CancelToken = NEVER):
    """Open lazily (header only), check format and pixel count, and turn every failure
    inside the block into ImageLoadError (a cancel stays Cancelled)."""
    p = Path(path)
    _check_max_pixels(max_pixels)
    raw, size = _open_regular(p)
    with raw:
        if size == 0:
            raise ImageLoadError("the file is empty", p)
        if size > max_file_bytes:
            raise ImageLoadError(f"{size:,} bytes is above the {max_file_bytes:,}-byte file limit", p)
        with _image_errors(p):
            # No warnings.catch_warnings() here: it is not thread-safe and this runs on worker
            # threads. Above Pillow's own threshold (and below our limit) Pillow just warns.
            with Image.open(_CheckedReader(raw, cancel)) as im:
                fmt = (im.format or "").upper()
                if fmt not in SUPPORTED_FORMATS:
                    raise ImageLoadError(f"{fmt or 'unknown'} images are not supported; valid: {_formats()}", p)
                w, h = im.size
                if w <= 0 or h <= 0:
                    raise ImageLoadError(f"invalid size {w}×{h}", p)
                if w * h > max_pixels:
                    raise ImageLoadError(
                        f"{w:,}×{h:,} = {w * h / 1e6:,.1f} MP is above the pixel limit of {max_pixels / 1e6:,.1f} MP "
                        "(a possible decompression bomb); raise the limit only for files you trust", p)
                yield im, p, size


@contextmanager
def _image_errors(p: Path):
    """Every failure inside a decoder as one ImageLoadError naming the file."""
    try:
        yield
    except (ImageLoadError, Cancelled):
        raise
    except PermissionError:
        raise ImageLoadError("cannot read: permission denied", p) from None
    except Image.DecompressionBombError:
        raise ImageLoadError(f"refused as a decompression bomb: its header claims more than "
                             f"{HARD_MAX_PIXELS:,} pixels", p) from None
    except Image.UnidentifiedImageError:
        raise ImageLoadError(f"not an image (or a format this lab does not read); valid: {_formats()}", p) from None
    except MemoryError:
        raise ImageLoadError("not enough memory to decode it; lower the pixel limit", p) from None
    except Exception as exc:  # noqa: BLE001 - a broken file may fail anywhere inside a decoder
        raise ImageLoadError(f"damaged or truncated image ({_reason(exc)})", p) from None


def _formats() -> str:
    return ", ".join(f.lower() for f in SUPPORTED_FORMATS if f != "MPO")


def _reason(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text[:160]


def _decode(im: Image.Image, path: Path, file_bytes: int, display_max_side: int,
            cancel: CancelToken = NEVER) -> LoadedImage:
    fmt = (im.format or "").upper()
    raw_w, raw_h = im.size
    notes: list[str] = []
    frames = int(getattr(im, "n_frames", 1) or 1)
    if frames > 1:
        im.seek(0)
        notes.append(f"{fmt} with {frames} frames: showing and measuring the first frame only")
    orientation, note = _orientation(im)
    if note:
        notes.append(note)
    mode = im.mode
    # JPEG can decode at 1/2, 1/4 or 1/8 scale directly: a 24 MP photo never needs to be
    # decoded at full size just to be looked at.
    if fmt in ("JPEG", "MPO") and max(raw_w, raw_h) > display_max_side:
        im.draft("RGB", _fit_box(raw_w, raw_h, display_max_side))
    im.load()
    cancel.check()
    if im.mode in HIGH_BIT_MODES:
        # Pillow cannot shrink 16-bit images by reduction: make them 8-bit first.
        im, mode_note = to_eight_bit(im, cancel)
        notes.append(mode_note)
    if max(im.size) > display_max_side:
        # In place: the file is closed right after, so no copy of a large frame is needed.
        im.thumbnail((display_max_side, display_max_side), Image.Resampling.BILINEAR, reducing_gap=2.0)
    cancel.check()
    rgb, mode_note = to_display_rgb(im)
    if mode_note:
        notes.append(mode_note)
    if orientation != 1:
        rgb = rgb.transpose(_TRANSPOSE[orientation])
        notes.append(f"EXIF orientation {orientation} applied ({_ORIENTATION_TEXT[orientation]})")
    width, height = (raw_h, raw_w) if orientation in (5, 6, 7, 8) else (raw_w, raw_h)
    pixels = np.asarray(rgb, dtype=np.uint8)
    if pixels.shape[1] < width:
        notes.append(f"shown at {pixels.shape[1]}×{pixels.shape[0]} (1/{width / pixels.shape[1]:.1f} scale); "
                     f"all figures use the full {width}×{height}")
    return LoadedImage(name=path.name, path=str(path), format=fmt if fmt != "MPO" else "JPEG", mode=mode,
                       width=width, height=height, file_bytes=file_bytes, pixels=pixels, frames=frames,
                       orientation=orientation, notes=tuple(notes))


def _orientation(im: Image.Image) -> tuple[int, str]:
    try:
        value = int(im.getexif().get(_EXIF_ORIENTATION, 1))
    except Exception:  # noqa: BLE001 - a broken EXIF block must not stop the picture
        return 1, "EXIF block unreadable: orientation ignored"
    return (value, "") if value in _TRANSPOSE else (1, "")


def _fit_box(w: int, h: int, side: int) -> tuple[int, int]:
    scale = side / max(w, h)
    return max(1, int(w * scale)), max(1, int(h * scale))


HIGH_BIT_MODES = ("I;16", "I;16L", "I;16B", "I;16N", "I", "F")
_STRIP_PIXELS = 1 << 20  # high-bit images are converted a strip at a time: memory stays ~1 B/pixel


def _strips(im: Image.Image, cancel: CancelToken):
    """(first row, float64 array) strips of a single-band image, top to bottom."""
    w, h = im.size
    rows = max(1, _STRIP_PIXELS // max(w, 1))
    for y in range(0, h, rows):
        cancel.check()
        yield y, np.asarray(im.crop((0, y, w, min(h, y + rows))), dtype=np.float64)


def to_eight_bit(im: Image.Image, cancel: CancelToken = NEVER) -> tuple[Image.Image, str]:
    """A 16-bit, 32-bit integer or float grayscale image as 8-bit 'L', with a note.

    16-bit values are scaled (65535 → 255); 32-bit and float images are stretched to the
    range of their finite values, so one NaN or inf pixel does not blacken the picture
    (non-finite pixels are shown black)."""
    mode = im.mode
    w, h = im.size
    out = np.zeros((h, w), dtype=np.uint8)
    if mode.startswith("I;16"):
        for y, strip in _strips(im, cancel):
            out[y:y + len(strip)] = np.clip(np.rint(strip / 257.0), 0, 255)
        return Image.fromarray(out, "L"), "16-bit grayscale shown at 8 bits"
    low, high, bad = math.inf, -math.inf, 0
    for _, strip in _strips(im, cancel):
        finite = np.isfinite(strip)
        bad += int(finite.size - np.count_nonzero(finite))
        if finite.any():
            values = strip[finite]
            low, high = min(low, float(values.min())), max(high, float(values.max()))
    note = f"{mode} grayscale stretched to its range for display"
    if bad:
        note += f"; {bad:,} non-finite pixel{'s' if bad != 1 else ''} ignored (shown black)"
    if high > low:
        scale = 255.0 / (high - low)
        for y, strip in _strips(im, cancel):
            finite = np.isfinite(strip)
            scaled = np.where(finite, (np.where(finite, strip, low) - low) * scale, 0.0)
            out[y:y + len(strip)] = np.clip(np.rint(scaled), 0, 255)
    return Image.fromarray(out, "L"), note


def to_display_rgb(im: Image.Image) -> tuple[Image.Image, str]:
    """Any Pillow mode to RGB for the screen, with a note when something was adapted."""
    mode = im.mode
    if mode == "RGB":
        return im, ""
    if mode in HIGH_BIT_MODES:
        gray, note = to_eight_bit(im)
        return gray.convert("RGB"), note
    has_alpha = mode in ("RGBA", "LA", "PA", "RGBa", "La") or (mode == "P" and "transparency" in im.info)
    if has_alpha:
        rgba = im.convert("RGBA")
        board = Image.fromarray(_checkerboard(rgba.size))
        board.paste(rgba, (0, 0), rgba)
        return board, "transparency shown over a checkerboard"
    if mode == "CMYK":
        return im.convert("RGB"), "CMYK converted to RGB"
    return im.convert("RGB"), ("" if mode in ("L", "P", "1") else f"{mode} converted to RGB")


def _checkerboard(size: tuple[int, int], cell: int = 8) -> np.ndarray:
    w, h = size
    yy, xx = np.indices((h, w))
    light = ((yy // cell + xx // cell) % 2).astype(bool)
    board = np.where(light, 205, 160).astype(np.uint8)
    return np.dstack([board] * 3)


def load_full_rgb(path: str | os.PathLike, max_pixels: int = DEFAULT_MAX_PIXELS,
                  cancel: CancelToken = NEVER) -> np.ndarray:
    """The whole first frame, upright, as (rows, cols, 3) uint8: what the model's resize
    starts from. Same checks and errors as load_image."""
    with _checked_open(path, max_pixels, cancel=cancel) as (im, _, _):
        if getattr(im, "n_frames", 1) > 1:
            im.seek(0)
        orientation, _ = _orientation(im)
        im.load()
        rgb, _ = to_display_rgb(im)
        if orientation != 1:
            rgb = rgb.transpose(_TRANSPOSE[orientation])
        return np.asarray(rgb, dtype=np.uint8)
