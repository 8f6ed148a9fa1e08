"""What a simulated RL loop reports (`lab simulate rl --json`), and its CSV rows.

step_time_s is the whole run's time over its steps; the split (rollout_s, reward_s,
reference_s, update_s, sync_s, switch_s) is each stage's own mean time per step, idle_s
the trainer's mean wait for samples (in a synchronous chain the rollout itself) and
sync_wait_s its mean wait, updated, for the rollout pool to take the weights (one_step: the
sync runs between rollout batches). Pool
utilisation is busy card-seconds over the run's card-seconds: the rollout pool is busy
while a replica is still generating its part of the batch; the trainer while it runs the
reward model, the reference, the update or sends the weights. rollout_tail_idle_share is
the share of the engines' seats idle while the batch waits on its longest samples
(core.rl.rollout.Rollout.seat_idle_share, mean over steps).
"""
from __future__ import annotations

import numpy as np

from core.rl import stages as st
from core.rl.loop import LANES, Run

SUMMARY_KEYS = ("steps", "mode", "placement", "step_time_s", "rollout_s", "reward_s", "reference_s", "update_s",
                "sync_s", "switch_s", "idle_s", "sync_wait_s", "total_s", "rollout_pool_utilisation", "trainer_pool_utilisation",
                "rollout_bubble_s", "trainer_bubble_s", "rollout_tail_idle_share", "generated_samples",
                "consumed_samples", "kept_samples", "kept_samples_per_step", "kept_tokens_per_s",
                "generated_tokens_per_s", "truncated_samples", "carried_at_end", "staleness_max", "staleness_mean",
                "staleness_counts", "cards", "rollout_cards", "trainer_cards", "gpu_hours_per_1000_steps",
                "price_per_card_hour", "cost_per_1000_steps", "generation_flops_per_step", "reference_flops_per_step",
                "update_flops_per_step", "cycle_flops_per_step", "weight_sync_bytes", "trainer_state_bytes_per_card",
                "card_memory_bytes", "trainer_state_fits", "preemptions", "prefix_cached_share", "engine_steps",
                "wall_s", "us_per_sequence")


