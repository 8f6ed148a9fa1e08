"""The RL loop on one clock: each step's rollout through the engine, then reward,
reference, update and weight sync, placed on the pools by the mode.

Versions: v_j is the policy after j updates; update k consumes step k's samples and, once
synced (sync k ends), makes v_{k+1} what a rollout starting later generates with. A
sample's staleness is k − the version its first token was generated with.

- synchronous: rollout k starts when sync k−1 ends (staleness 0).
- one_step (verl's one-step off-policy): rollout k starts when the rollout pool has
  finished batch k−1 and sync k−2 has ended (the rollout of step k+1 overlaps the update
  of step k; staleness 1). A sync happens between rollout batches: sync k waits for the
  pool to finish batch k+1 (the engines update their weights in place, so they are not
  generating meanwhile), and batch k+2 waits for it.
- async (AReaL's staleness bound η): batch k is submitted once sync k−1−η has ended, with
  the newest synced weights, so staleness <= η; the engines stream (core/rl/stream.py): a
  batch joins the running engines without waiting for the previous one's tail. A sync
  interrupts nothing: new weights are staged beside the engine and taken at a request
  boundary, so a sample already admitted finishes, KV kept, on the version it started
  with (its staleness is that version's), and the next batch's samples start on the new
  one. η = 0 is synchronous.
  async η = 1 against one_step (same bound: batch k on v_{k−1}): each async gate is one of
  one_step's gates (sync k−2 ended) without the other (the pool done with batch k−1), and
  its syncs wait for no batch, so it never waits where one_step does not. It can still end
  slower: batches 0..η need no sync, so they enter the engines together (AReaL's bound
  admits (η+1) batches before the first update), batch 0 shares the engines with batch 1
  and the first update starts later. On a trainer-bound loop that delay carries through
  the chain once and fades as 1/steps; rollout-bound, the waits async lacks win.
  (tests/core/rl/test_rl_async_vs_one_step.py pins both.)
- partial: synchronous, but a sample generates at most partial_tokens per step; an
  unfinished one resumes next step with its tokens kept (re-prefilled), and a group is
  consumed at the step its last sample finishes.
- colocated: the same cards; a switch (switch_s) after rollout and another back before the
  next rollout (the weights are resharded in place: no sync over the link).
On the trainer, a reward model runs before the reference; a rule or sandbox reward runs
beside it (CPU). The update waits for both; the trainer sends the weights itself.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from core.cancel import NEVER, CancelToken
from core.registry import ParamError
from core.rl import lengths as ln
from core.rl import rollout as ro
from core.rl import stages as st
from core.rl.params import RLParams
from core.rl.plan import StepSamples, plan
from core.rl.stream import Streamer

LANES = ("rollout", "reward", "reference", "update", "sync", "switch")
__all__ = ["LANES", "Run", "StepSamples", "simulate"]


@dataclass
class Run:
    params: RLParams
    start: dict  # lane -> (steps,) seconds
    end: dict
    version: np.ndarray  # version each step's new tokens were generated with
    wait_s: np.ndarray  # the trainer waiting for step k's samples
    rollouts: list  # core.rl.rollout.Rollout per step
    sample_rows: list = field(default_factory=list)  # StepSamples per step
    staleness: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per consumed sample
    consumed: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per step
    kept: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    kept_tokens: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    generated_tokens: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    flops: dict = field(default_factory=dict)  # generation, reference, update: per step arrays
    truncated: int = 0
    carried_at_end: int = 0
    sync_bytes: float = 0.0
    rollout_busy_engine_s: float | None = None  # streaming: the engines' busy time (batches overlap)
    wall_s: float = 0.0


class _Trainer:
    """The trainer's chain for a step whose samples are ready at f (monotone in f)."""

    def __init__(self, p: RLParams, durations: dict, sandbox_times: np.ndarray | None):
        self.p, self.d, self.sandbox = p, durations, sandbox_times

    def chain(self, f: float, trainer_free: float, sandbox_free: float, sync_after: float = 0.0) -> dict:
        """sync_after: the sync starts no earlier (one_step: the rollout pool's current batch ends)."""
        d = self.d
        tr0 = max(f, trainer_free)
        lanes = {"switch": (tr0, tr0 + d["switch"])}
        tr0 += d["switch"]
        if self.sandbox is not None:
            r0 = max(f, sandbox_free)
            lanes["reward"] = (r0, r0 + d["reward"])
        else:
            lanes["reward"] = (tr0, tr0 + d["reward"])
        ref0 = tr0 + (0.0 if self.sandbox is not None else d["reward"])
        lanes["reference"] = (ref0, ref0 + d["reference"])
        u0 = max(lanes["reference"][1], lanes["reward"][1])
        lanes["update"] = (u0, u0 + d["update"])
        s0 = max(u0 + d["update"], sync_after)
        lanes["sync"] = (s0, s0 + d["sync"])
        return lanes


