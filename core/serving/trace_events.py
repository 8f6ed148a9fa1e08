"""A replay as a timeline in the Chrome trace event format (the JSON object form that
Perfetto's UI, chrome://tracing and Perfetto's trace processor open): trace.json beside
every `lab simulate serving --out` result.

One process per replica ("replica i", and the pool it serves where a caller names pools:
the hook issue 15's disaggregated pools fill), holding
- track "engine steps": a complete ("X") slice per engine event: one step, or a run of k
  pure-decode steps the engine advanced in closed form (args steps=k); args give the
  prefill and decode tokens per step, the running and waiting requests after it;
- a track per request ("request i"): slices queued (arrival to first schedule), prefill
  (to the first token), decode (to the finish), preempted (nested in the phase it
  interrupted, until rescheduled), tool wait (after a session's turn, before the next) and
  kv transfer (a P/D run's, core/serving/disagg: nested in decode, blocks allocated to landed);
- counters ("C"): vllm:num_requests_waiting, vllm:num_requests_running,
  vllm:kv_cache_usage_perc.
Times are microseconds (the format's unit) of the replay's clock.

Large runs are capped so the file stays small enough for the UI to open (bound_bytes()):
- steps: at most max_steps slices over all replicas; beyond, consecutive events merge into
  one slice per group (args: merged events, their steps and tokens summed);
- requests: at most max_requests tracks, evenly spaced in arrival order (as the GUI's
  Gantt view samples), the others left out;
- counters: at most max_points per counter and replica; beyond, each bucket of
  consecutive events becomes one point at its first time, with the bucket's largest value
  (peaks stay visible).
What was capped is written in the file's otherData.
"""
from __future__ import annotations

import math

import numpy as np

from core.serving import vllm_series as vs

MAX_STEPS = 20_000
MAX_REQUESTS = 1_000
MAX_POINTS = 5_000
# Upper bounds on one event's JSON (compact separators), measured on the longest each kind
# can be (seven-digit ids, 13-digit times, every arg at its widest) with some room.
EVENT_BYTES = {"step": 260, "request": 200, "counter": 110, "meta": 160}
REQUEST_EVENTS = 6  # queued, prefill, decode, tool wait, and usually at most a preemption or two
US = 1e6


def bound_bytes(replicas: int = 1, max_steps: int = MAX_STEPS, max_requests: int = MAX_REQUESTS,
                max_points: int = MAX_POINTS, preemptions: int = 0) -> int:
    """An upper bound on trace.json's size for these caps (preemption slices are not
    capped: one per logged preemption of a shown request)."""
    steps = max(max_steps, replicas)  # at least one slice per replica
    events = (steps * EVENT_BYTES["step"] + max_requests * (REQUEST_EVENTS * EVENT_BYTES["request"] + EVENT_BYTES["meta"])
              + preemptions * EVENT_BYTES["request"] + replicas * (3 * max_points * EVENT_BYTES["counter"]
                                                                   + 4 * EVENT_BYTES["meta"]))
    return events + 4096  # the wrapper and otherData


def _us(t: float) -> float:
    return round(float(t) * US, 3)


def _replica_series(result) -> list[dict]:
    """Each replica's series (the run's own when it has one engine)."""
    extras = result.extras or {}
    if "replicas" in extras:
        return list(extras["replicas"])
    return [{"replica": 0, "num_blocks": result.num_blocks, "series_t": result.series_t,
             "series_waiting": result.series_waiting, "series_running": result.series_running,
             "series_kv_blocks": result.series_kv_blocks, "series_tokens": result.series_tokens,
             "series_steps": result.series_steps, "series_decode_rows": result.series_decode_rows}]


def step_slices(entry: dict, pid: int, cap: int) -> tuple[list[dict], int]:
    """The replica's engine events as X slices on tid 0, merged into groups past cap:
    (events, group size)."""
    t = np.asarray(entry["series_t"], dtype=float)
    tokens = np.asarray(entry.get("series_tokens", np.zeros(t.size)), dtype=np.int64)
    steps = entry.get("series_steps")
    steps = np.ones(t.size, dtype=np.int64) if steps is None else np.asarray(steps, dtype=np.int64)
    dec = entry.get("series_decode_rows")
    dec = np.zeros(t.size, dtype=np.int64) if dec is None else np.asarray(dec, dtype=np.int64)
    busy = np.flatnonzero(steps[1:] > 0) + 1  # entry 0 is the start at t=0; steps 0: an idle jump
    group = max(1, math.ceil(busy.size / max(1, cap)))
    out = []
    for g0 in range(0, busy.size, group):
        idx = busy[g0:g0 + group]
        start, end = t[idx[0] - 1], t[idx[-1]]
        n_steps = int(steps[idx].sum())
        pre = int(((tokens[idx] - dec[idx]) * steps[idx]).sum())
        de = int((dec[idx] * steps[idx]).sum())
        if group == 1:
            kind = "prefill" if de == 0 else "decode" if pre == 0 else "mixed"
            name = f"{kind} x{n_steps}" if n_steps > 1 else kind
            args = {"steps": n_steps, "prefill_tokens": pre // n_steps, "decode_tokens": de // n_steps,
                    "running": int(entry["series_running"][idx[0]]), "waiting": int(entry["series_waiting"][idx[0]])}
        else:
            name = "steps (merged)"
            args = {"merged_events": int(idx.size), "steps": n_steps, "prefill_tokens": pre, "decode_tokens": de}
        out.append({"ph": "X", "name": name, "cat": "step", "pid": pid, "tid": 0, "ts": _us(start),
                    "dur": max(0.0, round(_us(end) - _us(start), 3)), "args": args})
    return out, group


