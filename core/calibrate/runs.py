"""Measured runs for `lab calibrate` and `lab fidelity`: `vllm bench serve --save-result
--save-detailed` JSONs (and `lab observe`'s, which writes the same keys plus a
"lab_observe" block), each read once into a MeasuredRun.

The requests themselves (arrivals, lengths, failed ones left out) come from the lab's own
trace loader (core/serving/traces/vllm_bench.py), so a calibration replays exactly the
workload `lab simulate serving trace=RESULT.json` replays; the measured latencies are
aligned with it request by request (a lab observe run's shared prefix comes as prefix
blocks, the loader's). Per request: TTFT, every inter-token gap and
E2E = TTFT + Σ gaps (the last chunk's time, as core/serving/vllm_metrics.py's
measured_metrics takes it: vllm bench saves no per-request latency).

settings: how the run was made, from the result's top level (max_concurrency,
request_rate, burstiness) and, when `lab observe` scraped the server's /metrics, from
vllm:cache_config_info's labels (block_size, num_gpu_blocks, enable_prefix_caching,
found anywhere in the "lab_observe" block), the server's counters' deltas (its
metrics.delta: preemptions, prefix-cache hits and queries) and hit rate. No Qt here.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from core.registry import ParamError
from core.serving import traces
from core.serving.workload import Workload

# What a calibration needs of a result: the requests and their measured latencies.
REQUIRED = ("input_lens", "output_lens", "ttfts", "itls")
CACHE_LABELS = ("block_size", "num_gpu_blocks", "enable_prefix_caching", "cache_dtype", "num_cpu_blocks")
# The server's counters lab observe scraped (after - before), by the names settings gives them.
COUNTERS = {"num_preemptions": "vllm:num_preemptions_total", "prefix_cache_hits": "vllm:prefix_cache_hits_total",
            "prefix_cache_queries": "vllm:prefix_cache_queries_total"}
MAX_RUNS = 64
MAX_RESULT_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class MeasuredRun:
    """One measured run, its requests in the lab's workload order (sorted by arrival)."""

    path: str
    label: str
    arrival_s: np.ndarray  # send times, seconds from the first
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    ttft_s: np.ndarray
    itl_s: list  # per request: an array of its gaps between tokens (seconds)
    e2e_s: np.ndarray
    settings: dict = field(default_factory=dict)
    model_id: str | None = None
    engine: str | None = None
    sha256: str = ""
    workload: Workload | None = field(default=None, compare=False)  # what the replay takes

    def __len__(self) -> int:
        return int(self.arrival_s.size)

    @property
    def tpot_s(self) -> np.ndarray:
        """Σ gaps / (output − 1) per request; nan where output <= 1."""
        g = self.output_tokens.astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(g > 1, (self.e2e_s - self.ttft_s) / (g - 1), np.nan)


def load_runs(paths) -> list[MeasuredRun]:
    """Each path read as a measured run; ParamError("runs", ...) naming the file and the
    missing key for a file that is not vllm bench's, and refusing runs of different models
    in one list (a profile is of one model on one card)."""
    paths = [str(p) for p in paths]
    if not paths:
        raise ParamError("runs", "no result files; valid: one or more vllm bench serve / lab observe result JSONs")
    if len(paths) > MAX_RUNS:
        raise ParamError("runs", f"{len(paths)} files; valid: at most {MAX_RUNS}")
    runs = [load_run(p) for p in paths]
    models = {r.model_id for r in runs if r.model_id}
    if len(models) > 1:
        named = ", ".join(f"{Path(r.path).name}: {r.model_id}" for r in runs)
        raise ParamError("runs", f"runs of different models ({named}); valid: runs of one model (calibrate each "
                         "model on its own)")
    labels = [r.label for r in runs]
    if len(set(labels)) < len(labels):  # the same file name in two folders: label by path
        runs = [_relabel(r, r.path) for r in runs]
    return runs


