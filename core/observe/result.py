"""What `lab observe` writes: DIR/result.json with the keys `vllm bench serve
--save-result --save-detailed` writes (vllm/benchmarks/serve.py: the run's settings, the
metrics block, the per-request lists; failed requests keep their place with ttft 0,
output_len 0 and their error, as there), so the lab's trace loader and overlay read it
and so does any tool that reads vllm bench's; "lab_observe" adds what vllm bench does not
save (scheduled and due send times, the client's lag, the planned lengths, the tokens each
chunk carried where the server reported usage per chunk, the server's /metrics before and
after, the server's own description). DIR/requests.csv: one row a
request.

Definitions as vllm bench's: TTFT from a request's start to its first chunk; TPOT
(latency - TTFT) / (output - 1) for outputs over one token; ITL every gap between chunks;
E2EL the latency; means, medians, std and p99 over the successful requests, in ms.
input_lens and output_lens are the server's usage counts (the planned ones when the
server sent no usage); start_times are s from the run's start.
"""
from __future__ import annotations

import csv
import datetime
import json
import math
import os

import numpy as np

PERCENTILES = (99,)
CSV_COLUMNS = ("index", "scheduled_s", "due_s", "start_s", "lag_ms", "ttft_ms", "tpot_ms", "e2el_ms", "end_s",
               "planned_input_tokens", "planned_output_tokens", "prompt_tokens", "completion_tokens", "chunks",
               "error")


def _stats(name: str, values) -> dict:
    v = np.asarray(values, float) * 1000.0 if len(values) else np.zeros(1)
    out = {f"mean_{name}_ms": float(np.mean(v)), f"median_{name}_ms": float(np.median(v)),
           f"std_{name}_ms": float(np.std(v))}
    for p in PERCENTILES:
        out[f"p{p:g}_{name}_ms"] = float(np.percentile(v, p))
    return out


def lag_stats(run) -> dict:
    """The client's lag (actual start - due), ms: median, p99, max over the requests sent."""
    lags = np.array([o.lag_s for o in run.outcomes if not math.isnan(o.start_s)]) * 1000.0
    if not len(lags):
        return {"sent": 0}
    return {"sent": int(len(lags)), "median_ms": float(np.median(lags)), "p99_ms": float(np.percentile(lags, 99)),
            "max_ms": float(np.max(lags))}


def _output_len(o) -> int:
    """The server's completion_tokens; without usage, the chunks counted (one token each)."""
    if not o.success:
        return 0
    return int(o.completion_tokens) if o.completion_tokens is not None else len(o.itl_s) + 1


def _peaks(outs, duration_s: float) -> tuple[float, int]:
    """vllm bench's max_output_tokens_per_s (chunks per whole second of the run) and
    max_concurrent_requests (most requests in flight at once)."""
    buckets = np.zeros(int(math.ceil(duration_s)) + 1)
    events = []
    for o in outs:
        events += [(o.start_s, 1), (o.end_s, -1)]
        if o.success:
            t = o.start_s + o.ttft_s + np.concatenate(([0.0], np.cumsum(o.itl_s)))
            np.add.at(buckets, np.clip(t.astype(int), 0, len(buckets) - 1), 1)
    level = most = 0
    for _, step in sorted(events, key=lambda e: (e[0], e[1])):
        level += step
        most = max(most, level)
    return float(buckets.max()) if len(buckets) else 0.0, most


