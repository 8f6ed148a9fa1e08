"""CSV columns read in blocks with numpy: the lines are found by one scan for newlines, the
fields of each block by one scan for delimiters, and each wanted column is converted from
the bytes at once (digits.py), or per value when it is not plain decimals.

A row is looked at on its own only to name it in a refusal (the first value that does not
parse, is too long or out of range), so a good file never pays for per-row Python. Quoted
CSV (a '"' anywhere) goes through the csv module instead: slower, same checks.

Between blocks the reader reports progress(fraction) and checks cancel; a block is at least
64k lines and there are at most about 40 of them.
"""
from __future__ import annotations

import csv
import io

import numpy as np

from core.cancel import NEVER
from core.serving.traces.datetimes import HINT as DATETIME_HINT
from core.serving.traces.datetimes import MAX_YEAR, MIN_YEAR
from core.serving.traces.datetimes import parse as parse_datetimes
from core.serving.traces.digits import decimals, field_bounds, texts
from core.serving.traces.guard import MAX_FIELD_CHARS, MAX_LINE_CHARS, fail, parse_number, short, valid_text

MIN_BLOCK_LINES = 65_536
MAX_BLOCKS = 40


class CsvText:
    """A CSV file's bytes with its lines located; columns are parsed on demand."""

    def __init__(self, data: bytes):
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n")
        self.data = data
        newlines = _newlines(data)
        self.starts = np.concatenate(([0], newlines + 1))
        self.ends = np.concatenate((newlines, [len(data)]))
        if self.starts[-1] == self.ends[-1] and len(self.starts) > 1:  # the file ends with a newline
            self.starts, self.ends = self.starts[:-1], self.ends[:-1]
        header = data[: self.ends[0]]
        if len(header) > MAX_LINE_CHARS:
            raise fail(f"the header is {len(header):,} characters long; valid: at most {MAX_LINE_CHARS:,}")
        text = header.decode("utf-8", "replace")
        self.names = [n.strip() for n in next(csv.reader([text]))] if text.strip() else []
        self.quoted = b'"' in data
        self._check_line_lengths()

    @property
    def data_lines(self) -> int:
        return len(self.starts) - 1

    def line(self, k: int) -> bytes:
        return self.data[self.starts[k]:self.ends[k]]

    def field(self, k: int, col: int) -> str:
        """The text of column col on line k, as the file wrote it (for messages)."""
        parts = next(csv.reader([self.line(k).decode("utf-8", "replace")]), [])
        return parts[col] if col < len(parts) else ""

    def _check_line_lengths(self) -> None:
        lengths = self.ends - self.starts
        long = np.flatnonzero(lengths > MAX_LINE_CHARS)
        if long.size == 0:
            return
        k = int(long[0])
        parts = self.line(k).split(b",")
        j = max(range(len(parts)), key=lambda i: len(parts[i]))
        what = f", its field {self.names[j]!r} is {len(parts[j]):,} characters" if j < len(self.names) else ""
        raise fail(f"row {k} is {int(lengths[k]):,} characters long{what}; valid: at most "
                   f"{MAX_LINE_CHARS:,} characters a line, {MAX_FIELD_CHARS} a number")

    def columns(self, kinds: dict[int, str], progress=None, cancel=NEVER) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """Parse the columns `kinds` names ({index: "number" | "tokens" | "text" | "datetime"}) of every
        non-blank data line. Returns (row numbers, {index: array}); numbers are float64,
        text a bytes array, date-times int64 nanoseconds."""
        blocks = self._blocks_quoted() if self.quoted else self._blocks()
        rows_out: list[np.ndarray] = []
        out: dict[int, list[np.ndarray]] = {c: [] for c in kinds}
        total = max(self.data_lines, 1)
        for rows, cols, done in blocks:
            cancel.check()
            rows_out.append(rows)
            for c, kind in kinds.items():
                out[c].append(cols.get(c, kind, self.names[c], rows))
            if progress is not None:
                progress(min(done / total, 1.0))
        rows = np.concatenate(rows_out) if rows_out else np.zeros(0, np.int64)
        empty = {"number": np.zeros(0), "tokens": np.zeros(0), "text": np.zeros(0, "S1"), "datetime": np.zeros(0, np.int64)}
        return rows, {c: np.concatenate(v) if v else empty[kinds[c]] for c, v in out.items()}

    def _blocks(self):
        ncols = len(self.names)
        n = self.data_lines
        size = max(MIN_BLOCK_LINES, -(-n // MAX_BLOCKS))
        for a in range(1, n + 1, size):
            b = min(a + size, n + 1)
            rows = np.arange(a, b, dtype=np.int64)
            blank = self.ends[a:b] == self.starts[a:b]
            if blank.any():  # rare: join the non-blank lines so the split stays aligned
                rows = rows[~blank]
                chunk = b"\n".join(self.line(int(k)) for k in rows)
            else:
                chunk = self.data[self.starts[a]:self.ends[b - 1]]
            if rows.size == 0:
                yield rows, _Lists([[] for _ in range(ncols)]), b - 1
                continue
            blk = np.frombuffer(chunk, np.uint8)
            bounds = field_bounds(blk, rows.size, ncols)
            if bounds is None:
                self._check_field_counts(chunk, rows, ncols)  # raises, naming the row
            yield rows, _Block(chunk, blk, *bounds), b - 1

    def _check_field_counts(self, chunk: bytes, rows: np.ndarray, ncols: int) -> None:
        blk = np.frombuffer(chunk, np.uint8)
        commas = np.flatnonzero(blk == 44)
        line_ends = np.append(np.flatnonzero(blk == 10), blk.size)
        counts = np.diff(np.searchsorted(commas, line_ends), prepend=0)
        bad = np.flatnonzero(counts != ncols - 1)
        if bad.size:
            i = int(bad[0])
            raise fail(f"row {int(rows[i])} has a different number of fields than the header "
                       f"({int(counts[i]) + 1} for {ncols}); valid: one value per column")

    def _blocks_quoted(self):
        ncols = len(self.names)
        # Decoded as it is read: no copy of the file as one string (decode_check passed: UTF-8).
        reader = csv.reader(io.TextIOWrapper(io.BytesIO(self.data), encoding="utf-8", errors="replace", newline=""))
        next(reader, None)
        rows, lists = [], [[] for _ in range(ncols)]
        try:
            for i, row in enumerate(reader, start=1):
                if not row:
                    continue
                if len(row) != ncols:
                    raise fail(f"row {i} has a different number of fields than the header "
                               f"({len(row)} for {ncols}); valid: one value per column")
                rows.append(i)
                for c in range(ncols):
                    lists[c].append(row[c])
                if len(rows) == MIN_BLOCK_LINES:  # a block at a time: no Python string per field of the file
                    yield np.array(rows, dtype=np.int64), _Lists(lists), reader.line_num - 1
                    rows, lists = [], [[] for _ in range(ncols)]
        except csv.Error as exc:
            raise fail(f"row {reader.line_num - 1} is not valid CSV ({exc}); valid: a CSV header and rows") from None
        if rows or not self.data_lines:
            yield np.array(rows, dtype=np.int64), _Lists(lists), self.data_lines


def _newlines(data: bytes, step: int = 1 << 23) -> np.ndarray:
    """Positions of b'\\n', scanned 8 MiB at a time (no file-sized temporary array)."""
    arr = np.frombuffer(data, np.uint8)
    parts = [np.flatnonzero(arr[a:a + step] == 10) + a for a in range(0, arr.size, step)]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


class _Lists:
    """A block's columns as lists of values (the csv module's rows)."""

    def __init__(self, lists: list[list]):
        self.lists = lists

    def get(self, c: int, kind: str, field: str, rows: np.ndarray) -> np.ndarray:
        return _convert(self.lists[c], kind, field, rows)


class _Block:
    """A block of unquoted lines with its field boundaries; plain decimals and texts are
    read from the bytes (digits.py), anything else per value."""

    def __init__(self, chunk: bytes, blk: np.ndarray, starts: np.ndarray, ends: np.ndarray):
        self.chunk, self.blk, self.starts, self.ends = chunk, blk, starts, ends

    def get(self, c: int, kind: str, field: str, rows: np.ndarray) -> np.ndarray:
        s, e = self.starts[:, c], self.ends[:, c]
        if kind in ("number", "tokens"):
            fast = decimals(self.blk, s, e)
            if fast is not None:
                return fast
        else:  # text and date-time: bounded, then laid out from the bytes
            _check_lengths(e - s, field, rows)
            column = texts(self.blk, s, e)
            return column if kind == "text" else datetimes(column, field, rows)
        values = [self.chunk[a:b] for a, b in zip(s.tolist(), e.tolist())]
        return _convert(values, kind, field, rows)


def _convert(values: list, kind: str, field: str, rows: np.ndarray) -> np.ndarray:
    if kind in ("number", "tokens"):
        return numbers(values, field, rows, kind == "tokens")
    if kind == "datetime":
        return datetimes(values, field, rows)
    values = [v.strip() if isinstance(v, bytes) else v.strip().encode() for v in values]
    _check_lengths(np.array([len(v) for v in values], np.int64), field, rows)
    return np.array(values, dtype="S") if values else np.zeros(0, "S1")


def numbers(values: list, field: str, rows: np.ndarray, integer: bool = False, word: str = "row") -> np.ndarray:
    """float64 of each value; the first one that is too long, not a number or not finite is
    refused by guard.number with its row. Whole numbers take int() (twice as fast as
    float(); their length is bounded by the line's and by int()'s digit limit)."""
    n = len(values)
    try:
        return np.fromiter(map(int, values), dtype=np.int64, count=n).astype(float)
    except (ValueError, TypeError, OverflowError):
        pass
    try:
        out = np.fromiter(map(float, values), dtype=float, count=n)
        longest = max(map(len, values), default=0)
    except (ValueError, TypeError):
        out, longest = None, MAX_FIELD_CHARS + 1
    if out is None or longest > MAX_FIELD_CHARS or not np.isfinite(out).all():
        for v, r in zip(values, rows):  # raises on the first bad one; ranges are checked later
            parse_number(v, field, int(r), valid_text(integer), word)
    assert out is not None  # a value that is not a number was refused just above
    return out


def datetimes(values, field: str, rows: np.ndarray) -> np.ndarray:
    """int64 nanoseconds since 1970 (UTC where the value has an offset, as the 2024 Azure
    traces write it), read by datetimes.parse; the first value that is too long or not
    a date-time is refused with its row. values: a bytes array (dtype S) or a list."""
    if not isinstance(values, np.ndarray):
        values = [v if isinstance(v, bytes) else v.encode() for v in values]
        _check_lengths(np.array([len(v) for v in values], np.int64), field, rows)
        values = np.array(values, dtype="S") if values else np.zeros(0, "S1")
    stripped = values
    if values.size:
        mat = np.ascontiguousarray(values).view(np.uint8).reshape(values.size, values.dtype.itemsize)
        last = mat[np.arange(values.size), np.maximum(np.count_nonzero(mat, axis=1) - 1, 0)]
        if (mat[:, 0] == 32).any() or (last == 32).any():
            stripped = np.char.strip(values)  # rare: blanks around a value
    stamps, ok = parse_datetimes(stripped)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise fail(f"row {int(rows[i])}: {field} is {short(values[i])}, not a date-time; valid: {DATETIME_HINT}, "
                   f"year {MIN_YEAR}..{MAX_YEAR}")
    return stamps


def _check_lengths(lengths: np.ndarray, field: str, rows: np.ndarray) -> None:
    """A text or date-time field is at most MAX_FIELD_CHARS long (a model name, a log type, a
    time stamp): checked before a block's fields are laid out in a matrix that wide."""
    if lengths.size and lengths.max() > MAX_FIELD_CHARS:
        i = int(np.argmax(lengths > MAX_FIELD_CHARS))
        raise fail(f"row {int(rows[i])}: {field} is {int(lengths[i]):,} characters long; valid: at most "
                   f"{MAX_FIELD_CHARS} characters")
