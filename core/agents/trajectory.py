"""§3.2.1 and §3.2.3: the measured code-agent trajectories (Qwen3-8B on vLLM, one task,
thinking on and off) and what each round costs.

A round is one model call: its prompt of I tokens, K of them served from the prefix cache,
then G output tokens, then a tool run. The counting (core/data/agent_traces/README.md):
- cold prefill: every round recomputes its whole prompt (I positions, causal pairs
  I(I+1)/2); with the cache a round computes only its I − K uncached positions, which
  still attend to the cached prefix (pairs I(I+1)/2 − K(K+1)/2); the LM head once (the
  last position's logits);
- decode: G − 1 steps (prefill made the first token), step j attends P + j + 1 keys;
- KV held during a round's tool run: its P + G − 1 positions (the last token has none).

Traces are the bundled `thinking_on` / `thinking_off` or a CSV with the same columns. A
file is untrusted: checked to be a regular file of at most MAX_TRACE_BYTES before it is
read, every field bounded, and an error names the file, the row and the field.
"""
from __future__ import annotations

import csv
import io
import os
import stat
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np

from core import catalog
from core.model_config.as_catalog import model_or_config
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.training.model import dense_model_keys, shape
from core.units import MiB

TRACES = ("thinking_on", "thinking_off")
COLUMNS = ("input_tokens", "cached_tokens", "output_tokens", "model_wall_s", "tool_wall_s")
MAX_TRACE_BYTES = 1 * MiB  # the bundled traces are a few hundred bytes
MAX_ROUNDS = 10_000
MAX_ROUND_TOKENS = 10_000_000  # tokens of one call's prompt or output
MAX_WALL_S = 1e7  # seconds of one call or tool run
MAX_FIELD_CHARS = 32
DEFAULT_MODEL = "qwen3-8b"


@dataclass(frozen=True)
class Trajectory:
    """One run, a row per model call. Arrays over rounds; times in seconds."""

    name: str
    input_tokens: np.ndarray  # int64, I
    cached_tokens: np.ndarray  # int64, K (prefix-cache hits)
    output_tokens: np.ndarray  # int64, G
    model_s: np.ndarray  # wall clock of each model call
    tool_s: np.ndarray  # wall clock of the tool run after it
    summary: dict | None = None  # elapsed_s, other_s and the task's checks (bundled runs only)

    @property
    def rounds(self) -> int:
        return int(self.input_tokens.size)

    @property
    def uncached_tokens(self) -> np.ndarray:
        return self.input_tokens - self.cached_tokens


# ---- reading ----------------------------------------------------------------------------
def _refuse(where: str, why: str) -> ParamError:
    return ParamError("trace", f"{where}: {why}")


