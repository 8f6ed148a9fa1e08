"""How long lab calibrate takes: per replay, per point fit (scan + local fits) and per
bootstrap refit, median / min / max over repeats, on synthetic runs (simulate → vllm bench
result) and, when present, the real CPU server's fixtures (tests/data/vllm_cpu/).

    .venv/bin/python bench/bench_calibrate.py [--repeats 5]

The first replay of a process loads (or compiles) the engine's kernels: it is excluded from
the per-replay figures and printed apart. Not a test.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from core.calibrate.fit import calibrate
from core.calibrate.synthetic import bench_result
from core.serving.headless import serving_report

ROOT = Path(__file__).resolve().parents[1]
SYN = {"model": "qwen3-8b", "hardware": "h100-sxm"}
TRUTH = {"coef_step_s": "0.0015", "coef_seq_s": "3e-05", "coef_prefill_compute": "1.4", "coef_request_s": "0.0003",
         "coef_decode_kv": "1.3"}
CPU = {"model": "tiny-llama-cpu", "hardware": str(ROOT / "core/data/hardware/cpu-2core.toml"), "max_num_seqs": "128",
       "token_budget": "2048"}


def synthetic_runs(folder: Path) -> list[str]:
    paths = []
    for c in (4, 16):
        _, (result, work) = serving_report(dict(SYN, **TRUTH, dataset="random", num_prompts="80",
                                                random_input_len="1024", random_output_len="64",
                                                random_range_ratio="0.8", request_rate="inf", max_concurrency=str(c)))
        path = folder / f"c{c}.json"
        path.write_text(json.dumps(bench_result(result, work, model_id="qwen3-8b", max_concurrency=c)))
        paths.append(str(path))
    return paths


def stats(xs) -> str:
    return f"median {statistics.median(xs):.4g} (min {min(xs):.4g}, max {max(xs):.4g}, n={len(xs)})"


def bench(name: str, paths, keys, repeats: int, bootstrap: int) -> None:
    replays, fits, boots, totals = [], [], [], []
    first = None
    for i in range(repeats):
        t0 = time.perf_counter()
        cal = calibrate(paths, keys, bootstrap=bootstrap, seed=i)
        totals.append(time.perf_counter() - t0)
        r = cal.timings["replay_s"]
        if first is None:
            first, r = r[0], r[1:]
        replays += r
        fits.append(cal.timings["fit_s"])
        boots += cal.timings["bootstrap_s"]
    print(f"{name}: {len(paths)} runs, {cal.timings['replays']:,} replays a calibration ({bootstrap} bootstrap refits)")
    print(f"  first replay of the process: {first:.3f} s (loading the engine)")
    print(f"  per replay [ms]: {stats([x * 1e3 for x in replays])}")
    print(f"  per point fit [s]: {stats(fits)}")
    print(f"  per bootstrap refit [s]: {stats(boots)}")
    print(f"  per calibration, all of it [s]: {stats(totals)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--bootstrap", type=int, default=20)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        bench("synthetic (qwen3-8b on h100-sxm, 80 requests a run)", synthetic_runs(Path(d)), SYN, a.repeats,
              a.bootstrap)
    data = ROOT / "tests/data/vllm_cpu"
    if (data / "medium.json").exists():
        paths = [str(data / f"{n}.json") for n in ("low", "medium", "saturated")]
        bench("real CPU server fixtures (tiny-llama-cpu, 30 requests a run)", paths, CPU, a.repeats, a.bootstrap)


if __name__ == "__main__":
    main()
