"""Numbers and short texts read straight from a block's bytes, without a Python object per
field: the field boundaries come from the positions of commas and newlines, and a column
of plain decimals ("118", "0.052") is turned into float64 by arithmetic on its digits.

Only what is certainly exact takes this path: at most 15 digits, an optional single '.',
nothing else (no sign, exponent or blank). Anything else returns None and the caller parses
that column with float()/int() per value, which also names a bad value's row. For up to 15
digits N / 10**k is the correctly rounded value, the same float as float(text).
"""
from __future__ import annotations

import numpy as np

MAX_DIGITS = 15  # below 2**53: N and 10**k are exact doubles, so N / 10**k rounds once
_POW10 = 10.0 ** np.arange(0, 23)


def field_bounds(blk: np.ndarray, nlines: int, ncols: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(starts, ends) of every field, shape (nlines, ncols), for a block whose lines all have
    ncols fields; None if the delimiters do not line up (the caller names the bad row)."""
    delims = np.flatnonzero((blk == 44) | (blk == 10))
    if blk.size and blk[-1] != 10:
        delims = np.append(delims, blk.size)
    if delims.size != nlines * ncols:
        return None
    ends = delims.reshape(nlines, ncols)
    if ncols > 1 and (blk[np.minimum(ends[:, :-1], blk.size - 1)] != 44).any():
        return None  # a newline where a comma belongs: lines with too few and too many fields
    starts = np.empty_like(ends)
    starts[:, 1:] = ends[:, :-1] + 1
    starts[0, 0] = 0
    starts[1:, 0] = ends[:-1, -1] + 1
    return starts, ends


def _gather(blk: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int, right: bool = False,
            fill: int = 0) -> np.ndarray:
    """Each field's bytes in a (n, width) matrix, left- or right-aligned, `fill` elsewhere."""
    offsets = np.arange(width)
    lengths = ends - starts
    if right:
        inside = offsets >= width - lengths[:, None]
        idx = ends[:, None] - width + offsets
    else:
        inside = offsets < lengths[:, None]
        idx = starts[:, None] + offsets
    np.clip(idx, 0, max(blk.size - 1, 0), out=idx)
    return np.where(inside, blk[idx], np.uint8(fill))


def decimals(blk: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """float64 of fields that are plain decimals; None if any field is not (see module doc)."""
    lengths = ends - starts
    if lengths.size == 0:
        return np.zeros(0)
    width = int(lengths.max())
    if lengths.min() == 0 or width > MAX_DIGITS + 1:
        return None
    ch = _gather(blk, starts, ends, width, right=True, fill=48)  # right-aligned, '0' before the field
    dot = ch == 46
    if ((ch < 48) | (ch > 57))[~dot].any():
        return None
    weights = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    if not dot.any():
        if width > MAX_DIGITS:
            return None
        return ((ch - np.uint8(48)).astype(np.int64) @ weights).astype(float)
    ndots = np.count_nonzero(dot, axis=1)
    if ndots.max() > 1 or (ndots == lengths).any() or (lengths - ndots).max() > MAX_DIGITS:
        return None
    ch[dot] = 48
    # With the dot read as a 0: v = left * 10**(frac + 1) + right; the number is left.right.
    v = (ch - np.uint8(48)).astype(np.int64) @ weights
    frac = np.where(ndots == 1, width - 1 - np.argmax(dot, axis=1), 0)
    scale = 10 ** frac
    right = v % scale
    whole = (v - right) // np.where(ndots == 1, 10, 1) + right
    return whole.astype(float) / _POW10[frac]


def texts(blk: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The fields as a bytes array (dtype S), e.g. BurstGPT's Model and Log Type."""
    lengths = ends - starts
    width = max(int(lengths.max()) if lengths.size else 1, 1)
    return np.ascontiguousarray(_gather(blk, starts, ends, width)).view(f"S{width}").ravel()
