"""CSV traces: our own columns (with aliases), Azure LLM inference 2023/2024, BurstGPT as
downloaded, and Vidur's trace CSV. Each is a header to recognise and three columns to read.

- csv: arrival_s|timestamp|..., input_tokens|request tokens|..., output_tokens|...; any
  column not known is an error, so a typo is not silently dropped.
- azure: TIMESTAMP (a date-time, e.g. 2023-11-16 18:17:03.9799600 or, in 2024,
  2024-05-12 00:00:00.001163+00:00), ContextTokens, GeneratedTokens; seconds since the first row.
- burstgpt: Timestamp (s), Model, Request tokens, Response tokens, Total tokens, Log Type
  (newer files also Session ID, Elapsed time). Failed requests (Response tokens = 0) are
  left out and counted; trace_model= and trace_log_type= keep only the matching rows.
- vidur: arrived_at (s), num_prefill_tokens, num_decode_tokens (num_total_tokens, pd_ratio ignored).
"""
from __future__ import annotations

import numpy as np

from core.cancel import NEVER
from core.registry import ParamError
from core.serving.traces.columns import CsvText
from core.serving.traces.guard import check_arrivals, check_tokens, fail
from core.serving.traces.images import parse_cell
from core.serving.traces.transforms import Parsed
from core.serving.workload import MAX_REQUESTS

FIELDS = {
    "arrival_s": ("arrival_s", "arrival", "arrival_time", "arrival_time_s", "timestamp", "time", "t"),
    "input_tokens": ("input_tokens", "request tokens", "request_tokens", "prompt_tokens", "input", "p"),
    "output_tokens": ("output_tokens", "response tokens", "response_tokens", "completion_tokens", "output", "g"),
}
IMAGES = "images"  # a request's images (images.py: 'HxW' or 'ID:HxW' items separated by ';')
IGNORED = ("model", "total tokens", "total_tokens", "log type", "log_type", "id", "request_id", "class")
_LOOKUP = {alias: key for key, aliases in FIELDS.items() for alias in aliases}
# format: (arrival column, input column, output column, other known columns), names lower-case
LAYOUTS = {
    "azure": ("timestamp", "contexttokens", "generatedtokens", ()),
    "burstgpt": ("timestamp", "request tokens", "response tokens",
                 ("model", "total tokens", "log type", "session id", "elapsed time")),
    "vidur": ("arrived_at", "num_prefill_tokens", "num_decode_tokens", ("num_total_tokens", "pd_ratio")),
}
HEADERS = {"azure": "TIMESTAMP,ContextTokens,GeneratedTokens",
           "burstgpt": "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type[,Session ID,Elapsed time]",
           "vidur": "arrived_at,num_prefill_tokens,num_decode_tokens"}
_VALID_TEXT = ("columns: arrival_s|timestamp, input_tokens|request tokens, output_tokens|response tokens "
               "(ignored: " + ", ".join(IGNORED) + "), or a known trace's header: "
               + "; ".join(f"{k} {v}" for k, v in HEADERS.items()))


def sniff(names: list[str]) -> str:
    low = {n.strip().lower() for n in names}
    for fmt, (t, p, g, others) in LAYOUTS.items():
        if {t, p, g} <= low and low <= {t, p, g, *others}:
            return fmt
    return "csv"


def generic_columns(names) -> dict[str, str]:
    """Map each of our fields to the file's column name; reject unknown columns."""
    mapping: dict[str, str] = {}
    for name in names:
        norm = str(name).strip().lower()
        if norm in IGNORED or norm == IMAGES:
            continue
        key = _LOOKUP.get(norm)
        if key is None:
            raise fail(f"unknown column {name!r}; valid {_VALID_TEXT}")
        if key in mapping:
            raise fail(f"columns {mapping[key]!r} and {name!r} both give {key}; valid: one of them")
        mapping[key] = name
    missing = [k for k in FIELDS if k not in mapping]
    if missing:
        raise fail(f"missing column {', '.join(missing)}; valid {_VALID_TEXT}")
    return mapping


