"""A P/D (xPyD) run: prefill pool, KV transfer, decode pool.

    result = replay_disagg(workload, DisaggConfig(prefill=cfg_p, decode=cfg_d, ...))

1. The prefill pool sees every request with one output token (its prompt's prefill and
   the first sampled token; its own queue, token budget, KV pool and prefix cache),
   behind prefill_router. A request's prefill is done when that token is sampled: its
   TTFT is the prefill pool's, and it leaves the prefill instance then; its blocks there
   stay held until its KV has landed on the decode side (kv_ready_s: vLLM's connectors
   delay the free until the decode instance has read them), so a slow link or a full
   decode pool leaves the prefill pool fewer blocks (Engine.hold).
2. At that moment decode_router picks a decode instance (it sees the decode engines as
   they are then) and the request arrives there with remote KV (core.serving.workload's
   RemoteKV, E15's engine seam): it waits in that instance's queue for the blocks of its
   whole prompt, holds them through the transfer (links.transfer_s), then decodes tokens
   2..G. A request with one output token never reaches the decode pool.
Each pool is co-simulated in time order (every engine advanced to each arrival, as
core/serving/replicas.py). What flows back from decode to prefill is only when each
prefill's blocks come back: the pools run in passes, the prefill pool holding each
request's blocks until its landing of the pass before (the first pass: no hold), the
decode pool fed by that prefill schedule, until a prefill pass repeats the one before
bit for bit. That schedule is then consistent both ways: the one of running both pools
together. Where the holds never bind, the second pass is the first (two prefill runs, one
decode run). extras["kv_hold_passes"]: the prefill passes run; extras["kv_hold_converged"]
is False if MAX_PASSES ran out: the holds are then the landings of the pass before, and
extras["kv_hold_exact_until_s"] says up to when the prefill schedule is that of the two
pools together (the first finish where the last two passes differ; only when not converged).
Sessions (a turn waits for its predecessor's finish, on the decode side) are refused.

What waited where, per request (result.extras["request_columns"] and kv_alloc_s /
kv_ready_s, workload order):
prefill queue = first_schedule − arrival; decode queue for blocks = kv_alloc − prefill
done; transfer = kv_ready − kv_alloc; decode seat after landing = decode start − kv_ready.
No Qt here.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from core.cancel import NEVER, CancelToken
from core.registry import ParamError
from core.serving.disagg import links
from core.serving.disagg.merge import merged_result
from core.serving.disagg.pool import PoolRun, run_pool
from core.serving.disagg.routers import decode_router
from core.serving.engine import EngineConfig, ReplayResult
from core.serving.replicas import check_routed_work
from core.serving.routers import make_router
from core.serving.workload import RemoteKV, Workload

IDEAL = links.KvLinkSpec("inf", float("inf"), 0.0, "an ideal link (no transfer time)")
# Prefill passes at most (each pass holds the blocks until the landings of the one before).
# A pass is exact up to the first time it differs from the one before; where the holds bind
# hard (a full decode pool) that time moves on slowly, so the passes stop here (see below).
MAX_PASSES = 8


@dataclass(frozen=True)
class DisaggConfig:
    prefill: EngineConfig
    decode: EngineConfig
    prefill_replicas: int = 1
    decode_replicas: int = 1
    link: links.KvLinkSpec = IDEAL
    kv_transfer: str = "whole"
    prefill_router: str = "round_robin"
    decode_router: str = "least_kv"
    # KV bytes per prompt token of the whole decode instance (all its cards) and of its most
    # loaded card (what one link carries); None: the decode engine's kv_bytes_per_token (one card).
    kv_bytes_per_token: float | None = None
    kv_bytes_per_token_per_card: float | None = None
    layers: int = 1  # the model's layers (kv_transfer=layerwise)
    labels: dict = field(default_factory=dict, compare=False)

    @property
    def bytes_per_token(self) -> float:
        return float(self.kv_bytes_per_token if self.kv_bytes_per_token is not None
                     else self.decode.cost.kv_bytes_per_token)

    @property
    def bytes_per_token_per_card(self) -> float:
        return float(self.kv_bytes_per_token_per_card if self.kv_bytes_per_token_per_card is not None
                     else self.bytes_per_token)


@dataclass
class DisaggRun:
    result: ReplayResult  # merged, workload order
    prefill: PoolRun  # over the prefill workload (workload order)
    decode: PoolRun | None  # over the decode workload (decode order: request k is workload row rows[k])
    rows: np.ndarray  # workload rows of the decode workload, in its order
    transfer_s: np.ndarray  # per workload row (NaN: not decoded)
    transfer_bytes: np.ndarray  # per workload row (0: not decoded)


def prefill_workload(workload: Workload) -> Workload:
    return dataclasses.replace(workload, output_tokens=np.ones(len(workload), np.int64))


def replay_disagg(workload: Workload, cfg: DisaggConfig, cancel: CancelToken = NEVER, fast: bool = True) -> DisaggRun:
    if workload.sessions is not None:
        raise ParamError("trace", "a sessions trace sends a turn after its predecessor's decode finished, across "
                                  "the pools; valid: a trace without sessions for prefill/decode pools")
    wall = time.perf_counter()
    n = len(workload)
    G = np.asarray(workload.output_tokens, np.int64)
    _check_pool("prefill", cfg.prefill_replicas, cfg.prefill_router, n)  # both pools' before either runs
    _check_pool("decode", cfg.decode_replicas, cfg.decode_router, int(np.sum(G >= 2)))
    pre_work = prefill_workload(workload)
    hold, last = None, None
    converged = False
    passes, exact_until = 0, np.inf
    while passes < MAX_PASSES:
        passes += 1
        pre = run_pool(pre_work, cfg.prefill, cfg.prefill_replicas,
                       make_router(cfg.prefill_router, cfg.prefill_replicas), cancel, fast, hold)
        if last is not None:
            exact_until = _first_difference(pre.merged, last.merged)
            if exact_until == np.inf:
                converged = True  # the decode pass of `last` is this one's
                break
        rows, xfer, bytes_, dec = _decode_pass(workload, cfg, pre.merged, cancel, fast)
        hold = np.full(n, np.nan)  # each prefill's blocks until its KV landed on the decode side
        if dec is not None:
            hold[rows] = dec.merged.kv_ready_s
        last = pre
    p_res = pre.merged
    done_prefill = p_res.finish_s
    result = merged_result(workload, p_res, dec.merged if dec is not None else None, rows)
    decoded = np.zeros(n, bool)
    decoded[rows] = True
    transfer = np.where(decoded, xfer, np.nan)
    moved = np.where(decoded, bytes_, 0.0)
    result.extras = _extras(pre, dec, rows, n, done_prefill, transfer, moved)
    result.extras["kv_hold_passes"], result.extras["kv_hold_converged"] = passes, converged
    if not converged:  # (absent when converged: an inf would not be plain JSON)
        result.extras["kv_hold_exact_until_s"] = float(exact_until)
    result.wall_s = time.perf_counter() - wall
    return DisaggRun(result, pre, dec, rows, transfer, moved)


def _first_difference(a: ReplayResult, b: ReplayResult) -> float:
    """The earliest finish of a request whose prefill schedule differs between the two
    passes (what the decode pool reads of it); inf: they feed the decode pool alike."""
    differs = np.zeros(a.finish_s.size, bool)
    for name in ("first_schedule_s", "first_token_s", "finish_s"):
        x, y = getattr(a, name), getattr(b, name)
        differs |= ~((x == y) | (np.isnan(x) & np.isnan(y)))
    if not differs.any():
        return np.inf
    return float(np.nanmin(np.fmin(a.finish_s[differs], b.finish_s[differs])))


def _decode_pass(workload: Workload, cfg: DisaggConfig, p_res: ReplayResult, cancel: CancelToken, fast: bool):
    """The decode pool fed by this prefill schedule: (decode rows, transfer seconds and bytes
    per workload row, the decode PoolRun or None)."""
    G = np.asarray(workload.output_tokens, np.int64)
    done_prefill = p_res.finish_s  # the first token sampled: the request leaves the prefill instance
    P = np.asarray(workload.input_tokens, np.int64)
    computing = p_res.first_token_s - p_res.first_schedule_s
    if workload.encoder is not None:  # the encoder's seconds in the first step make no KV: nothing to overlap
        computing = np.maximum(computing - np.asarray(workload.encoder.seconds, float), 0.0)
    xfer = links.transfer_s(P, cfg.bytes_per_token_per_card, cfg.link, cfg.kv_transfer, cfg.layers, computing)
    bytes_ = links.transfer_bytes(P, cfg.bytes_per_token)
    rows = np.flatnonzero(G >= 2)
    rows = rows[np.argsort(done_prefill[rows], kind="stable")]
    dec = None
    if rows.size:
        work = Workload(arrival_s=done_prefill[rows].copy(), input_tokens=P[rows].copy(), output_tokens=G[rows].copy(),
                        label=workload.label, meta=workload.meta,
                        remote=RemoteKV(ready_tokens=P[rows].copy(), transfer_s=xfer[rows].copy()))
        order = np.argsort(work.arrival_s, kind="stable")  # the engines' ids are arrival order (it is already)
        router = decode_router(cfg.decode_router, cfg.decode_replicas, work.input_tokens[order], cfg.decode.block_size)
        dec = run_pool(work, cfg.decode, cfg.decode_replicas, router, cancel, fast)
    return rows, xfer, bytes_, dec


def _check_pool(pool: str, n: int, router: str, requests: int) -> None:
    """replicas' bound on a co-simulation, naming this pool's keys."""
    try:
        check_routed_work(n, router, requests)
    except ParamError as err:
        raise ParamError(f"{pool}_replicas", err.message.replace("router=", f"{pool}_router=")) from None


def _extras(pre: PoolRun, dec: PoolRun | None, rows: np.ndarray, n: int, done_prefill: np.ndarray,
            transfer: np.ndarray, moved: np.ndarray) -> dict:
    p_extras = dict(pre.merged.extras or {})
    extras = {k: v for k, v in p_extras.items() if k in ("cache_hit_rate", "evicted_blocks")}
    decode_instance = np.full(n, -1, np.int64)
    decode_start = np.full(n, np.nan)
    if dec is not None:
        decode_instance[rows] = dec.engine_of
        decode_start[rows] = dec.merged.first_schedule_s
    # Every engine of both pools as replicas.merge lists a pool's replicas (replicas.csv, the
    # timeline's processes): the prefill instances first, then the decode instances;
    # replica_of is the prefill instance (where a request's track starts).
    engines = [_engine_summary(i, i, r, pre.engine_of) for i, r in enumerate(pre.results)]
    if dec is not None:
        engines += [_engine_summary(len(engines) + i, i, r, dec.engine_of) for i, r in enumerate(dec.results)]
    extras["replicas"] = engines
    extras["pool_names"] = ["prefill"] * len(pre.results) + ["decode"] * (len(dec.results) if dec is not None else 0)
    extras["replica_of"] = pre.engine_of.copy()
    # requests.csv's transfer columns (lab simulate --out), workload order
    extras["request_columns"] = {"prefill_instance": pre.engine_of.copy(), "decode_instance": decode_instance,
                                 "prefill_done_s": done_prefill.copy(), "kv_transfer_bytes": moved,
                                 "kv_transfer_s": transfer, "decode_start_s": decode_start}
    return extras


SERIES = ("series_t", "series_waiting", "series_running", "series_kv_blocks", "series_tokens", "series_steps",
          "series_decode_rows")


def _engine_summary(index: int, local: int, r: ReplayResult | None, engine_of: np.ndarray) -> dict:
    """One engine's figures and series under replicas' keys: index among all engines of the
    run, local within its pool (engine_of's numbering); an engine that got nothing: zeros."""
    out: dict = {"replica": index}
    if r is None:
        one = np.zeros(1, np.int64)
        out.update(requests=0, engine_steps=0, preemptions=0, kv_peak_blocks=0, num_blocks=0,
                   **{name: (np.zeros(1) if name == "series_t" else one) for name in SERIES})
        return out
    mine = engine_of == local
    out.update(requests=int(mine.sum()), engine_steps=int(r.engine_steps), preemptions=int(r.preemptions[mine].sum()),
               kv_peak_blocks=int(r.kv_peak_blocks), num_blocks=int(r.num_blocks),
               **{name: getattr(r, name) for name in SERIES})
    return out
