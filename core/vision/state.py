"""The Vision & multimodal panel's state (§3.3.1-3.3.2), as data.

Cards: 'request' (vision.request: the images' sizes and file bytes, the text, where the
question sits, the model constants and the resize policy — the panel splits it over its
shape, resize and request forms), 'compare' (练习 3-5), 'encode' (vision.encode_flops) and
'diffusion' (image.diffusion; its figure also draws the handoff points of the request).

Images: the request's images as sources, one per image: a file path, or "" for the
generated 640×640 sample. Their sizes and file bytes live in the request card (the numbers
need no file); the panel reloads the pixels of a path to show them.

View: the tab on screen, the patch and token overlays, the selected image (its source
string: "" is the sample), the zoom on it (x0, y0, x1, y1 in the image's own pixels; empty
for the whole picture; a new selection shows the whole picture) and the pixel limit for the
next files opened (MP). No players.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.registry import ParamError
from core.state_model import PanelModel
from core.vision import pixel_limit as pl
from core.vision.images import BOOK_FILE_BYTES, expand_images

SAMPLE_SIDE = 640
TABS = ("volumes", "compare", "generation")


@dataclass(frozen=True)
class ImageEntry:
    """One image of the request: where it comes from and what the figures need of it."""

    source: str  # a file path, or "" for the generated sample
    height: int  # after EXIF orientation
    width: int
    file_bytes: int


SAMPLE = ImageEntry("", SAMPLE_SIDE, SAMPLE_SIDE, BOOK_FILE_BYTES)


class VisionState(PanelModel):
    key = "vision"
    CARDS = (("request", "vision.request"), ("compare", "vision.compare"),
             ("encode", "vision.encode_flops"), ("diffusion", "image.diffusion"))
    VIEW = {
        "tab": TABS[0],
        "patch_grid": True,
        "token_grid": True,
        "image": "",
        "zoom": (),
        "pixel_limit_mp": pl.PIXEL_LIMIT_DEFAULT / 1e6,
    }
    PLAYERS = ()

    def __init__(self) -> None:
        super().__init__()
        self._sources: tuple[str, ...] = (SAMPLE.source,)
        # The panel opens on one generated image (the calculator's default is the book's
        # four-image request, which `book_example` brings).
        self.cards["request"].update(_image_values([SAMPLE]))

    # ---- images ---------------------------------------------------------------
    @property
    def sources(self) -> tuple[str, ...]:
        return self._sources

    def images(self) -> list[ImageEntry]:
        """The request's images: source, size and file bytes of each, in order."""
        inputs = self.cards["request"].inputs
        sizes = expand_images(inputs["heights"], inputs["widths"], inputs["file_bytes"])
        sources = self._sources + ("",) * max(0, len(sizes) - len(self._sources))
        return [ImageEntry(src, h, w, fb) for src, (h, w, fb) in zip(sources, sizes)]

    def set_images(self, entries: Iterable[ImageEntry], selected: str | None = None) -> None:
        """Make entries the request's images (none: the sample) and select one (default:
        keep the selection if it is still there, else the first). ParamError, and nothing
        changed, if the request refuses them (e.g. a strip longer than 200:1 under 'fit')."""
        entries = tuple(entries) or (SAMPLE,)
        card = self.cards["request"]
        values = _image_values(entries)
        inputs, errors = card.calculator.resolve_all(values, base=card.inputs)
        if inputs is None:
            raise errors[0]
        sources = tuple(e.source for e in entries)
        changed = sources != self._sources
        self._sources = sources
        card.update(values)
        if changed:
            self.changed.emit("images", sources)
        self.select(selected if selected is not None else self.view("image"))

    def refusal(self, entry: ImageEntry) -> str | None:
        """Why the request would refuse this image under its current policy, or None."""
        card = self.cards["request"]
        inputs, errors = card.calculator.resolve_all(_image_values([entry]), base=card.inputs)
        return None if inputs is not None else errors[0].message

    def select(self, source: str) -> None:
        """Select the image with this source (the first one if it is not in the request)."""
        self.set_view("image", source if source in self._sources else self._sources[0])

    def add_images(self, entries: Iterable[ImageEntry]) -> None:
        """Append entries (they replace the request if it only holds generated samples) and
        select the first of them."""
        entries = tuple(entries)
        if not entries:
            return
        kept = [] if all(e.source == "" for e in self.images()) else self.images()
        self.set_images(kept + list(entries), selected=entries[0].source)

    def remove_image(self, index: int) -> None:
        """Drop the image at index; the sample comes back when none is left."""
        rest = [e for i, e in enumerate(self.images()) if i != index]
        selected = self.view("image") if self.view("image") in [e.source for e in rest] else None
        if selected is None and rest:
            selected = rest[min(index, len(rest) - 1)].source
        self.set_images(rest, selected=selected)

    def book_example(self) -> None:
        """四张 640×640 图 + 400 文本 token, the question after the images: the book's request."""
        self.set_images([SAMPLE] * 4, selected="")
        self.cards["request"].update({"text_tokens": 400, "prefix_tokens": 0, "question": "after"})

    # ---- view -----------------------------------------------------------------
    def set_view(self, name: str, value: Any) -> None:
        _check_view(name, value)
        before = self.view("image")
        super().set_view(name, value)
        if name == "image" and self.view("image") != before:
            super().set_view("zoom", ())  # another picture: shown whole

    def pixel_limit(self) -> int:
        """The pixel limit for the next files opened, in pixels."""
        return pl.pixel_limit(self.view("pixel_limit_mp"))

    # ---- whole state ----------------------------------------------------------
    def reset(self) -> None:
        """Back to the state the panel opens with: one generated image, the book's values."""
        old, self._sources = self._sources, (SAMPLE.source,)
        for slot, card in self.cards.items():
            if slot == "request":
                card.update({**card.calculator.defaults(), **_image_values([SAMPLE])})
            else:
                card.reset()
        if self._sources != old:
            self.changed.emit("images", self._sources)
        for name, value in self.VIEW.items():
            self.set_view(name, value)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["images"] = list(self._sources)
        return data

    def load_json(self, data: Mapping[str, Any], checked: Mapping[str, Any] | None = None) -> None:
        cards = data.get("cards", {}) or {}
        request = self.cards["request"].calculator.resolve(cards.get("request", {}) or {})
        count = len(expand_images(request["heights"], request["widths"], request["file_bytes"]))
        sources = data.get("images", [""] * count)
        if (not isinstance(sources, (list, tuple)) or len(sources) != count
                or not all(isinstance(s, str) for s in sources)):
            raise ParamError("images", f"got {sources!r}; valid: {count} file paths (\"\" for the sample), "
                             "one per image of the request")
        for name, value in (data.get("view", {}) or {}).items():
            _check_view(name, value)
        old = self._sources
        self._sources = tuple(sources)
        try:
            super().load_json(data, checked)
        except BaseException:
            self._sources = old
            raise
        if self._sources != old:
            self.changed.emit("images", self._sources)
        self.select(self.view("image"))


