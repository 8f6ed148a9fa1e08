"""`lab simulate serving`'s keys for the workloads of `vllm bench serve`
(core/serving/workloads_bench.py), its client's concurrency limit and the API server in
front of the engine (core/serving/engine/client.py, frontend.py); simulate_keys.py lists
them with the rest and checks them once, here.

    dataset=random random_input_len=1024 random_output_len=128 random_range_ratio=0.1
    num_prompts=1000 request_rate=inf burstiness=1 max_concurrency=64 seed=0

dataset= replaces the book's windows (its arrival keys then do not apply); the dataset's
seed is serving.replay's seed=. A key of the dataset's without dataset= (or trace=) means
dataset=random, vllm bench serve's default (implied). max_concurrency= applies to any workload without
sessions on one engine. frontend= is on by default only where a deployment is given
(model=, hardware= or a deployment key) and priced by the basis step model: the book's
replay, and step_model=roofline, are the engine alone.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import os

import numpy as np

from core.registry import Param, ParamError
from core.serving import workloads_bench as wb
from core.serving.engine.frontend import (
    ENDPOINT_LATENCY_S,
    ENDPOINT_REQUEST_S,
    INPUT_TOKEN_S,
    OUTPUT_TOKEN_S,
    REQUEST_S,
    ROUNDS,
    FrontEnd,
)
from core.serving.engine.frontend import SOURCE as FRONTEND_SOURCE

MAX_PROMPTS = 1_000_000
INF_KEYS = ("request_rate", "burstiness")  # take inf besides numbers
DATASET_KEYS = ("num_prompts", "random_input_len", "random_output_len", "random_range_ratio", "random_prefix_len",
                "request_rate", "burstiness", "lengths")
FRONTEND_KEYS = ("frontend_request_ms", "frontend_input_token_us", "frontend_output_token_us", "frontend_rounds",
                 "frontend_latency_ms")
LENGTHS_HELP = "a trace whose (input, output) lengths dataset=trace_lengths resamples (any format lab reads)"
PARAMS = (
    Param("dataset", "", None, "a vllm bench serve workload instead of the book's windows: random (its "
          "--dataset-name random rule), fixed (exact lengths), sharegpt_like (a stated lognormal), trace_lengths "
          "(resampled from lengths=FILE)", kind="choice", choices=wb.DATASETS),
    Param("num_prompts", "requests", 1000, "requests sent (vllm bench --num-prompts)", 1, MAX_PROMPTS, kind="int"),
    Param("random_input_len", "tokens", 1024, "mean prompt length (--random-input-len)", 0, 10_000_000, kind="int"),
    Param("random_output_len", "tokens", 128, "mean output length (--random-output-len)", 1, 10_000_000, kind="int"),
    Param("random_range_ratio", "ratio", 0.0, "lengths uniform in [floor(L·(1-r)), ceil(L·(1+r))] "
          "(--random-range-ratio; 0: fixed)", 0, 1, kind="float"),
    Param("random_prefix_len", "tokens", 0, "a shared prefix before every prompt (--random-prefix-len)", 0,
          10_000_000, kind="int"),
    Param("request_rate", "1/s", math.inf, "send rate (--request-rate; inf: every request at t = 0)", 0, 1e9,
          min_exclusive=True),
    Param("burstiness", "", 1.0, "Gamma shape of the gaps (--burstiness; 1: Poisson, < 1 burstier, inf: even)",
          0, 1e6, min_exclusive=True),
    Param("max_concurrency", "requests", None, "the client's limit on requests in flight (--max-concurrency: a "
          "request is sent when one of them finishes)", 1, MAX_PROMPTS, kind="int"),
    Param("frontend", "", None, "the API server before the engine (tokenization, scheduling, detokenizing and "
          "streaming each token); default on with a deployment (model=, hardware=) priced by the basis step "
          "model, off otherwise (and with step_model=roofline)",
          kind="choice", choices=("on", "off")),
    Param("endpoint", "", None, "the API the client calls (lab observe's --endpoint): /v1/completions (vllm "
          "bench serve's default backend) or /v1/chat/completions (its openai-chat backend: a dearer request in "
          "the front end)", kind="choice", choices=tuple(ENDPOINT_REQUEST_S)),
    Param("frontend_request_ms", "ms", REQUEST_S * 1e3, "front-end CPU time per request (default by endpoint=: "
          + ", ".join(f"{k} {v * 1e3:g} ms" for k, v in ENDPOINT_REQUEST_S.items()) + "; " + FRONTEND_SOURCE + ")",
          0, 1e4),
    Param("frontend_rounds", "slices", ROUNDS, "a request's front-end work in this many slices, served in turn "
          "with the other requests' and the output's on one CPU (the API server's event loop; 1: first come, "
          "first served)", 1, 64, kind="int"),
    Param("frontend_input_token_us", "us", INPUT_TOKEN_S * 1e6, "front-end CPU time per prompt token (tokenizing)",
          0, 1e4),
    Param("frontend_output_token_us", "us", OUTPUT_TOKEN_S * 1e6, "front-end CPU time per output token "
          "(detokenizing, streaming)", 0, 1e6),
    Param("frontend_latency_ms", "ms", 0.0, "front-end latency per request that holds no CPU: the client sees "
          "every token of a request this much later (default by endpoint=: "
          + ", ".join(f"{k} {v * 1e3:g} ms" for k, v in ENDPOINT_LATENCY_S.items()) + ")", 0, 1e4),
)


def param(name: str) -> Param:
    return next(p for p in PARAMS if p.name == name)


def parse(name: str, text) -> object:
    """A key's value: request_rate and burstiness take inf too."""
    if name not in INF_KEYS:
        return param(name).parse(text)
    if str(text).strip().lower() in ("inf", "infinity"):
        return math.inf
    try:
        return param(name).parse(text)
    except ParamError as err:
        raise ParamError(name, f"{err.message}, or inf") from None


