"""Baseten's completion traces, exported as Parquet, as AIPerf reads them
(--custom-dataset-type baseten_trace; docs: tutorials/baseten-trace):

    timestamp_start_unix_ms  prompt  input_tokens  output_tokens  [total_hashes  block_size
    provided_session_id  poor_man_session_id  request_canceled  duration_e2e_ms ...]

AIPerf's default replay is open-loop: every row is sent at its recorded start, as ms since
the file's first row, and each row's prompt is the whole expanded history (input_tokens
counts the earlier turns), so rows are requests of their own, as in bailian.py; the session
columns group rows for stickiness only and add no timing here. output_tokens = 0 (a
cancelled request) is raised to 1 as AIPerf does (max_tokens must be >= 1), counted in meta
"output_tokens_raised". prompt is never read (the lengths are given). total_hashes are one
id per block_size prompt tokens: renumbered densely they give the prefix the cache can
reuse; a file without block_size, with more than one, or whose counts do not fit is read
without them (meta "hash_ids" says why).

Parquet is binary: it is recognised by its magic bytes (PAR1 at both ends) and read by
pyarrow from the bytes guard.py checked; only the columns above are decoded, and the row
count is bounded from the file's footer before any column is.
"""
from __future__ import annotations

import numpy as np

from core.serving.traces.guard import check_arrivals, check_tokens, fail, short
from core.serving.traces.transforms import Parsed
from core.serving.workload import MAX_REQUESTS

MAGIC = b"PAR1"
REQUIRED = ("timestamp_start_unix_ms", "input_tokens", "output_tokens")
_HASHES = ("total_hashes", "block_size")
MAX_DECODED_BYTES = 1 << 30  # the read columns uncompressed: 4x the largest trace file read
_MAX_BLOCK = 1 << 20  # options.MAX_HASH_BLOCK_TOKENS (options imports sniff, which imports this)
_VALID = "timestamp_start_unix_ms, input_tokens, output_tokens (total_hashes, block_size optional)"


def looks_like(data: bytes) -> bool:
    """A Parquet file (its first and last four bytes)."""
    return len(data) >= 12 and data.startswith(MAGIC) and data.endswith(MAGIC)


def read_baseten(data: bytes, progress=None) -> Parsed:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pyarrow is a dependency; a stripped install says what is missing
        raise fail("a Parquet trace needs pyarrow; valid: pip install pyarrow, or a CSV/JSONL trace") from None
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        names = set(pf.schema_arrow.names)
        rows_in_file = pf.metadata.num_rows
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise fail(f"not a readable Parquet file ({_why(exc)}); valid: a Baseten trace Parquet file") from None
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise fail(f"no column {missing[0]!r} for format baseten; valid: a Parquet file with {_VALID}")
    if rows_in_file > MAX_REQUESTS:
        raise fail(f"more than {MAX_REQUESTS:,} rows; valid: at most {MAX_REQUESTS:,}")
    columns = list(REQUIRED) + [c for c in _HASHES if c in names]
    size = _decoded_bytes(pf.metadata, columns)
    if size > MAX_DECODED_BYTES:  # a small file that decompresses to more than memory should hold
        raise fail(f"its columns decode to {size:,} bytes; valid: at most {MAX_DECODED_BYTES:,}")
    try:
        table = pf.read(columns=columns)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise fail(f"the Parquet file's columns do not read ({_why(exc)}); valid: {_VALID}") from None
    n = table.num_rows
    if n == 0:
        raise fail("the file has no requests; valid: at least one row")
    rows = np.arange(1, n + 1, dtype=np.int64)  # 1-based row numbers, for messages
    ms = _integers(table, "timestamp_start_unix_ms")
    t = check_arrivals((ms - ms.min()) / 1e3, "timestamp_start_unix_ms (as s from the first row)", rows,
                       lambda i: int(ms[i]))  # integer ms first: Unix times in float seconds lose microseconds
    raw_p = _integers(table, "input_tokens")
    p = check_tokens(raw_p.astype(float), "input_tokens", rows, lambda i: int(raw_p[i]))
    raw_g = _integers(table, "output_tokens")
    raised = int((raw_g == 0).sum())
    g = check_tokens(np.maximum(raw_g, 1).astype(float), "output_tokens", rows, lambda i: int(raw_g[i]))
    prefix, block, note = _prefix(table, p)
    extra = {"output_tokens_raised": raised} if raised else {}
    if note:
        extra["hash_ids"] = note
    if progress is not None:
        progress(1.0)
    return Parsed(arrival_s=t, input_tokens=p, output_tokens=g, rows=rows, fmt="baseten", rows_read=n,
                  prefix=prefix, block_tokens=block, extra=extra)


