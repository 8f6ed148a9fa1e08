"""The summary of a voice run: what `lab simulate voice --json` prints.

Percentiles by nearest rank (the book's rule, ⌈q·n⌉-th smallest). mean_<stage>_ms for
every stage of the silence gap, and only those carry the mean_ prefix, so they sum to
silence_mean_ms. The tail: among the turns at or above the p95 silence, the stage with the
largest mean share of their silence.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from core.request.metrics import nearest_rank_value
from core.voice.model import STAGES


def _ms(x) -> float | None:
    """Seconds -> ms, to the nanosecond: spans on a clock minutes long carry float dust
    (90.00000000000246 ms of a 90 ms stage) that says nothing."""
    return None if x is None else round(float(x) * 1000.0, 6)


def summarize(run, background_requests: int, wall_s: float) -> dict:
    turns = run.turns
    silence = np.array([t.silence_s for t in turns])
    stages = np.array([[t.stage_s()[name] for name in STAGES] for t in turns])
    stall = np.array([t.stall_s for t in turns])
    p95 = nearest_rank_value(silence, 0.95)
    tail = silence >= p95
    tail_means = stages[tail].mean(axis=0)
    worst = int(np.argmax(tail_means))  # raises without turns: every figure below has one
    reply_p50 = nearest_rank_value([t.reply_s for t in turns], 0.50)
    assert reply_p50 is not None
    per_turn = [np.diff(t.tts_chunk_arrivals_s) for t in turns if t.tts_chunk_arrivals_s.size > 1]
    gaps = np.concatenate(per_turn) if per_turn else np.zeros(0)
    first_arrival = np.array([t.span("downlink").end_s - t.start_s for t in turns])
    out: dict[str, Any] = {
        "silence_p50_ms": _ms(nearest_rank_value(silence, 0.50)),
        "silence_p95_ms": _ms(p95),
        "silence_p99_ms": _ms(nearest_rank_value(silence, 0.99)),
        "silence_mean_ms": _ms(silence.mean()),
        "underrun_turn_share": float(np.mean([t.underruns > 0 for t in turns])),
        "stall_p95_ms": _ms(nearest_rank_value(stall, 0.95)),
    }
    for i, name in enumerate(STAGES):
        out[f"mean_{name}_ms"] = _ms(stages[:, i].mean())
    out.update({
        "tail_stage": STAGES[worst],
        "tail_stage_share": float(tail_means[worst] / silence[tail].mean()) if silence[tail].mean() > 0 else 0.0,
        "first_arrival_p50_ms": _ms(nearest_rank_value(first_arrival, 0.50)),  # the book's 约 400 / 370 ms
        "chunk_gap_p50_ms": _ms(nearest_rank_value(gaps, 0.50)) if gaps.size else None,  # the book's 约 94 ms
        "reply_p50_s": float(reply_p50),
        "turns": len(turns),
        "cancelled_turns": int(sum(t.cancelled for t in turns)),
        "background_requests": int(background_requests),
        "source": run.source,
        "wall_s": float(wall_s),
    })
    return out
