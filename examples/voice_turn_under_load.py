"""A voice turn under load: the silence a caller hears (from their last word to the first
audible sample of the reply) while the same serving engine also carries chat traffic.
The voice turn's LLM request waits in the loaded engine's queue like any other, so the
silence's tail grows with the background rate, and the stage that owns the tail changes.

    python examples/voice_turn_under_load.py [--rates 0,0.5,1,1.5] [--turns 300] [--quick]

loadlab.simulate_voice is `lab simulate voice` (rate=: background requests per second).
"""
from __future__ import annotations

import argparse
import sys

import loadlab


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="0,0.5,1,1.5", help="background requests per second, comma-separated")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="fewer turns (the test runs this)")
    args = parser.parse_args(argv)
    turns = 100 if args.quick else args.turns
    rows = []
    print(f"{turns} voice turns per background rate; silence = user's last word -> first audible sample")
    print(f"  {'background':>12}{'p50':>10}{'p95':>10}{'p99':>10}  tail owned by")
    for rate in (float(r) for r in args.rates.split(",")):
        s = loadlab.simulate_voice(rate=rate, turns=turns).summary
        rows.append({"rate": rate, "p50": s["silence_p50_ms"], "p95": s["silence_p95_ms"], "p99": s["silence_p99_ms"],
                     "tail_stage": s["tail_stage"], "tail_share": s["tail_stage_share"]})
        print(f"  {rate:>7.1f} rq/s{s['silence_p50_ms']:>7.0f} ms{s['silence_p95_ms']:>7.0f} ms{s['silence_p99_ms']:>7.0f} ms"
              f"  {s['tail_stage']} ({s['tail_stage_share'] * 100:.0f}% of the tail's silence)")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