def simulate(p: RLParams, cancel: CancelToken = NEVER) -> Run:
    wall = time.perf_counter()
    s = st.policy_shape(p.model)
    reward_shape = st.policy_shape(p.reward_model, "reward_model") if p.reward == "model" and p.reward_model else s
    card = st.cards(p.hardware)
    config, _ = st.rollout_engine(p.model, p.hardware, p.rollout_tp)
    trace = ln.load_trace_lengths(p.lengths_file) if p.lengths_file is not None else None
    _check_fits(p, config, trace)
    K, P = p.steps, p.prompt_tokens
    steps, truncated, carried = plan(p, trace)
    start = {lane: np.zeros(K) for lane in LANES}
    end = {lane: np.zeros(K) for lane in LANES}
    version = np.zeros(K, np.int64)
    wait = np.zeros(K)
    rollouts: list = []
    flops = {k: np.zeros(K) for k in ("generation", "reference", "update")}
    lag = {"synchronous": 0, "partial": 0, "one_step": 1, "async": p.staleness}[p.mode]
    switch = p.switch_s if p.placement == "colocated" else 0.0
    sync_time = switch if p.placement == "colocated" else st.sync_s(s, p.replicas, p.sync, p.link_bytes_per_s,
                                                                     p.sync_latency_s)
    streamer = Streamer([x.batch for x in steps], P, p.replicas, config) if p.mode == "async" else None
    if streamer is not None:
        for k in range(min(lag + 1, K)):  # batches 0..η wait for no sync
            streamer.submit(k, 0.0)
    sandbox_free = 0.0
    cache: dict = {}

    def rolled(j: int) -> ro.Rollout:  # batch j through the engines (one_step needs j = k + 1 early)
        if j not in cache:
            cache[j] = ro.run(steps[j].batch, P, p.replicas, config)
        return cache[j]

    for k, x in enumerate(steps):
        cancel.check()
        durations, sandbox = _stage_times(p, x, (s, reward_shape), card, flops, {"switch": switch, "sync": sync_time})
        trainer = _Trainer(p, durations, sandbox)
        trainer_free = end["sync"][k - 1] if k else 0.0
        # -- the rollout: when it starts, with which weights, and its time in the engine
        if streamer is not None:
            def next_submit(f, chain=trainer.chain, free=trainer_free, sb=sandbox_free):
                return chain(f, free, sb)["sync"][1]  # the earliest this step's sync can end

            roll = streamer.complete(k, next_submit)
            t0 = roll.start_at
        else:
            gate = k - 1 - lag
            ready = end["sync"][gate] if gate >= 0 else 0.0
            pool_free = end["rollout"][k - 1] if k else 0.0
            if p.placement == "colocated" and k:
                pool_free = end["sync"][k - 1]  # the switch back ends the training phase
            t0 = max(pool_free, ready)
            roll = rolled(k)
        version[k] = int(np.searchsorted(end["sync"][:k], t0, side="right"))
        rollouts.append(roll)
        start["rollout"][k], end["rollout"][k] = t0, t0 + roll.makespan_s
        # -- the trainer's stages
        wait[k] = max(0.0, end["rollout"][k] - trainer_free)
        sync_after = 0.0
        if p.mode == "one_step" and k + 1 < K:  # the sync waits for the batch the pool runs now
            sync_after = max(end["rollout"][k], end["sync"][k - 1] if k else 0.0) + rolled(k + 1).makespan_s
        for lane, (a, b) in trainer.chain(end["rollout"][k], trainer_free, sandbox_free, sync_after).items():
            start[lane][k], end[lane][k] = a, b
        if sandbox is not None:
            sandbox_free = end["reward"][k]
        if streamer is not None and k + 1 + lag < K:
            streamer.submit(k + 1 + lag, end["sync"][k])
        steps[k] = x._replace(roll=roll)
        cache.pop(k, None)
    busy = None
    if streamer is not None:
        busy = streamer.close()
        _streamed_reads(streamer, steps, rollouts)
    for k, x in enumerate(steps):  # staleness: versions passed since the sample's first token
        steps[k] = x._replace(stale=k - version[x.use["first"]])
    run = Run(p, start, end, version, wait, rollouts, sample_rows=steps)
    run.staleness = np.concatenate([x.stale for x in steps]) if steps else np.zeros(0, np.int64)
    run.consumed = np.array([x.use["sample"].size for x in steps], np.int64)
    run.kept = np.array([int(x.keep.sum()) for x in steps], np.int64)
    run.kept_tokens = np.array([int(x.use["total"][x.keep].sum()) for x in steps], np.int64)
    run.generated_tokens = np.array([int(x.segment.sum()) for x in steps], np.int64)
    run.flops, run.truncated, run.carried_at_end = flops, truncated, carried
    run.sync_bytes = st.sync_bytes(s, p.replicas)
    run.rollout_busy_engine_s = busy
    run.wall_s = time.perf_counter() - wall
    return run


