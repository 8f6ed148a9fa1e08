"""Text a painted diagram draws into a rectangle, fitted rather than clipped: the font
shrinks until each line's advance fits the width, never under the UI's smallest text at
the current zoom; what still does not fit wraps, and the diagram grows to the height its
texts need (the E → P → D boxes read "300 kB" for 800 kB and ".8125 Mi" when clipped)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6 import QtCore, QtGui

_WORD = re.compile(r"[^\s\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
WRAP = QtCore.Qt.TextFlag.TextWordWrap
STEP_PT = 0.5  # how much a font shrinks per try


@dataclass(frozen=True)
class Drawn:
    """One text as painted: the test checks its metrics against its rectangle."""
    text: str
    rect: QtCore.QRectF
    font: QtGui.QFont
    flags: int
    role: str  # the colour role it is painted in


def floor_points() -> float:
    """The smallest text the UI sets, at the current zoom (points)."""
    from widgets.kit.zoom import pt, smallest_points  # lazy: pyqtgraph

    return pt(smallest_points())


def points(font: QtGui.QFont) -> float:
    return QtGui.QFontInfo(font).pointSizeF()  # the style sheet sets pixels, not points


def widest_line(font: QtGui.QFont, text: str) -> float:
    metrics = QtGui.QFontMetricsF(font)
    return max((metrics.horizontalAdvance(line) for line in text.split("\n")), default=0.0)


def fitted(font: QtGui.QFont, text: str, width: float, floor_pt: float) -> QtGui.QFont:
    """font, or a smaller copy of it (not under floor_pt) whose lines each fit width."""
    out = QtGui.QFont(font)
    size = points(out)
    while widest_line(out, text) > width and size > floor_pt:
        size = max(floor_pt, size - STEP_PT)
        out.setPointSizeF(size)
    return out


def wrap_flags(font: QtGui.QFont, text: str, width: float) -> int:
    """Word wrap; anywhere too when one word is wider than width even at the floor (a
    word cut across two lines reads better than a word cut off)."""
    metrics = QtGui.QFontMetricsF(font)
    words = _WORD.findall(text)  # Chinese wraps between any two characters already
    too_wide = any(metrics.horizontalAdvance(word) > width for word in words)
    return int(WRAP) | (int(QtCore.Qt.TextFlag.TextWrapAnywhere) if too_wide else 0)


def text_height(font: QtGui.QFont, text: str, width: float, flags: int = 0) -> float:
    """The height text takes in font, wrapped at width."""
    flags = int(flags) | wrap_flags(font, text, width)
    bounds = QtGui.QFontMetricsF(font).boundingRect(QtCore.QRectF(0, 0, max(width, 1.0), 1e6), flags, text)
    return bounds.height()


def fits(drawn: Drawn, slack: float = 0.5) -> bool:
    """Whether drawn's text, laid out as painted, lies inside its rectangle."""
    bounds = QtGui.QFontMetricsF(drawn.font).boundingRect(drawn.rect, drawn.flags, drawn.text)
    return drawn.rect.adjusted(-slack, -slack, slack, slack).contains(bounds)
