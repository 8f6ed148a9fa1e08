"""Voice benchmark (issue 13): 1,000 turns under the book's uniform load. Prints one JSON object.

    uniform_1000   scenario=uniform turns=1000 (480 background requests + 1,000 turns in one
                   engine): wall time of simulate_voice, REPEATS (5) times; target <= 2 s.
    uniform_barge  the same with barge_in_ms=300 (every turn watched while it runs, its
                   request cancelled at the backend stop): the cost of barge-in, and how
                   long after the backend stop the engine let the request go (cancel_lag_ms).
    rate_sweep     the Voice panel's load slider: rate=0..8 req/s, 200 turns each, one
                   simulate_voice per position (what a drag asks for), wall per position.

Also the book's anchors of an unloaded run (silence p50, first chunk arrival p50, chunk gap
p50) and, per figure, where the wall time goes (engine vs the turns' layout) for one run.
Timings are wall clock on a machine shared with whatever else runs: compare figures of one
run. The GUI frame time while the slider is dragged is the panel's (widgets/voice).

    python bench/bench_voice.py [--repeats 5] [--turns 1000]
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from benchstats import stats

from core.voice import VoiceParams, simulate_voice

TARGET_S = 2.0


def _wall(params: VoiceParams, repeats: int) -> tuple[list[float], dict]:
    walls, summary = [], {}
    for _ in range(repeats):
        t = time.perf_counter()
        summary = simulate_voice(params).summary
        walls.append(time.perf_counter() - t)
    return walls, summary


def _where(params: VoiceParams) -> dict:
    """Share of one run's time in the engine (core/serving) vs the rest (core/voice, numpy)."""
    prof = cProfile.Profile()
    prof.enable()
    simulate_voice(params)
    prof.disable()
    st = pstats.Stats(prof)
    total = st.total_tt
    engine = sum(v[2] for k, v in st.stats.items() if "core/serving" in k[0])
    return {"total_s_profiled": round(total, 3), "engine_share": round(engine / total, 3) if total else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--turns", type=int, default=1000)
    a = ap.parse_args()
    uniform = VoiceParams(scenario="uniform", turns=a.turns)
    walls, summary = _wall(uniform, a.repeats)
    barge = VoiceParams(scenario="uniform", turns=a.turns, barge_in_ms=300)
    barge_walls, barge_summary = _wall(barge, a.repeats)
    barge_run = simulate_voice(barge)
    lag = [(t.barge_in.engine_cancel_s - t.barge_in.backend_stop_s) for t in barge_run.turns if t.cancelled]
    slider = []
    for rate in (0, 0.5, 1, 2, 4, 8):
        w, _ = _wall(VoiceParams(rate=rate, turns=200), a.repeats)
        slider.append({"rate": rate, "wall_s": stats(w)})
    unloaded = simulate_voice(VoiceParams(turns=200)).summary
    keys = ("silence_p50_ms", "silence_p95_ms", "silence_p99_ms", "underrun_turn_share", "stall_p95_ms", "tail_stage",
            "cancelled_turns")
    print(json.dumps({
        "uniform_1000": {"turns": a.turns, "wall_s": stats(walls, target=TARGET_S),
                         "summary": {k: summary[k] for k in keys}, "where": _where(uniform)},
        "uniform_barge": {"turns": a.turns, "wall_s": stats(barge_walls, target=TARGET_S),
                          "summary": {k: barge_summary[k] for k in keys},
                          # backend stop -> the engine's cancel (the end of the step, or of the
                          # closed-form decode run, under way then): a model figure, not timing
                          "cancel_lag_ms": stats(lag, scale=1e3, digits=1)},
        "rate_sweep_200_turns": slider,
        "unloaded_anchors": {"silence_p50_ms": round(unloaded["silence_p50_ms"], 1),
                             "first_arrival_p50_ms": round(unloaded["first_arrival_p50_ms"], 1),
                             "chunk_gap_p50_ms": round(unloaded["chunk_gap_p50_ms"], 1),
                             "book": "约 400 / 370 ms to the first chunk, gaps 约 94 ms (§3.3.3)"},
    }, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