def _image_values(entries: Iterable[ImageEntry]) -> dict[str, list[int]]:
    entries = list(entries)
    return {"heights": [e.height for e in entries], "widths": [e.width for e in entries],
            "file_bytes": [e.file_bytes for e in entries]}


def _check_view(name: str, value: Any) -> None:
    """Ranges of the view options that have one; ParamError naming the option."""
    if name == "zoom":
        try:
            box = tuple(float(v) for v in value)
        except (TypeError, ValueError):
            box = None
        if box != () and (box is None or len(box) != 4 or not all(map(math.isfinite, box))
                          or box[2] <= box[0] or box[3] <= box[1]):
            raise ParamError("view.zoom", f"got {value!r}; valid: empty (the whole picture) or "
                             "[x0, y0, x1, y1] with x0 < x1 and y0 < y1, in image pixels")
    if name == "tab" and value not in TABS:
        raise ParamError("view.tab", f"got {value!r}; valid: one of {', '.join(TABS)}")
    if name == "pixel_limit_mp":
        try:
            megapixels = float(value)
        except (TypeError, ValueError):
            raise ParamError("view.pixel_limit_mp", f"got {value!r}; valid: a number of MP") from None
        try:
            pl.pixel_limit(megapixels)
        except ParamError as err:
            raise ParamError("view.pixel_limit_mp", err.message) from None
