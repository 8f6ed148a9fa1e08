"""Benchmarks of `lab simulate rl` (issue 16), printed as one JSON object.

    .venv/bin/python bench/bench_rl.py [--steps 60] [--repeats 3] [--sweep-steps 5] [--mode-steps 20]

loop: a --steps-step simulation of a 512-prompt x 8-sample loop (lognormal lengths,
median 512, sigma 1, synchronous), wall time and µs per generated sequence, median/min/max
over --repeats runs (the first run also loads the compiled engine). sweep: 32 splits of a
64-card pool between rollout replicas (1..63 cards, evenly spaced, tp 1) and the trainer (the
rest), one
run of --sweep-steps steps each, its wall time and the split with the least GPU-hours per
1,000 steps. modes: the loop for --mode-steps steps in each mode (eta = 1).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from core.rl import RLParams, simulate, summarize

LOOP: dict[str, Any] = dict(prompts=512, group=8, prompt_tokens=512, lengths="lognormal", output_tokens=512, sigma=1.0,
            max_tokens=8192, rollout_replicas=8, trainer_cards=8)


def loop(steps: int, repeats: int) -> dict:
    walls, per_seq = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        run = simulate(RLParams(steps=steps, **LOOP))
        wall = time.perf_counter() - t
        n = steps * LOOP["prompts"] * LOOP["group"]
        walls.append(wall)
        per_seq.append(wall / n * 1e6)
    return {"steps": steps, "sequences": n, "wall_s": _stats(walls), "us_per_sequence": _stats(per_seq),
            "step_time_s": summarize(run)["step_time_s"]}


def sweep(steps: int, cards: int = 64, points: int = 32) -> dict:
    t = time.perf_counter()
    rows = []
    for r in sorted({round(1 + i * (cards - 2) / (points - 1)) for i in range(points)}):
        out = summarize(simulate(RLParams(steps=steps, prompts=64, group=8, prompt_tokens=512, lengths="lognormal",
                                          output_tokens=512, max_tokens=8192, rollout_replicas=r,
                                          trainer_cards=cards - r, mode="one_step")))
        rows.append({"rollout_cards": r, "trainer_cards": cards - r, "step_time_s": out["step_time_s"],
                     "gpu_hours_per_1000_steps": out["gpu_hours_per_1000_steps"]})
    best = min(rows, key=lambda row: row["gpu_hours_per_1000_steps"])
    return {"points": len(rows), "steps_per_point": steps, "wall_s": time.perf_counter() - t, "best": best}


def modes(steps: int) -> dict:
    """The loop of LOOP in each mode (eta = 1 where it applies): simulated step time, wall time."""
    out = {}
    for mode in ("synchronous", "one_step", "async", "partial"):
        t = time.perf_counter()
        s = summarize(simulate(RLParams(steps=steps, mode=mode, staleness=1, partial_tokens=1024, **LOOP)))
        out[mode] = {"step_time_s": s["step_time_s"], "rollout_pool_utilisation": s["rollout_pool_utilisation"],
                     "staleness_max": s["staleness_max"], "wall_s": time.perf_counter() - t}
    return out


def _stats(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sweep-steps", type=int, default=5)
    ap.add_argument("--mode-steps", type=int, default=20)
    a = ap.parse_args()
    print(json.dumps({"loop": loop(a.steps, a.repeats), "sweep": sweep(a.sweep_steps), "modes": modes(a.mode_steps)},
                     indent=1))


if __name__ == "__main__":
    main()
