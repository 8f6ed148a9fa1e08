"""One step's rollout through the lab's serving engine.

The batch arrives at once (time 0 of the step) on the rollout replicas: a prompt's group
goes whole to one replica (groups dealt round robin), so its samples share the prompt's
blocks in that engine's prefix cache (PrefixBlocks: the group's ids on the prompt's
blocks, the automatic prefix caching of vLLM). A resumed partial sample re-prefills its
prompt and the tokens it kept (the weights changed, so no KV survives a step): the
prompt's full blocks are its group's, the rest its own. Each replica is one replay; the
rollout ends with the last replica (the makespan).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.serving.engine import EngineConfig, ReplayResult, replay
from core.serving.workload import PrefixBlocks, Workload


@dataclass(frozen=True)
class Batch:
    """A step's samples (one engine request each)."""

    group: np.ndarray  # int64 group id (the prompt)
    input_tokens: np.ndarray  # prompt + tokens kept from earlier steps
    output_tokens: np.ndarray  # tokens to generate this step


@dataclass(frozen=True)
class Rollout:
    finish_s: np.ndarray  # per sample, from the step's rollout start
    start_s: np.ndarray  # first scheduled
    replica_of: np.ndarray
    replica_makespan_s: np.ndarray
    seats: int  # max_num_seqs per engine
    preemptions: int
    cached_tokens: int
    prompt_tokens_total: int
    engine_steps: int
    start_at: float = 0.0  # streaming (core/rl/stream.py): when the batch entered the engines

    @property
    def makespan_s(self) -> float:
        return float(self.replica_makespan_s.max()) if self.replica_makespan_s.size else 0.0

    def seat_idle_share(self) -> float:
        """Share of the seats the batch could fill (min(seats, samples) per replica) over the
        makespan that hold no sequence: the tail everyone waits for."""
        if self.makespan_s <= 0:
            return 0.0
        counts = np.bincount(self.replica_of, minlength=self.replica_makespan_s.size)
        capacity = float(np.minimum(counts, self.seats).sum()) * self.makespan_s
        return 1.0 - float((self.finish_s - self.start_s).sum()) / capacity


def workload(batch: Batch, prompt_tokens: int, block_size: int, rows: np.ndarray, next_id: list) -> Workload:
    """The rows of the batch as one engine's workload, arriving at 0, with prefix ids."""
    inp, out, grp = batch.input_tokens[rows], batch.output_tokens[rows], batch.group[rows]
    blocks = -(-inp // block_size)
    shared = prompt_tokens // block_size  # full prompt blocks: equal content across the group
    offsets = np.concatenate(([0], np.cumsum(blocks))).astype(np.int64)
    row_of = np.repeat(np.arange(rows.size), blocks)
    j = np.arange(int(offsets[-1])) - offsets[:-1][row_of]  # block index within its request
    # A fresh sample's blocks are all its group's (a partial last block too: same content);
    # a resumed one shares only the prompt's full blocks.
    grouped = (inp == prompt_tokens)[row_of] | (j < shared)
    ids = grp[row_of].astype(np.int64) * (shared + 1) + j  # ids below next_id[0] are the groups'
    own = ~grouped
    ids[own] = next_id[0] + np.arange(int(own.sum()))
    next_id[0] += int(own.sum())
    return Workload(arrival_s=np.zeros(rows.size), input_tokens=inp.astype(np.int64),
                    output_tokens=out.astype(np.int64), label="rl rollout",
                    prefix=PrefixBlocks(ids=ids, offsets=offsets, block_tokens=block_size))


def run(batch: Batch, prompt_tokens: int, replicas: int, config: EngineConfig) -> Rollout:
    """The batch through `replicas` engines of `config`."""
    n = batch.group.size
    groups, first = np.unique(batch.group, return_inverse=True)
    replica_of = (first % replicas).astype(np.int64)
    finish, start = np.zeros(n), np.zeros(n)
    spans = np.zeros(replicas)
    preempt = cached = steps = 0
    next_id = [(int(groups.max()) + 1) * (prompt_tokens // config.block_size + 1) if n else 0]
    for r in range(replicas):
        rows = np.flatnonzero(replica_of == r)
        if rows.size == 0:
            continue
        res: ReplayResult = replay(workload(batch, prompt_tokens, config.block_size, rows, next_id), config)
        finish[rows], start[rows] = res.finish_s, res.first_schedule_s
        spans[r] = float(res.finish_s.max())
        preempt += int(res.preemptions.sum())
        cached += int(res.cached_tokens.sum()) if res.cached_tokens is not None else 0
        steps += int(res.engine_steps)
    return Rollout(finish, start, replica_of, spans, config.max_num_seqs, preempt, cached,
                   int(batch.input_tokens.sum()), steps)
