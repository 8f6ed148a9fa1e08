"""§3.2: multi-turn and agent tasks. Where an edit lands decides how much prefix survives;
the critical path of model calls and tools decides when a task can finish, and state held
while tools run is paid in byte·s; a local speed-up is capped by the share it had (Amdahl)."""
from __future__ import annotations

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.units import GiB, KiB

MAX_TOKENS = 10_000_000
# The thinking-on code-agent trace (§3.2.3): whole task and its first model call, measured.
# The book's "首轮占总时间约 47.5%" and "其余阶段仍约 40.1 s" are these two, rounded.
TRACE_ELAPSED_S = 76.5102791490499
FIRST_ROUND_MODEL_S = 36.375312
QWEN3_8B_KV_BYTES_PER_TOKEN = 144 * KiB


def edit_reuse(context_tokens: int, edit_position: int, appended_tokens: int) -> dict:
    """A cache hit needs an identical prefix: everything from the first changed token on is
    recomputed. edit_position is 1-based; edit_position = context + 1 means a pure append."""
    reusable = edit_position - 1
    recompute = context_tokens - reusable + appended_tokens
    return {
        "reusable_prefix_tokens": reusable,
        "recompute_tokens": recompute,
        "reuse_fraction": reusable / (context_tokens + appended_tokens),
    }


def _check_edit(values: dict) -> None:
    limit = values["context_tokens"] + 1
    if values["edit_position"] > limit:
        raise ParamError("edit_position", f"got {values['edit_position']}; valid: [1, context_tokens + 1] = [1, {limit}]")


def critical_path(model_before_s: float, tool_a_s: float, tool_b_s: float, model_after_s: float,
                  state_bytes: float) -> dict:
    """练习 3-4: model → two independent tools → model; state held only while tools run."""
    serial_tools = tool_a_s + tool_b_s
    parallel_tools = max(tool_a_s, tool_b_s)
    return {
        "serial_s": model_before_s + serial_tools + model_after_s,
        "parallel_s": model_before_s + parallel_tools + model_after_s,
        "tool_work_s": serial_tools,
        "serial_state_byte_s": state_bytes * serial_tools,
        "parallel_state_byte_s": state_bytes * parallel_tools,
    }


def amdahl(total_s: float, part_fraction: float, speedup: float) -> dict:
    # Shares of the total first, then seconds: a tiny total never divides by its own
    # rounding (total − part + part/s can round to 0 when the part is the whole task).
    remaining = (1 - part_fraction) + part_fraction / speedup  # new total / old total
    part = total_s * part_fraction
    return {
        "part_s": part,
        "rest_s": total_s - part,
        "new_total_s": total_s * remaining,
        "saved_fraction": part_fraction * (1 - 1 / speedup),
        "overall_speedup": 1 / remaining,
        "speedup_limit": 1 / (1 - part_fraction) if part_fraction < 1 else None,
    }


def branch_state(shared_prefix_tokens: int, branch_tokens: tuple, kv_bytes_per_token: float) -> dict:
    """图 3-13: branches share a prefix H0 and each adds h_i: total c_KV·(H0 + Σ h_i)."""
    tokens = shared_prefix_tokens + sum(branch_tokens)
    unshared = len(branch_tokens) * shared_prefix_tokens + sum(branch_tokens)
    return {
        "total_tokens": tokens,
        "state_bytes": kv_bytes_per_token * tokens,
        "unshared_state_bytes": kv_bytes_per_token * unshared,
    }


def _check_branches(values: dict) -> None:
    if any(not float(h).is_integer() or h < 0 for h in values["branch_tokens"]):
        raise ParamError("branch_tokens", "valid: whole numbers >= 0, one per branch")


EDIT = Calculator(
    name="multiturn.edit",
    title="改了多少不要紧,改在哪儿才要紧 · edit position",
    ref=BookRef("3.2.1", "改动位置"),
    params=(
        Param("context_tokens", "tokens", 2000, "tokens already in the context (book: 2,000)", 1, MAX_TOKENS, kind="int"),
        Param("edit_position", "tokens", 501, "1-based position of the first changed token (book: the 501st); "
              "context_tokens + 1 = append only", 1, MAX_TOKENS + 1, kind="int"),
        Param("appended_tokens", "tokens", 0, "new tokens added at the end (book: 100 when appending)", 0, MAX_TOKENS, kind="int"),
    ),
    outputs=(
        Output("reusable_prefix_tokens", "tokens", "the cached prefix that still matches", "edit_position − 1"),
        Output("recompute_tokens", "tokens", "rows prefill must process again", "context − reusable + appended"),
        Output("reuse_fraction", "ratio", "", "reusable / (context + appended)"),
    ),
    compute=edit_reuse,
    check=_check_edit,
    book=(
        BookValue("reusable_prefix_tokens", 500, "改第 501 个:只剩前 500 个"),
        BookValue("reusable_prefix_tokens", 2000, "末尾追加 100:全部原有前缀",
                  params={"edit_position": 2001, "appended_tokens": 100}),
        BookValue("recompute_tokens", 100, "+ 100 行新输入", params={"edit_position": 2001, "appended_tokens": 100}),
    ),
)

