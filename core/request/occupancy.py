"""§3.1.2 图 3-3: waiting takes capacity too. State occupancy A_M = ∫ M(t) dt in byte·s;
in steady state the tasks that are waiting hold about λ · M0 · τ bytes."""
from __future__ import annotations

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param
from core.units import GiB


def area(arrival_rate_per_s: float, state_bytes: float, wait_s: float) -> dict:
    return {
        "mean_waiting_tasks": arrival_rate_per_s * wait_s,  # Little's law: L = λ·W
        "mean_occupancy_bytes": arrival_rate_per_s * state_bytes * wait_s,
        "area_byte_s_per_task": state_bytes * wait_s,
    }


def occupancy_series(arrival_rate_per_s: float, state_bytes: float, wait_s: float,
                     horizon_s: float) -> tuple[np.ndarray, np.ndarray]:
    """M(t) for tasks arriving evenly at λ, each holding M0 for τ: a step curve.

    Returns (t, bytes) with two points per change so it draws as steps; it rises for τ,
    then holds at about λ·M0·τ.
    """
    arrivals = np.arange(0.0, horizon_s, 1.0 / arrival_rate_per_s)
    events_t = np.concatenate([arrivals, arrivals + wait_s])
    events_d = np.concatenate([np.full(arrivals.size, state_bytes), np.full(arrivals.size, -state_bytes)])
    # Events at the same instant (one task leaves as another arrives) net out in one step.
    t_sorted, inverse = np.unique(events_t, return_inverse=True)
    level = np.cumsum(np.bincount(inverse, weights=events_d))
    keep = t_sorted <= horizon_s
    t_sorted, level = t_sorted[keep], level[keep]
    # Steps: each change drawn as a vertical jump.
    t = np.repeat(np.concatenate([[0.0], t_sorted, [horizon_s]]), 2)[1:-1]
    m = np.repeat(np.concatenate([[0.0], level]), 2)
    return t, m


AREA = Calculator(
    name="state.area",
    title="等待也占容量:状态占用面积 · occupancy in byte·s",
    ref=BookRef("3.1.2", "图 3-3 · 练习 3-2"),
    params=(
        Param("arrival_rate_per_s", "1/s", 2.0, "λ: tasks entering the wait per second (练习 3-2: 2)", 0, 1e9, min_exclusive=True, label="λ"),
        Param("state_bytes", "bytes", float(GiB), "M0: state each waiting task holds (练习 3-2: 1 GiB)", 0, 1e18, label="M0"),
        Param("wait_s", "s", 10.0, "τ: how long each task waits holding it (练习 3-2: 10 s, then 30 s)", 0, 1e9, label="τ"),
    ),
    outputs=(
        Output("mean_waiting_tasks", "tasks", "tasks waiting at any moment (Little's law)", "λ · τ"),
        Output("mean_occupancy_bytes", "bytes", "state held by waiting tasks on average", "λ · M0 · τ"),
        Output("area_byte_s_per_task", "byte*s", "each task's occupancy area", "A_M = ∫ M(t) dt = M0 · τ"),
    ),
    compute=area,
    book=(
        BookValue("area_byte_s_per_task", 10 * GiB, "1 GiB 状态占用 10 秒 = 10 GiB·s"),
        BookValue("mean_waiting_tasks", 20, "λ·τ = 2 × 10", derived=True),
        BookValue("mean_occupancy_bytes", 20 * GiB, "2 × 1 GiB × 10", derived=True),
        BookValue("mean_occupancy_bytes", 60 * GiB, "等待改为 30 秒", params={"wait_s": 30}, derived=True),
        BookValue("mean_occupancy_bytes", 10 * GiB, "λ=2、τ=5 → 10 GiB", params={"wait_s": 5}),
    ),
)

CALCULATORS = (AREA,)