def summarize(run: Run) -> dict:
    p = run.params
    K = p.steps
    dur = {lane: run.end[lane] - run.start[lane] for lane in LANES}
    total = float(max(run.end["sync"][-1], run.end["reward"][-1]))
    rollout_cards = p.replicas * p.rollout_tp
    spans = np.array([r.replica_makespan_s for r in run.rollouts])  # (steps, replicas)
    roll_busy = (float(spans.sum()) if run.rollout_busy_engine_s is None else run.rollout_busy_engine_s) * p.rollout_tp
    trainer_busy = float(sum(dur[k].sum() for k in ("reference", "update", "sync")))
    if p.reward == "model":
        trainer_busy += float(dur["reward"].sum())
    if p.placement == "colocated":  # one pool: rollout and training take turns on the same cards
        roll_util = train_util = (roll_busy / rollout_cards + trainer_busy - float(dur["sync"].sum())) / total
    else:
        roll_util = roll_busy / (rollout_cards * total)
        train_util = trainer_busy / total
    card = st.cards(p.hardware)
    price = p.price_per_card_hour if p.price_per_card_hour is not None else card.price_per_card_hour
    hours = p.total_cards * (total / K) * 1000 / 3600
    shape = st.policy_shape(p.model)
    state = st.trainer_state_per_card(shape, p.train_cards, p.zero)
    stale = run.staleness
    values, counts = np.unique(stale, return_counts=True)
    prompt_total = sum(r.prompt_tokens_total for r in run.rollouts)
    generated = int(sum(r.finish_s.size for r in run.rollouts))
    fl = {k: float(v.mean()) for k, v in run.flops.items()}
    out = {
        "steps": K, "mode": p.mode, "placement": p.placement,
        "step_time_s": total / K,
        "rollout_s": float(dur["rollout"].mean()), "reward_s": float(dur["reward"].mean()),
        "reference_s": float(dur["reference"].mean()), "update_s": float(dur["update"].mean()),
        "sync_s": float(dur["sync"].mean()) if p.placement == "separate" else 0.0,
        "switch_s": float((dur["switch"] + (dur["sync"] if p.placement == "colocated" else 0)).mean()),
        "idle_s": float(run.wait_s.mean()),
        "sync_wait_s": float((run.start["sync"] - run.end["update"]).mean()) if p.placement == "separate" else 0.0,
        "total_s": total,
        "rollout_pool_utilisation": roll_util, "trainer_pool_utilisation": train_util,
        "rollout_bubble_s": (1 - roll_util) * total / K, "trainer_bubble_s": (1 - train_util) * total / K,
        "rollout_tail_idle_share": float(np.mean([r.seat_idle_share() for r in run.rollouts])),
        "generated_samples": generated,
        "consumed_samples": int(run.consumed.sum()), "kept_samples": int(run.kept.sum()),
        "kept_samples_per_step": float(run.kept.mean()),
        "kept_tokens_per_s": float(run.kept_tokens.sum()) / total,
        "generated_tokens_per_s": float(run.generated_tokens.sum()) / total,
        "truncated_samples": run.truncated, "carried_at_end": run.carried_at_end,
        "staleness_max": int(stale.max()) if stale.size else 0,
        "staleness_mean": float(stale.mean()) if stale.size else 0.0,
        "staleness_counts": {str(int(v)): int(c) for v, c in zip(values, counts)},
        "cards": p.total_cards, "rollout_cards": rollout_cards,
        "trainer_cards": p.train_cards,
        "gpu_hours_per_1000_steps": hours,
        "price_per_card_hour": price,
        "cost_per_1000_steps": None if price is None else hours * price,
        "generation_flops_per_step": fl["generation"], "reference_flops_per_step": fl["reference"],
        "update_flops_per_step": fl["update"],
        "cycle_flops_per_step": fl["generation"] + fl["reference"] + fl["update"],
        "weight_sync_bytes": run.sync_bytes if p.placement == "separate" else 0.0,
        "trainer_state_bytes_per_card": state, "card_memory_bytes": card.memory_bytes,
        "trainer_state_fits": bool(state <= card.memory_bytes),
        "preemptions": int(sum(r.preemptions for r in run.rollouts)),
        "prefix_cached_share": float(sum(r.cached_tokens for r in run.rollouts)) / max(prompt_total, 1),
        "engine_steps": int(sum(r.engine_steps for r in run.rollouts)),
        "wall_s": run.wall_s,
        "us_per_sequence": run.wall_s / max(generated, 1) * 1e6,
    }
    return out


STEP_HEADER = (["step", "version", "consumed", "kept", "kept_tokens", "generated_tokens", "staleness_max"]
               + [f"{lane}_{edge}_s" for lane in LANES for edge in ("start", "end")] + ["trainer_wait_s"])
SAMPLE_HEADER = ["step", "sample", "group", "prompt_tokens", "input_tokens", "segment_tokens", "finish_s",
                 "finished", "consumed", "kept", "staleness"]


def step_rows(run: Run) -> list[list]:
    rows = []
    for k in range(run.params.steps):
        stale = run.sample_rows[k].stale
        row: list = [k, int(run.version[k]), int(run.consumed[k]), int(run.kept[k]), int(run.kept_tokens[k]),
               int(run.generated_tokens[k]), int(stale.max()) if stale.size else ""]
        row += [float(run.start[lane][k]) if edge == "start" else float(run.end[lane][k])
                for lane in LANES for edge in ("start", "end")]
        rows.append(row + [float(run.wait_s[k])])
    return rows


def sample_rows(run: Run):
    """One row per sample per step it generated in (a resumed partial sample: one per segment)."""
    P = run.params.prompt_tokens
    for x in run.sample_rows:
        k, cur, segment, done_now, roll = x.step, x.cur, x.segment, x.done_now, x.roll
        consumed = dict(zip(x.use["sample"].tolist(), zip(x.keep.tolist(), x.stale.tolist())))
        t0 = float(run.start["rollout"][k])
        for i, sid in enumerate(cur["sample"].tolist()):
            kept, s = consumed.get(sid, ("", ""))
            yield [k, sid, int(cur["group"][i]), P, int(P + cur["done"][i]), int(segment[i]),
                   t0 + float(roll.finish_s[i]), int(done_now[i]), int(sid in consumed),
                   "" if kept == "" else int(kept), s]
