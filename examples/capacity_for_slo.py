"""Capacity for an SLO on your trace: how many requests per second one replica of a model
on a card serves while 90% of the trace's requests still meet TTFT <= 2 s and TPOT <= 100
ms, for two cards, and what a million output tokens costs at that rate.

    python examples/capacity_for_slo.py [TRACE] [--model qwen3-8b] [--quick]

TRACE: any trace `lab simulate serving trace=` reads (CSV/JSONL with arrival_s,
input_tokens, output_tokens, or Azure, BurstGPT, Mooncake, Vidur, vllm bench as they ship);
default the first 600 requests of the Azure 2023 code trace in tests/data. The search
replays the trace at scaled arrival rates (its time_scale) and bisects to the highest rate
that meets the SLOs: loadlab.sweep(search="max_rate"), `lab sweep serving search=max_rate`
on the command line.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import loadlab

HERE = Path(__file__).resolve().parent
DEFAULT_TRACE = HERE.parent / "tests" / "data" / "traces" / "azure2023_code_600.csv"
CARDS = ("h100-sxm", str(HERE / "h200.toml"))  # a catalog card, and a card file of your own


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", default=str(DEFAULT_TRACE))
    parser.add_argument("--model", default="qwen3-8b")
    parser.add_argument("--quick", action="store_true", help="a coarser search (the test runs this)")
    args = parser.parse_args(argv)
    sweep = loadlab.sweep(trace=args.trace, model=args.model, hardware=list(CARDS), search="max_rate",
                          slo_ttft_ms=2000, slo_tpot_ms=100, attainment=0.9,
                          tolerance=0.1 if args.quick else 0.02, workers=1)
    rows = []
    print(f"{Path(args.trace).name}: {args.model}, 90% of requests within TTFT <= 2000 ms and TPOT <= 100 ms")
    print(f"  {'card':<14}{'capacity':>14}{'x the trace':>13}{'USD / M output tokens':>24}")
    for item in sweep.summary["capacity"]:
        card = Path(item["values"]["hardware"]).stem
        cost = item.get("cost_per_million_output_tokens")
        rows.append({"card": card, "max_rate_per_s": item["search.max_rate_per_s"],
                     "multiplier": item["search.max_rate_multiplier"], "cost": cost, "capped": item["capped"]})
        print(f"  {card:<14}{item['search.max_rate_per_s']:>10.2f} req/s{item['search.max_rate_multiplier']:>12.2f}x"
              + (f"{cost:>24.2f}" if cost is not None else f"{'no price (give price_per_card_hour=)':>40}")
              + ("  (capped: the search's upper limit)" if item["capped"] else ""))
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