def _read_bytes(path: str) -> bytes:
    """A regular file's bytes, at most MAX_TRACE_BYTES. Opened non-blocking and checked again
    on the descriptor, so a fifo or device (/dev/zero) is refused and never read."""
    valid = f"valid: {' or '.join(TRACES)} or a CSV file with columns {', '.join(COLUMNS)}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise _refuse(repr(path), f"no such file; {valid}") from None
    except OSError as exc:
        raise _refuse(repr(path), f"cannot open ({exc.strerror or exc}); {valid}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "a fifo" if stat.S_ISFIFO(mode) else \
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"
            raise _refuse(repr(path), f"is {kind}; {valid}")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_TRACE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_TRACE_BYTES:
        raise _refuse(repr(path), f"is larger than {MAX_TRACE_BYTES:,} bytes; valid: at most {MAX_TRACE_BYTES:,}")
    return data


def _field(row: dict, name: str, where: str, integer: bool, high: float) -> float:
    raw = row.get(name)
    text = (raw or "").strip()
    what = f"a whole number 0..{high:,.0f}" if integer else f"a number of seconds in [0, {high:g}]"
    if not text or len(text) > MAX_FIELD_CHARS:
        shown = "empty" if not text else f"{len(text)} characters long"
        raise _refuse(where, f"{name} is {shown}; valid: {what}")
    try:
        value = float(text)
    except ValueError:
        raise _refuse(where, f"{name} is {text!r}; valid: {what}") from None
    if not (0 <= value <= high) or (integer and not value.is_integer()):
        raise _refuse(where, f"{name} is {text}; valid: {what}")
    return value


def _check_row(row: dict, where: str) -> tuple[float, ...]:
    """One row's values, or the ParamError naming its first bad field."""
    i, k, g = (_field(row, c, where, True, MAX_ROUND_TOKENS) for c in COLUMNS[:3])
    model, tool = (_field(row, c, where, False, MAX_WALL_S) for c in COLUMNS[3:])
    if i < 1:
        raise _refuse(where, "input_tokens is 0; valid: at least 1 (a call has a prompt)")
    if k >= i:
        raise _refuse(where, f"cached_tokens is {k:,.0f}; valid: 0..input_tokens − 1 = {i - 1:,.0f} "
                      "(at least one prompt token is computed)")
    if g < 1:
        raise _refuse(where, "output_tokens is 0; valid: at least 1 (prefill makes the first token)")
    return i, k, g, model, tool


def _columns(rows: list[list[str]], index: list[int]) -> np.ndarray | None:
    """The COLUMNS as floats (5, rounds) when every value is a valid number in range, else
    None (then the row-by-row check finds and names the first bad field)."""
    cols = [[row[j] for row in rows] for j in index]
    if max(len(v) for col in cols for v in col) > MAX_FIELD_CHARS:
        return None
    try:
        values = np.array(cols, dtype=float)
    except ValueError:
        return None
    i, k, g = values[:3]
    ints_ok = np.all((values[:3] >= 0) & (values[:3] <= MAX_ROUND_TOKENS) & (values[:3] == np.floor(values[:3])))
    walls_ok = np.all((values[3:] >= 0) & (values[3:] <= MAX_WALL_S))  # NaN fails both
    return values if ints_ok and walls_ok and np.all((i >= 1) & (k < i) & (g >= 1)) else None


def _csv_lines(text: str, name: str) -> list[list[str]]:
    """The CSV's rows; the csv module's own refusals (a field over its size limit, a NUL,
    a quote left open) become the trace's, naming the line."""
    reader = csv.reader(io.StringIO(text))
    lines = []
    try:
        for row in reader:
            lines.append(row)
    except csv.Error as exc:
        why = ("has a field longer than the CSV reader's limit of "
               f"{csv.field_size_limit():,} characters" if "field limit" in str(exc) else f"is not CSV ({exc})")
        raise _refuse(f"{name} line {reader.line_num}", f"{why}; valid: a CSV file with columns "
                      f"{', '.join(COLUMNS)} (each value at most {MAX_FIELD_CHARS} characters)") from None
    return lines


def parse_trajectory(text: str, name: str) -> Trajectory:
    """Rows of a trajectory CSV (header with COLUMNS; other columns, e.g. `round`, ignored).
    Checked column-wise with numpy; a bad file is read again row by row to name its row."""
    lines = _csv_lines(text, name)
    header = [h.strip() for h in lines[0]] if lines else []
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise _refuse(name, f"no column {', '.join(missing)}; valid: a header with {', '.join(COLUMNS)}")
    rows = [row for row in lines[1:] if row]  # a blank line is no round
    if not rows:
        raise _refuse(name, "has no rounds; valid: a header and at least one row")
    if len(rows) > MAX_ROUNDS:
        raise _refuse(name, f"has {len(rows):,} rounds; valid: at most {MAX_ROUNDS:,}")
    for number, row in enumerate(rows, start=1):
        if len(row) != len(header):
            raise _refuse(f"{name} row {number}", f"has {len(row)} fields; valid: one per header column ({len(header)})")
    values = _columns(rows, [header.index(c) for c in COLUMNS])
    if values is None:
        for number, row in enumerate(rows, start=1):
            _check_row(dict(zip(header, row)), f"{name} row {number}")
        raise AssertionError("a column check refused what every row passes")  # the two checks disagree: a bug
    ints = values[:3].astype(np.int64)
    return Trajectory(name, ints[0], ints[1], ints[2], values[3], values[4])


@cache
def _bundled(name: str) -> Trajectory:
    text = catalog.data_path(f"agent_traces/{name}.csv").read_text(encoding="utf-8")
    summary = {}
    for row in csv.DictReader(io.StringIO(catalog.data_path("agent_traces/summary.csv").read_text(encoding="utf-8"))):
        if row["trace"] == name:
            summary = {k: (int(v) if k.startswith("checks") or k == "rounds" else float(v))
                       for k, v in row.items() if k != "trace"}
    t = parse_trajectory(text, name)
    return Trajectory(t.name, t.input_tokens, t.cached_tokens, t.output_tokens, t.model_s, t.tool_s, summary or None)


@lru_cache(maxsize=8)
def _from_file(path: str, _mtime_ns: int, _size: int) -> Trajectory:
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _refuse(repr(path), f"is not UTF-8 text (byte {exc.start:,}); valid: a UTF-8 CSV file") from None
    return parse_trajectory(text, repr(path))


def load_trajectory(trace: str) -> Trajectory:
    """A bundled run by name, or a CSV file's rounds (cached while the file is unchanged)."""
    if trace in TRACES:
        return _bundled(trace)
    try:
        info = os.stat(trace)
    except OSError:
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        return _from_file(trace, 0, -1)  # _read_bytes refuses it, saying why (errors are not cached)
    return _from_file(trace, info.st_mtime_ns, info.st_size)


# ---- arithmetic ---------------------------------------------------------------------------
def _pairs(n: np.ndarray) -> np.ndarray:
    """Causal query-key pairs of n positions: n(n+1)/2 (exact in float64 below 2^26 tokens)."""
    n = n.astype(float)
    return n * (n + 1) / 2


def round_costs(t: Trajectory, model: str = DEFAULT_MODEL) -> dict[str, np.ndarray]:
    """Per round: cold and cached prefill FLOPs, decode FLOPs and the KV bytes held after
    the call (P + G − 1 positions), with the model's figures from the catalog or its
    config.json (refused naming the file and field, as ParamError('model'))."""
    m = shape(model)
    kv_per_token = float(model_or_config(model)["kv_bytes_per_token"])
    i, k, g = t.input_tokens.astype(float), t.cached_tokens.astype(float), t.output_tokens.astype(float)
    head = m.lm_head_forward_flops(1)
    steps = g - 1
    keys = steps * (i + 1) + steps * (steps - 1) / 2  # Σ_{j<steps} (P + j + 1)
    return {
        "cold": m.matrix_forward_flops(i) + head + m.attention_forward_flops(_pairs(t.input_tokens)),
        "cached": m.matrix_forward_flops(i - k) + head
                  + m.attention_forward_flops(_pairs(t.input_tokens) - _pairs(t.cached_tokens)),
        "decode": steps * (m.matrix_forward_flops(1) + head) + m.attention_forward_flops(keys),
        "kv_bytes": (i + g - 1) * kv_per_token,
    }


def _check_trace(values: dict) -> None:
    load_trajectory(values["trace"])


def trajectory(trace: str, model: str = DEFAULT_MODEL) -> dict:
    t = load_trajectory(trace)
    c = round_costs(t, model)
    s = t.summary or {}
    inputs, cached = int(t.input_tokens.sum()), int(t.cached_tokens.sum())
    model_s, tool_s = float(t.model_s.sum()), float(t.tool_s.sum())
    return {
        "rounds": t.rounds, "input_tokens": inputs, "cached_tokens": cached, "uncached_tokens": inputs - cached,
        "cache_hit_rate": cached / inputs, "output_tokens": int(t.output_tokens.sum()),
        "cold_prefill_flops": float(c["cold"].sum()), "cached_prefill_flops": float(c["cached"].sum()),
        "decode_flops": float(c["decode"].sum()),
        "elapsed_s": s.get("elapsed_s"), "model_s": model_s, "tool_s": tool_s,
        # Other = elapsed − model − tools, only where the run's elapsed time was recorded.
        "other_s": s["elapsed_s"] - model_s - tool_s if "elapsed_s" in s else None,
        "max_round_kv_bytes": float(c["kv_bytes"].max()),
        "tool_wait_kv_byte_s": float(np.dot(c["kv_bytes"], t.tool_s)),
        "checks_total": s.get("checks_total"), "checks_passed": s.get("checks_passed"),
        "checks_passed_with_alias": s.get("checks_passed_with_alias"),
        "alias_failures": s["checks_total"] - s["checks_passed_with_alias"] if s else None,
    }


def one_round(trace: str, round: int, model: str = DEFAULT_MODEL) -> dict:
    t = load_trajectory(trace)
    r = round - 1  # counted from 1, as the book does
    c = {k: float(v[r]) for k, v in round_costs(t, model).items()}
    i, k = int(t.input_tokens[r]), int(t.cached_tokens[r])
    return {
        "input_tokens": i, "cached_tokens": k, "uncached_tokens": i - k, "output_tokens": int(t.output_tokens[r]),
        "cold_prefill_flops": c["cold"], "cached_prefill_flops": c["cached"], "decode_flops": c["decode"],
        "kv_bytes": c["kv_bytes"], "model_s": float(t.model_s[r]), "tool_s": float(t.tool_s[r]),
        "tool_wait_kv_byte_s": c["kv_bytes"] * float(t.tool_s[r]),
    }


def _check_round(values: dict) -> None:
    rounds = load_trajectory(values["trace"]).rounds
    if values["round"] > rounds:
        raise ParamError("round", f"got {values['round']}; valid: 1..{rounds} ({values['trace']} has {rounds} rounds)")


def _check_one_round(values: dict) -> None:
    _check_trace(values)
    _check_round(values)


def trace_param(help_text: str = "") -> Param:
    return Param("trace", "", "thinking_on", help_text or "a measured run (思考开启 on / 关闭 off) or a CSV file with "
                 "columns " + ", ".join(COLUMNS), kind="path", choices=TRACES)


MODEL = Param("model", "", DEFAULT_MODEL, "the model the FLOPs and KV are counted for (the runs used Qwen3-8B): "
              "a catalog model or a dense decoder's config.json path", kind="path", choices=dense_model_keys())
OFF = {"trace": "thinking_off"}
TFLOP = 1e12
_MS: dict[str, Any] = dict(abs_tol=0.0005)  # the book prints seconds to the millisecond

TRAJECTORY = Calculator(
    name="agent.trajectory",
    title="代码任务轨迹 · a measured code-agent run",
    ref=BookRef("3.2.3", "代码任务轨迹"),
    params=(trace_param(), MODEL),
    outputs=(
        Output("rounds", "calls", "model calls of the task"),
        Output("input_tokens", "tokens", "prompt tokens over all rounds", "Σ I_i"),
        Output("cached_tokens", "tokens", "served from the prefix cache", "Σ K_i"),
        Output("uncached_tokens", "tokens", "prompt tokens actually computed", "Σ (I_i − K_i)"),
        Output("cache_hit_rate", "ratio", "", "Σ K_i / Σ I_i"),
        Output("output_tokens", "tokens", "thinking included when on", "Σ G_i"),
        Output("cold_prefill_flops", "FLOPs", "every round recomputes its whole prompt",
               "Σ 2·N·I + 4·h·d·L·I(I+1)/2 + LM head"),
        Output("cached_prefill_flops", "FLOPs", "only the uncached suffix, still attending to the cached prefix",
               "Σ 2·N·(I−K) + 4·h·d·L·(I(I+1) − K(K+1))/2 + LM head"),
        Output("decode_flops", "FLOPs", "G − 1 steps per call", "Σ (G−1)(2N + LM head) + 4·h·d·L·Σ keys"),
        Output("elapsed_s", "s", "the whole task (recorded for the bundled runs only)"),
        Output("model_s", "s", "model calls' wall clock", "Σ model_wall_s"),
        Output("tool_s", "s", "tool runs' wall clock", "Σ tool_wall_s"),
        Output("other_s", "s", "preparation, gaps, final checks", "elapsed − model − tools"),
        Output("max_round_kv_bytes", "bytes", "the largest context one call leaves in KV", "max c_KV·(I + G − 1)"),
        Output("tool_wait_kv_byte_s", "byte*s", "KV kept while tools run", "Σ c_KV·(I + G − 1)·t_tool"),
        Output("checks_total", "cases", "the task's test cases (bundled runs)"),
        Output("checks_passed", "cases", "return value right and input unchanged"),
        Output("checks_passed_with_alias", "cases", "also: the returned sub-lists are not aliases of the input"),
        Output("alias_failures", "cases", "cases whose result still shares sub-lists with the input",
               "checks_total − checks_passed_with_alias"),
    ),
    compute=trajectory,
    check=_check_trace,
    byte_system="iec",
    book=(
        BookValue("cold_prefill_flops", 76.196 * TFLOP, "每轮全量重算 76.196 TFLOPs", abs_tol=0.0005 * TFLOP),
        BookValue("cached_prefill_flops", 11.976 * TFLOP, "复用前缀后 11.976 TFLOPs", abs_tol=0.0005 * TFLOP),
        BookValue("decode_flops", 43.622 * TFLOP, "decode 矩阵运算 43.622 TFLOPs (计算记录)", abs_tol=0.0005 * TFLOP),
        BookValue("input_tokens", 5297, "四轮累计输入 5,297 token"),
        BookValue("cached_tokens", 4480, "命中 4,480"),
        BookValue("uncached_tokens", 817, "未命中 817"),
        BookValue("elapsed_s", 76.510, "任务总时间 76.510 s", **_MS),
        BookValue("model_s", 76.294, "模型调用合计 76.294 s", **_MS),
        BookValue("tool_s", 0.078, "工具执行合计 0.078 s", **_MS),
        # 0.13893 s printed as 0.138 so that the parts add up to the printed 76.510.
        BookValue("other_s", 0.138, "控制与交接(差额)0.138 s", abs_tol=0.001),
        BookValue("rounds", 4, "思考开启:模型调用轮数 4"),
        BookValue("output_tokens", 2733, "思考开启:总输出 token 2,733"),
        BookValue("checks_passed", 1013, "返回值正确 + 输入不变检查 1013/1013"),
        BookValue("checks_passed_with_alias", 710, "额外检查:无别名 710/1013"),
        BookValue("alias_failures", 303, "另 303 个仍与输入共享子列表"),
        BookValue("rounds", 12, "思考关闭:模型调用轮数 12", params=OFF),
        BookValue("output_tokens", 765, "思考关闭:总输出 token 765", params=OFF),
        BookValue("model_s", 13.156, "思考关闭:模型调用 13.156 s", params=OFF, **_MS),
        BookValue("tool_s", 0.476, "思考关闭:工具执行 0.476 s", params=OFF, **_MS),
        BookValue("cache_hit_rate", 0.834, "思考关闭:缓存命中率约 83.4%", params=OFF, abs_tol=0.0005),
        BookValue("checks_passed", 315, "思考关闭:315/1013", params=OFF),
        BookValue("checks_passed_with_alias", 1, "思考关闭:无别名 1/1013", params=OFF),
    ),
)

ROUND = Calculator(
    name="agent.round",
    title="一轮的前缀复用 · one round: P_i = I_i − K_i",
    ref=BookRef("3.2.1", "四轮代码修复任务"),
    params=(trace_param(), Param("round", "", 2, "which call of the run, from 1 (the book's 第二轮: 2)",
                                 1, MAX_ROUNDS, kind="int"), MODEL),
    outputs=(
        Output("input_tokens", "tokens", "I_i"),
        Output("cached_tokens", "tokens", "K_i: restored, S_i = K_i"),
        Output("uncached_tokens", "tokens", "new tokens this round processes", "P_i = I_i − K_i"),
        Output("output_tokens", "tokens", "G_i"),
        Output("cold_prefill_flops", "FLOPs", "the whole prompt recomputed"),
        Output("cached_prefill_flops", "FLOPs", "the suffix only, attending to the cached prefix"),
        Output("decode_flops", "FLOPs", "G_i − 1 steps over the full context"),
        Output("kv_bytes", "bytes", "KV after the call", "c_KV·(I + G − 1)"),
        Output("model_s", "s", "model call wall clock"),
        Output("tool_s", "s", "tool run after the call"),
        Output("tool_wait_kv_byte_s", "byte*s", "", "c_KV·(I + G − 1)·t_tool"),
    ),
    compute=one_round,
    check=_check_one_round,
    book=(
        BookValue("input_tokens", 1443, "第二轮输入 1,443"),
        BookValue("cached_tokens", 1392, "命中 1,392"),
        BookValue("uncached_tokens", 51, "只需处理 51 个新 token"),
    ),
)

CALCULATORS = (TRAJECTORY, ROUND)
