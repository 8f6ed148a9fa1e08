"""Where the Serving panel's replays get their requests when not from the book's windows: a
trace file and how to read it (format, time scale, window, row limit, BurstGPT's filters).

A TraceSource is a value: the path and options, never the data, so a session stores it and
loads the file again when reopened. `parse_trace_source` checks text from the panel's
fields or values from a session, one ParamError naming the field; `load` reads the file
with core.serving.traces.load_trace (which checks the file itself).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.cancel import NEVER, CancelToken
from core.registry import Param, ParamError
from core.serving import traces
from core.serving.workload import MAX_REQUESTS, Workload

FORMATS = traces.FORMATS
MAX_FILTER_CHARS = 64  # a BurstGPT model or log type name ('ChatGPT', 'Conversation log')

# The options as Params: the panel's fields show them (label, range tooltip, error line).
PARAMS = (
    Param("format", "", "auto", "how to read the file (auto: sniffed from its header)", kind="choice", choices=FORMATS),
    Param("time_scale", "", 1.0, "arrivals this many times as fast (2: the same requests at twice the rate)",
          0, 1e6, min_exclusive=True),
    Param("window_s", "s", (), "keep the requests arriving in [start, end) s after the first (empty: all)",
          0, 1e10, kind="floats", min_items=0, max_items=2),
    Param("limit", "rows", 0, "keep the first N requests (0: all)", 0, MAX_REQUESTS, kind="int"),
    # Free text (kind 'text': parsed here, not by Param.parse; the field is a plain line edit).
    Param("trace_model", "", "", "BurstGPT: keep only rows whose Model is this (empty: all)", kind="text"),
    Param("trace_log_type", "", "", "BurstGPT: keep only rows whose Log Type is this (empty: all)", kind="text"),
)
_BY_NAME = {p.name: p for p in PARAMS}


@dataclass(frozen=True)
class TraceSource:
    path: str
    format: str = "auto"
    time_scale: float = 1.0
    window_s: tuple[float, ...] = ()  # () or (start, end)
    limit: int = 0  # 0: every row
    trace_model: str = ""
    trace_log_type: str = ""

    @property
    def name(self) -> str:
        """The file's name, for labels."""
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "format": self.format, "time_scale": self.time_scale,
                "window_s": list(self.window_s), "limit": self.limit, "trace_model": self.trace_model,
                "trace_log_type": self.trace_log_type}

    def options(self) -> traces.TraceOptions:
        """load_trace's checked options for these values (ParamError names load_trace's
        field: OPTION_OF maps it back)."""
        return traces.trace_options(self.format, self.time_scale, tuple(self.window_s) if self.window_s else None,
                                    self.limit or None, self.trace_model or None, self.trace_log_type or None)


def parse_trace_source(raw: Mapping[str, Any]) -> TraceSource:
    """A TraceSource from text or JSON values (missing options take their defaults);
    ParamError naming the field. A window may be written start:end or start,end."""
    if not isinstance(raw, Mapping):
        raise ParamError("trace", f"got {raw!r}; valid: an object with path and options")
    unknown = sorted(set(raw) - {"path", *_BY_NAME})
    if unknown:
        raise ParamError(unknown[0], f"unknown trace option; valid: path, {', '.join(_BY_NAME)}")
    path = str(raw.get("path", "")).strip()
    if not path or len(path) > 4096 or "\0" in path:
        raise ParamError("path", f"got {str(raw.get('path'))[:60]!r}; valid: a trace file's path")
    values: dict[str, Any] = {}
    for name, param in _BY_NAME.items():
        value = raw.get(name, param.default)
        if param.kind == "text":  # a filter; empty means none
            text = str(value or "").strip()
            if len(text) > MAX_FILTER_CHARS or "\0" in text:
                raise ParamError(name, f"got {len(text)} characters; valid: at most {MAX_FILTER_CHARS}")
            values[name] = text
            continue
        if name == "window_s" and isinstance(value, str):
            value = value.replace(":", ",")
        values[name] = param.parse(value) if value is not None else param.default
    window = values["window_s"]
    if len(window) == 1 or (len(window) == 2 and window[1] <= window[0]):
        raise ParamError("window_s", f"got {','.join(map(str, window))}; valid: empty or start:end with start < end (s)")
    return TraceSource(path=path, **values)


def has_prefix_info(workload: Workload) -> bool:
    """The workload tells the prefix cache what its prompts share (Mooncake hash_ids, sessions)."""
    return workload.prefix is not None or workload.sessions is not None


# load_trace's names for options this module names otherwise
OPTION_OF = {"window": "window_s"}


def load(source: TraceSource, max_request_tokens: int | None = None,
         progress: Callable[[float], None] | None = None, cancel: CancelToken = NEVER) -> Workload:
    """Read source's file (on a worker: progress(fraction) is called from that thread).
    ParamError naming the field as PARAMS do ('trace' for the file itself)."""
    try:
        workload = traces.load_trace(source.path, max_request_tokens, options=source.options(), progress=progress,
                                     cancel=cancel)
    except ParamError as err:
        if err.param in OPTION_OF:
            raise ParamError(OPTION_OF[err.param], err.message) from None
        raise
    return dataclasses.replace(workload, label=source.name)  # the file names the run in the plots


def summary_text(source: TraceSource, workload: Workload) -> str:
    """One line on what was loaded: the file, its format, rows kept and dropped (and why),
    the span of arrivals and the mean rate, and the prefix information it carries."""
    meta = workload.meta or {}
    n = len(workload)
    dropped = {k: int(v) for k, v in (meta.get("dropped") or {}).items() if v}
    span = float(workload.arrival_s.max() - workload.arrival_s.min()) if n else 0.0
    # Values in English (a line of numbers is not a label pair to split by language).
    parts = [f"<b>{source.name}</b>", f"format {meta.get('format', source.format)}", f"{n:,} requests"]
    if dropped:
        why = ", ".join(f"{reason} {count:,}" for reason, count in dropped.items())
        parts.append(f"dropped {sum(dropped.values()):,} ({why})")
    else:
        parts.append("dropped 0")
    head = meta.get("head_of_file")
    if head:  # limit= on a file over the size limit: only its head was read
        parts.append(f"read its first {head['bytes_read'] / 1e6:,.0f} of {head['file_bytes'] / 1e6:,.0f} MB")
    parts.append(f"duration {span:,.1f} s")
    if span > 0:
        parts.append(f"rate {n / span:,.2f} req/s")
    if workload.sessions is not None:
        parts.append(f"{np.unique(workload.sessions.session).size:,} sessions")
    elif workload.prefix is not None:
        parts.append(f"prefix blocks of {workload.prefix.block_tokens} tokens")
    if meta.get("measured") is not None:
        parts.append("measured TTFT/ITL: overlay below")
    return " · ".join(parts)
