"""A request-level, discrete-event model of a vLLM-V1-style continuous-batching engine.

What it models (vLLM V1's scheduler with the default FCFS policy):
- a waiting queue in arrival order and at most `max_num_seqs` running requests;
- KV in blocks of `block_size` tokens from a fixed pool; a request holds
  ceil(tokens with KV / block_size) blocks and allocation is exact (no watermark);
- a waiting request is admitted only when the blocks for its whole prompt are free
  (reserve_full_prompt, vLLM's scheduler_reserve_full_isl; it can be switched off);
- each step first serves the running requests in admission order (a decode takes one
  token of the budget, a request still in prefill takes what is left of its prompt up to
  the budget: chunked prefill), then, if nothing was preempted in this step, admits
  waiting requests while budget, seats and blocks last (the head blocks the queue);
- when a running request cannot get a block, the most recently admitted request is
  preempted by recompute: its blocks are freed, it returns to the head of the queue and
  later re-prefills its prompt plus the tokens it had generated;
- a prefill that completes samples the request's next token; a request with G output
  tokens is done after its G-th token;
- with prefix information in the workload (Mooncake hash_ids or sessions), automatic
  prefix caching: a request starts from the longest run of cached full blocks and only
  computes the rest, which still attends to them;
- sessions: a turn can arrive only after its predecessor finished (plus its tool wait and
  the user's think time);
- a client's concurrency limit (vllm bench's max_concurrency: a send waits for a finish at
  the client) and the API server before the engine (a FIFO of CPU time per request, prompt
  token and output token; a client sees tokens when it has processed them): client.py,
  frontend.py, off unless the config asks.
- requests whose KV arrives over a link (workload.RemoteKV, P/D disaggregation's decode
  side, as vLLM V1's KV connectors): admitted at the queue's head, one takes the blocks of
  its ready tokens and the next token's slot, but no budget and no seat, while its KV is
  transferred (ReplayResult.kv_alloc_s .. kv_ready_s); it then lands at the queue's head
  with those tokens computed. A whole prompt's first token was sampled where it was
  prefilled: here it decodes tokens 2..G (first_token_s is token 2's). A preempted one
  recomputes locally. Such an engine replays without the prefix cache;
- encoder work (workload.EncoderWork, image requests): the step admitting a request adds
  its encoder seconds, and at most max_num_encoder_input_tokens encoder tokens are admitted
  per step (the next image request waits at the head), as vLLM V1 runs the encoder in the
  step before the LM forward.

The package: records.py (the config, the records, the check at the edge), state.py (the
state, a structure of arrays declared once; layout.py names its parts), loop.py (the one
event loop, compiled with numba; group.py keeps the decoders in lockstep so a run of
decode steps costs one closed-form sum), and its seams:
step_model.py + pricing.py (the step-time model: a kind id and coefficients the loop
dispatches on; StepCost's roofline, and the basis model of core/serving/step_basis.py with
its kernels in pricing_basis.py), plan.py (the scheduler policy: FCFS), blocks.py
(the block pool: a count, or the prefix cache of prefix.py, pool.py, keys.py, hashtab.py),
and core.serving.replicas (the topology: replicas behind a router; a prefill/decode split
is another driver of the same Engine). driver.py is the Engine Python drives: build,
advance to a horizon, route/submit/close/cancel, and public reads only.
tests/oracles/frozen_engine is the reference every result equals bit for bit
(tests/core/test_engine_frozen.py); bench/bench_engine_speed.py times the two.

The compiled code has one entry point (loop.run_events; a cancel and the prefix-cache look
are its operations, control.py), compiled faster by jit_link.py and jit_typing.py.
numba is imported at the first replay, not with this package; the compiled loop is cached
on disk (next to the package, or the user's cache folder where that is read-only), so its
compile is paid once per machine and every later start only loads it.
"""
from __future__ import annotations

from core.cancel import NEVER, CancelToken
from core.serving.engine.driver import Engine
from core.serving.engine.records import EngineConfig, ReplayResult, validate
from core.serving.step_cost import StepCost
from core.serving.workload import Workload

__all__ = ["Engine", "EngineConfig", "ReplayResult", "StepCost", "replay", "validate"]


def replay(workload: Workload, config: EngineConfig = EngineConfig(), fast: bool = True,
           cancel: CancelToken = NEVER) -> ReplayResult:
    """Run the workload through the engine. fast=False takes every step one by one (same
    schedule, same result up to rounding; the reference that checks the closed-form jumps).

    The config and workload are taken as they are: check them once where they come in
    (`validate`, which serving.replay's inputs and `traces.load_trace` callers run).
    cancel: checked between the compiled loop's runs of events; raises Cancelled."""
    return Engine(workload, config, fast).run(cancel)
