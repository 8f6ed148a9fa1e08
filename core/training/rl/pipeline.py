"""§3.5 RL (图 3-24): rollout, reward, reference, update and weight sync as producers and
consumers, run synchronously or asynchronously with bounded staleness."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

ROLES = ("rollout", "reward", "reference", "update", "sync")
ROLE_LABELS = {"rollout": "生成 rollout", "reward": "反馈 reward", "reference": "参考模型 reference",
               "update": "更新 update", "sync": "权重同步 sync"}


@dataclass(frozen=True)
class PipelineSchedule:
    """Start and end of each role's work on each batch; versions of the weights used."""

    mode: str
    start_s: dict  # role -> (batches,)
    end_s: dict
    weight_version: np.ndarray  # version of the policy each batch was generated with
    staleness: np.ndarray  # updates the policy had moved on by the time the batch is used

    @property
    def total_s(self) -> float:
        return float(self.end_s["sync"][-1])

    @property
    def batches(self) -> int:
        return int(self.weight_version.size)

    def busy_fraction(self, role: str) -> float:
        return float((self.end_s[role] - self.start_s[role]).sum() / self.total_s)


def pipeline_schedule(mode: str, batches: int, rollout_s: float, reward_s: float, reference_s: float,
                      update_s: float, sync_s: float, max_staleness: int = 1) -> PipelineSchedule:
    """Each role works on one batch at a time, in batch order.

    synchronous: batch k is generated only after the weights of update k-1 are synced.
    asynchronous: generation runs ahead; batch k may use weights up to `max_staleness`
    updates old (it waits only for sync k-1-max_staleness). Reward and reference both
    consume the rollout and run side by side; the update needs both.
    """
    if mode not in ("synchronous", "asynchronous"):
        raise ParamError("mode", f"got {mode!r}; valid: synchronous, asynchronous")
    dur = {"rollout": rollout_s, "reward": reward_s, "reference": reference_s, "update": update_s, "sync": sync_s}
    start = {r: np.zeros(batches) for r in ROLES}
    end = {r: np.zeros(batches) for r in ROLES}
    version = np.zeros(batches, dtype=int)
    lag = 0 if mode == "synchronous" else max_staleness
    for k in range(batches):
        wait_sync = k - 1 - lag  # the sync this rollout must wait for
        ready = end["sync"][wait_sync] if wait_sync >= 0 else 0.0
        prev_roll = end["rollout"][k - 1] if k else 0.0
        version[k] = k
        if mode == "asynchronous":
            # Use the newest synced weights at the moment generation starts.
            # Syncs end in batch order, so those done by t0 are the first ones.
            t0 = max(prev_roll, ready)
            version[k] = int(np.searchsorted(end["sync"][:k], t0, side="right"))
        start["rollout"][k] = max(prev_roll, ready)
        end["rollout"][k] = start["rollout"][k] + dur["rollout"]
        for role in ("reward", "reference"):
            start[role][k] = max(end["rollout"][k], end[role][k - 1] if k else 0.0)
            end[role][k] = start[role][k] + dur[role]
        start["update"][k] = max(end["reward"][k], end["reference"][k], end["update"][k - 1] if k else 0.0)
        end["update"][k] = start["update"][k] + dur["update"]
        start["sync"][k] = max(end["update"][k], end["sync"][k - 1] if k else 0.0)
        end["sync"][k] = start["sync"][k] + dur["sync"]
    staleness = np.arange(batches) - version  # the update k applies to policy k; data came from `version`
    return PipelineSchedule(mode, start, end, version, staleness)


def pipeline(batches: int, rollout_s: float, reward_s: float, reference_s: float, update_s: float,
             sync_s: float, max_staleness: int) -> dict:
    sync = pipeline_schedule("synchronous", batches, rollout_s, reward_s, reference_s, update_s, sync_s)
    asyn = pipeline_schedule("asynchronous", batches, rollout_s, reward_s, reference_s, update_s, sync_s, max_staleness)
    return {
        "sync_total_s": sync.total_s,
        "async_total_s": asyn.total_s,
        "speedup": sync.total_s / asyn.total_s,
        "sync_per_batch_s": rollout_s + max(reward_s, reference_s) + update_s + sync_s,
        # Steady state: the slowest role sets the pace, unless staleness limits the overlap.
        "async_per_batch_s": float(asyn.end_s["sync"][-1] - asyn.end_s["sync"][0]) / max(batches - 1, 1),
        "max_staleness_seen": int(asyn.staleness.max()),
        "rollout_busy_sync": sync.busy_fraction("rollout"),
        "rollout_busy_async": asyn.busy_fraction("rollout"),
    }


PIPELINE = Calculator(
    name="rl.pipeline",
    title="先找数据的生产者和消费者 · RL pipeline, synchronous vs asynchronous",
    ref=BookRef("3.5", "图 3-24"),
    params=(
        Param("batches", "batches", 6, "batches played through the pipeline", 1, 1000, kind="int"),
        Param("rollout_s", "s", 6.0, "generation of one batch", 0, 1e6, min_exclusive=True, illustrative=True),
        Param("reward_s", "s", 1.0, "reward: rules, tests or a reward model", 0, 1e6, illustrative=True),
        Param("reference_s", "s", 1.5, "reference model forward", 0, 1e6, illustrative=True),
        Param("update_s", "s", 4.0, "forward + backward + optimizer", 0, 1e6, illustrative=True),
        Param("sync_s", "s", 0.5, "send new weights to the generators", 0, 1e6, illustrative=True),
        Param("max_staleness", "updates", 1, "asynchronous: how many updates old the generating policy may be", 1, 100, kind="int"),
    ),
    outputs=(
        Output("sync_total_s", "s", "all batches, each waiting for the new weights"),
        Output("async_total_s", "s", "all batches, generation overlapping the update"),
        Output("speedup", "x", "synchronous over asynchronous time"),
        Output("sync_per_batch_s", "s", "one batch in the synchronous chain", "rollout + max(reward, reference) + update + sync"),
        Output("async_per_batch_s", "s", "steady-state time per batch, asynchronous"),
        Output("max_staleness_seen", "updates", "oldest policy a batch was trained with"),
        Output("rollout_busy_sync", "ratio", "share of time the generators work, synchronous"),
        Output("rollout_busy_async", "ratio", "share of time the generators work, asynchronous"),
    ),
    compute=pipeline,
    note="时长为示意",
    book=(
        BookValue("sync_per_batch_s", 12.0, "同步:等新权重就绪再生成 (6 + 1.5 + 4 + 0.5)", derived=True),
    ),
)

CALCULATORS = (PIPELINE,)
