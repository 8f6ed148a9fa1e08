"""Workloads as `vllm bench serve` writes them, pure numpy: its random dataset's lengths,
its send schedule (request_rate, burstiness), fixed lengths, lengths resampled from a
trace or drawn from a named distribution. The engine takes the result as a Workload; a
concurrency limit (max_concurrency, the client's semaphore) is the engine's own
(core/serving/engine/client.py), since a send then waits for a finish.

The rules, from vLLM's source (vllm-project/vllm at 0056b87, vllm/benchmarks/datasets.py
RandomDataset.get_sampling_params, and vllm/benchmarks/serve.py get_request with the
burstiness=inf case of vLLM #26940, in vLLM >= 0.11.1):

lengths  rng = numpy.random.default_rng(seed); real = max(0, input_len - num_special)
         (the tokenizer's special tokens; 0 here unless given); input drawn uniformly in
         [floor(real·(1-r)), ceil(real·(1+r))], then output in
         [max(1, floor(output_len·(1-r))), max(1, ceil(output_len·(1+r)))], each with
         rng.integers(low, high + 1, size=num_prompts), inputs first; 0 <= r < 1. The
         prompt is prefix_len + the drawn input (one shared random prefix; vLLM draws its
         tokens after the lengths, so the lengths do not depend on it). vLLM re-encodes the
         prompt, which can move a length by a token or two: not modelled.
sends    numpy's global generator seeded with seed (vllm bench seeds it with --seed);
         request_rate inf: every delay 0 (all sent at t = 0); burstiness inf: every gap
         1/rate; else gap_i = gamma(shape=burstiness, scale=1/(rate·burstiness)) drawn in
         request order (mean 1/rate, CV 1/sqrt(burstiness); 1 is Poisson). The delays are
         the running sums of the gaps (the first request waits its own gap), rescaled so
         the last is exactly num_prompts / rate.
"""
from __future__ import annotations

import math

import numpy as np

from core.registry import ParamError
from core.serving.workload import Workload

VLLM_SOURCE = ("vllm-project/vllm 0056b87: vllm/benchmarks/datasets.py RandomDataset.get_sampling_params; "
               "vllm/benchmarks/serve.py get_request (burstiness=inf: vLLM #26940)")
DATASETS = ("random", "fixed", "sharegpt_like", "trace_lengths")
# The ShareGPT-like lognormal: means matched to vLLM PR #12287's run of 6,000 ShareGPT V3
# prompts (1,350,511 input and 1,211,959 output tokens: 225.1 and 202.0 per request,
# Llama-3.2 tokenizer); the spread SIGMA is assumed, not measured (lengths from a trace
# give the real one). Draws outside vLLM's ShareGPT filter (prompt and output >= 4
# tokens, prompt <= 1024, prompt + output <= 2048) are drawn again, as vLLM skips them.
SHAREGPT_MEAN_INPUT = 1_350_511 / 6000
SHAREGPT_MEAN_OUTPUT = 1_211_959 / 6000
SHAREGPT_SIGMA = 1.0
SHAREGPT_SOURCE = ("lognormal, means of vLLM PR #12287's ShareGPT V3 run (225.1 input, 202.0 output tokens), "
                   f"sigma {SHAREGPT_SIGMA:g} assumed; vLLM's ShareGPT filter (>= 4, prompt <= 1024, total <= 2048)")


def random_lengths(num_prompts: int, input_len: int, output_len: int, range_ratio: float = 0.0,
                   prefix_len: int = 0, seed: int = 0, num_special_tokens: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(input tokens, output tokens) of vllm bench's random dataset (the module's rule)."""
    if not 0.0 <= range_ratio < 1.0:
        raise ParamError("random_range_ratio", f"got {range_ratio!r}; valid: 0 <= r < 1 (vLLM's rule)")
    real = max(0, int(input_len) - int(num_special_tokens))
    in_lo, in_hi = math.floor(real * (1 - range_ratio)), math.ceil(real * (1 + range_ratio))
    out_lo = max(math.floor(output_len * (1 - range_ratio)), 1)
    out_hi = max(math.ceil(output_len * (1 + range_ratio)), 1)
    if prefix_len + in_lo < 1:
        raise ParamError("random_input_len", f"prefix {prefix_len} + at least {in_lo} drawn tokens is under one "
                         "token; valid: random_prefix_len + floor(random_input_len·(1 - r)) >= 1")
    rng = np.random.default_rng(seed)
    inputs = rng.integers(in_lo, in_hi + 1, size=num_prompts)
    outputs = rng.integers(out_lo, out_hi + 1, size=num_prompts)
    return (inputs + int(prefix_len)).astype(np.int64), outputs.astype(np.int64)


def send_times(num_prompts: int, request_rate: float, burstiness: float = 1.0, seed: int = 0) -> np.ndarray:
    """When vllm bench sends each request (s from the start): get_request's schedule."""
    n = int(num_prompts)
    if math.isinf(request_rate):
        return np.zeros(n)
    if not request_rate > 0 or not burstiness > 0:
        raise ParamError("request_rate", f"rate {request_rate!r}, burstiness {burstiness!r}; valid: both > 0 or inf")
    if math.isinf(burstiness):
        gaps = np.full(n, 1.0 / request_rate)
    else:
        theta = 1.0 / (request_rate * burstiness)
        gaps = np.random.RandomState(seed).gamma(shape=burstiness, scale=theta, size=n)
    delays = np.cumsum(gaps)  # sequential running sums, as vLLM's loop adds them
    if delays[-1] != 0:
        delays = delays * ((n / request_rate) / delays[-1])
    return delays


