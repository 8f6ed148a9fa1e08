"""§3.2.4 图 3-14: workload shapes structure (DeepSeek V4.1 Flash's CED), and §3.1.2's
goodput (qualified tasks per second, under a quality check and a time limit) applied to the
measured code-agent runs of §3.2.3.

CED, as the book counts it (expert layers only): a decoder-only model of L layers sends
each of P prompt tokens through all L; V4.1's causal encoder-decoder sends the prompt
through the E encoder layers only, and re-feeds at most W of its last tokens into the
L − E decoder layers to build their sliding-window state (the decoder's global KV is
projected from the encoder's last layer). Output tokens go through all L layers in both.
With the book's L = 40, E = 20, W = 128: 40P against 20P + 20·min(P, 128).
"""
from __future__ import annotations

import numpy as np

from core.agents.trajectory import load_trajectory, trace_param
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

MAX_TOKENS = 10_000_000
MAX_LAYERS = 1000
COMPLETION = ("checks", "checks_and_alias")  # what counts as done (§3.2.3's two checks)


def ced(prompt_tokens: int, output_tokens: int, layers: int, encoder_layers: int, refeed_tokens: int) -> dict:
    decoder_layers = layers - encoder_layers
    dense_prompt = layers * prompt_tokens
    ced_prompt = encoder_layers * prompt_tokens + decoder_layers * min(prompt_tokens, refeed_tokens)
    out = layers * output_tokens  # the same in both: outputs pass every layer
    return {
        "decoder_only_prompt_layer_tokens": dense_prompt,
        "ced_prompt_layer_tokens": ced_prompt,
        "prompt_ratio": ced_prompt / dense_prompt,
        "output_layer_tokens": out,
        "task_ratio": (ced_prompt + out) / (dense_prompt + out),
        "limit_ratio": encoder_layers / layers,
    }


def _check_ced(values: dict) -> None:
    if values["encoder_layers"] > values["layers"]:
        raise ParamError("encoder_layers", f"got {values['encoder_layers']}; valid: 0..layers ({values['layers']})")


def ced_curve(layers: int, encoder_layers: int, refeed_tokens: int, points: int = 240) -> dict:
    """Expert-layer passes per prompt token against P (log-spaced 1 .. 2^17): L for the
    decoder-only model, E + (L − E)·min(P, W)/P for CED (L at P <= W, towards E beyond)."""
    p = np.unique(np.round(np.logspace(0, 17 * np.log10(2), points)))
    return {"prompt_tokens": p, "decoder_only": np.full_like(p, float(layers)),
            "ced": encoder_layers + (layers - encoder_layers) * np.minimum(p, refeed_tokens) / p}


CED = Calculator(
    name="agent.ced",
    title="图 3-14 · V4.1 Flash 的 CED · encoder-decoder expert work",
    ref=BookRef("3.2.4", "图 3-14"),
    params=(
        Param("prompt_tokens", "tokens", 8192, "P: prompt tokens not found in the prefix cache (示意)", 1, MAX_TOKENS,
              kind="int", illustrative=True),
        Param("output_tokens", "tokens", 256, "G: output tokens, through all layers in both (示意)", 0, MAX_TOKENS,
              kind="int", illustrative=True),
        Param("layers", "layers", 40, "expert layers of the whole model (V4.1 Flash: 20 + 20)", 1, MAX_LAYERS, kind="int"),
        Param("encoder_layers", "layers", 20, "of them in the causal encoder (V4.1 Flash: 20)", 0, MAX_LAYERS, kind="int"),
        Param("refeed_tokens", "tokens", 128, "prompt tail re-fed into the decoder for its SWA state (at most 128)",
              0, MAX_TOKENS, kind="int"),
    ),
    outputs=(
        Output("decoder_only_prompt_layer_tokens", "passes", "token passes through expert layers, decoder-only", "L·P"),
        Output("ced_prompt_layer_tokens", "passes", "encoder for all, decoder for the tail", "E·P + (L−E)·min(P, W)"),
        Output("prompt_ratio", "ratio", "CED's prompt work over the decoder-only model's",
               "(E·P + (L−E)·min(P,W)) / (L·P)"),
        Output("output_layer_tokens", "passes", "outputs pass every layer in both", "L·G"),
        Output("task_ratio", "ratio", "prompt and output together", "(CED prompt + L·G) / (L·P + L·G)"),
        Output("limit_ratio", "ratio", "long prompts: the prompt ratio tends to E / L", "E / L"),
    ),
    compute=ced,
    check=_check_ced,
    note="只比专家层 · expert layers only",  # P and G carry their own 示意 tags
    book=(
        BookValue("decoder_only_prompt_layer_tokens", 40 * 8192, "40P, P = 8,192", derived=True),
        BookValue("ced_prompt_layer_tokens", 20 * 8192 + 20 * 128, "20P + 20·min(P,128), P = 8,192", derived=True),
        BookValue("prompt_ratio", 1.0, "P ≤ 128: 40P = 20P + 20P", params={"prompt_tokens": 100}, derived=True),
        BookValue("limit_ratio", 0.5, "长输入:20P/40P → 一半", derived=True),
    ),
)


