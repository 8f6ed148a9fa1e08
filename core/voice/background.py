"""The background traffic of a voice run and the engine it shares with the turns.

rate=R is Poisson arrivals of the book's 1:1 mix (例题 3-1's two classes), built so that a
higher rate keeps every request of a lower one (same seed): the stream is a superposition
of independent rate-1 layers, the last one thinned by a uniform mark. More load is then
more requests on top, never a different draw, so "more load never shortens the p95" is a
statement about the engine, not about luck. scenario= is the book's run (480 requests,
evenly spaced); trace= a file read as the serving replay reads it.
"""
from __future__ import annotations

import math

import numpy as np

from core.cancel import NEVER, CancelToken
from core.registry import ParamError
from core.serving import replay as rp
from core.serving import traces
from core.serving.mix import LONG_INPUT, LONG_OUTPUT
from core.serving.workload import PrefixBlocks, Sessions, Workload

MAX_BACKGROUND = 2_000_000


def engine_config():
    """The serving replay's engine with the book's defaults (Qwen3-8B on the RTX PRO 6000)."""
    global _CONFIG
    if _CONFIG is None:
        _CONFIG = rp.config_from(rp.REPLAY.resolve())
    return _CONFIG


_CONFIG = None


def background_workload(p, config, cancel: CancelToken = NEVER) -> tuple[Workload, float, str]:
    """(background workload, span of the run in seconds, a label). The span is where the
    turns are spread: duration_s for rate=, the last background arrival otherwise."""
    kind = p.background()
    if kind == "scenario":
        values = rp.REPLAY.resolve(dict(rp.SCENARIOS[p.scenario]["params"]))
        work = rp.workload_from(values)
        return work, float(np.max(work.arrival_s)), f"scenario {p.scenario}"
    if kind == "trace":
        work = traces.load_trace(p.trace, traces.request_token_limit(config), time_scale=p.time_scale, cancel=cancel)
        span = float(np.max(work.arrival_s)) if len(work) else 0.0
        return work, max(span, 1e-3), f"trace {p.trace}"
    return poisson_mix(p.rate, p.duration_s, p.seed), p.duration_s, (f"rate {p.rate:g}/s" if p.rate > 0 else "none")


def poisson_mix(rate: float, duration_s: float, seed: int) -> Workload:
    """Poisson arrivals at `rate` over [0, duration_s), each request long-input or
    long-output with probability 1/2; nested in the rate for a fixed seed."""
    times, classes = [], []
    layers = math.ceil(rate)
    for m in range(layers):
        rng = np.random.default_rng([int(seed), 7919, m])
        n = rng.poisson(duration_s)
        t = rng.uniform(0.0, duration_s, n)
        mark = rng.uniform(0.0, 1.0, n)
        long_in = rng.uniform(0.0, 1.0, n) < 0.5
        keep = mark < min(1.0, rate - m)  # the last layer thinned to the fractional rate
        times.append(t[keep])
        classes.append(long_in[keep])
    t = np.concatenate(times) if times else np.zeros(0)
    if t.size > MAX_BACKGROUND:
        raise ParamError("rate", f"{t.size:,} background requests; valid: rate · duration_s <= {MAX_BACKGROUND:,}")
    long_in = np.concatenate(classes) if classes else np.zeros(0, bool)
    order = np.argsort(t, kind="stable")
    t, long_in = t[order], long_in[order]
    return Workload(arrival_s=t,
                    input_tokens=np.where(long_in, LONG_INPUT.input_tokens, LONG_OUTPUT.input_tokens).astype(np.int64),
                    output_tokens=np.where(long_in, LONG_INPUT.output_tokens, LONG_OUTPUT.output_tokens).astype(np.int64),
                    label="poisson 1:1 mix")


def with_turns(background: Workload, arrival_s: np.ndarray, prompt_tokens: int, reply_tokens: int) -> Workload:
    """The background plus one request per turn (rows len(background) .. end), keeping a
    trace's prefix or session information (a turn shares nothing with the background)."""
    n_bg, n_t = len(background), arrival_s.size
    prefix = sessions = None
    if background.prefix is not None:
        pb = background.prefix
        per = -(-prompt_tokens // pb.block_tokens)
        start = int(pb.ids.max()) + 1 if pb.ids.size else 0
        ids = np.concatenate([pb.ids, start + np.arange(n_t * per, dtype=np.int64)])
        offsets = np.concatenate([pb.offsets, pb.offsets[-1] + per * np.arange(1, n_t + 1, dtype=np.int64)])
        prefix = PrefixBlocks(ids, offsets, pb.block_tokens)
    if background.sessions is not None:
        s = background.sessions
        first = int(s.session.max()) + 1 if n_bg else 0
        sessions = Sessions(
            session=np.concatenate([s.session, first + np.arange(n_t, dtype=np.int64)]),
            turn=np.concatenate([s.turn, np.zeros(n_t, np.int64)]),
            new_input_tokens=np.concatenate([s.new_input_tokens, np.full(n_t, prompt_tokens, np.int64)]),
            shared_prefix_tokens=np.concatenate([s.shared_prefix_tokens, np.zeros(n_t, np.int64)]),
            think_time_s=np.concatenate([s.think_time_s, np.full(n_t, np.nan)]),
            tool_wait_s=np.concatenate([s.tool_wait_s, np.zeros(n_t)]),
            keep_kv_during_tool=np.concatenate([s.keep_kv_during_tool, np.zeros(n_t, bool)]))
    return Workload(
        arrival_s=np.concatenate([background.arrival_s.astype(float), arrival_s]),
        input_tokens=np.concatenate([background.input_tokens.astype(np.int64), np.full(n_t, prompt_tokens, np.int64)]),
        output_tokens=np.concatenate([background.output_tokens.astype(np.int64), np.full(n_t, reply_tokens, np.int64)]),
        label=background.label, prefix=prefix, sessions=sessions)