def implied(got: dict) -> dict:
    """got with dataset=random where one of its keys (num_prompts=, request_rate=, ...) is
    given without dataset= or trace=: `vllm bench serve`'s --dataset-name default, as
    `lab observe` sends it, so `--num-prompts 50 --request-rate 4` means what it does there."""
    if "dataset" in got or "trace" in got or not any(k in got for k in DATASET_KEYS if k != "lengths"):
        return got
    return dict(got, dataset="random")


def check(got: dict) -> None:
    """Keys that do not go together, refused naming one of them."""
    if "dataset" in got and "trace" in got:
        raise ParamError("dataset", "a trace is a workload already; valid: dataset= or trace=, not both")
    if "dataset" not in got:
        for name in DATASET_KEYS:
            if name in got:
                raise ParamError(name, "applies to a vllm bench workload, not to a trace; valid: without trace= "
                                 "(dataset=trace_lengths lengths=FILE resamples a trace's lengths)" if "trace" in got
                                 else "applies to a vllm bench workload; valid: with dataset=trace_lengths"
                                 if name == "lengths" else "applies to a vllm bench workload; valid: with dataset=")
    if got.get("dataset") == "trace_lengths" and "lengths" not in got:
        raise ParamError("lengths", "dataset=trace_lengths resamples a trace's lengths; valid: lengths=FILE")
    if "lengths" in got and got.get("dataset") != "trace_lengths":
        raise ParamError("lengths", "valid: with dataset=trace_lengths")
    if got.get("frontend") == "off":
        for name in FRONTEND_KEYS:
            if name in got:
                raise ParamError(name, "the front end is off; valid: without frontend=off")


def workload(got: dict, seed: int):
    """The vllm bench workload the keys describe (dataset= given)."""
    lengths = trace_lengths(got["lengths"]) if got["dataset"] == "trace_lengths" else None
    value = {p.name: got.get(p.name, p.default) for p in PARAMS}
    work = wb.bench_workload(got["dataset"], num_prompts=value["num_prompts"], request_rate=value["request_rate"],
                             burstiness=value["burstiness"], seed=seed, input_len=value["random_input_len"],
                             output_len=value["random_output_len"], range_ratio=value["random_range_ratio"],
                             prefix_len=value["random_prefix_len"], trace_lengths=lengths)
    if "endpoint" not in got:
        return work
    # How the client sent and timed the requests: vllm_metrics counts the chat endpoint's ITL its way.
    return dataclasses.replace(work, meta=dict(work.meta, endpoint=got["endpoint"]))


