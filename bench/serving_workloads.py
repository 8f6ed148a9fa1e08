"""Workloads for bench_serving.py: a synthetic BurstGPT-like stream, multi-turn sessions,
and the public traces in TRACES (Azure LLM inference 2023 code, Mooncake conversation)."""
from __future__ import annotations

import json
import os

import numpy as np

TRACES = os.environ.get("LAB_TRACES", "/work/brief/traces")


def synthetic_trace(n: int, seed: int = 1, rate_per_s: float = 5.0, cv: float = 2.0):
    """A BurstGPT-like stream: bursty Gamma arrivals, log-normal input and output lengths."""
    from core.serving.workload import Workload

    rng = np.random.default_rng(seed)
    shape = 1 / (cv * cv)
    t = np.cumsum(rng.gamma(shape, 1 / (rate_per_s * shape), n))
    p = np.clip(rng.lognormal(6.5, 1.0, n), 1, 30000).astype(np.int64)
    g = np.clip(rng.lognormal(5.3, 1.0, n), 1, 8000).astype(np.int64)
    return Workload(t - t[0], p, g, label="synthetic")


def sessions_workload(sessions: int = 5_000, turns: int = 10, seed: int = 2, rate_per_s: float = 0.25):
    """Multi-turn chat/agent sessions: session starts are Poisson; turn 0 has a fixed
    arrival, every later turn arrives after the previous one finished (plus a tool wait on
    a third of the turns, KV kept on most) and a think time; each prompt is the whole
    history (prompt + output of the previous turn) plus new tokens."""
    from core.serving.workload import Sessions, Workload

    rng = np.random.default_rng(seed)
    n = sessions * turns
    start = np.repeat(np.cumsum(rng.exponential(1 / rate_per_s, sessions)), turns)
    session = np.repeat(np.arange(sessions), turns)
    turn = np.tile(np.arange(turns), sessions)
    new = np.clip(rng.lognormal(5.3, 0.8, n), 8, 4000).astype(np.int64)
    new[turn == 0] += 600  # a system prompt
    out = np.clip(rng.lognormal(4.8, 0.8, n), 1, 2000).astype(np.int64)
    history = (new + out).reshape(sessions, turns)
    shared = np.zeros((sessions, turns), np.int64)
    shared[:, 1:] = np.cumsum(history, axis=1)[:, :-1]
    shared = shared.ravel()
    think = np.where(turn == 0, np.nan, rng.uniform(2.0, 20.0, n))
    tool = np.where(rng.random(n) < 1 / 3, rng.uniform(0.5, 10.0, n), 0.0)
    keep = rng.random(n) < 0.8
    ses = Sessions(session, turn, new, shared, think, tool, keep)
    return Workload(start, shared + new, out, label="sessions", sessions=ses)


def azure_code_workload():
    """The Azure LLM inference 2023 code trace (8,819 rows): core.serving.traces if it
    reads Azure's layout, else a few lines of numpy (TIMESTAMP -> seconds from the first)."""
    path = os.path.join(TRACES, "AzureLLMInferenceTrace_code.csv")
    try:
        from core.serving.traces import load_trace
        return load_trace(path, format="azure"), "core.serving.traces"
    except Exception:  # noqa: BLE001 - the reader may not be in main yet
        from core.serving.workload import Workload
        raw = np.loadtxt(path, delimiter=",", skiprows=1, dtype=str)
        t = raw[:, 0].astype("datetime64[us]")
        seconds = (t - t[0]).astype(np.float64) / 1e6
        return Workload(seconds, raw[:, 1].astype(np.int64), raw[:, 2].astype(np.int64), label="azure code"), "numpy"


def mooncake_workload():
    """Mooncake's conversation trace (12,031 requests with hash_ids): core.serving.traces
    if it reads it, else json lines by hand (timestamps in ms)."""
    path = os.path.join(TRACES, "mooncake_conversation_trace.jsonl")
    try:
        from core.serving.traces import load_trace
        work = load_trace(path, format="mooncake")
        if work.prefix is not None:
            return work
    except Exception:  # noqa: BLE001 - the reader may not be in main yet
        pass
    from core.serving.workload import PrefixBlocks, Workload
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    ids = np.array([h for r in rows for h in r["hash_ids"]], np.int64)
    offsets = np.cumsum([0] + [len(r["hash_ids"]) for r in rows]).astype(np.int64)
    t = np.array([r["timestamp"] for r in rows], float) / 1e3
    return Workload(t - t.min(), np.array([r["input_length"] for r in rows], np.int64),
                    np.array([r["output_length"] for r in rows], np.int64), label="mooncake",
                    prefix=PrefixBlocks(ids, offsets, 512))
