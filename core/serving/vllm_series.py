"""A replay's time series under the names of vLLM's Prometheus metrics (its /metrics
endpoint: vllm/v1/metrics/loggers.py), so a dashboard or notebook built for a real server
reads series.csv as it reads a scrape.

Gauges (the state after each engine event):
  vllm:num_requests_waiting, vllm:num_requests_running, vllm:kv_cache_usage_perc (the
  fraction of KV blocks in use, 0..1, as vLLM's despite the name).
Counters (cumulative up to each event's time t), from the per-request records:
  vllm:num_preemptions_total     preemptions logged at or before t
  vllm:prompt_tokens_total       prompt tokens of requests whose first token came by t (vLLM
                                 counts a request's prompt once, when its prefill ends)
  vllm:generation_tokens_total   decode tokens of the steps up to t, plus one sampled token
                                 per finished prefill (a first token, or the resume after a
                                 preemption in decode); at the end Σ output tokens
  vllm:prefix_cache_queries_total / vllm:prefix_cache_hits_total   prompt tokens looked up
                                 and found in the cache, per request at its first schedule
  vllm:request_success_total     requests finished by t
The lab's own columns with no vLLM metric (t_s, kv_blocks, tokens_in_step) keep their names;
LAB_NAMES maps the renamed columns back to the names series.csv had before (lab_names()).
"""
from __future__ import annotations

import numpy as np

WAITING, RUNNING, KV_USE = "vllm:num_requests_waiting", "vllm:num_requests_running", "vllm:kv_cache_usage_perc"
PREEMPTIONS, PROMPT, GENERATION = ("vllm:num_preemptions_total", "vllm:prompt_tokens_total",
                                   "vllm:generation_tokens_total")
CACHE_QUERIES, CACHE_HITS, SUCCESS = ("vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
                                      "vllm:request_success_total")
GAUGES = (WAITING, RUNNING, KV_USE)
COUNTERS = (PREEMPTIONS, PROMPT, GENERATION, CACHE_QUERIES, CACHE_HITS, SUCCESS)
COLUMNS = ("t_s", WAITING, RUNNING, KV_USE, "kv_blocks", "tokens_in_step") + COUNTERS
# series.csv's names before they were vLLM's: a reader written for them maps a header back.
LAB_NAMES = {WAITING: "waiting", RUNNING: "running", KV_USE: "kv_fraction"}


def lab_names(columns) -> list[str]:
    """A header with vLLM's names as the lab's own (waiting, running, kv_fraction)."""
    return [LAB_NAMES.get(c, c) for c in columns]


def _count_by(times, t, weights=None) -> np.ndarray:
    """How many of times (or the sum of their weights) are <= each t; NaN times never count."""
    times = np.asarray(times, dtype=float)
    keep = ~np.isnan(times)
    times = times[keep]
    order = np.argsort(times, kind="stable")
    at = np.searchsorted(times[order], t, side="right")
    if weights is None:
        return at.astype(np.int64)
    cum = np.concatenate([[0], np.cumsum(np.asarray(weights, dtype=np.int64)[keep][order])])
    return cum[at]


def counters(result) -> dict[str, np.ndarray]:
    """Each counter at every series time (arrays of len(result.series_t))."""
    t = np.asarray(result.series_t, dtype=float)
    preempt_t0 = np.array([p[1] for p in result.preempt_log], dtype=float)
    # A preemption in decode resumes with a prefill that samples one token (vLLM recomputes
    # the prompt and the tokens so far, then samples the next).
    first_token = np.asarray(result.first_token_s, dtype=float)
    resumes = np.array([p[2] for p in result.preempt_log if p[1] >= first_token[int(p[0])]], dtype=float)
    steps = np.ones_like(result.series_tokens) if result.series_steps is None else result.series_steps
    decode_rows = result.series_decode_rows if result.series_decode_rows is not None else np.zeros_like(steps)
    decoded = np.cumsum(np.asarray(decode_rows, dtype=np.int64) * np.asarray(steps, dtype=np.int64))
    cached = (np.zeros(result.input_tokens.size, dtype=np.int64) if result.cached_tokens is None
              else result.cached_tokens)
    return {PREEMPTIONS: _count_by(preempt_t0, t),
            PROMPT: _count_by(first_token, t, result.input_tokens),
            GENERATION: decoded + _count_by(first_token, t) + _count_by(resumes, t),
            CACHE_QUERIES: _count_by(result.first_schedule_s, t, result.input_tokens),
            CACHE_HITS: _count_by(result.first_schedule_s, t, cached),
            SUCCESS: _count_by(result.finish_s, t)}


def final_counters(result) -> dict[str, int]:
    """The counters after the run (what a scrape after the last request reads)."""
    steps = np.ones_like(result.series_tokens) if result.series_steps is None else result.series_steps
    decode_rows = result.series_decode_rows if result.series_decode_rows is not None else np.zeros_like(steps)
    first_token = np.asarray(result.first_token_s, dtype=float)
    resumes = sum(1 for p in result.preempt_log if p[1] >= first_token[int(p[0])] and not np.isnan(p[2]))
    cached = 0 if result.cached_tokens is None else int(np.sum(result.cached_tokens))
    done = ~np.isnan(np.asarray(result.finish_s, dtype=float))
    scheduled = ~np.isnan(np.asarray(result.first_schedule_s, dtype=float))
    started = ~np.isnan(first_token)
    return {PREEMPTIONS: len(result.preempt_log),
            PROMPT: int(np.sum(result.input_tokens[started])),
            GENERATION: int(np.sum(np.asarray(decode_rows, dtype=np.int64) * steps)) + int(started.sum()) + resumes,
            CACHE_QUERIES: int(np.sum(result.input_tokens[scheduled])), CACHE_HITS: cached,
            SUCCESS: int(done.sum())}


def series_rows(result):
    """series.csv's rows (COLUMNS), formatted as text."""
    c = counters(result)
    cols = [c[name] for name in COUNTERS]
    for i, row in enumerate(zip(result.series_t, result.series_waiting, result.series_running,
                                result.series_kv_fraction, result.series_kv_blocks, result.series_tokens)):
        yield ([f"{row[0]:.6f}", int(row[1]), int(row[2]), f"{row[3]:.6f}", int(row[4]), int(row[5])]
               + [int(col[i]) for col in cols])
