"""The public validation set: real serving benchmarks on A100/H100/H200 as the lab replays them.

tests/data/public_runs/*.toml holds one file per source ([source]: where from, engine, client)
with its runs ([[runs]]: model, card, tp, dtype, the workload as `lab simulate serving` keys,
the measured figures as the source prints them, the citation, and the fit/validation half the
run was put in before any replay). This module reads and checks them and turns a run into the
text keys of `lab simulate serving` (core/serving/headless.serving_report).

    runs = load_runs()                   # every file, in file order
    keys = lab_keys(runs[0], {"coef_seq_s": "20us"})
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from core.calibrate.summary_profile import key_text

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the tomli backport (pyproject installs it there)
    import tomli as tomllib

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "public_runs"
SPLITS = ("fit", "validation")
REGIMES = ("low", "saturated")  # low: the client's load leaves the engine mostly idle
# Measured figures the lab predicts, by vllm bench serve's names (duration in s, latencies in ms,
# throughput in output tokens/s).
PREDICTED = ("duration_s", "output_throughput", "mean_ttft_ms", "median_ttft_ms", "mean_tpot_ms",
             "median_tpot_ms", "mean_itl_ms", "median_itl_ms", "mean_e2el_ms", "median_e2el_ms")
ECHOED = ("total_input_tokens", "total_output_tokens")  # the workload's own size, not predicted
WORKLOAD_KEYS = ("dataset", "random_input_len", "random_output_len", "random_range_ratio", "random_prefix_len",
                 "num_prompts", "request_rate", "burstiness", "max_concurrency", "seed")
DEPLOYMENT_KEYS = ("tp", "pp", "ep", "quantization", "kv_cache_dtype", "gpu_memory_utilization", "frontend",
                   "endpoint", "max_num_seqs", "token_budget")


@dataclass(frozen=True)
class Run:
    id: str
    source: str
    citation: str
    model: str
    hardware: str
    split: str
    regime: str
    workload: dict
    measured: dict
    deployment: dict = field(default_factory=dict)  # tp, quantization, ... as given
    engine: str = "vllm"

    @property
    def card(self) -> str:
        return self.hardware


def _fail(where: str, what: str) -> None:
    raise ValueError(f"{where}: {what}")


def _run(raw: dict, source: str, where: str) -> Run:
    for name in ("id", "citation", "model", "hardware", "split", "regime", "workload", "measured"):
        if name not in raw:
            _fail(where, f"a run without {name!r}")
    rid = raw["id"]
    if raw["split"] not in SPLITS:
        _fail(where, f"{rid}: split {raw['split']!r}; valid: {', '.join(SPLITS)}")
    if raw["regime"] not in REGIMES:
        _fail(where, f"{rid}: regime {raw['regime']!r}; valid: {', '.join(REGIMES)}")
    unknown = set(raw["workload"]) - set(WORKLOAD_KEYS)
    if unknown:
        _fail(where, f"{rid}: workload keys {sorted(unknown)}; valid: {', '.join(WORKLOAD_KEYS)}")
    measured = dict(raw["measured"])
    bad = set(measured) - set(PREDICTED) - set(ECHOED)
    if bad:
        _fail(where, f"{rid}: measured keys {sorted(bad)}; valid: {', '.join(PREDICTED + ECHOED)}")
    if not any(k in PREDICTED for k in measured):
        _fail(where, f"{rid}: no predicted figure among its measured ones")
    for k, v in measured.items():
        if not (isinstance(v, (int, float)) and v > 0 and math.isfinite(v)):
            _fail(where, f"{rid}: measured {k} = {v!r}; valid: a positive number")
    deployment = {k: raw[k] for k in DEPLOYMENT_KEYS if k in raw}
    return Run(rid, source, raw["citation"], raw["model"], raw["hardware"], raw["split"], raw["regime"],
               dict(raw["workload"]), measured, deployment, raw.get("engine", "vllm"))


def load_file(path: Path) -> tuple[dict, list[Run]]:
    """([source] of one file, its runs)."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    source = data.get("source")
    if not source or "id" not in source or not (source.get("url") or source.get("repo")):
        _fail(str(path), "no [source] with an id and a url or repo")
    runs = [_run(r, source["id"], str(path)) for r in data.get("runs", [])]
    if not runs:
        _fail(str(path), "no [[runs]]")
    return source, runs


def load_runs(folder: Path = DATA) -> list[Run]:
    """Every run of every source file (sorted by file name, runs in file order); ids unique."""
    runs: list[Run] = []
    for path in sorted(Path(folder).glob("*.toml")):
        runs.extend(load_file(path)[1])
    seen: set[str] = set()
    for r in runs:
        if r.id in seen:
            _fail(str(folder), f"run id {r.id!r} twice")
        seen.add(r.id)
    return runs


def sources(folder: Path = DATA) -> dict[str, dict]:
    return {load_file(p)[0]["id"]: load_file(p)[0] for p in sorted(Path(folder).glob("*.toml"))}


def generated_output_len(run: Run) -> int | None:
    """The output length a request generated on average, where the source's total falls short
    of num_prompts × the stated length: a client without --ignore-eos lets a request end at
    the model's EOS (GPUStack's 32K runs: 77% of the tokens asked). None where the total is
    as stated (or not given, or the lengths are not one fixed value)."""
    total, w = run.measured.get("total_output_tokens"), run.workload
    if total is None or w.get("dataset") not in ("random", "fixed") or w.get("random_range_ratio", 0):
        return None
    stated = int(w["random_output_len"])
    mean = max(1, round(total / int(w["num_prompts"])))
    return mean if mean < stated else None


def lab_keys(run: Run, coefficients: dict[str, str] | None = None) -> dict[str, str]:
    """The run as `lab simulate serving` text keys (plus coefficient keys, e.g. a refit), with
    the outputs at the length the requests generated (generated_output_len), so the replay
    makes the tokens the source counted."""
    keys = {"model": run.model, "hardware": run.hardware}
    keys.update({k: key_text(v) for k, v in run.deployment.items()})
    keys.update({k: key_text(v) for k, v in run.workload.items()})
    generated = generated_output_len(run)
    if generated is not None:
        keys["random_output_len"] = key_text(generated)
    keys.update(coefficients or {})
    return keys