def frontend(got: dict, default_on: bool) -> FrontEnd | None:
    on = got.get("frontend", "on" if default_on else "off") == "on"
    if not on:
        return None
    v = {name: got.get(name, param(name).default) for name in FRONTEND_KEYS}
    endpoint = got.get("endpoint", "/v1/completions")
    request_ms = got.get("frontend_request_ms", ENDPOINT_REQUEST_S[endpoint] * 1e3)
    latency_ms = got.get("frontend_latency_ms", ENDPOINT_LATENCY_S[endpoint] * 1e3)
    return FrontEnd(request_s=request_ms * 1e-3, input_token_s=v["frontend_input_token_us"] * 1e-6,
                    output_token_s=v["frontend_output_token_us"] * 1e-6, rounds=int(v["frontend_rounds"]),
                    latency_s=latency_ms * 1e-3)


def active(got: dict, default_on: bool) -> bool:
    """A client's limit or a front end is asked for (else the engine alone, as today)."""
    return bool(got.get("max_concurrency")) or frontend(got, default_on) is not None


def with_trace_limit(got: dict, work, replicas: int) -> dict:
    """A vllm bench serve result's own --max-concurrency (kept in its meta) is how it was
    sent: replayed as the client's limit unless max_concurrency= is given (one engine)."""
    limit = dict(getattr(work, "meta", None) or {}).get("max_concurrency")
    if "max_concurrency" in got or replicas > 1 or isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        return got
    return dict(got, max_concurrency=limit)


def with_client(config, got: dict, default_on: bool, replicas: int, sessions: bool):
    """config with the client's limit and the front end the keys give."""
    limit = int(got.get("max_concurrency") or 0)
    if limit and replicas > 1:
        raise ParamError("max_concurrency", "one client's limit across replicas is not modelled; valid: replicas=1")
    if limit and sessions:
        raise ParamError("max_concurrency", "a sessions trace sends its turns itself; valid: a workload without "
                         "sessions")
    fe = frontend(got, default_on)
    if not limit and fe is None:
        return config
    return dataclasses.replace(config, max_concurrency=limit, frontend=fe)


def report(config, work, result) -> dict:
    """The report's client and front-end block: with a front end, the CPU time it spent
    (every request's ingestion and every output token) and its share of the run's span, 1
    where it is the bottleneck."""
    meta = dict(getattr(work, "meta", None) or {})
    block: dict = {"max_concurrency": int(config.max_concurrency) or None,
                   "arrivals": "client send times (TTFT is measured from them, as vllm bench does)"}
    if meta.get("format") == "vllm_bench_synthetic":
        rate = meta.get("request_rate")
        block["workload"] = {"dataset": meta.get("dataset"), "request_rate": "inf" if rate == math.inf else rate,
                             "burstiness": "inf" if meta.get("burstiness") == math.inf else meta.get("burstiness"),
                             "seed": meta.get("seed"), "rules": meta.get("source")}
    fe = config.frontend
    block["frontend"] = fe.report() if fe is not None else "off (the engine alone)"
    if fe is not None:
        done = np.isfinite(result.finish_s)
        busy = float(done.sum() * fe.request_s + fe.input_token_s * np.sum(result.input_tokens[done])
                     + fe.output_token_s * np.sum(result.output_tokens[done]))
        span = float(np.max(result.finish_s[done]) - np.min(result.arrival_s[done])) if done.any() else 0.0
        block["frontend"]["busy_s"] = busy
        block["frontend"]["busy_share_of_span"] = busy / span if span > 0 else 0.0
    return block


def trace_lengths(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(input, output) lengths of a trace, read once per version of the file: every seed of
    a band and every point of a sweep resamples the same lengths."""
    info = os.stat(path) if os.path.exists(path) else None
    stamp = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) if info is not None else ()
    return _trace_lengths(path, stamp)


@functools.lru_cache(maxsize=8)
def _trace_lengths(path: str, stamp: tuple) -> tuple[np.ndarray, np.ndarray]:
    from core.serving import traces  # reads files: only when asked

    t = traces.load_trace(path)
    t.input_tokens.flags.writeable = False  # shared by every caller of the cache
    t.output_tokens.flags.writeable = False
    return t.input_tokens, t.output_tokens
