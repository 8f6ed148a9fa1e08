"""The plot primitives the Training panel's figures share: rectangles drawn with one brush
(Bars) and the labelled ticks under a row of bars."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_TICKS = 24  # labelled bars on an axis; more bars keep every n-th label


@dataclass(frozen=True)
class Bars:
    """Rectangles drawn with one brush: left, bottom, width, height (data units)."""

    x0: np.ndarray
    y0: np.ndarray
    width: np.ndarray
    height: np.ndarray

    @staticmethod
    def empty() -> Bars:
        z = np.zeros(0)
        return Bars(z, z, z, z)

    @property
    def size(self) -> int:
        return int(self.x0.size)


def bars(x0, width, y0, height) -> Bars:
    x0 = np.asarray(x0, dtype=float)
    n = x0.size
    return Bars(x0, np.broadcast_to(np.asarray(y0, dtype=float), (n,)).copy(),
                np.broadcast_to(np.asarray(width, dtype=float), (n,)).copy(),
                np.broadcast_to(np.asarray(height, dtype=float), (n,)).copy())


def ticks(count: int, label) -> list:
    """(position, label) for bars 0..count-1, at most MAX_TICKS of them."""
    step = max(1, -(-count // MAX_TICKS))
    return [(i, label(i)) for i in range(0, count, step)]
