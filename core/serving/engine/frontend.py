"""The serving front end's coefficients: the API server a request passes before the engine
(HTTP, tokenization, scheduling into the engine core) and that every output token passes
after it (detokenization, streaming). It is one FIFO server of CPU time (vLLM's API
server is one Python process; its engine core runs apart, so the engine's steps do not
wait for it): a request takes request_s + input_token_s per prompt token of it when it
is sent, then enters the engine; each step's tokens take output_token_s each, after the
step, and a client sees a token when the front end has processed it. The compiled part
is client.py; this module has no numba (EngineConfig imports it).

Default coefficients, from public measurements (none reported as validation):
- output_token_s = 40 µs and request_s = 4 ms: vLLM PR #12287 (njhill, V1 online serving,
  Llama-3.2-1B on an A100, 6,000 ShareGPT prompts at 400 concurrent) is front-end bound
  and tops out near 80 req/s with ~225 input and ~202 output tokens a request: about
  12.5 ms of front-end time a request, split here as 4 ms a request + 202 × 40 µs;
- input_token_s = 2 µs: Hugging Face tokenizers' own benchmark (huggingface/tokenizers
  PR #1582: about 2 MB/s on one thread for Llama-3.1's tokenizer, ~4 bytes a token).
The vLLM V1 announcement (blog, 2025-01-24) names these CPU costs (API server, scheduling,
detokenizing, streaming) as what dominates once a GPU step takes ~5 ms.
"""
from __future__ import annotations

from dataclasses import dataclass

REQUEST_S = 4e-3
INPUT_TOKEN_S = 2e-6
OUTPUT_TOKEN_S = 40e-6
ROUNDS = 1
SOURCE = ("vLLM PR #12287 (front-end bound ~80 req/s: ~12.5 ms a request = 4 ms + 202 output tokens x 40 us); "
          "huggingface/tokenizers PR #1582 (~2 MB/s a thread: ~2 us a prompt token)")


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
