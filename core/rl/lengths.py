"""Output lengths of a step's samples, and their rewards and keep flags (seeded).

Each step draws from its own generator (seed, step), so a step's samples do not depend on
how many steps run before it. Lengths are whole tokens >= 1, truncated at max_tokens.
"""
from __future__ import annotations

import csv
import io

import numpy as np

from core.file_guard import FileRefused, read_regular
from core.registry import ParamError

MAX_TRACE_LENGTHS = 10_000_000
MAX_TRACE_BYTES = 128 << 20


def step_rng(seed: int, step: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), int(step), stream])


def draw(p, step: int, n: int, trace: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(lengths after truncation, the untruncated lengths) of n new samples."""
    rng = step_rng(p.seed, step, 1)
    if p.lengths == "fixed":
        raw = np.full(n, p.output_tokens, np.float64)
    elif p.lengths == "lognormal":
        raw = p.output_tokens * np.exp(p.sigma * rng.standard_normal(n))
    elif p.lengths == "pareto":
        raw = p.output_tokens * (1.0 + rng.pareto(p.alpha, n))
    else:
        assert trace is not None
        raw = trace[rng.integers(0, trace.size, n)].astype(np.float64)
    whole = np.maximum(1, np.minimum(np.round(raw), 1e12)).astype(np.int64)
    return np.minimum(whole, p.max_tokens), whole


def rewards(p, step: int, n: int) -> np.ndarray:
    """Bernoulli(reward_p) rewards (1 right, 0 wrong) of n samples."""
    return (step_rng(p.seed, step, 2).random(n) < p.reward_p).astype(np.int64)


def keep_flags(p, step: int, group_of: np.ndarray, reward: np.ndarray) -> np.ndarray:
    """Which of the consumed samples the update keeps.

    ratio: ⌈a·n − tiny⌉ of n chosen at random (例题 3-4's n_keep = a · n_generate); drop_equal:
    every sample of a group whose rewards are not all equal (the advantage is zero otherwise)."""
    n = group_of.size
    if p.keep == "ratio":
        k = min(n, int(np.floor(p.keep_ratio * n + 1e-9)))
        flags = np.zeros(n, bool)
        flags[step_rng(p.seed, step, 3).permutation(n)[:k]] = True
        return flags
    if n == 0:
        return np.zeros(0, bool)
    _, inverse = np.unique(group_of, return_inverse=True)
    lo = np.full(inverse.max() + 1, np.iinfo(np.int64).max)
    hi = np.full(inverse.max() + 1, np.iinfo(np.int64).min)
    np.minimum.at(lo, inverse, reward)
    np.maximum.at(hi, inverse, reward)
    return (hi > lo)[inverse]


def load_trace_lengths(path: str) -> np.ndarray:
    """Output lengths from a file: one whole number per line, or a CSV with output_tokens."""
    try:
        text = read_regular(path, MAX_TRACE_BYTES).decode("utf-8")
    except (FileRefused, UnicodeDecodeError) as err:
        raise ParamError("lengths_file", f"{path}: {err}; valid: a UTF-8 text file of at most "
                         f"{MAX_TRACE_BYTES:,} bytes") from None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise ParamError("lengths_file", f"{path}: no lengths; valid: one whole number per line, or a CSV with "
                         "an output_tokens column")
    column = None
    if not _is_number(lines[0].split(",")[0]):
        rows = csv.DictReader(io.StringIO("\n".join(lines)))
        if "output_tokens" not in (rows.fieldnames or []):
            raise ParamError("lengths_file", f"{path}: header without output_tokens; valid: a CSV with an "
                             "output_tokens column, or one number per line")
        column = [r["output_tokens"] for r in rows]
    values = column if column is not None else [ln.split(",")[0] for ln in lines]
    if len(values) > MAX_TRACE_LENGTHS:
        raise ParamError("lengths_file", f"{path}: {len(values):,} lengths; valid: <= {MAX_TRACE_LENGTHS:,}")
    out = np.empty(len(values), np.int64)
    for i, v in enumerate(values):
        if not _is_number(v) or float(v) < 1 or float(v) > 1e9 or not float(v).is_integer():
            raise ParamError("lengths_file", f"{path}: row {i + 1} is {str(v)[:40]!r}; valid: whole numbers "
                             "in [1, 1e9]")
        out[i] = int(float(v))
    return out


def _is_number(text) -> bool:
    try:
        value = float(str(text).strip())
    except ValueError:
        return False
    return value == value and abs(value) != float("inf")
