"""A replay's final metrics in the Prometheus text exposition format (version 0.0.4), under
vLLM's metric names, labels and histogram buckets (vllm/v1/metrics/loggers.py), so a
dashboard built for a real server's /metrics reads a replay: `lab simulate serving
--format prometheus` (metrics.prom in --out, else printed).

- gauges: the state after the last event (vllm:num_requests_running, ..._waiting,
  vllm:kv_cache_usage_perc), one per engine;
- counters: core.serving.vllm_series.final_counters, one per engine;
- histograms, per request: vllm:time_to_first_token_seconds,
  vllm:request_time_per_output_token_seconds (TPOT, requests with more than one output
  token, as vLLM observes it), vllm:e2e_request_latency_seconds,
  vllm:request_queue_time_seconds (arrival to first schedule).
Labels: model_name and engine (the replica: vLLM's data-parallel engines carry engine="i").
"""
from __future__ import annotations

import math

import numpy as np

from core.serving import vllm_series as vs
from core.serving.vllm_metrics import tpot_s

TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
                20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
TPOT_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
                40.0, 80.0)
REQUEST_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
                   240.0, 480.0, 960.0, 1920.0, 7680.0)
HISTOGRAMS = (("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_BUCKETS),
              ("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.",
               TPOT_BUCKETS),
              ("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", REQUEST_BUCKETS),
              ("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
               REQUEST_BUCKETS))
HELP = {vs.WAITING: "Number of requests waiting to be processed.",
        vs.RUNNING: "Number of requests in model execution batches.",
        vs.KV_USE: "KV-cache usage. 1 means 100 percent usage.",
        vs.PREEMPTIONS: "Cumulative number of preemption from the engine.",
        vs.PROMPT: "Number of prefill tokens processed.",
        vs.GENERATION: "Number of generation tokens processed.",
        vs.CACHE_QUERIES: "Prefix cache queries, in terms of number of queried tokens.",
        vs.CACHE_HITS: "Prefix cache hits, in terms of number of cached tokens.",
        vs.SUCCESS: "Count of successfully processed requests."}


def _labels(model: str, engine: int, **more) -> str:
    pairs = {"engine": str(engine), "model_name": model, **more}
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in pairs.items()) + "}"


def _escape(value: str) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _num(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def _engines(result) -> list[tuple[int, np.ndarray, dict, dict]]:
    """(engine, mask of its requests, its final gauges, its entry) per replica; one engine
    without replicas. A request is its replica's (replica_of: with disaggregated pools the
    prefill instance's, so a decode instance's histograms are empty and its counters are
    its own steps')."""
    extras = result.extras or {}
    if "replicas" not in extras:
        gauges = {vs.WAITING: int(result.series_waiting[-1]), vs.RUNNING: int(result.series_running[-1]),
                  vs.KV_USE: float(result.series_kv_fraction[-1])}
        return [(0, np.ones(result.arrival_s.size, dtype=bool), gauges, {})]
    replica_of = np.asarray(extras["replica_of"])
    rows = []
    for entry in extras["replicas"]:
        blocks = entry["num_blocks"] or 1
        gauges = {vs.WAITING: int(entry["series_waiting"][-1]), vs.RUNNING: int(entry["series_running"][-1]),
                  vs.KV_USE: float(entry["series_kv_blocks"][-1]) / blocks}
        rows.append((int(entry["replica"]), replica_of == entry["replica"], gauges, entry))
    return rows


def exposition(result, model: str = "load-lab") -> str:
    """The text a scrape of /metrics returns after the replay's last request."""
    engines = _engines(result)
    lines: list[str] = []
    for name in vs.GAUGES:
        lines += [f"# HELP {name} {HELP[name]}", f"# TYPE {name} gauge"]
        lines += [f"{name}{_labels(model, e)} {_num(g[name])}" for e, _, g, _ in engines]
    per_engine = [(e, vs.final_counters(_Subset(result, mask, entry)) if entry else vs.final_counters(result))
                  for e, mask, _, entry in engines]
    for name in vs.COUNTERS:
        # the text format names a counter's family with its _total, as prometheus_client writes it
        lines += [f"# HELP {name} {HELP[name]}", f"# TYPE {name} counter"]
        lines += [f"{name}{_labels(model, e)} {_num(c[name])}" for e, c in per_engine]
    samples = {"vllm:time_to_first_token_seconds": result.ttft_s,
               "vllm:request_time_per_output_token_seconds": tpot_s(result),
               "vllm:e2e_request_latency_seconds": result.request_s,
               "vllm:request_queue_time_seconds": result.first_schedule_wait_s}
    for name, doc, buckets in HISTOGRAMS:
        lines += [f"# HELP {name} {doc}", f"# TYPE {name} histogram"]
        for e, mask, _, _ in engines:
            values = np.asarray(samples[name], dtype=float)[mask]
            lines += histogram_lines(name, values[~np.isnan(values)], buckets, model, e)
    return "\n".join(lines) + "\n"


def histogram_lines(name: str, values: np.ndarray, buckets, model: str, engine: int) -> list[str]:
    """Cumulative buckets (le, +Inf last), then _count and _sum, as prometheus_client writes them."""
    values = np.sort(values)
    lines = [f"{name}_bucket{_labels(model, engine, le=_num(b))} {_num(np.searchsorted(values, b, side='right'))}"
             for b in tuple(buckets) + (math.inf,)]
    lines.append(f"{name}_count{_labels(model, engine)} {_num(values.size)}")
    lines.append(f"{name}_sum{_labels(model, engine)} {_num(float(np.sum(values)))}")
    return lines


class _Subset:
    """One replica's requests and series (final_counters reads only these fields)."""

    def __init__(self, result, mask, entry):
        rows = np.flatnonzero(mask)
        index = {int(r): i for i, r in enumerate(rows)}
        self.input_tokens = result.input_tokens[mask]
        self.first_token_s, self.first_schedule_s = result.first_token_s[mask], result.first_schedule_s[mask]
        self.finish_s = result.finish_s[mask]
        self.cached_tokens = None if result.cached_tokens is None else result.cached_tokens[mask]
        self.preempt_log = [(index[int(r)], t0, t1) for r, t0, t1 in result.preempt_log if int(r) in index]
        self.series_tokens = entry.get("series_tokens", np.zeros(1, dtype=np.int64))
        self.series_steps = entry.get("series_steps")
        self.series_decode_rows = entry.get("series_decode_rows")