def counter_events(entry: dict, pid: int, cap: int) -> tuple[list[dict], int]:
    """Waiting, running and KV use as C events, each bucket of consecutive events one point
    past cap (its largest value): (events, bucket size)."""
    t = np.asarray(entry["series_t"], dtype=float)
    blocks = entry["num_blocks"] or 1
    values = {vs.WAITING: np.asarray(entry["series_waiting"], dtype=float),
              vs.RUNNING: np.asarray(entry["series_running"], dtype=float),
              vs.KV_USE: np.asarray(entry["series_kv_blocks"], dtype=float) / blocks}
    bucket = max(1, math.ceil(t.size / max(1, cap)))
    starts = np.arange(0, t.size, bucket)
    out = []
    for name, v in values.items():
        peaks = np.maximum.reduceat(v, starts) if t.size else v
        digits = 6 if name == vs.KV_USE else 0
        out += [{"ph": "C", "name": name, "pid": pid, "tid": 0, "ts": _us(t[s]),
                 "args": {"value": round(float(p), digits) if digits else int(p)}} for s, p in zip(starts, peaks)]
    return out, bucket


def shown_requests(n: int, cap: int) -> np.ndarray:
    """Request indices (arrival order) that get a track: all, or cap evenly spaced."""
    if n <= cap:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, cap).astype(np.int64))


def request_events(result, workload, rows: np.ndarray, pid_of) -> list[dict]:
    """A track per shown request with its phases (see the module's docstring)."""
    sessions = getattr(workload, "sessions", None)
    alloc, ready = getattr(result, "kv_alloc_s", None), getattr(result, "kv_ready_s", None)
    by_request: dict[int, list] = {}
    for r, t0, t1 in result.preempt_log:
        by_request.setdefault(int(r), []).append((t0, t1))
    out = []
    for i in rows:
        i = int(i)
        pid, tid = pid_of(i), i + 1
        a, s, f, e = (float(result.arrival_s[i]), float(result.first_schedule_s[i]), float(result.first_token_s[i]),
                      float(result.finish_s[i]))
        args = {"request": i, "input_tokens": int(result.input_tokens[i]), "output_tokens": int(result.output_tokens[i])}
        if result.cached_tokens is not None:
            args["cached_tokens"] = int(result.cached_tokens[i])
        if sessions is not None:
            args["session"], args["turn"] = int(sessions.session[i]), int(sessions.turn[i])
        out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": f"request {i}"}})
        phases = [("queued", a, s), ("prefill", s, f), ("decode", f, e)]
        for name, t0, t1 in phases:
            if not (math.isnan(t0) or math.isnan(t1)):
                out.append(_slice(name, "request", pid, tid, t0, max(t0, t1), args if name == "queued" else None))
        # a P/D run's KV transfer, nested in decode
        if alloc is not None and ready is not None and not math.isnan(alloc[i]):
            out.append(_slice("kv transfer", "request", pid, tid, float(alloc[i]), float(ready[i]), None))
        for t0, t1 in by_request.get(i, ()):
            # nested in the phase it interrupted: clipped to it, so the slices nest strictly
            parent = next(((p0, p1) for _, p0, p1 in phases[1:] if p0 <= t0 < p1), None)
            if parent is None:
                continue
            end = parent[1] if math.isnan(t1) else min(max(t1, t0), parent[1])
            out.append(_slice("preempted", "request", pid, tid, t0, end, None))
        if sessions is not None and float(sessions.tool_wait_s[i]) > 0 and not math.isnan(e):
            out.append(_slice("tool wait", "request", pid, tid, e, e + float(sessions.tool_wait_s[i]), None))
    return out


def _slice(name, cat, pid, tid, t0, t1, args) -> dict:
    event = {"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": _us(t0),
             "dur": max(0.0, round(_us(t1) - _us(t0), 3))}
    if args:
        event["args"] = args
    return event


def chrome_trace(result, workload=None, pools=None, max_steps: int = MAX_STEPS, max_requests: int = MAX_REQUESTS,
                 max_points: int = MAX_POINTS) -> dict:
    """The trace as a JSON-ready dict ({"traceEvents": [...], ...}). pools: a pool name per
    replica (None: result.extras' pool_names where a disaggregated run names them, else one
    pool, not named), shown in each replica's process name and labels."""
    entries = _replica_series(result)
    if pools is None:
        pools = (result.extras or {}).get("pool_names")
    replica_of = (result.extras or {}).get("replica_of")
    pid_of = (lambda i: 1) if replica_of is None else (lambda i: int(replica_of[i]) + 1)
    events: list[dict] = []
    step_cap = max(1, max_steps // len(entries))
    merged, buckets = [], []
    for entry in entries:
        pid = int(entry["replica"]) + 1
        pool = None if pools is None else str(pools[int(entry["replica"])])
        name = f"replica {entry['replica']}" + (f" ({pool} pool)" if pool else "")
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                       "args": {"sort_index": int(entry["replica"])}})
        if pool:
            events.append({"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": f"pool={pool}"}})
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": 0, "args": {"name": "engine steps"}})
        steps, group = step_slices(entry, pid, step_cap)
        counters, bucket = counter_events(entry, pid, max_points)
        events += steps + counters
        merged.append(group)
        buckets.append(bucket)
    rows = shown_requests(int(result.arrival_s.size), max_requests)
    events += request_events(result, workload, rows, pid_of)
    other = {"source": "Load Lab serving replay", "clock": "the replay's simulated seconds, as microseconds",
             "replicas": len(entries), "requests": int(result.arrival_s.size), "requests_shown": int(rows.size),
             "step_events_per_slice": max(merged), "counter_events_per_point": max(buckets),
             "caps": {"max_steps": max_steps, "max_requests": max_requests, "max_points": max_points}}
    if pools is not None:
        other["pools"] = [str(p) for p in pools]
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": other}
