"""Rollouts that stream across steps (mode=async): the rollout engines never drain
between batches, so the tail of step j overlaps the start of step j+1 (AReaL's fully
asynchronous rollout, with its staleness bound deciding when a batch may start).

Each replica keeps one routed Engine (core.serving.engine's route/submit/advance) over its
rows of every step. A batch is submitted at its gate (the sync it waits for): the engine
is advanced to the gate (exact: no closed-form decode run crosses it) and takes the new
requests at that step boundary, as vLLM admits only between steps. An engine that ran
out of work before the gate would take them at its old clock, so it is replaced by a
fresh engine over its remaining rows whose time starts at the gate (a segment); nothing
is lost, since its KV was invalid after the weights changed and new groups share no
prefix with old ones. The caller never lets an engine run past a gate it has not
submitted yet: complete(k, next_submit) advances only as far as the earliest moment the
next gate could be, given that step k is not done yet.

A sync interrupts no request in flight (core/rl/loop.py states the choice): the new
weights are taken at a request boundary, so the engine runs on with its KV and only the
batch submitted at the gate starts on them. A segment's prefix-cache hits and engine steps
are read when it closes (Engine.result), so they are known per step only after close().
"""
from __future__ import annotations

import math

import numpy as np

from core.rl import rollout as ro
from core.serving.engine import Engine, EngineConfig
from core.serving.replicas import subset

MIN_HOP_S = 1e-3  # the least an advance moves the clock on (a trainer taking no time at all)


