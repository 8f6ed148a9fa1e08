"""What each step generates and consumes, before any timing: the samples are drawn, the
partial rollouts cut at their token budget, and the groups consumed once whole. None of it
depends on time (a partial segment is cut by tokens, not seconds), so the clock
(core/rl/loop.py) only places the plan on the pools.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from core.rl import lengths as ln
from core.rl import rollout as ro
from core.rl.params import RLParams

KEYS = ("group", "sample", "done", "total", "first")  # first: the step of the sample's first token


class StepSamples(NamedTuple):
    """One step's samples: those generated (cur: KEYS arrays; this step's segment and whether
    it finished the sample) and those consumed (use) with their keep flags; the batch the
    engine runs; the staleness of the consumed (filled in by the clock); the step's rollout."""

    step: int
    cur: dict
    segment: np.ndarray
    done_now: np.ndarray
    use: dict
    keep: np.ndarray
    batch: ro.Batch
    stale: np.ndarray
    roll: ro.Rollout | None


def plan(p: RLParams, trace: np.ndarray | None) -> tuple[list[StepSamples], int, int]:
    """(every step's samples, samples truncated at max_tokens, samples still open at the end)."""
    P = p.prompt_tokens
    pend = {k: np.zeros(0, np.int64) for k in KEYS}  # partial: unfinished, carried to the next step
    held = {k: np.zeros(0, np.int64) for k in KEYS}  # finished, their group not yet
    truncated = 0
    out = []
    for k in range(p.steps):
        n_new = p.samples_per_step
        length, whole = ln.draw(p, k, n_new, trace)
        truncated += int((whole > length).sum())
        new = {"group": k * p.prompts + np.arange(n_new) // p.group, "sample": k * n_new + np.arange(n_new),
               "done": np.zeros(n_new, np.int64), "total": length, "first": np.full(n_new, k)}
        cur = {key: np.concatenate([pend[key], new[key]]).astype(np.int64) for key in KEYS}
        left = cur["total"] - cur["done"]
        segment = np.minimum(left, p.partial_tokens) if p.mode == "partial" else left
        done_now = segment == left
        fin = {key: np.concatenate([held[key], cur[key][done_now]]) for key in KEYS}
        pend = {key: cur[key][~done_now] for key in KEYS}
        pend["done"] = (cur["done"] + segment)[~done_now]
        take = ~np.isin(fin["group"], np.unique(pend["group"]))  # a group is consumed whole
        held = {key: fin[key][~take] for key in KEYS}
        use = {key: fin[key][take] for key in KEYS}
        keep = ln.keep_flags(p, k, use["group"], ln.rewards(p, k, use["sample"].size))
        batch = ro.Batch(cur["group"], P + cur["done"], segment)
        out.append(StepSamples(k, cur, segment, done_now, use, keep, batch, np.zeros(0, np.int64), None))
    return out, truncated, int(pend["sample"].size + held["sample"].size)
