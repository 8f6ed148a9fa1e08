"""The server's Prometheus /metrics, scraped before and after a run (and polled during it
for the gauges' peaks), when the server has them.

Kept: vLLM V1's counters (preemptions, prefix-cache hits and queries, prompt and
generation tokens, finished requests) as after - before deltas; its gauges (KV-cache use,
requests running and waiting) before, after and their peak while polled; and the labels
of vllm:cache_config_info (block_size, num_gpu_blocks, enable_prefix_caching, ...), from
which the calibration mirrors the server's KV pool. A metric with several label sets
(engines, finish reasons) is summed. Older vLLM names the KV gauge gpu_cache_usage_perc;
it is read as kv_cache_usage_perc.
"""
from __future__ import annotations

import math
import re

COUNTERS = ("vllm:num_preemptions_total", "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total",
            "vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total")
GAUGES = ("vllm:kv_cache_usage_perc", "vllm:num_requests_running", "vllm:num_requests_waiting")
ALIASES = {"vllm:gpu_cache_usage_perc": "vllm:kv_cache_usage_perc",
           "vllm:gpu_prefix_cache_hits_total": "vllm:prefix_cache_hits_total",
           "vllm:gpu_prefix_cache_queries_total": "vllm:prefix_cache_queries_total"}
INFO = "vllm:cache_config_info"
_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text: str) -> dict:
    """{"values": {name: summed value} for the kept names, "cache_config": labels or None}."""
    values: dict[str, float] = {}
    config = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None:
            continue
        name, labels, raw = m.group(1), m.group(3) or "", m.group(4)
        name = ALIASES.get(name, name)
        if name == INFO and config is None:
            config = {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in _LABEL.findall(labels)}
            continue
        if name not in COUNTERS and name not in GAUGES:
            continue
        try:
            value = float(raw)
        except ValueError:
            continue
        if math.isfinite(value):
            values[name] = values.get(name, 0.0) + value
    return {"values": values, "cache_config": config}


def summary(before: dict | None, after: dict | None, peaks: dict | None = None) -> dict:
    """The result's metrics block: the counters' deltas, the gauges, the cache config and
    the prefix-cache hit rate of the run (hits / queries of the deltas)."""
    if before is None and after is None:
        return {"present": False}
    b = (before or {}).get("values", {})
    a = (after or {}).get("values", {})
    delta = {k: a[k] - b[k] for k in COUNTERS if k in a and k in b}
    out: dict = {"present": True, "before": b, "after": a, "delta": delta,
                 "cache_config": (after or {}).get("cache_config") or (before or {}).get("cache_config")}
    q = delta.get("vllm:prefix_cache_queries_total")
    if q:
        out["prefix_cache_hit_rate"] = delta.get("vllm:prefix_cache_hits_total", 0.0) / q
    if peaks:
        out["peak_during_run"] = peaks
    return out


def peak(peaks: dict, sample: dict) -> dict:
    """peaks with the gauges of one poll folded in (max of each, and the poll count)."""
    values = sample.get("values", {})
    for k in GAUGES:
        if k in values:
            peaks[k] = max(peaks.get(k, -math.inf), values[k])
    peaks["polls"] = peaks.get("polls", 0) + 1
    return peaks