def build(run, plan, *, model: str, endpoint: str, chat: bool, metrics: dict, server: dict, tokenizer_id: str,
          settings: dict) -> dict:
    """The result dict of a run: the finished requests, in request order (a Ctrl+C run
    keeps only those)."""
    outs = [o for o in run.outcomes if o.done]
    ok = [o for o in outs if o.success]
    planned_in = [int(plan.input_tokens[o.index]) for o in outs]
    in_lens = [int(o.prompt_tokens) if o.prompt_tokens is not None else p for o, p in zip(outs, planned_in)]
    out_lens = [_output_len(o) for o in outs]
    total_in = sum(n for n, o in zip(in_lens, outs) if o.success)
    total_out = sum(out_lens)
    tpots = [(o.latency_s - o.ttft_s) / (n - 1) for o, n in zip(outs, out_lens) if o.success and n > 1]
    duration = run.duration_s
    per_s, most = _peaks(outs, duration)
    rate = plan.request_rate
    result: dict = {
        "date": datetime.datetime.now().strftime("%Y%m%d-%H%M%S"),
        "endpoint_type": "openai-chat" if chat else "openai", "backend": "openai-chat" if chat else "openai",
        "label": None, "model_id": model, "tokenizer_id": tokenizer_id, "num_prompts": len(outs),
        "request_rate": "inf" if math.isinf(rate) else rate,
        "burstiness": "inf" if math.isinf(plan.burstiness) else plan.burstiness,
        "max_concurrency": plan.max_concurrency,
        "duration": duration, "completed": len(ok), "failed": len(outs) - len(ok),
        "total_input_tokens": total_in, "total_output_tokens": total_out,
        "request_throughput": len(ok) / duration if duration else 0.0, "request_goodput": None,
        "output_throughput": total_out / duration if duration else 0.0,
        "total_token_throughput": (total_in + total_out) / duration if duration else 0.0,
        "max_output_tokens_per_s": per_s, "max_concurrent_requests": most,
    }
    result |= _stats("ttft", [o.ttft_s for o in ok])
    result |= _stats("tpot", tpots)
    result |= _stats("itl", [x for o in ok for x in o.itl_s])
    result |= _stats("e2el", [o.latency_s for o in ok])
    result |= {
        "input_lens": in_lens, "output_lens": out_lens, "ttfts": [o.ttft_s if o.success else 0.0 for o in outs],
        "itls": [list(o.itl_s) if o.success else [] for o in outs], "start_times": [o.start_s for o in outs],
        "generated_texts": [o.text for o in outs], "errors": [o.error for o in outs],
    }
    result["lab_observe"] = {
        "endpoint": endpoint, "workload": plan.label, "seed": plan.seed, "prefix_tokens": plan.prefix_tokens,
        "requests_planned": len(plan), "interrupted": run.interrupted,
        "unfinished": sum(1 for o in run.outcomes if not o.done and not math.isnan(o.start_s)),
        "not_sent": run.not_sent, "client_lag": lag_stats(run),
        "request_index": [o.index for o in outs], "scheduled_s": [o.scheduled_s for o in outs],
        "due_s": [o.due_s for o in outs], "end_s": [o.end_s for o in outs],
        "planned_input_lens": planned_in, "planned_output_lens": [int(plan.output_tokens[o.index]) for o in outs],
        "chunk_tokens": [list(o.chunk_tokens) if o.success else [] for o in outs],
        "token_count_source": ["server" if o.completion_tokens is not None else "client_chunks" for o in outs],
        "metrics": metrics, "server": server, "settings": settings,
    }
    return result


def _csv_rows(result: dict):
    lab = result["lab_observe"]
    for k, i in enumerate(lab["request_index"]):
        ok = not result["errors"][k]
        ttft, n = result["ttfts"][k], result["output_lens"][k]
        e2el = ttft + sum(result["itls"][k]) if ok else math.nan
        tpot = (e2el - ttft) / (n - 1) if ok and n > 1 else math.nan
        start, due = result["start_times"][k], lab["due_s"][k]
        yield [i, lab["scheduled_s"][k], due, start, (start - due) * 1000.0, ttft * 1000.0 if ok else math.nan,
               tpot * 1000.0, e2el * 1000.0, lab["end_s"][k], lab["planned_input_lens"][k],
               lab["planned_output_lens"][k], result["input_lens"][k], n, len(result["itls"][k]) + 1 if ok else 0,
               result["errors"][k]]


def write(result: dict, out_dir: str) -> tuple[str, str]:
    """DIR/result.json and DIR/requests.csv, each written whole (a temporary file renamed)."""
    os.makedirs(out_dir, exist_ok=True)
    paths = os.path.join(out_dir, "result.json"), os.path.join(out_dir, "requests.csv")
    tmp = paths[0] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(_finite(result), f, allow_nan=False, default=_jsonable)
    os.replace(tmp, paths[0])
    tmp = paths[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for row in _csv_rows(result):
            w.writerow(["" if isinstance(v, float) and math.isnan(v) else (f"{v:.6f}" if isinstance(v, float) else v)
                        for v in row])
    os.replace(tmp, paths[1])
    return paths


def _finite(value):
    """inf as "inf" (vllm bench's request_rate), nan as null: strict JSON every reader takes."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if hasattr(value, "tolist"):
        return _finite(value.tolist())
    return value


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")