def _layout_columns(names: list[str], fmt: str) -> tuple[list[int], list[str]]:
    """Indices and labels of the arrival, input and output columns of a known layout."""
    low = [n.strip().lower() for n in names]
    t, p, g, others = LAYOUTS[fmt]
    for name, norm in zip(names, low):
        if norm not in (t, p, g, *others):
            raise fail(f"unknown column {name!r} for format {fmt}; valid: {HEADERS[fmt]}")
    missing = [c for c in (t, p, g) if c not in low]
    if missing:
        raise fail(f"missing column {', '.join(missing)} for format {fmt}; valid: {HEADERS[fmt]}")
    idx = [low.index(c) for c in (t, p, g)]
    return idx, [names[i] for i in idx]


def read_csv(data: bytes, fmt: str = "auto", trace_model=None, trace_log_type=None,
             progress=None, cancel=NEVER) -> Parsed:
    text = CsvText(data)
    if not text.names:
        raise fail("the file is empty; valid: a CSV header and rows")
    if fmt in ("auto", "csv_auto"):
        fmt = sniff(text.names)
    if text.data_lines > MAX_REQUESTS:
        raise fail(f"more than {MAX_REQUESTS:,} rows; valid: at most {MAX_REQUESTS:,}")
    if fmt == "csv":
        mapping = generic_columns(text.names)
        keys = ("arrival_s", "input_tokens", "output_tokens")
        idx = [text.names.index(mapping[k]) for k in keys]
        labels = list(keys)  # messages name our fields, whatever the column is called
    else:
        idx, labels = _layout_columns(text.names, fmt)
    filters = _filter_columns(text.names, trace_model, trace_log_type)
    kinds = {idx[0]: "datetime" if fmt == "azure" else "number", idx[1]: "tokens", idx[2]: "tokens"}
    kinds.update({c: "text" for c, _, _ in filters})
    low = [n.strip().lower() for n in text.names]
    image_col = low.index(IMAGES) if fmt == "csv" and IMAGES in low else None
    if image_col is not None:
        kinds[image_col] = "text"
    rows, cols = text.columns(kinds, progress, cancel)
    keep = np.ones(rows.size, dtype=bool)
    dropped: dict[str, int] = {}
    for c, wanted, param in filters:
        distinct = set(cols[c].tolist())  # a few values (models, log types) over many rows
        chosen = [v for v in distinct if v.strip().lower() == wanted.strip().lower().encode()]
        match = np.isin(cols[c], chosen) if len(chosen) > 1 else cols[c] == (chosen[0] if chosen else b"")
        if not match.any():
            present = ", ".join(sorted({v.decode("utf-8", "replace").strip() for v in distinct})[:12])
            raise ParamError(param, f"no row has {text.names[c]} {wanted!r}; valid: one of {present}")
        dropped[f"other {text.names[c]}"] = int(np.sum(keep & ~match))
        keep &= match
    if fmt == "burstgpt":
        zero = keep & (cols[idx[2]] == 0)
        if zero.any():
            dropped["zero response tokens"] = int(zero.sum())
        keep &= ~zero
    rows = rows[keep]

    def raw(col):
        return lambda i: text.field(int(rows[i]), col)

    arrivals = cols[idx[0]][keep]
    if fmt == "azure":
        arrivals = (arrivals - (arrivals.min() if arrivals.size else 0)) / 1e9
    else:
        arrivals = check_arrivals(arrivals, labels[0], rows, raw(idx[0]))
    images = None if image_col is None else [parse_cell(v, int(r)) for v, r in zip(cols[image_col][keep], rows)]
    return Parsed(arrival_s=arrivals, input_tokens=check_tokens(cols[idx[1]][keep], labels[1], rows, raw(idx[1])),
                  output_tokens=check_tokens(cols[idx[2]][keep], labels[2], rows, raw(idx[2])),
                  rows=rows, fmt=fmt, rows_read=int(keep.size), dropped=dropped, images=images)


def _filter_columns(names: list[str], trace_model, trace_log_type) -> list[tuple[int, str, str]]:
    low = [n.strip().lower() for n in names]
    out = []
    for value, column, param in ((trace_model, "model", "trace_model"), (trace_log_type, "log type", "trace_log_type")):
        if value is None:
            continue
        if column not in low:
            raise ParamError(param, f"the trace has no {column.title()} column; valid: only for traces that have "
                             "one (BurstGPT)")
        out.append((low.index(column), str(value), param))
    return out
