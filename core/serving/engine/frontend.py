"""The serving front end's coefficients: the API server a request passes before the engine
(HTTP, tokenization, scheduling into the engine core) and that every output token passes
after it (detokenization, streaming). vLLM's API server is one Python process, one
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
- rounds = 5 and request_s = 13 ms on /v1/chat/completions (the chat template rendered,
  the chat stream's chunks): fitted on the FIT half of the public runs only
  (tests/data/public_runs: GPUStack's Qwen3-14B bursts of 1,000 × 128-token prompts at
  once on an A100 and an H100, vLLM 0.11, chat endpoint; bench/fidelity_public.py). With
  one FIFO queue (rounds = 1) no request cost fits them: at 4 ms the bursts took 20.5 /
  11.0 s against 26.8 / 22.7 s measured, at 18 ms the TTFTs fit but every token of a
  request came out together, after the whole queue (TPOT ~0 against 233 / 525 ms). Grid
  rounds 2-8 × request 11-21 ms over those two runs' scored figures: rounds 5 at 13 ms
  (median |error| 11.9%; 4 at 13.5 ms: 12.3%). Rechecked once mean ITL was counted as the
  chat client counts it (core/serving/vllm_metrics.py): rounds 4-6 × 11-17 ms, still rounds
  5 at 13 ms (9.5%; the next best 11.6%). The 13 ms lumps the chat path's extra work
  with GPUStack's host CPUs (a faster CPU takes less); the round count is the event
  loop's, the same for both endpoints.
The vLLM V1 announcement (blog, 2025-01-24) names these CPU costs (API server, scheduling,
detokenizing, streaming) as what dominates once a GPU step takes ~5 ms.
"""
from __future__ import annotations

from dataclasses import dataclass

REQUEST_S = 4e-3
INPUT_TOKEN_S = 2e-6
OUTPUT_TOKEN_S = 40e-6
CHAT_REQUEST_S = 13e-3
ROUNDS = 5
# The endpoint a client calls -> the request's front-end time (lab observe's --endpoint values).
ENDPOINT_REQUEST_S = {"/v1/completions": REQUEST_S, "/v1/chat/completions": CHAT_REQUEST_S}
SOURCE = ("vLLM PR #12287 (front-end bound ~80 req/s: ~12.5 ms a request = 4 ms + 202 output tokens x 40 us, "
          "/v1/completions); huggingface/tokenizers PR #1582 (~2 MB/s a thread: ~2 us a prompt token); "
          "/v1/chat/completions 13 ms and 5 rounds: fitted on the fit half of tests/data/public_runs (GPUStack's "
          "Qwen3-14B bursts, vLLM 0.11)")


MAX_ROUNDS = 64  # client.py's MAX_ROUNDS


@dataclass(frozen=True)
class FrontEnd:
    request_s: float = REQUEST_S  # per request, when it is sent (HTTP, parsing, scheduling into the engine)
    input_token_s: float = INPUT_TOKEN_S  # per prompt token (tokenization)
    output_token_s: float = OUTPUT_TOKEN_S  # per output token (detokenization and streaming)
    rounds: int = ROUNDS  # slices a request's work is served in, round robin with the others' (1: FIFO)

    def __post_init__(self):
        if not (isinstance(self.rounds, int) and 1 <= self.rounds <= MAX_ROUNDS):
            raise ValueError(f"front end rounds {self.rounds!r}; valid: an integer 1..{MAX_ROUNDS}")

    def report(self) -> dict:
        return {"request_ms": self.request_s * 1e3, "input_token_us": self.input_token_s * 1e6,
                "output_token_us": self.output_token_s * 1e6, "rounds": self.rounds, "source": SOURCE}
