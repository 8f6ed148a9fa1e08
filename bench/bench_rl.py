"""Benchmarks of `lab simulate rl` (issue 16), printed as one JSON object.

    .venv/bin/python bench/bench_rl.py [--steps 60] [--repeats 3] [--sweep-steps 5] [--workers 2] [--mode-steps 20]

loop: a --steps-step simulation of a 512-prompt x 8-sample loop (lognormal lengths,
median 512, sigma 1, synchronous), wall time and µs per generated sequence, median/min/max
over --repeats runs (the first run also loads the compiled engine). sweep: `lab sweep rl`'s
32 splits of a 64-card pool (rollout_cards=1:63:2, tp 1, the trainer the rest) on a local
process pool of --workers, --sweep-steps steps a point, wall time over --repeats and the
splits with the least GPU-hours per 1,000 steps and the least step time. modes: the loop for
--mode-steps steps in each mode (eta = 1).
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


def sweep(steps: int, workers: int, repeats: int, cards: int = 64) -> dict:
    """The split as `lab sweep rl` runs it: pool_cards=cards, rollout_cards=1:cards-1:2 (32
    points for 64 cards), on a local process pool of `workers`, in memory (no folder)."""
    from core.sweep.executors import make_executor
    from core.sweep.run import parse_sweep, run_sweep

    raw = {"pool_cards": str(cards), "rollout_cards": f"1:{cards - 1}:2", "steps": str(steps), "prompts": "64",
           "group": "8", "prompt_tokens": "512", "lengths": "lognormal", "output_tokens": "512",
           "max_tokens": "8192", "mode": "one_step"}
    walls, summary = [], {}
    for _ in range(repeats):
        spec = parse_sweep("rl", raw)
        executor = make_executor("local", workers)
        t = time.perf_counter()
        try:
            summary = run_sweep(spec, None, executor)
        finally:
            executor.close()
        walls.append(time.perf_counter() - t)
    return {"points": summary["points"]["done"], "steps_per_point": steps, "workers": workers,
            "wall_s": _stats(walls), "best": summary["rl_best"], "fastest": summary["rl_fastest"]}


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
    ap.add_argument("--workers", type=int, default=2, help="the sweep's local process pool")
    ap.add_argument("--only", default="loop,sweep,modes", help="which parts, comma separated")
    ap.add_argument("--mode-steps", type=int, default=20)
    a = ap.parse_args()
    parts = {"loop": lambda: loop(a.steps, a.repeats), "sweep": lambda: sweep(a.sweep_steps, a.workers, a.repeats),
             "modes": lambda: modes(a.mode_steps)}
    print(json.dumps({name: parts[name]() for name in a.only.split(",")}, indent=1))


if __name__ == "__main__":
    main()
