"""Open one sweep point in the Serving panel's replay A.

The hook is the window's public panel API (`show_panel(key)`, `panel(key)` building it on
first use) and the Serving state's own setters (`set_trace` / `clear_trace`,
`set_model_choice`, `replay("A").update`): the same calls a user's edits make, so undo,
sessions and the replays' job runner follow as they do for a typed value. The Plan panel
also emits `point_opened` with the values, for a window that wants to do more."""
from __future__ import annotations

from typing import Any

from core.registry import get
from widgets.plan import figures as F

# The trace options a sweep row carries that the Serving trace source takes too.
TRACE_OPTIONS = ("format", "time_scale", "limit")


def replay_values(row: dict) -> dict[str, Any]:
    """The row's values of serving.replay's parameters (replicas and router too, once the
    replay takes them)."""
    return F.serving_values(row, [p.name for p in get("serving.replay").params])


def open_in_serving(panel, row: dict, replaced: list | None = None) -> dict[str, Any] | None:
    """Show the Serving panel of panel's window on row's point; the values given to replay
    A, or None when panel is not in a window with a Serving panel. A trace the Serving
    panel had loaded that the point's own workload sets aside is appended to `replaced`
    (its path), for the caller to say so: it must not go silently."""
    values = replay_values(row)
    panel.point_opened.emit({"values": values, "row": row})
    window = panel.window()
    if not all(hasattr(window, name) for name in ("show_panel", "panel", "panel_keys")) \
            or "serving" not in window.panel_keys():
        return None
    window.show_panel("serving")
    state = window.panel("serving").state
    trace = F.param(row, "trace")
    loaded = state.trace.to_json().get("path") if state.trace is not None else None
    if loaded and replaced is not None and str(loaded) != str(trace or ""):
        replaced.append(str(loaded))
    if trace:
        options = {k: F.param(row, k) for k in TRACE_OPTIONS if F.param(row, k) is not None}
        state.set_trace({"path": str(trace), **options})
    elif state.trace is not None:
        state.clear_trace()
    choice = {k: F.param(row, k) for k in ("model", "hardware") if F.param(row, k)}
    if choice:
        state.set_model_choice(choice)  # the picker shows the point's model and card; values below win
    state.replay("A").update(values)
    return values