CRITICAL_PATH = Calculator(
    name="agent.critical_path",
    title="工具有没有依赖 · serial vs parallel tools",
    ref=BookRef("3.2.4", "图 3-11/3-12 · 练习 3-4"),
    params=(
        Param("model_before_s", "s", 2.0, "model call before the tools (练习 3-4: 2 s)", 0, 1e6),
        Param("tool_a_s", "s", 6.0, "first tool (练习 3-4: 6 s)", 0, 1e6),
        Param("tool_b_s", "s", 10.0, "second, independent tool (练习 3-4: 10 s)", 0, 1e6),
        Param("model_after_s", "s", 3.0, "model call after the tools (练习 3-4: 3 s)", 0, 1e6),
        Param("state_bytes", "bytes", float(GiB), "state held while waiting for tools (练习 3-4: 1 GiB)", 0, 1e15),
    ),
    outputs=(
        Output("serial_s", "s", "tools one after the other", "m1 + a + b + m2"),
        Output("parallel_s", "s", "independent tools start together; the join waits for the slower", "m1 + max(a, b) + m2"),
        Output("tool_work_s", "s", "tool work does not shrink", "a + b"),
        Output("serial_state_byte_s", "byte*s", "", "M · (a + b)"),
        Output("parallel_state_byte_s", "byte*s", "", "M · max(a, b)"),
    ),
    compute=critical_path,
    book=(
        BookValue("serial_s", 21.0, "串行 21 s"),
        BookValue("parallel_s", 15.0, "并行 15 s"),
        BookValue("tool_work_s", 16.0, "工具总工作量仍是 16 s"),
        BookValue("serial_state_byte_s", 16 * GiB, "16 GiB·s", derived=True),
        BookValue("parallel_state_byte_s", 10 * GiB, "10 GiB·s", derived=True),
    ),
)

AMDAHL = Calculator(
    name="agent.amdahl",
    title="Amdahl:加速首轮能省多少 · a local speed-up",
    ref=BookRef("3.2.3", "例题 3-2 · 练习 3-4"),
    params=(
        Param("total_s", "s", 76.510, "the whole task (code-agent trace: 76.510 s)", 0, 1e9, min_exclusive=True),
        Param("part_fraction", "", round(FIRST_ROUND_MODEL_S / TRACE_ELAPSED_S, 6),
              "share of the part you speed up (first round: 36.375 s of 76.510 s, about 47.5%)", 0, 1),
        Param("speedup", "×", 2.0, "how much faster that part gets (halved: 2)", 1, 1e9),
    ),
    outputs=(
        Output("part_s", "s", "", "T · f"),
        Output("rest_s", "s", "untouched by the speed-up", "T · (1 − f)"),
        Output("new_total_s", "s", "", "T(1 − f) + T·f / s"),
        Output("saved_fraction", "ratio", "", "f · (1 − 1/s)"),
        Output("overall_speedup", "×", "", "1 / (1 − f + f/s)"),
        Output("speedup_limit", "×", "even an infinitely fast part", "1 / (1 − f)"),
    ),
    compute=amdahl,
    book=(
        BookValue("saved_fraction", 0.238, "减半省约 23.8%", rel_tol=0.003),
        BookValue("rest_s", 40.1, "其余阶段仍约 40.1 s", rel_tol=0.0015),
    ),
)

BRANCHES = Calculator(
    name="agent.branch_state",
    title="分支共享前缀 · branch state",
    ref=BookRef("3.2.4", "图 3-13"),
    params=(
        Param("shared_prefix_tokens", "tokens", 4000, "H0: the shared prefix (示意)", 0, MAX_TOKENS, kind="int", illustrative=True),
        Param("branch_tokens", "tokens", (1200, 800, 1500), "h_i: tokens each branch adds (示意)", 0, MAX_TOKENS,
              kind="floats", illustrative=True, max_items=64),
        Param("kv_bytes_per_token", "bytes", float(QWEN3_8B_KV_BYTES_PER_TOKEN), "c_KV (Qwen3-8B: 144 KiB/token)", 1, 1e9),
    ),
    outputs=(
        Output("total_tokens", "tokens", "", "H0 + Σ h_i"),
        Output("state_bytes", "bytes", "branches resident at once", "c_KV · (H0 + Σ h_i)"),
        Output("unshared_state_bytes", "bytes", "if every branch kept its own copy of the prefix", "c_KV · (n·H0 + Σ h_i)"),
    ),
    compute=branch_state,
    check=_check_branches,
    note="长度为示意 · lengths are illustrative",
)

CALCULATORS = (EDIT, CRITICAL_PATH, AMDAHL, BRANCHES)
