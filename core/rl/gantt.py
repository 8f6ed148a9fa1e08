"""A simulated RL loop as Gantt lanes (the Training panel's RL tab draws it; no Qt here).

One lane per rollout replica (its part of each step's batch), then the trainer's lanes:
reward, reference, update (with the trainer's wait for samples before it), sync or, when
colocated, the switch. A replica's bar is split where half of its samples are done: the
rest is the long tail, and the replica that ends last in a step is the one everyone
waits for (marked). In async mode batches overlap on a replica, so consecutive steps take
the lane's two halves.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.cancel import NEVER, CancelToken
from core.rl.loop import Run, simulate
from core.rl.params import RLParams
from core.rl.summary import summarize
from core.training.bars import Bars

TRAINER_LANES = ("reward", "reference", "update", "sync")
LANE_LABELS = {"reward": "奖励 reward", "reference": "参考 reference", "update": "更新 update",
               "sync": "同步 sync", "switch": "切换 switch"}
KINDS = ("generate", "tail", "wait", "reward", "reference", "update", "sync", "switch")
BAR_HEIGHT = 0.7
WAIT_HEIGHT = 0.2  # the trainer's wait: a thin bar under its update lane's bars


@dataclass(frozen=True)
class LoopFigure:
    params: RLParams
    lanes: tuple[str, ...]  # top to bottom: "r0".., then the trainer's
    lane_labels: tuple[str, ...]
    bars: dict  # kind -> Bars
    waited: Bars  # per step: the replica bar that ends last (everyone waits for it)
    labels: list  # (step number, x, y) on each update bar
    end_s: float
    summary: dict
    intervals: list  # (start, end, lane, step, kind) of every bar, for status_at
    sync_ends: np.ndarray  # per step: its weights reach the rollout engines (colocated: the switch back)

    def lane_y(self, lane: str) -> float:
        return float(len(self.lanes) - 1 - self.lanes.index(lane))

    def status_at(self, t: float) -> str:
        """What runs at t, as a "中文 · English" pair."""
        done = int(np.count_nonzero(self.sync_ends <= t))
        live = [(lane, step, kind) for a, b, lane, step, kind in self.intervals if a <= t < b]
        gen = sorted({lane for lane, _, kind in live if kind in ("generate", "tail")})
        tail = sorted({lane for lane, _, kind in live if kind == "tail"})
        waiting = any(kind == "wait" for _, _, kind in live)
        trainer = sorted({lane for lane, _, kind in live if kind in TRAINER_LANES + ("switch",)})
        zh = [f"已完成 {done}/{self.params.steps} 步"]
        en = [f"{done}/{self.params.steps} steps done"]
        if gen:
            zh.append(f"生成中 {' '.join(gen)}" + (f"(长尾 {' '.join(tail)})" if tail else ""))
            en.append(f"generating on {' '.join(gen)}" + (f" (long tail on {' '.join(tail)})" if tail else ""))
        if waiting:
            zh.append("训练器等样本")
            en.append("the trainer waits for samples")
        if trainer:
            zh.append("训练器 " + " ".join(LANE_LABELS[x].split()[0] for x in trainer))
            en.append("trainer: " + ", ".join(LANE_LABELS[x].split()[1] for x in trainer))
        return ",".join(zh) + " · " + "; ".join(en)


def loop_figure(p: RLParams, cancel: CancelToken = NEVER) -> LoopFigure:
    """Simulate p (the engine's replay: run it off the GUI thread) and lay it out as lanes."""
    return figure_of(simulate(p, cancel))


def figure_of(run: Run) -> LoopFigure:
    p = run.params
    R = p.replicas
    trainer: tuple[str, ...] = TRAINER_LANES if p.placement == "separate" else ("switch",) + TRAINER_LANES[:3]
    # A lane with nothing on it (a rule reward, no reference) is left out.
    trainer = tuple(x for x in trainer if x == "update" or float(np.sum(run.end[x] - run.start[x])) > 0
                    or (x == "switch" and p.placement == "colocated"))
    lanes = tuple(f"r{r}" for r in range(R)) + trainer
    y = {lane: float(len(lanes) - 1 - i) for i, lane in enumerate(lanes)}
    rects: dict[str, list] = {k: [] for k in KINDS}
    waited, labels, intervals = [], [], []
    half = p.mode == "async"  # batches overlap on a replica: steps alternate halves of the lane

    def add(kind, lane, a, b, step, dy=0.0, h=BAR_HEIGHT):
        if b > a:
            rects[kind].append((a, y[lane] + dy - h / 2, b - a, h))
            intervals.append((a, b, lane, step, kind))

    for k, roll in enumerate(run.rollouts):
        t0 = float(run.start["rollout"][k])
        dy, h = ((0.18 if k % 2 == 0 else -0.18), BAR_HEIGHT / 2) if half else (0.0, BAR_HEIGHT)
        last, last_end = None, -1.0
        for r in range(R):
            mine = roll.replica_of == r
            if not mine.any():
                continue
            begin = t0 + float(roll.start_s[mine].min())
            finish = np.sort(t0 + roll.finish_s[mine])
            middle = float(finish[(finish.size - 1) // 2])
            add("generate", f"r{r}", begin, middle, k, dy, h)
            add("tail", f"r{r}", middle, float(finish[-1]), k, dy, h)
            if finish[-1] > last_end:
                last, last_end = (begin, f"r{r}"), float(finish[-1])
        if last is not None:
            waited.append((last[0], y[last[1]] + dy - h / 2, last_end - last[0], h))
        free = float(run.end["sync"][k - 1]) if k else 0.0
        if p.placement == "separate":
            low = -(BAR_HEIGHT + WAIT_HEIGHT) / 2
            add("wait", "update", free, float(run.end["rollout"][k]), k, low, WAIT_HEIGHT)
            add("wait", "update", float(run.end["update"][k]), float(run.start["sync"][k]), k, low, WAIT_HEIGHT)
        for lane in trainer:
            add(lane, lane, float(run.start[lane][k]), float(run.end[lane][k]), k)
        if p.placement == "colocated":  # the switch back runs on the sync clock
            add("switch", "switch", float(run.start["sync"][k]), float(run.end["sync"][k]), k)
        labels.append((str(k), float(run.start["update"][k] + run.end["update"][k]) / 2, y["update"]))
    summary = summarize(run)
    return LoopFigure(p, lanes, tuple(LANE_LABELS.get(x, x) for x in lanes),
                      {k: _bars(v) for k, v in rects.items()}, _bars(waited), labels,
                      float(summary["total_s"]), summary, intervals, run.end["sync"].copy())


def _bars(rects: list) -> Bars:
    if not rects:
        return Bars.empty()
    a = np.array(rects, np.float64)
    return Bars(a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy(), a[:, 3].copy())
