"""Date-times read from their bytes with arithmetic, one column at a time.

numpy's own parser (astype("datetime64[ns]")) is not used: it takes '5' (the year 5,
which wraps around in nanoseconds), '20231116' (a count of years), 'today' and 'now', and
numpy 2.4 crashes the process (a segfault, not a ValueError) when one value of a large
array does not parse. Here each value must be

    YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|+HH:MM|-HH:MM]

with a real calendar day, hours < 24, minutes and seconds < 60 and a year in
[MIN_YEAR, MAX_YEAR]; fraction digits past nanoseconds are dropped. The first value that
is not is refused with its row, by the caller.
"""
from __future__ import annotations

import numpy as np

MIN_YEAR, MAX_YEAR = 1970, 2200  # inside int64 nanoseconds since 1970, with room for offsets
HINT = "YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM]"
_NS = 1_000_000_000
_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)
_POW10 = 10 ** np.arange(18, -1, -1, dtype=np.int64)


def _num(ch: np.ndarray, first: int, count: int) -> np.ndarray:
    """The number written by the digits in columns [first, first + count)."""
    return (ch[:, first:first + count].astype(np.int64) - 48) @ _POW10[-count:]


def _days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y = y - (m <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nanoseconds since 1970 UTC, ok) for a bytes array (dtype S) of stripped values;
    where ok is False the nanoseconds are meaningless."""
    n = texts.size
    item = max(texts.dtype.itemsize, 1)
    width = item + 32  # room past the end: every column looked at below exists
    ch = np.zeros((n, width), np.uint8)
    if n:
        ch[:, :item] = np.ascontiguousarray(texts).view(np.uint8).reshape(n, item)
    rows = np.arange(n)
    length = np.count_nonzero(ch, axis=1)  # the values are text: no NUL inside one
    digit = (ch >= 48) & (ch <= 57)

    def at(pos: np.ndarray) -> np.ndarray:
        return ch[rows, np.clip(pos, 0, width - 1)]

    # The zone: 'Z' or ±HH:MM at the end (a value of 19+ characters has a time before it).
    zulu = (length > 10) & (at(length - 1) == 90)
    sign = at(length - 6)
    zoned = (length > 19) & ((sign == 43) | (sign == 45)) & (at(length - 3) == 58)
    for k in (5, 4, 2, 1):
        zoned &= digit[rows, np.clip(length - k, 0, width - 1)]
    zone_h = (at(length - 5).astype(np.int64) - 48) * 10 + at(length - 4) - 48
    zone_m = (at(length - 2).astype(np.int64) - 48) * 10 + at(length - 1) - 48
    zoned &= (zone_h <= 23) & (zone_m <= 59)
    offset_min = np.where(zoned, np.where(sign == 43, 1, -1) * (zone_h * 60 + zone_m), 0)
    end = length - np.where(zulu, 1, np.where(zoned, 6, 0))  # the value without its zone

    ok = digit[:, [0, 1, 2, 3, 5, 6, 8, 9]].all(axis=1) & (ch[:, 4] == 45) & (ch[:, 7] == 45)
    year, month, day = _num(ch, 0, 4), _num(ch, 5, 2), _num(ch, 8, 2)
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    month_ok = (month >= 1) & (month <= 12)
    last_day = _DAYS_IN_MONTH[np.where(month_ok, month, 1)] + ((month == 2) & leap)
    ok &= (year >= MIN_YEAR) & (year <= MAX_YEAR) & month_ok & (day >= 1) & (day <= last_day)

    has_time = end > 10
    ok &= ~has_time | (((ch[:, 10] == 32) | (ch[:, 10] == 84)) & digit[:, [11, 12, 14, 15]].all(axis=1)
                       & (ch[:, 13] == 58) & (end >= 16))
    has_sec = end > 16
    ok &= ~has_sec | ((ch[:, 16] == 58) & digit[:, 17] & digit[:, 18] & (end >= 19))
    has_frac = end > 19
    # The fraction: columns 20 .. end-1, all digits, at least one.
    cols = np.arange(width)
    in_frac = (cols >= 20) & (cols < end[:, None])
    ok &= ~has_frac | ((ch[:, 19] == 46) & (end > 20) & ~(in_frac & ~digit).any(axis=1))
    hour = np.where(has_time, _num(ch, 11, 2), 0)
    minute = np.where(has_time, _num(ch, 14, 2), 0)
    second = np.where(has_sec, _num(ch, 17, 2), 0)
    ok &= (hour <= 23) & (minute <= 59) & (second <= 59)
    # Nanoseconds: the first 9 fraction digits, zero-padded on the right.
    nine = np.where(in_frac[:, 20:29], ch[:, 20:29].astype(np.int64) - 48, 0)
    frac_ns = nine @ _POW10[-9:]

    days = _days_from_civil(year, month, day)
    seconds = ((days * 24 + hour) * 60 + minute - offset_min) * 60 + second
    return np.where(ok, seconds * _NS + frac_ns, 0), ok
