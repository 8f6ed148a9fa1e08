"""The RL loop on one clock: each step's rollout through the engine, then reward,
reference, update and weight sync, placed on the pools by the mode.

Versions: v_j is the policy after j updates; update k consumes step k's samples and, once
synced (sync k ends), makes v_{k+1} what a rollout starting later generates with. A
sample's staleness is k − the version its first token was generated with.

- synchronous: rollout k starts when sync k−1 ends (staleness 0).
- async (staleness bound η): rollout k starts when the rollout pool is free and sync
  k−1−η has ended, with the newest synced weights, so staleness <= η; η = 0 is
  synchronous. one_step is η = 1: the rollout of step k+1 overlaps the update of step k.
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
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from core.cancel import NEVER, CancelToken
from core.registry import ParamError
from core.rl import lengths as ln
from core.rl import rollout as ro
from core.rl import stages as st
from core.rl.params import RLParams

LANES = ("rollout", "reward", "reference", "update", "sync", "switch")


class StepSamples(NamedTuple):
    """One step's samples: those generated (cur: group, sample, done, total, v0 arrays; this
    step's segment and whether it finished the sample) and those consumed (use) with their
    keep flags and staleness, and the step's rollout."""

    step: int
    cur: dict
    segment: np.ndarray
    done_now: np.ndarray
    use: dict
    keep: np.ndarray
    stale: np.ndarray
    roll: ro.Rollout


@dataclass
class Run:
    params: RLParams
    start: dict  # lane -> (steps,) seconds
    end: dict
    version: np.ndarray  # version each step's new tokens were generated with
    wait_s: np.ndarray  # the trainer waiting for step k's samples
    rollouts: list  # core.rl.rollout.Rollout per step
    steps_rows: list = field(default_factory=list)
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
    wall_s: float = 0.0