class _Replica:
    def __init__(self, rows: np.ndarray, step_of: np.ndarray, work, config: EngineConfig):
        self.rows, self.step_of, self.work, self.config = rows, step_of, work, config
        self.finish = np.full(rows.size, np.nan)  # absolute, per row of this replica
        self.start = np.full(rows.size, np.nan)
        self.preempted = np.zeros(rows.size, np.int64)
        self.cached = np.zeros(rows.size, np.int64)  # prompt tokens found in the prefix cache
        self.engine_steps = 0
        self.busy_s = 0.0
        self.engine: Engine | None = None
        self.ids = np.zeros(0, np.int64)  # engine id of each of self.rows (in the current segment)
        self.first = 0  # first row (index into self.rows) of the current segment
        self.origin = 0.0
        self.submitted = 0  # rows submitted so far (rows are in step order)

    def _close_segment(self) -> None:
        e = self.engine
        if e is None:
            return
        done = np.arange(self.first, self.submitted)
        res = e.result()  # in the segment's workload order: row self.first + j is j
        if res.cached_tokens is not None:
            self.cached[done] = res.cached_tokens[:done.size]
        self.engine_steps += int(res.engine_steps)
        for i in done.tolist():
            eid = int(self.ids[i - self.first])
            self.finish[i] = self.origin + e.finish_s(eid)
            self.preempted[i] = len(e.preemption_spans(eid))
        if done.size:
            self.busy_s += float(np.nanmax(self.finish[done])) - self.origin
        self.engine = None

    def submit(self, step: int, t: float) -> None:
        sel = np.flatnonzero(self.step_of == step)
        if sel.size == 0:
            return
        if self.engine is not None:
            self.engine.advance(t - self.origin, exact=True)
            if self.engine.outstanding() == 0:
                self._close_segment()
        if self.engine is None:  # a new segment: its time starts at the gate
            self.first, self.origin = int(sel[0]), t
            rest = np.arange(self.first, self.rows.size)
            e = Engine(subset(self.work, rest), self.config)
            e.route()
            inverse = np.empty(rest.size, np.int64)
            inverse[e.rows()] = np.arange(rest.size)
            self.engine, self.ids = e, inverse
        e = self.engine
        for i in sel.tolist():
            e.submit(int(self.ids[i - self.first]))
            self.start[i] = max(t, self.origin + e.clock())
        self.submitted = int(sel[-1]) + 1

    def clock(self) -> float:
        return self.origin + self.engine.clock() if self.engine is not None else math.inf

    def pending(self, step: int) -> bool:
        """Rows of step not finished yet (rows of a closed segment are all done)."""
        if self.engine is None:
            return False
        sel = np.flatnonzero(self.step_of == step)
        sel = sel[sel >= self.first]
        return any(math.isnan(self.engine.finish_s(int(self.ids[i - self.first]))) for i in sel.tolist())

    def advance(self, t: float) -> None:
        if self.engine is not None:
            self.engine.advance(t - self.origin, exact=True)

    def read(self, step: int) -> None:
        """Finish times of step's rows (all done) from the live engine."""
        if self.engine is None:
            return
        for i in np.flatnonzero(self.step_of == step).tolist():
            if i >= self.first:
                eid = int(self.ids[i - self.first])
                self.finish[i] = self.origin + self.engine.finish_s(eid)
                self.preempted[i] = len(self.engine.preemption_spans(eid))

    def finish_all(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine.advance(math.inf)
            self._close_segment()


class Streamer:
    """Every step's batch (new samples only) on `replicas` streaming engines."""

    def __init__(self, batches: list, prompt_tokens: int, replicas: int, config: EngineConfig):
        self.P, self.config, self.R = prompt_tokens, config, replicas
        group = np.concatenate([b.group for b in batches])
        self.step_of = np.concatenate([np.full(b.group.size, k) for k, b in enumerate(batches)])
        self.offsets = np.concatenate(([0], np.cumsum([b.group.size for b in batches])))
        whole = ro.Batch(group, np.concatenate([b.input_tokens for b in batches]),
                         np.concatenate([b.output_tokens for b in batches]))
        # Groups dealt round robin within each step, as rollout.run deals them.
        first = np.concatenate([np.unique(b.group, return_inverse=True)[1] for b in batches])
        self.replica_of = (first % replicas).astype(np.int64)
        next_id = [(int(group.max()) + 1) * (prompt_tokens // config.block_size + 1)]
        self.reps = []
        for r in range(replicas):
            rows = np.flatnonzero(self.replica_of == r)
            work = ro.workload(whole, prompt_tokens, config.block_size, rows, next_id)
            self.reps.append(_Replica(rows, self.step_of[rows], work, config))

    def submit(self, step: int, t: float) -> None:
        for rep in self.reps:
            rep.submit(step, t)

    def complete(self, step: int, next_submit) -> ro.Rollout:
        """Advance until step's samples are all done, never past next_submit(lower bound of
        their finish), the earliest the next batch could be submitted."""
        while True:
            live = [rep for rep in self.reps if rep.pending(step)]
            if not live:
                break
            low = min(rep.clock() for rep in live)
            horizon = max(next_submit(low), low + MIN_HOP_S)
            for rep in live:
                rep.advance(horizon)
        for rep in self.reps:
            rep.read(step)
        return self.rollout(step)

    def rollout(self, step: int) -> ro.Rollout:
        lo, hi = int(self.offsets[step]), int(self.offsets[step + 1])
        finish, start = np.zeros(hi - lo), np.zeros(hi - lo)
        spans = np.zeros(self.R)
        preempt = 0
        t0 = math.inf
        for rep in self.reps:
            sel = np.flatnonzero(rep.step_of == step)
            if sel.size:
                t0 = min(t0, float(np.min(rep.start[sel])))
        for r, rep in enumerate(self.reps):
            sel = np.flatnonzero(rep.step_of == step)
            if sel.size == 0:
                continue
            at = rep.rows[sel] - lo
            finish[at], start[at] = rep.finish[sel] - t0, rep.start[sel] - t0
            spans[r] = float(np.max(rep.finish[sel])) - t0
            preempt += int(rep.preempted[sel].sum())
        return ro.Rollout(finish, start, self.replica_of[lo:hi], spans, self.config.max_num_seqs, preempt, 0,
                          (hi - lo) * self.P, 0, start_at=t0)

    def close(self) -> float:
        """Finish every engine; the rollout pool's busy engine-seconds."""
        for rep in self.reps:
            rep.finish_all()
        return float(sum(rep.busy_s for rep in self.reps))

    def cached_tokens(self, step: int) -> int:
        """Prompt tokens of step's samples served from the prefix cache (after close)."""
        return int(sum(rep.cached[rep.step_of == step].sum() for rep in self.reps))

    def engine_steps(self) -> int:
        """Engine steps of every replica (after close); batches overlap, so not per step."""
        return int(sum(rep.engine_steps for rep in self.reps))
