"""The serving front end's coefficients: the API server a request passes before the engine
(HTTP, tokenization, scheduling into the engine core) and that every output token passes
after it (detokenization, streaming), and a per-request latency on that path that holds
no CPU. vLLM's API server is one Python process, one
asyncio event loop on one core (its engine core runs apart, so the engine's steps do not
wait for it): every request's preprocessing and every output's streaming take turns on
it. The loop runs its ready coroutines in order, each up to its next await; a request's
handler awaits several times before its request reaches the engine core (the body, the
tokenizer's thread, the engine client's add_request), so a burst's requests advance a
piece a round, and an output waits behind one piece of each request being ingested. The
model (client.py): a request's request_s + input_token_s per prompt token, in `rounds`
equal slices, each queued at the tail when the one before is done; each step's tokens,
output_token_s each, at the tail when the step ends; a client sees a token when its
slice of work is done. The compiled part is client.py; this module has no numba
(EngineConfig imports it).

Default coefficients, from public measurements (none reported as validation):
- output_token_s = 40 µs and request_s = 4 ms on /v1/completions: vLLM PR #12287 (njhill,
  V1 online serving, Llama-3.2-1B on an A100, 6,000 ShareGPT prompts at 400 concurrent,
  vllm bench's default backend: the completions endpoint) is front-end bound and tops out
  near 80 req/s with ~225 input and ~202 output tokens a request: about 12.5 ms of
  front-end time a request, split here as 4 ms a request + 202 × 40 µs;
- input_token_s = 2 µs: Hugging Face tokenizers' own benchmark (huggingface/tokenizers
  PR #1582: about 2 MB/s on one thread for Llama-3.1's tokenizer, ~4 bytes a token);
- rounds = 5 and request_s = 10 ms (first fitted at 13) on /v1/chat/completions (the chat template rendered,
  the chat stream's chunks): fitted on the FIT half of the public runs only
  (tests/data/public_runs: GPUStack's Qwen3-14B bursts of 1,000 × 128-token prompts at
  once on an A100 and an H100, vLLM 0.11, chat endpoint; bench/fidelity_public.py). With
  one FIFO queue (rounds = 1) no request cost fits them: at 4 ms the bursts took 20.5 /
  11.0 s against 26.8 / 22.7 s measured, at 18 ms the TTFTs fit but every token of a
  request came out together, after the whole queue (TPOT ~0 against 233 / 525 ms). Grid
  rounds 2-8 × request 11-21 ms over those two runs' scored figures: rounds 5 at 13 ms
  (median |error| 11.9%; 4 at 13.5 ms: 12.3%). Rechecked once mean ITL was counted as the
  chat client counts it (core/serving/vllm_metrics.py): rounds 4-6 × 11-17 ms, still rounds
  5 at 13 ms (9.5%; the next best 11.6%). The request time lumps the chat path's extra
  work with GPUStack's host CPUs (a faster CPU takes less); the round count is the event
  loop's, the same for both endpoints. Refitted to 10 ms with the latency below (the
  next item) and the cards' decode reads (core/serving/step_defaults.py).
- latency_s = 35 ms on /v1/chat/completions, 0 on /v1/completions: a wait on every chat
  request that holds no CPU (the client sees all its tokens that much later). vLLM 0.11's
  chat runs at 1-8 in flight on an H100 (GPUStack's qwen3-8b/h100-latency.md, ShareGPT)
  start their first token ~60 ms after the send at every concurrency, where the lab's
  engine and CPU front end gave ~27 ms; the same page's SGLang server, same card, client
  and prompts, starts in ~27 ms, so the rest is vLLM's path, not the GPU's work. A CPU
  share cannot be it: the 1,000-prompt bursts would then queue 1,000 of them. Its cause
  inside vLLM is not identified. Grid latency 20-45 ms x chat request time 8-13 ms over the
  FIT half's scored figures (the Qwen3-8B runs at 1, 2 and 8 in flight, the Qwen3-14B
  bursts; bench/fidelity_public.py): 35 ms at 10 ms (median |error| 2.19%; 40 ms: 2.31%,
  30 ms: 2.72%). No completions run measured one (0 there).
The vLLM V1 announcement (blog, 2025-01-24) names these CPU costs (API server, scheduling,
detokenizing, streaming) as what dominates once a GPU step takes ~5 ms.
"""
from __future__ import annotations

from dataclasses import dataclass

REQUEST_S = 4e-3
INPUT_TOKEN_S = 2e-6
OUTPUT_TOKEN_S = 40e-6
CHAT_REQUEST_S = 10e-3
ROUNDS = 5
# The endpoint a client calls -> the request's front-end time (lab observe's --endpoint values).
ENDPOINT_REQUEST_S = {"/v1/completions": REQUEST_S, "/v1/chat/completions": CHAT_REQUEST_S}
CHAT_LATENCY_S = 35e-3
# The endpoint -> the request's latency that holds no CPU (0 where no run measured one).
ENDPOINT_LATENCY_S = {"/v1/completions": 0.0, "/v1/chat/completions": CHAT_LATENCY_S}
SOURCE = ("vLLM PR #12287 (front-end bound ~80 req/s: ~12.5 ms a request = 4 ms + 202 output tokens x 40 us, "
          "/v1/completions); huggingface/tokenizers PR #1582 (~2 MB/s a thread: ~2 us a prompt token); "
          "/v1/chat/completions 10 ms, 5 rounds and 35 ms of latency: fitted on the fit half of "
          "tests/data/public_runs (GPUStack's Qwen3-14B bursts and Qwen3-8B runs at 1-8 in flight, vLLM 0.11)")


MAX_ROUNDS = 64  # client.py's MAX_ROUNDS


@dataclass(frozen=True)
class FrontEnd:
    request_s: float = REQUEST_S  # per request, when it is sent (HTTP, parsing, scheduling into the engine)
    input_token_s: float = INPUT_TOKEN_S  # per prompt token (tokenization)
    output_token_s: float = OUTPUT_TOKEN_S  # per output token (detokenization and streaming)
    rounds: int = ROUNDS  # slices a request's work is served in, round robin with the others' (1: FIFO)
    latency_s: float = 0.0  # per request, a wait that holds no CPU: the client sees its tokens this much later


    def __post_init__(self):
        if not (isinstance(self.rounds, int) and 1 <= self.rounds <= MAX_ROUNDS):
            raise ValueError(f"front end rounds {self.rounds!r}; valid: an integer 1..{MAX_ROUNDS}")
        if not (0.0 <= self.latency_s < float("inf")):
            raise ValueError(f"front end latency {self.latency_s!r} s; valid: a finite number >= 0")

    def report(self) -> dict:
        return {"request_ms": self.request_s * 1e3, "input_token_us": self.input_token_s * 1e6,
                "output_token_us": self.output_token_s * 1e6, "rounds": self.rounds,
                "latency_ms": self.latency_s * 1e3, "source": SOURCE}