def goodput(trace: str, deadline_s: float, completion: str) -> dict:
    """One serial run of the task: it counts when its checks pass and it ends by the deadline.
    Without the run's elapsed time and checks (a CSV of rounds only) there is no verdict."""
    t = load_trajectory(trace)
    s = t.summary or {}
    task_s = s.get("elapsed_s")
    if task_s is None:
        return {"task_s": None, "passed": None, "on_time": None, "throughput_tasks_per_s": None,
                "goodput_tasks_per_s": None, "case_pass_rate": None}
    passed_cases = s["checks_passed"] if completion == "checks" else s["checks_passed_with_alias"]
    passed = passed_cases == s["checks_total"]
    on_time = task_s <= deadline_s
    return {
        "task_s": task_s, "passed": passed, "on_time": on_time,
        "throughput_tasks_per_s": 1 / task_s,
        "goodput_tasks_per_s": (1 / task_s) if passed and on_time else 0.0,
        "case_pass_rate": passed_cases / s["checks_total"],
    }


GOODPUT = Calculator(
    name="agent.goodput",
    title="有效吞吐 · goodput: qualified tasks per second",
    ref=BookRef("3.1.2", "有效吞吐"),  # the definition; the runs are §3.2.3's
    params=(
        trace_param("a measured run (思考开启 on / 关闭 off); a CSV of rounds has no checks, so no verdict"),
        Param("deadline_s", "s", 120.0, "time limit of one task (示意)", 0, 1e9, min_exclusive=True, illustrative=True),
        Param("completion", "", "checks", "what counts as done: the two checks, or also the no-alias check",
              kind="choice", choices=COMPLETION),
    ),
    outputs=(
        Output("task_s", "s", "the run's whole elapsed time"),
        Output("passed", "bool", "every case passes the chosen checks"),
        Output("on_time", "bool", "", "task_s <= deadline"),
        Output("throughput_tasks_per_s", "tasks/s", "tasks finished per second, good or not", "1 / task_s"),
        Output("goodput_tasks_per_s", "tasks/s", "only tasks that pass and meet the deadline count",
               "passed and on time: 1 / task_s, else 0"),
        Output("case_pass_rate", "ratio", "cases passing the chosen checks", "passed cases / 1013"),
    ),
    compute=goodput,
    book=(
        BookValue("goodput_tasks_per_s", 1 / 76.510, "思考开启:1013/1013 通过,76.510 s → 1 / 76.510 s",
                  rel_tol=1e-5, derived=True),
        BookValue("goodput_tasks_per_s", 0.0, "思考关闭:315/1013,没修好 → 0", params={"trace": "thinking_off"},
                  derived=True),
        BookValue("throughput_tasks_per_s", 1 / 13.803, "思考关闭更快:1 / 13.803 s(但不合格)",
                  params={"trace": "thinking_off"}, rel_tol=1e-4, derived=True),
        BookValue("goodput_tasks_per_s", 0.0, "加上无别名检查:710/1013 → 0", params={"completion": "checks_and_alias"},
                  derived=True),
    ),
)

CALCULATORS = (CED, GOODPUT)
