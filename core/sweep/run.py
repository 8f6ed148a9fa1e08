"""The sweep API the CLI (`lab sweep`) and the Plan panel share:

    spec = parse_sweep("serving", {"max_num_seqs": "32,64", "seeds": "0-3"})  # ParamError if bad
    summary = run_sweep(spec, out_dir, make_executor("local", workers=2), on_row=..., progress=...)

The kind of simulation (its keys, how a point is resolved and evaluated) is looked up by
name: KINDS maps "serving" to core.sweep.serving's SERVING (it was lab/cli/sweep.py's; it moved to
core, so the Plan panel and the CLI share one evaluator and core needs no lab). The
worker processes import it by name too when they unpickle the evaluate function.

run_sweep returns the summary (core/sweep/summary.py) and, with out_dir, keeps the folder
(core/sweep/store.py). Cancelling (the token, or Ctrl+C) keeps every finished point: the
results and summary are written for them; a cancelled token returns the summary with
"cancelled": true, Ctrl+C (KeyboardInterrupt) is raised again after writing.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable

from core.cancel import NEVER, Cancelled, CancelToken
from core.registry import ParamError
from core.sweep.executors import Executor
from core.sweep.points import file_digest, make_point
from core.sweep.spec import SweepKind, SweepSpec, parse_grid
from core.sweep.store import Store
from core.sweep.summary import summarize

# kind -> "module:attribute" of its SweepKind (resolved on first use).
KINDS = {"serving": "core.sweep.serving:SERVING", "rl": "core.rl.sweep:RL"}
# kind -> "module:function" that loads what its evaluator needs (an executor that starts
# workers runs it where they start from: core/sweep/warm.py).
WARMUPS = {"serving": "core.sweep.warm:warm_serving", "rl": "core.sweep.warm:warm_serving"}


def sweep_kind(kind: str) -> SweepKind:
    if kind not in KINDS:
        raise ParamError("KIND", f"no sweep {kind!r}; valid: {', '.join(KINDS)}")
    module, _, name = KINDS[kind].partition(":")
    return getattr(importlib.import_module(module), name)


def parse_sweep(kind: str, raw: dict[str, str]) -> SweepSpec:
    """The sweep the keys describe, every point checked and keyed (ParamError names the
    first bad key with what is valid)."""
    k = sweep_kind(kind)
    spec = parse_grid(k, raw)
    trace = spec.fixed.get("trace")
    if trace is not None:
        try:
            spec.inputs_digest = "sha256:" + file_digest(trace)
        except OSError as err:
            raise ParamError("trace", f"cannot read {trace!r} ({err.strerror}); valid: a readable trace file") from None
    if hasattr(k, "check_spec"):
        k.check_spec(spec)
    if spec.search is not None:
        k.check_search(spec.fixed)
    search = None if spec.search is None else spec.search.as_json()
    seeds = spec.seeds if spec.seeds is not None else [None]
    points = []
    for setting in spec.settings():
        for seed in seeds:
            raw_point = dict(setting) if seed is None else dict(setting, seed=str(seed))
            params = k.resolve(raw_point)
            points.append(make_point(kind, setting, raw_point, params, seed, search, spec.inputs_digest))
    if len({p.key for p in points}) != len(points):
        raise ParamError(spec.axes[0][0] if spec.axes else "seeds",
                         "two grid values resolve to the same point; valid: values that differ once resolved")
    spec.points = points
    return spec


def run_sweep(spec: SweepSpec, out_dir: str | None, executor: Executor, *, force: bool = False,
              on_row: Callable[[dict], None] | None = None,
              progress: Callable[[int, int], None] | None = None,
              cancel: CancelToken = NEVER) -> dict:
    """Run every point of spec not already in out_dir, on executor; returns the summary.

    out_dir None: in memory only. on_row(row) runs in the calling thread for each finished
    row, reused ones first; progress(done, total) after each. force: take over a folder
    written by a different sweep (its finished points stay reusable by key)."""
    k = sweep_kind(spec.kind)
    shared = k.load_shared(spec.fixed) if spec.points else None
    prepare = getattr(executor, "prepare", None)
    if prepare is not None and spec.points:  # workers start before the folder's lock is taken
        prepare(k.evaluate, shared, WARMUPS.get(spec.kind))
    store = Store(out_dir, spec, force=force) if out_dir is not None else None
    rows: dict[str, dict] = {}
    finished = store.load() if store is not None else {}
    wanted = {p.key for p in spec.points}
    total = len(spec.points)
    reused = 0
    for point in spec.points:
        if point.key in finished:  # the same point; its setting is named as this sweep names it
            rows[point.key] = dict(finished[point.key], point=point.key, setting=point.setting, seed=point.seed)
            reused += 1
            if on_row is not None:
                on_row(rows[point.key])
    if progress is not None:
        progress(len(rows), total)
    tasks = [(p.key, payload(spec, p)) for p in spec.points if p.key not in rows]
    cancelled = False
    pending = None
    try:
        if tasks:
            stream = executor.run(k.evaluate, shared, tasks, cancel)
            try:
                for key, row in stream:
                    if key not in wanted or key in rows:
                        continue  # an executor's duplicate (a retried task): the first one counts
                    # On file first, then counted: a Ctrl+C between the two is mended below,
                    # so the summary never counts a point points.jsonl lacks.
                    pending = (key, row)
                    if store is not None:
                        store.append(key, row)
                    rows[key] = row
                    pending = None
                    if on_row is not None:
                        on_row(row)
                    if progress is not None:
                        progress(len(rows), total)
            finally:  # stopped early (Ctrl+C in on_row...): the executor stops its workers now
                getattr(stream, "close", lambda: None)()
    except Cancelled:
        cancelled = True
    finally:
        if pending is not None and store is not None and getattr(store, "last_key", None) == pending[0]:
            rows[pending[0]] = pending[1]
        ordered = [rows[p.key] for p in spec.points if p.key in rows]
        summary = _summary(k, spec, ordered, reused, cancelled)
        if store is not None:
            try:
                summary["files"] = store.write_results(ordered, summary)
            finally:
                store.release()
    return summary


def _summary(k: SweepKind, spec: SweepSpec, rows: list[dict], reused: int, cancelled: bool) -> dict:
    summary = summarize(spec, rows, reused=reused, cancelled=cancelled)
    if hasattr(k, "summarize"):  # a kind's own findings (rl: the best rollout/trainer split)
        summary.update(k.summarize(spec, rows))
    return summary


def payload(spec: SweepSpec, point) -> dict:
    """What a worker needs for one point (small: the trace itself is the shared input)."""
    return {"key": point.key, "setting": point.setting, "seed": point.seed, "raw": point.raw,
            "params": point.params, "search": None if spec.search is None else spec.search.as_json()}
