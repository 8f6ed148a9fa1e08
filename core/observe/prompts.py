"""Prompt text of an exact token count: words of a vocabulary joined by spaces, where the
server's tokenizer makes one token of each word (the CPU vLLM server's tokenizer is built
so: scripts/vllm_cpu/). For any other server, prompt_words= gives a word list of its own
(a file of words, or words joined by commas) and the server's `usage` counts are reported
as the truth (result.json's input_lens are what the server counted).

prompt_special_tokens=K: the tokens the server adds to every prompt (a BOS token: 1), as
vllm bench's random dataset subtracts them: K fewer words are sent.

The texts have a seed of their own (prompt_seed=; by default a fresh one each run, kept
in the result): the workload's seed fixes the lengths and send times the simulator
replays, while a new text each run keeps one run's prompts out of the server's prefix
cache for the next (the same seed twice hit 83% of the second run's blocks here).

Prefix workloads (random_prefix_len=P): every prompt starts with the SAME P words, so the
server's prefix cache can hit; the rest of each prompt is random words of its own (two
prompts share a cache block by chance with odds of one in len(words) ** block_size: never
in practice). A trace's prefix blocks (Mooncake hash ids) become one fixed text per id, so
prompts that share ids share their text.
"""
from __future__ import annotations

import os

import numpy as np

from core.registry import ParamError

DEFAULT_WORDS = tuple(f"w{i}" for i in range(1000))  # a subset of the CPU server's vocabulary
MAX_WORDS_FILE = 10_000_000


def words_from(value: str | None) -> tuple[str, ...]:
    """The vocabulary prompt_words= names: a file (words split on whitespace) or a comma list."""
    if value is None or value == "":
        return DEFAULT_WORDS
    if os.path.isfile(value):
        if os.path.getsize(value) > MAX_WORDS_FILE:
            raise ParamError("prompt_words", f"{value}: over {MAX_WORDS_FILE:,} bytes; valid: a smaller word list")
        with open(value, encoding="utf-8") as f:
            words = tuple(f.read().split())
    else:
        words = tuple(w.strip() for w in value.split(",") if w.strip())
    if len(set(words)) < 2:
        raise ParamError("prompt_words", f"got {value!r}; valid: a file of words or w1,w2,... (at least two distinct)")
    if any(any(c.isspace() for c in w) for w in words):
        raise ParamError("prompt_words", "a word holds a space; valid: words without whitespace")
    return words


class Prompts:
    """The text of request i (prompt(i)), drawn once from seed: the same keys and seed give
    the same texts run to run."""

    def __init__(self, input_tokens, prefix_tokens: int = 0, words=DEFAULT_WORDS, special_tokens: int = 0,
                 seed: int = 0, blocks=None):
        self.words = np.asarray(words, dtype=object)
        self.input_tokens = np.asarray(input_tokens, np.int64)
        self.special = int(special_tokens)
        self.blocks = blocks
        self.seed = int(seed)
        rng = np.random.default_rng([self.seed, 1])
        self.prefix = self._draw(rng, int(prefix_tokens))
        self._rng = np.random.default_rng([self.seed, 2])
        self._block_text: dict[int, list[str]] = {}

    def _draw(self, rng, n: int) -> list[str]:
        return list(self.words[rng.integers(0, len(self.words), size=max(n, 0))])

    def word_count(self, i: int) -> int:
        """Words sent for request i: its tokens less the server's special tokens (at least one)."""
        return max(1, int(self.input_tokens[i]) - self.special)

    def total_words(self) -> int:
        return int(np.maximum(1, self.input_tokens - self.special).sum())

    def prompt(self, i: int) -> str:
        """Request i's text; call in request order (the random rest is drawn in that order)."""
        n = self.word_count(i)
        head = self._block_words(i, n) if self.blocks is not None else self.prefix[:n]
        return " ".join(head + self._draw(self._rng, n - len(head)))

    def _block_words(self, i: int, n: int) -> list[str]:
        ids = self.blocks.ids[self.blocks.offsets[i]:self.blocks.offsets[i + 1]]
        out: list[str] = []
        for h in ids:
            if len(out) >= n:
                break
            h = int(h)
            if h not in self._block_text:
                rng = np.random.default_rng([self.seed, 3, h & 0xFFFFFFFF, h >> 32 & 0xFFFFFFFF])
                self._block_text[h] = self._draw(rng, int(self.blocks.block_tokens))
            out.extend(self._block_text[h])
        return out[:n]
