"""Trace loading benchmark. Prints one JSON object; figures are median/min/max over 5 runs.

- burstgpt_1m / burstgpt_1_43m: synthetic CSVs shaped like BurstGPT_1.csv as downloaded
  (Timestamp, Model, Request tokens, Response tokens, Total tokens, Log Type; 2% failed rows
  with Response tokens 0), 1,000,000 and 1,429,737 rows; target <= 3 s;
- burstgpt_1_43m_filtered: the same with trace_model= and trace_log_type= (two text columns more);
- mooncake_1m: a synthetic Mooncake JSONL of 1,000,000 lines (about 8 hash ids a line; read by
  pyarrow's JSON reader), its load time and the peak memory of a fresh process loading it;
- azure_code_8819: the Azure 2023 code trace (8,819 rows, date-times), if /work/brief/traces has it;
- old_vs_new: the per-row parser of 4686bd5 (read from git, not kept in the tree) against the
  new one on the 1.43M-row file without failed rows (the old one refuses them);
- peak_rss_mib: peak resident memory of a fresh process loading the 1.43M-row file, and of
  the same process only importing the loader.

    .venv/bin/python bench/bench_traces.py [--repeat N] [--old-repeat N]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np
from benchstats import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.serving import traces  # noqa: E402

AZURE_CODE = Path("/work/brief/traces/AzureLLMInferenceTrace_code.csv")
TARGET_S = 3.0


def burstgpt_csv(path: Path, n: int, failed_share: float = 0.02, seed: int = 0) -> None:
    """Rows shaped like BurstGPT_1.csv: integer seconds, two models, two log types."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.integers(0, 5_200_000, n))
    p = np.clip(rng.lognormal(6.5, 1.0, n), 1, 30000).astype(np.int64)
    g = np.clip(rng.lognormal(5.3, 1.0, n), 1, 8000).astype(np.int64)
    g[rng.random(n) < failed_share] = 0
    model = np.where(rng.random(n) < 0.8, "ChatGPT", "GPT-4")
    log = np.where(rng.random(n) < 0.5, "Conversation log", "API log")
    with open(path, "w") as fh:
        fh.write("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n")
        fh.writelines(f"{a},{b},{c},{d},{c + d},{e}\n" for a, b, c, d, e in zip(t.tolist(), model, p.tolist(), g.tolist(), log))


def mooncake_jsonl(path: Path, n: int, seed: int = 0) -> None:
    """Lines shaped like Mooncake's traces: ms timestamps, one hash id per 512 prompt tokens."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.integers(0, 3_600_000, n))
    p = np.clip(rng.lognormal(8.0, 0.8, n), 1, 120_000).astype(np.int64)
    g = np.clip(rng.lognormal(5.3, 1.0, n), 1, 8000).astype(np.int64)
    ends = np.cumsum(-(-p // 512))
    with open(path, "w") as fh:
        fh.writelines(f'{{"timestamp": {a}, "input_length": {b}, "output_length": {c}, "hash_ids": '
                      f'[{", ".join(map(str, range(e - -(-b // 512), e)))}]}}\n'
                      for a, b, c, e in zip(t.tolist(), p.tolist(), g.tolist(), ends.tolist()))


def timed(fn, repeat: int) -> tuple[list[float], object]:
    walls, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
    return walls, out


def old_parser() -> types.ModuleType:
    source = subprocess.run(["git", "-C", str(ROOT), "show", "4686bd5:core/serving/traces.py"],
                            check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("traces_4686bd5")
    exec(compile(source, "traces_4686bd5.py", "exec"), module.__dict__)
    return module


def peak_rss_mib(path: Path | None) -> float:
    """VmHWM of a fresh process (ru_maxrss would carry this process's peak across fork/exec)."""
    load = f"traces.load_trace({str(path)!r})" if path else "None"
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from core.serving import traces; {load}; "
            "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return round(int(out.strip()) / 1024, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--old-repeat", type=int, default=2, help="runs of the old per-row parser (about 40 s each)")
    args = ap.parse_args()
    report: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, n, failed in (("burstgpt_1m", 1_000_000, 0.02), ("burstgpt_1_43m", 1_429_737, 0.02),
                                ("no_failures_1_43m", 1_429_737, 0.0)):
            files[name] = Path(tmp) / f"{name}.csv"
            burstgpt_csv(files[name], n, failed)
        for name in ("burstgpt_1m", "burstgpt_1_43m"):
            walls, work = timed(lambda name=name: traces.load_trace(files[name]), args.repeat)
            report[name] = {"rows": work.meta["rows"], "requests": len(work), "dropped": work.meta["dropped"],
                            "mib": round(files[name].stat().st_size / 2**20, 1),
                            "load_s": stats(walls, target=TARGET_S)}
        walls, work = timed(lambda: traces.load_trace(files["burstgpt_1_43m"], trace_model="GPT-4",
                                                      trace_log_type="API log"), args.repeat)
        report["burstgpt_1_43m_filtered"] = {"requests": len(work), "load_s": stats(walls, target=TARGET_S)}
        files["mooncake_1m"] = Path(tmp) / "mooncake_1m.jsonl"
        mooncake_jsonl(files["mooncake_1m"], 1_000_000)
        walls, work = timed(lambda: traces.load_trace(files["mooncake_1m"]), args.repeat)
        report["mooncake_1m"] = {"requests": len(work), "hash_ids": int(work.prefix.ids.size),
                                 "mib": round(files["mooncake_1m"].stat().st_size / 2**20, 1),
                                 "load_s": stats(walls, target=TARGET_S),
                                 "peak_rss_mib": peak_rss_mib(files["mooncake_1m"])}
        if AZURE_CODE.exists():
            walls, work = timed(lambda: traces.load_trace(AZURE_CODE), args.repeat)
            report["azure_code_8819"] = {"requests": len(work), "load_ms": stats(walls, scale=1e3)}
        old = old_parser()
        old_walls, old_work = timed(lambda: old.load_trace(files["no_failures_1_43m"]), args.old_repeat)
        new_walls, new_work = timed(lambda: traces.load_trace(files["no_failures_1_43m"]), args.repeat)
        assert np.array_equal(old_work.input_tokens, new_work.input_tokens)
        assert np.allclose(old_work.arrival_s, new_work.arrival_s)
        report["old_vs_new_1_43m"] = {"old_s": stats(old_walls), "new_s": stats(new_walls),
                                      "speedup_median": round(float(np.median(old_walls) / np.median(new_walls)), 1)}
        report["peak_rss_mib"] = {"load_1_43m": peak_rss_mib(files["burstgpt_1_43m"]),
                                  "import_only": peak_rss_mib(None)}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