def load_run(path: str) -> MeasuredRun:
    p = Path(path)
    name = p.name
    if not p.is_file():
        raise ParamError("runs", f"{path}: no such file; valid: a vllm bench serve result JSON")
    size = p.stat().st_size
    if size > MAX_RESULT_BYTES:
        raise ParamError("runs", f"{name}: {size:,} bytes; valid: at most {MAX_RESULT_BYTES:,}")
    data = p.read_bytes()
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as err:
        raise ParamError("runs", f"{name}: not JSON ({getattr(err, 'msg', err)}); valid: a vllm bench serve "
                         "result JSON") from None
    if not isinstance(obj, dict):
        raise ParamError("runs", f"{name}: a JSON {type(obj).__name__}, not an object; valid: a vllm bench serve result")
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise ParamError("runs", f"{name}: not a vllm bench serve result with per-request data: no "
                         f"{', '.join(repr(k) for k in missing)}; valid: a result saved with --save-result "
                         "--save-detailed, or lab observe's result.json")
    try:
        work = traces.load_trace(p, format="vllm_bench")
    except ParamError as err:
        raise ParamError("runs", f"{name}: {err.message}") from None
    measured = dict(work.meta).get("measured") or {}
    ttft = np.asarray(measured.get("ttfts_s", []), dtype=float)
    itls = [np.asarray(x, dtype=float) for x in measured.get("itls_s", [])]
    if ttft.size != len(work) or len(itls) != len(work):
        raise ParamError("runs", f"{name}: ttfts/itls do not cover the {len(work):,} completed requests; valid: "
                         "one entry per request")
    e2e = ttft + np.array([x.sum() for x in itls])
    settings = settings_of(obj)
    return MeasuredRun(path=str(path), label=p.stem if p.stem != "result" else f"{p.parent.name}/{p.stem}",
                       arrival_s=np.asarray(work.arrival_s, dtype=float), input_tokens=np.asarray(work.input_tokens),
                       output_tokens=np.asarray(work.output_tokens), ttft_s=ttft, itl_s=itls, e2e_s=e2e,
                       settings=settings, model_id=_text(obj.get("model_id")), engine=engine_of(obj),
                       sha256=hashlib.sha256(data).hexdigest(), workload=work)


def settings_of(obj: dict) -> dict:
    """How the run was made: the client's settings and, from lab observe's block, the
    server's KV cache config and its counters' deltas (when scraped)."""
    out: dict[str, Any] = {}
    limit = obj.get("max_concurrency")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1:
        out["max_concurrency"] = limit
    rate = obj.get("request_rate")
    if isinstance(rate, (int, float)) and not isinstance(rate, bool) and math.isfinite(rate) and rate > 0:
        out["request_rate"] = float(rate)
    elif rate is not None:
        out["request_rate"] = "inf"
    if isinstance(obj.get("burstiness"), (int, float)):
        out["burstiness"] = float(obj["burstiness"])
    block = obj.get("lab_observe")
    if isinstance(block, dict):
        labels = _find_dict_with(block, "num_gpu_blocks")
        for key in CACHE_LABELS:
            if labels is not None and key in labels:
                out[key] = _label_value(labels[key])
        metrics = _table(block, "metrics")
        delta = _table(metrics, "delta")
        for key, name in COUNTERS.items():
            value = delta.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                out[key] = int(value) if float(value).is_integer() else float(value)
        if isinstance(block.get("prefix_tokens"), int) and not isinstance(block.get("prefix_tokens"), bool):
            out["prefix_tokens"] = int(block["prefix_tokens"])
        rate = metrics.get("prefix_cache_hit_rate")
        if isinstance(rate, (int, float)) and not isinstance(rate, bool) and math.isfinite(rate):
            out["prefix_cache_hit_rate"] = float(rate)
    return out


def engine_of(obj: dict) -> str | None:
    """"vLLM 0.32.0+cpu" where the result says which server it measured (lab observe's
    server info, or a version key at its top level)."""
    block = obj.get("lab_observe")
    version = None
    if isinstance(block, dict):
        version = _table(block, "server").get("version") or _find_key(block, "vllm_version")
    version = version or obj.get("vllm_version")
    if isinstance(version, str) and version.strip():
        text = version.strip()
        return text if text.lower().startswith("vllm") else f"vLLM {text}"
    return None


def _table(obj: dict, key: str) -> dict:
    """obj[key] when it is a JSON object, else {}."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _label_value(value):
    """Prometheus labels are text: "32" -> 32, "True" -> True."""
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "false"):
            return low == "true"
        try:
            number = float(low)
        except ValueError:
            return value
        return int(number) if number.is_integer() else number
    return value


def _find_dict_with(obj, key: str, depth: int = 0):
    """The first dict (depth first) that has key, in a JSON tree; None if none."""
    if depth > 8:
        return None
    children: list
    if isinstance(obj, dict):
        if key in obj:
            return obj
        children = list(obj.values())
    elif isinstance(obj, list):
        children = obj
    else:
        return None
    for child in children:
        found = _find_dict_with(child, key, depth + 1)
        if found is not None:
            return found
    return None


def _find_key(obj, key: str):
    holder = _find_dict_with(obj, key)
    return None if holder is None else holder[key]


def _text(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _relabel(run: MeasuredRun, label: str) -> MeasuredRun:
    return replace(run, label=label)


def mean_concurrency(arrival_s, e2e_s) -> float:
    """Requests in flight on average (Little's law): Σ E2E / (last finish − first arrival)."""
    arrival, e2e = np.asarray(arrival_s, dtype=float), np.asarray(e2e_s, dtype=float)
    if arrival.size == 0:
        return 0.0
    span = float(np.max(arrival + e2e) - np.min(arrival))
    return float(np.sum(e2e)) / span if span > 0 else 0.0
