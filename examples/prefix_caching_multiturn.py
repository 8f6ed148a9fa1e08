"""Prefix caching on a multi-turn workload: each turn of a chat re-sends the whole history,
so with automatic prefix caching (vLLM's default) most of a later turn's prompt is already
in the KV cache. The same sessions replayed with the cache on and off show what it buys:
the hit rate by turn, TTFT, and the prefill work saved.

    python examples/prefix_caching_multiturn.py [--sessions 60] [--turns 6] [--quick]

The workload is written in AIPerf's multi-turn Mooncake form (session_id; delay: ms after
the previous answer ends) into a temporary file, the form `lab simulate serving trace=`
reads from AIPerf's own datasets.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

import loadlab


def write_sessions(path: Path, sessions: int, turns: int, seed: int = 0) -> None:
    """sessions chats of `turns` turns: a first question of 600-1,400 tokens, then follow-ups
    of 40-200 tokens after 2-8 s of reading; answers of 80-300 tokens."""
    rng = np.random.default_rng(seed)
    lines = []
    for s in range(sessions):
        for t in range(turns):
            row = {"session_id": f"chat-{s}", "input_length": int(rng.integers(600, 1400) if t == 0
                                                                 else rng.integers(40, 200)),
                   "output_length": int(rng.integers(80, 300))}
            row.update({"timestamp": int(s * 500)} if t == 0 else {"delay": int(rng.integers(2000, 8000))})
            lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--quick", action="store_true", help="fewer sessions (the test runs this)")
    args = parser.parse_args(argv)
    sessions = 16 if args.quick else args.sessions
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "chats.jsonl"
        write_sessions(trace, sessions, args.turns)
        runs = {on: loadlab.simulate_serving(trace=trace, model="qwen3-8b", hardware="h100-sxm",
                                             enable_prefix_caching=on)  # vLLM's name for prefix_caching
                for on in (True, False)}
    out = {}
    print(f"{sessions} chats x {args.turns} turns on qwen3-8b / h100-sxm")
    print(f"  {'prefix caching':<16}{'hit rate':>10}{'median TTFT':>14}{'p90 TTFT':>12}{'prefill tokens':>16}")
    for on, run in runs.items():
        s = run.summary
        out[on] = {"hit_rate": s["cache_hit_rate"], "median_ttft_ms": s["median_ttft_ms"], "p90_ttft_ms": s["p90_ttft_ms"],
                   "prefill_tokens": s["prefill_tokens_total"],
                   "hit_rate_by_turn": (s.get("engine_extras") or {}).get("hit_rate_by_turn")}
        print(f"  {'on' if on else 'off':<16}{s['cache_hit_rate'] * 100:>9.1f}%{s['median_ttft_ms']:>11.1f} ms"
              f"{s['p90_ttft_ms']:>9.1f} ms{s['prefill_tokens_total']:>16,}")
    by_turn = out[True]["hit_rate_by_turn"] or []
    print("  hit rate by turn (on): " + ", ".join(f"{r * 100:.0f}%" for r in by_turn))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