def simulate(p: RLParams, cancel: CancelToken = NEVER) -> Run:
    wall = time.perf_counter()
    s = st.policy_shape(p.model)
    reward_shape = st.policy_shape(p.reward_model, "reward_model") if p.reward == "model" and p.reward_model else s
    card = st.cards(p.hardware)
    config, _ = st.rollout_engine(p.model, p.hardware, p.rollout_tp)
    trace = ln.load_trace_lengths(p.lengths_file) if p.lengths_file is not None else None
    _check_fits(p, config, trace)
    K, P = p.steps, p.prompt_tokens
    start = {lane: np.zeros(K) for lane in LANES}
    end = {lane: np.zeros(K) for lane in LANES}
    version = np.zeros(K, np.int64)
    wait = np.zeros(K)
    rollouts = []
    flops = {k: np.zeros(K) for k in ("generation", "reference", "update")}
    consumed, kept_n, kept_tok, gen_tok = (np.zeros(K, np.int64) for _ in range(4))
    stale_all, sample_rows = [], []
    lag = {"synchronous": 0, "partial": 0, "one_step": 1, "async": p.staleness}[p.mode]
    switch = p.switch_s if p.placement == "colocated" else 0.0
    sync_time = 0.0 if p.placement == "colocated" else st.sync_s(s, p.replicas, p.sync, p.link_bytes_per_s,
                                                                  p.sync_latency_s)
    # Samples in flight (partial): group, sample id, tokens done, total length, first version.
    pend = {k: np.zeros(0, np.int64) for k in ("group", "sample", "done", "total", "v0")}
    held = {k: np.zeros(0, np.int64) for k in ("group", "sample", "total", "v0")}  # finished, group not yet
    truncated = 0
    sandbox_free = 0.0
    for k in range(K):
        cancel.check()
        # -- when the rollout starts, and with which weights
        gate = k - 1 - lag
        ready = end["sync"][gate] if gate >= 0 else 0.0
        pool_free = end["rollout"][k - 1] if k else 0.0
        if p.placement == "colocated" and k:
            pool_free = end["sync"][k - 1]  # the switch back ends the training phase
        t0 = max(pool_free, ready)
        version[k] = int(np.searchsorted(end["sync"][:k], t0, side="right"))
        # -- the batch: new groups, plus (partial) the unfinished of earlier steps
        n_new = p.samples_per_step
        length, whole = ln.draw(p, k, n_new, trace)
        truncated += int((whole > length).sum())
        groups = k * p.prompts + np.arange(n_new) // p.group
        ids = k * n_new + np.arange(n_new)
        cur = {"group": np.concatenate([pend["group"], groups]), "sample": np.concatenate([pend["sample"], ids]),
               "done": np.concatenate([pend["done"], np.zeros(n_new, np.int64)]),
               "total": np.concatenate([pend["total"], length]),
               "v0": np.concatenate([pend["v0"], np.full(n_new, version[k])])}
        left = cur["total"] - cur["done"]
        segment = np.minimum(left, p.partial_tokens) if p.mode == "partial" else left
        batch = ro.Batch(cur["group"], P + cur["done"], segment)
        roll = ro.run(batch, P, p.replicas, config)
        rollouts.append(roll)
        start["rollout"][k], end["rollout"][k] = t0, t0 + roll.makespan_s
        gen_tok[k] = int(segment.sum())
        # -- what the update consumes: every finished sample of a group now complete
        done_now = segment == left
        fin = {key: np.concatenate([held[key], cur[key][done_now]]) for key in held}
        pend = {key: cur[key][~done_now] for key in pend}
        pend["done"] = (cur["done"] + segment)[~done_now]
        open_groups = np.unique(pend["group"])
        take = ~np.isin(fin["group"], open_groups)
        held = {key: fin[key][~take] for key in fin}
        use = {key: fin[key][take] for key in fin}
        reward = ln.rewards(p, k, use["sample"].size)
        keep = ln.keep_flags(p, k, use["group"], reward)
        rows = P + use["total"] - 1  # teacher forcing over P + G − 1 rows
        consumed[k], kept_n[k], kept_tok[k] = use["sample"].size, int(keep.sum()), int(use["total"][keep].sum())
        stale = k - use["v0"]
        stale_all.append(stale)
        flops["generation"][k] = _segment_generation_flops(s, batch)
        flops["reference"][k] = st.forward_flops(s, rows) if p.reference else 0.0
        flops["update"][k] = st.update_flops(s, rows[keep])
        # -- the trainer's stages
        trainer_free = end["sync"][k - 1] if k else 0.0
        tr0 = max(end["rollout"][k], trainer_free)
        wait[k] = max(0.0, end["rollout"][k] - trainer_free)
        start["switch"][k], end["switch"][k] = tr0, tr0 + switch
        tr0 += switch
        model_reward = st.compute_s(st.forward_flops(reward_shape, rows), p.train_cards, card, p.mfu) \
            if p.reward == "model" else 0.0
        if p.reward == "sandbox":
            times = p.sandbox_s * np.exp(p.sandbox_sigma * ln.step_rng(p.seed, k, 4).standard_normal(rows.size))
            r0 = max(end["rollout"][k], sandbox_free)
            start["reward"][k], end["reward"][k] = r0, r0 + st.sandbox_s(times, p.sandbox_workers)
            sandbox_free = end["reward"][k]
        else:
            start["reward"][k], end["reward"][k] = tr0, tr0 + model_reward
        ref0 = tr0 + model_reward
        start["reference"][k] = ref0
        end["reference"][k] = ref0 + st.compute_s(flops["reference"][k], p.train_cards, card, p.mfu)
        start["update"][k] = max(end["reference"][k], end["reward"][k])
        end["update"][k] = start["update"][k] + st.compute_s(flops["update"][k], p.train_cards, card, p.mfu)
        start["sync"][k] = end["update"][k]
        end["sync"][k] = start["sync"][k] + (switch if p.placement == "colocated" else sync_time)
        sample_rows.append(StepSamples(k, cur, segment, done_now, use, keep, stale, roll))
    run = Run(p, start, end, version, wait, rollouts)
    run.sample_rows = sample_rows
    run.staleness = np.concatenate(stale_all) if stale_all else np.zeros(0, np.int64)
    run.consumed, run.kept, run.kept_tokens, run.generated_tokens = consumed, kept_n, kept_tok, gen_tok
    run.flops, run.truncated = flops, truncated
    run.carried_at_end = int(pend["sample"].size + held["sample"].size)
    run.sync_bytes = st.sync_bytes(s, p.replicas)
    run.wall_s = time.perf_counter() - wall
    return run


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
