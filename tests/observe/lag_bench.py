"""The client's own lag under load (not a test: run by hand, it prints a table).

    .venv/bin/python tests/observe/lag_bench.py [REPEATS]

The answering endpoint (endpoints.py) runs in a process of its own, so the lag measured
is lab observe's loop alone: requests at a rate, each streaming its tokens with no delay,
for several rates; median/p99/max lag (ms) per run, and over the repeats the median, min
and max of each."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LOADS = ((100, 600, 32), (400, 2000, 32), (800, 3000, 16))  # (rate/s, requests, output tokens)


def one(url: str, rate: int, n: int, out_tokens: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.executable, "-m", "lab", "observe", url, "--out", d, "dataset=fixed",
                        f"num_prompts={n}", "random_input_len=32", f"random_output_len={out_tokens}",
                        f"request_rate={rate}", "burstiness=inf"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        res = json.loads((Path(d) / "result.json").read_text())
    lag = res["lab_observe"]["client_lag"]
    return {"median": lag["median_ms"], "p99": lag["p99_ms"], "max": lag["max_ms"], "failed": res["failed"],
            "chunks_per_s": sum(len(x) + 1 for x in res["itls"]) / res["duration"]}


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    server = subprocess.Popen([sys.executable, str(HERE / "endpoints.py")], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        for rate, n, out_tokens in LOADS:
            runs = [one(url, rate, n, out_tokens) for _ in range(repeats)]
            cells = []
            for k in ("median", "p99", "max", "chunks_per_s"):
                v = sorted(r[k] for r in runs)
                cells.append(f"{k} {v[len(v) // 2]:.2f} [{v[0]:.2f}, {v[-1]:.2f}]")
            print(f"{rate}/s x {n} req x {out_tokens} tok: " + "; ".join(cells)
                  + f"; failed {[r['failed'] for r in runs]}", flush=True)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