def _decoded_bytes(metadata, columns: list[str]) -> int:
    """What the footer says the columns take uncompressed (a list column's leaf included), or
    8 bytes a value where that is more (run-length encoding packs repeats smaller than that)."""
    total = 0
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            if chunk.path_in_schema.split(".")[0] in columns:
                total += max(int(chunk.total_uncompressed_size), 8 * int(chunk.num_values), 0)
    return total


def _why(exc: Exception) -> str:
    return short(str(exc).splitlines()[0] if str(exc) else type(exc).__name__).strip("'\"")


def _integers(table, name: str) -> np.ndarray:
    """A column as int64: whole numbers >= 0, no nulls, or a refusal naming the row. A float
    column of whole numbers passes (AIPerf's model coerces it so), and a timestamp column is
    taken in ms."""
    import pyarrow as pa

    col = table.column(name)
    if col.null_count:
        i = next(k for k, v in enumerate(col.to_pylist()) if v is None)
        raise fail(f"row {i + 1}: {name} is empty; valid: a whole number >= 0")
    if pa.types.is_timestamp(col.type):
        col = col.cast(pa.timestamp("ms")).cast(pa.int64())  # truncates sub-ms parts, as ms are the unit
    if pa.types.is_floating(col.type):
        f = col.to_numpy().astype(float)
        bad = ~(np.isfinite(f) & (f == np.floor(f)) & (np.abs(f) < 2.0**62))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise fail(f"row {i + 1}: {name} is {short(float(f[i]))}; valid: a whole number >= 0")
        values = f.astype(np.int64)
    elif pa.types.is_integer(col.type):
        values = col.to_numpy().astype(np.int64)
    else:
        raise fail(f"column {name} holds {col.type}; valid: whole numbers (an integer column)")
    if values.size and values.min() < 0:
        i = int(np.flatnonzero(values < 0)[0])
        raise fail(f"row {i + 1}: {name} is {int(values[i])}; valid: a whole number >= 0")
    return values


def _prefix(table, p: np.ndarray):
    """((ids, offsets) CSR, block tokens, None), or (None, 16, why) when the hashes say no prefix."""
    names = table.column_names
    if "total_hashes" not in names:
        return None, 16, None
    if "block_size" not in names:
        return None, 16, "no block_size column: the tokens a hash covers are not known, the prefix is not"
    sizes = table.column("block_size").to_pylist()
    distinct = set(sizes)
    if len(distinct) != 1 or type(next(iter(distinct))) is not int or not 1 <= next(iter(distinct)) <= _MAX_BLOCK:
        return None, 16, f"block_size is not one whole number for the file ({short(sorted(map(str, distinct)))}): " \
                         "the prefix is not known"
    block = next(iter(distinct))
    dense: dict = {}
    ids: list[int] = []
    offsets = [0]
    for r, (x, n) in enumerate(zip(table.column("total_hashes").to_pylist(), p.tolist()), start=1):
        if x is None or len(x) == 0:
            return None, block, f"row {r} has no total_hashes: the prefix is not known"
        if any(type(v) is not int or v < 0 for v in x):
            raise fail(f"row {r}: total_hashes is {short(x)}; valid: a list of whole numbers >= 0")
        if len(x) != -(-n // block):
            return None, block, (f"row {r} has {len(x)} total_hashes for input_tokens {n:,} (not one per "
                                 f"{block} tokens): the prefix is not known")
        ids.extend(dense.setdefault(v, len(dense)) for v in x)
        offsets.append(len(ids))
    return (np.array(ids, dtype=np.int64), np.array(offsets, dtype=np.int64)), block, None
