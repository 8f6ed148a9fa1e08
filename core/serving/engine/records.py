"""What the engine takes and gives: its configuration, its records, and the check of
both at the edge (split from engine.py so the event loop reads on its own)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.registry import ParamError
from core.serving import session_arrivals
from core.serving.engine.frontend import FrontEnd
from core.serving.step_cost import StepCost
from core.serving.workload import Workload
from core.units import GiB


@dataclass(frozen=True)
class EngineConfig:
    max_num_seqs: int = 64
    block_size: int = 16
    kv_pool_bytes: float = 24 * GiB
    token_budget: int = 8192
    # Admit a waiting request only if its whole prompt (plus any generated tokens to
    # recompute) fits in the free blocks, not just its first chunk: vLLM's
    # scheduler_reserve_full_isl, on by default in recent releases. Without it, long
    # prompts get in on their first chunk and are preempted mid-prefill far more often.
    reserve_full_prompt: bool = True
    cost: StepCost = field(default_factory=StepCost)
    # Automatic prefix caching (vLLM's default): used only when the workload says what its
    # prompts share (Mooncake hash_ids or sessions); False replays without it.
    prefix_caching: bool = True
    # The client's concurrency limit (vllm bench serve --max-concurrency; 0: none) and the
    # API server in front of the engine (None: the engine alone); engine/client.py.
    max_concurrency: int = 0
    frontend: FrontEnd | None = None
    # Encoder input tokens one step may admit (vLLM's max_num_encoder_input_tokens, whose
    # default is max_num_batched_tokens: pass token_budget for it); None or 0: unlimited.
    # Used only when the workload has encoder work.
    max_num_encoder_input_tokens: int | None = None

    @property
    def block_bytes(self) -> float:
        return self.block_size * self.cost.kv_bytes_per_token

    @property
    def num_blocks(self) -> int:
        return int(self.kv_pool_bytes // self.block_bytes)


@dataclass
class ReplayResult:
    """Per-request records (arrays over requests, in arrival order) and time series."""

    arrival_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    first_schedule_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    preemptions: np.ndarray
    preempt_log: list  # (request, t_preempted, t_rescheduled or nan)
    series_t: np.ndarray
    series_waiting: np.ndarray
    series_running: np.ndarray
    series_kv_blocks: np.ndarray
    series_tokens: np.ndarray  # tokens processed in the step that ended at t (per step, in a skipped run)
    num_blocks: int
    engine_steps: int
    decode_tokens: int
    prefill_tokens: int
    kv_peak_blocks: int
    wall_s: float = 0.0
    events: int = 0  # turns of the event loop (one step taken, or one run of decode steps skipped)
    closed_form_steps: int = 0  # decode steps advanced in closed form, within those runs
    # Prefix caching (zeros / empty when off or without prefix information):
    cached_tokens: np.ndarray | None = None  # per request: prompt tokens served from the cache (vLLM num_cached_tokens)
    series_steps: np.ndarray | None = None  # engine steps in each series entry (a skipped decode run is k steps)
    series_decode_rows: np.ndarray | None = None  # running decodes that got a token in each of those steps
    # With prefix or sessions information: cache_hit_rate (Σ cached / Σ prompt tokens),
    # evicted_blocks; with sessions also hit_rate_by_turn (per turn index) and
    # tool_wait_kv_byte_s (Σ over tool waits of the session's KV still cached × time).
    extras: dict = field(default_factory=dict)
    # Remote KV (workload.remote): when a request's blocks were allocated (its transfer
    # starts) and when its KV landed; NaN for requests without remote KV.
    kv_alloc_s: np.ndarray | None = None
    kv_ready_s: np.ndarray | None = None

    @property
    def ttft_s(self) -> np.ndarray:
        return self.first_token_s - self.arrival_s

    @property
    def request_s(self) -> np.ndarray:
        return self.finish_s - self.arrival_s

    @property
    def first_schedule_wait_s(self) -> np.ndarray:
        return self.first_schedule_s - self.arrival_s

    @property
    def series_kv_fraction(self) -> np.ndarray:
        return self.series_kv_blocks / self.num_blocks


def validate(config: EngineConfig, workload: Workload) -> None:
    """Inputs the engine cannot run with raise ParamError naming the field.

    Called once, at the edge (serving.replay's cross-field check, a loaded trace); the
    engine itself takes its config and workload as they are."""
    if len(workload) == 0:
        raise ParamError("trace", "no requests; valid: at least one request")
    if config.num_blocks < 1:
        raise ParamError("kv_pool_bytes", f"got {config.kv_pool_bytes:,.0f} bytes, less than one block of "
                         f"{config.block_bytes:,.0f}; valid: >= {config.block_bytes:,.0f}")
    # In floats: a sum of two int64 near their limit must not wrap to a small number.
    largest = int(np.max(workload.input_tokens.astype(float) + workload.output_tokens.astype(float)))
    need = -(-largest // config.block_size)
    if need > config.num_blocks:
        smallest_pool = need * config.block_bytes
        raise ParamError("kv_pool_bytes", f"a pool of {config.num_blocks} blocks cannot hold one request of "
                         f"{largest:,} tokens ({need} blocks); valid: >= {smallest_pool:,.0f} bytes")
    if config.max_num_seqs > config.num_blocks:
        raise ParamError("max_num_seqs", f"got {config.max_num_seqs} for a pool of {config.num_blocks} blocks; "
                         f"valid: 1..{config.num_blocks} (each running sequence needs a block)")
    if config.token_budget < config.max_num_seqs:
        raise ParamError("token_budget", f"got {config.token_budget}; valid: >= max_num_seqs ({config.max_num_seqs}), "
                         "so every running decode fits in a step")
    if workload.sessions is not None:
        session_arrivals.check(workload.sessions, workload.input_tokens, workload.output_tokens)
    _check_remote(config, workload)
    _check_encoder(config, workload)
    prefix = workload.prefix
    if prefix is not None and (prefix.offsets.size != len(workload) + 1 or prefix.block_tokens < 1):
        raise ParamError("trace", f"hash_ids offsets for {prefix.offsets.size - 1} requests and "
                         f"{prefix.block_tokens}-token blocks; valid: one run per request, blocks >= 1 token")


def _check_remote(config: EngineConfig, workload: Workload) -> None:
    remote = workload.remote
    if remote is None:
        return
    n = len(workload)
    ready, xfer = np.asarray(remote.ready_tokens), np.asarray(remote.transfer_s)
    if ready.shape != (n,) or xfer.shape != (n,):
        raise ParamError("remote", f"ready_tokens {ready.shape} and transfer_s {xfer.shape}; valid: one per request ({n})")
    if np.any(ready < 0) or np.any(ready > workload.input_tokens):
        raise ParamError("remote", "ready_tokens outside 0..input_tokens; valid: prompt tokens whose KV arrives")
    if not np.all(np.isfinite(xfer)) or np.any(xfer < 0):
        raise ParamError("remote", "transfer_s negative or not finite; valid: >= 0 seconds")
    whole = (ready == workload.input_tokens) & (ready > 0)
    if np.any(whole & (workload.output_tokens < 2)):
        raise ParamError("remote", "a whole prompt's KV arrives with output_tokens < 2: its only token was "
                         "sampled where it was prefilled; valid: output_tokens >= 2 (decode the rest here)")
    if config.frontend is not None:
        raise ParamError("frontend", "remote KV behind a front end is not modelled; valid: frontend=None")


def _check_encoder(config: EngineConfig, workload: Workload) -> None:
    enc = workload.encoder
    if enc is not None:
        n = len(workload)
        sec, tok = np.asarray(enc.seconds), np.asarray(enc.tokens)
        if sec.shape != (n,) or tok.shape != (n,):
            raise ParamError("encoder", f"seconds {sec.shape} and tokens {tok.shape}; valid: one per request ({n})")
        if not np.all(np.isfinite(sec)) or np.any(sec < 0) or np.any(tok < 0):
            raise ParamError("encoder", "seconds or tokens negative (or seconds not finite); valid: >= 0")
    budget = config.max_num_encoder_input_tokens
    if budget is not None and budget < 0:
        raise ParamError("max_num_encoder_input_tokens", f"got {budget}; valid: >= 0 (0 or None: unlimited)")
