"""A card field of free text checked by a function (pools=2P4D, kv_link=, image_size=HxW):
the Serving panel's cards keep text the CLI takes as it is, so sessions save what was typed
and the CLI reads it the same. No Qt here."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.registry import Param, ParamError

MAX_TEXT = 64  # longer than any xPyD, link name, image size or count


def _as_is(text: str) -> str:
    return text


@dataclass(frozen=True)
class TextParam(Param):
    """A short line of text; check(text) returns it (normalised) or raises ParamError.
    empty_ok: '' is a value of its own (the key left out: the CLI's default)."""

    kind: str = "text"
    empty_ok: bool = True
    check: Callable[[str], str] = field(default=_as_is, compare=False)

    def range_text(self) -> str:
        return self.help

    def parse(self, raw: Any) -> Any:
        if not isinstance(raw, (str, int, float)) or isinstance(raw, bool):
            raise ParamError(self.name, f"got {type(raw).__name__}; valid: text, {self.help}")
        text = str(raw).strip()
        if len(text) > MAX_TEXT or any(ord(c) < 32 for c in text):
            raise ParamError(self.name, f"got {len(text)} characters; valid: at most {MAX_TEXT}, one line")
        if not text:
            if self.empty_ok:
                return ""
            raise ParamError(self.name, f"got ''; valid: {self.help}")
        return self.check(text)
