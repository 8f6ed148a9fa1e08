"""JSON Lines read by pyarrow's JSON reader (C++, columnar): a large Mooncake trace without
a Python object per line or per hash id (1M lines, 8M ids: 9 s and 1.5 GB through
json.loads, about 1 s and a few hundred MB here).

Only the plain case is taken: every line one object with the same keys, numbers of the
types expected (whole numbers for tokens and hash ids), no line of blanks only. Anything else
returns None and the caller parses the lines with json (jsonlines.py), which names the
line and field at fault; a file this path takes gives the same arrays as that one.
"""
from __future__ import annotations

import io
from typing import Any

import numpy as np

MIN_BYTES = 1 << 20  # below this json.loads is fast enough; the tests set 0 to compare both paths


def columns(data: bytes, newlines: int) -> dict[str, Any] | None:
    """{key: float64 or int64 array; "hash_ids": (ids, offsets)} for every line, or None.
    newlines: the non-empty lines the file holds, as the caller counted them."""
    try:  # pyarrow takes a few tenths of a second to import: only for a large JSONL file
        import pyarrow as pa
        import pyarrow.json as pa_json
    except ImportError:  # pyarrow is a dependency; a stripped install still reads traces
        return None
    try:
        table = pa_json.read_json(io.BytesIO(data))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    if table.num_rows != newlines:  # lines of blanks skipped too: line numbers would differ
        return None
    out: dict[str, Any] = {}
    for name, column in zip(table.column_names, table.columns):
        if column.null_count:  # a line without this key
            return None
        kind = column.type
        if pa.types.is_integer(kind) or pa.types.is_floating(kind):
            out[name] = column.to_numpy()
        elif pa.types.is_list(kind) and pa.types.is_integer(kind.value_type):
            lists = column.combine_chunks()
            ids = lists.flatten()
            if ids.null_count:
                return None
            lengths = lists.value_lengths().to_numpy(zero_copy_only=False).astype(np.int64)
            offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
            out[name] = (ids.to_numpy().astype(np.int64), offsets)
        else:  # strings, booleans, nested objects: the per-line path says which line
            return None
    return out