def sharegpt_like_lengths(num_prompts: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Lengths from the ShareGPT-like lognormal (SHAREGPT_SOURCE), redrawn outside the filter."""
    rng = np.random.default_rng(seed)
    mu_in = math.log(SHAREGPT_MEAN_INPUT) - SHAREGPT_SIGMA ** 2 / 2
    mu_out = math.log(SHAREGPT_MEAN_OUTPUT) - SHAREGPT_SIGMA ** 2 / 2
    got_in, got_out, have = [], [], 0
    while have < num_prompts:
        m = 2 * (num_prompts - have) + 16
        p = np.rint(rng.lognormal(mu_in, SHAREGPT_SIGMA, m)).astype(np.int64)
        g = np.rint(rng.lognormal(mu_out, SHAREGPT_SIGMA, m)).astype(np.int64)
        ok = (p >= 4) & (g >= 4) & (p <= 1024) & (p + g <= 2048)
        got_in.append(p[ok])
        got_out.append(g[ok])
        have += int(ok.sum())
    return np.concatenate(got_in)[:num_prompts], np.concatenate(got_out)[:num_prompts]


def resampled_lengths(input_tokens: np.ndarray, output_tokens: np.ndarray, num_prompts: int,
                      seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """num_prompts (input, output) pairs drawn with replacement from a trace's requests
    (pairs kept together: a trace's long prompts keep their own outputs)."""
    if len(input_tokens) == 0:
        raise ParamError("lengths", "the trace has no requests; valid: a trace with at least one")
    at = np.random.default_rng(seed).integers(0, len(input_tokens), size=num_prompts)
    return np.asarray(input_tokens, np.int64)[at], np.asarray(output_tokens, np.int64)[at]


def bench_workload(dataset: str = "random", num_prompts: int = 1000, request_rate: float = math.inf,
                   burstiness: float = 1.0, seed: int = 0, input_len: int = 1024, output_len: int = 128,
                   range_ratio: float = 0.0, prefix_len: int = 0, trace_lengths=None) -> Workload:
    """The requests vllm bench serve would send (vllm's defaults: random, 1000 prompts,
    1024 in, 128 out, rate inf). dataset: random (the rule above), fixed (input_len and
    output_len exactly, plus prefix_len), sharegpt_like (the named lognormal) or
    trace_lengths ((input, output) arrays to resample)."""
    n = int(num_prompts)
    if n < 1:
        raise ParamError("num_prompts", f"got {num_prompts!r}; valid: >= 1")
    if dataset == "random":
        p, g = random_lengths(n, input_len, output_len, range_ratio, prefix_len, seed)
    elif dataset == "fixed":
        p = np.full(n, int(input_len) + int(prefix_len), np.int64)
        g = np.full(n, max(int(output_len), 1), np.int64)
    elif dataset == "sharegpt_like":
        p, g = sharegpt_like_lengths(n, seed)
    elif dataset == "trace_lengths":
        if trace_lengths is None:
            raise ParamError("lengths", "dataset=trace_lengths needs a trace; valid: lengths=FILE")
        p, g = resampled_lengths(trace_lengths[0], trace_lengths[1], n, seed)
    else:
        raise ParamError("dataset", f"got {dataset!r}; valid: {', '.join(DATASETS)}")
    t = send_times(n, request_rate, burstiness, seed)
    rate = "inf" if math.isinf(request_rate) else f"{request_rate:g}/s"
    return Workload(arrival_s=t, input_tokens=p, output_tokens=np.maximum(g, 1), label=f"vllm bench {dataset} @ {rate}",
                    meta={"format": "vllm_bench_synthetic", "dataset": dataset, "request_rate": request_rate,
                          "burstiness": burstiness, "seed": seed, "source": VLLM_SOURCE})
