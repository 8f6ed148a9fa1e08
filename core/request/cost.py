"""§3.1.2 and §3.2.2: cost per success. Every attempt, failed or not, goes in the numerator;
only successes in the denominator. With zero successes there is no success cost at all."""
from __future__ import annotations

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

# cost.compare divides costs by success rates and one method's cost per success by the
# other's: with both at least these floors every output stays finite over the whole range.
MIN_COST = 1e-9
MIN_SUCCESS_RATE = 1e-9


def success(total_cost: float, successes: int, attempts: int) -> dict:
    failures = attempts - successes
    return {
        "total_cost": total_cost,
        "failures": failures,
        # Zero successes: report consumption and failures only, never 0 or inf.
        "cost_per_success": total_cost / successes if successes > 0 else None,
    }


def _check_success(values: dict) -> None:
    if values["successes"] > values["attempts"]:
        raise ParamError("successes", f"got {values['successes']}; valid: 0..attempts ({values['attempts']})")


def compare(c1: float, p1: float, c2: float, p2: float) -> dict:
    per_success_1 = c1 / p1
    per_success_2 = c2 / p2
    return {
        "cost_per_success_1": per_success_1,
        "cost_per_success_2": per_success_2,
        "ratio_2_to_1": (c2 / c1) * (p1 / p2),
        # Method 2 is no dearer once p2/p1 >= c2/c1.
        "break_even_p2": p1 * c2 / c1,
    }


SUCCESS = Calculator(
    name="cost.success",
    title="成功任务成本 · cost per success",
    ref=BookRef("3.2.2", "图 3-9"),  # the zero-success rule is 3.1.2's 练习 3-2 后半; the figure is 3.2.2's
    params=(
        Param("total_cost", "cost", 100.0, "cost of every attempt: model, tools, environment (图 3-9: 100 attempts × 1 unit)", 0, 1e15),
        Param("successes", "tasks", 50, "attempts that passed the check (旧方法 50%)", 0, 1e12, kind="int"),
        Param("attempts", "tasks", 100, "all attempts (图 3-9: 100)", 1, 1e12, kind="int"),
    ),
    outputs=(
        Output("cost_per_success", "cost", "absent when nothing succeeded", "C_total / successes"),
        Output("total_cost", "cost", "what was consumed", "Σ attempts"),
        Output("failures", "tasks", "", "attempts − successes"),
    ),
    compute=success,
    check=_check_success,
    book=(
        BookValue("cost_per_success", 2.0, "1 单位 / 50% = 2"),
        BookValue("cost_per_success", 2.5, "2 单位 / 80% = 2.5", params={"total_cost": 200, "successes": 80}),
    ),
)

COMPARE = Calculator(
    name="cost.compare",
    title="多花计算换正确率,值不值 · compare two methods",
    ref=BookRef("3.2.2", "图 3-9 · 练习 3-3"),
    params=(
        Param("c1", "cost", 1.0, "method 1: cost per attempt (练习 3-3: 1 unit)", MIN_COST, 1e15),
        Param("p1", "", 0.5, "method 1: success rate (练习 3-3: 50%)", MIN_SUCCESS_RATE, 1),
        Param("c2", "cost", 2.0, "method 2: cost per attempt (练习 3-3: 2 units)", MIN_COST, 1e15),
        Param("p2", "", 0.8, "method 2: success rate (练习 3-3: 80%)", MIN_SUCCESS_RATE, 1),
    ),
    outputs=(
        Output("cost_per_success_1", "cost", "", "c1 / p1"),
        Output("cost_per_success_2", "cost", "", "c2 / p2"),
        Output("ratio_2_to_1", "ratio", "> 1: method 2 costs more per success", "(c2/p2) / (c1/p1)"),
        Output("break_even_p2", "", "method 2 is no dearer once p2 reaches this (may exceed 1: never)", "p1 · c2 / c1"),
    ),
    compute=compare,
    book=(
        BookValue("cost_per_success_1", 2.0, "1 / 0.5 = 2", derived=True),
        BookValue("cost_per_success_2", 2.5, "2 / 0.8 = 2.5", derived=True),
        BookValue("ratio_2_to_1", 1.25, "0.1 × 20 × 0.5 / 0.8 = 1.25"),
        BookValue("break_even_p2", 0.75, "降到 1.5 单位:至少 75%", params={"c2": 1.5}, derived=True),
    ),
)

CALCULATORS = (SUCCESS, COMPARE)