def _stage_times(p: RLParams, x, shapes, card, flops: dict, fixed: dict) -> tuple[dict, np.ndarray | None]:
    """(each trainer stage's time for step x, the sandbox times or None); fills flops[...][k]."""
    s, reward_shape = shapes
    k = x.step
    rows = p.prompt_tokens + x.use["total"] - 1  # teacher forcing over P + G − 1 rows
    flops["generation"][k] = _segment_generation_flops(s, x.batch)
    flops["reference"][k] = st.forward_flops(s, rows) if p.reference else 0.0
    flops["update"][k] = st.update_flops(s, rows[x.keep])
    sandbox = None
    durations = dict(fixed, reward=0.0, reference=st.compute_s(flops["reference"][k], p.train_cards, card, p.mfu),
                     update=st.compute_s(flops["update"][k], p.train_cards, card, p.mfu))
    if p.reward == "sandbox":
        sandbox = p.sandbox_s * np.exp(p.sandbox_sigma * ln.step_rng(p.seed, k, 4).standard_normal(rows.size))
        durations["reward"] = st.sandbox_s(sandbox, p.sandbox_workers)
    elif p.reward == "model":
        durations["reward"] = st.compute_s(st.forward_flops(reward_shape, rows), p.train_cards, card, p.mfu)
    return durations, sandbox


def _streamed_reads(streamer: Streamer, steps: list, rollouts: list) -> None:
    """What the streaming engines know only once closed: each step's prefix-cache hits (a
    group's samples share its prompt's blocks there too) and the engines' steps (on the last)."""
    for k, x in enumerate(steps):
        rollouts[k] = replace(rollouts[k], cached_tokens=streamer.cached_tokens(k),
                              engine_steps=streamer.engine_steps() if k == len(steps) - 1 else 0)
        steps[k] = x._replace(roll=rollouts[k])


def _check_fits(p: RLParams, config, trace) -> None:
    """The longest sample (prompt + its longest response) must fit one engine's KV pool."""
    limit = int(config.num_blocks) * int(config.block_size)  # core.serving.traces.request_token_limit
    if p.prompt_tokens >= limit:
        raise ParamError("prompt_tokens", f"got {p.prompt_tokens:,}; valid: < {limit:,} tokens (one rollout "
                         f"engine's KV pool: {config.num_blocks:,} blocks of {config.block_size})")
    longest = p.max_tokens
    if p.lengths == "fixed":
        longest = min(longest, p.output_tokens)
    elif trace is not None:
        longest = min(longest, int(trace.max()))
    if p.prompt_tokens + longest > limit:
        raise ParamError("max_tokens", f"prompt_tokens {p.prompt_tokens:,} + up to {longest:,} response tokens; "
                         f"valid: max_tokens <= {limit - p.prompt_tokens:,} (one rollout engine's KV pool holds "
                         f"{limit:,} tokens)")


def _segment_generation_flops(s, batch: ro.Batch) -> float:
    """Generation FLOPs of this step's segments: a fresh sample's prefill + G−1 decode steps;
    a resumed one's re-prefill of prompt + kept tokens and its own decode steps."""
    total = 0.0
    pairs = np.stack([batch.input_tokens, batch.output_tokens], axis=1)
    values, counts = np.unique(pairs, axis=0, return_counts=True)
    for (inp, out), c in zip(values.tolist(), counts.tolist()):
        total += c * s.generation_flops(int(inp), int(out))
    return total
