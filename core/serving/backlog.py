"""§3.1.3 例题 3-1 and 练习 3-2: a fluid backlog of decode steps.

Q_{k+1} = max(0, Q_k + A_k − μ_k Δt): decode work arrives with its requests (each brings
G − 1 steps), the cards take μ steps per second, and idle capacity cannot be stored for
later. Over a burst of τ seconds at demand λ_w the backlog grows by (λ_w − μ)τ and then
drains in (λ_w − μ)τ / μ.

The work is bounded by the arrivals (samples every dt over the windows, at most
MAX_SAMPLES / 4); the drain after them is a straight line in closed form, so slow cards
(a drain of years) cost no more than fast ones.
"""
from __future__ import annotations

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.serving.decode_rate import BOOK_STEPS_PER_S_PER_CARD
from core.serving.mix import LONG_INPUT, LONG_OUTPUT, MAX_TOKENS

MAX_SAMPLES = 2_000_000

# Presets of the book. Each maps parameter names to values; the panel and the CLI share
# them. ① 均匀混合, ② 前 9:1 后 1:9 (例题 3-1), ③④ 练习 3-2: the second minute's mix for
# only 30 s, decode on two or three cards, empty queue at the start.
PRESETS: dict[str, dict] = {
    "uniform": {"label": "① 均匀混合 1:1 · 2 卡", "durations_s": (60.0, 60.0), "rates_per_s": (4.0, 4.0),
                "shares_long_input": (0.5, 0.5), "cards": 2},
    "shift": {"label": "② 前 9:1 后 1:9 · 2 卡", "durations_s": (60.0, 60.0), "rates_per_s": (4.0, 4.0),
              "shares_long_input": (0.9, 0.1), "cards": 2},
    "burst_2cards": {"label": "③ 30 s 突发 (1:9) · 2 卡", "durations_s": (30.0,), "rates_per_s": (4.0,),
                     "shares_long_input": (0.1,), "cards": 2},
    "burst_3cards": {"label": "④ 30 s 突发 (1:9) · 3 卡", "durations_s": (30.0,), "rates_per_s": (4.0,),
                     "shares_long_input": (0.1,), "cards": 3},
}


def preset_params(key: str) -> dict:
    """The parameter overrides of a preset (without its label)."""
    return {k: v for k, v in PRESETS[key].items() if k != "label"}


def matching_preset(values) -> str:
    """The key of the preset these backlog inputs are, or "" (custom)."""
    for key in PRESETS:
        if all(tuple(values[k]) == tuple(v) if isinstance(v, tuple) else values[k] == v
               for k, v in preset_params(key).items()):
            return key
    return ""


def window_demand(rates_per_s, shares_long_input, long_input_out_tokens, long_output_out_tokens) -> np.ndarray:
    """Decode steps per second each window brings: λ · (s · (G₁ − 1) + (1 − s) · (G₂ − 1))."""
    rates = np.asarray(rates_per_s, dtype=float)
    shares = np.asarray(shares_long_input, dtype=float)
    return rates * (shares * (long_input_out_tokens - 1) + (1 - shares) * (long_output_out_tokens - 1))


def lindley(arrivals: np.ndarray, served_per_slot: float) -> np.ndarray:
    """Q_k for k = 0..n with Q_0 = 0 and Q_{k+1} = max(0, Q_k + A_k − c), all at once.

    The recursion's solution is Q_k = S_k − min_{j<=k} S_j with S the running sum of
    A − c (S_0 = 0), so it vectorises.
    """
    s = np.concatenate([[0.0], np.cumsum(arrivals - served_per_slot)])
    return s - np.minimum.accumulate(s)


def backlog(durations_s, rates_per_s, shares_long_input, long_input_out_tokens, long_output_out_tokens,
            cards, steps_per_s_per_card, dt_s) -> dict:
    demand = window_demand(rates_per_s, shares_long_input, long_input_out_tokens, long_output_out_tokens)
    edges = np.concatenate([[0.0], np.cumsum(durations_s)])
    end = float(edges[-1])
    mu = cards * steps_per_s_per_card

    # Exact end-of-arrivals backlog and peak from the piecewise-linear fluid: within a
    # window Q moves at slope (d − μ), clipped at 0, so extremes sit at window edges.
    queue = [0.0]
    for d, dur in zip(demand, durations_s):
        queue.append(max(0.0, queue[-1] + (d - mu) * dur))
    q_edges = np.asarray(queue)
    k_peak = int(np.argmax(q_edges))
    q_end = float(q_edges[-1])
    drain = q_end / mu

    # The sampled curve: the book's recursion every dt while requests arrive. Steps
    # arriving in [t_k, t_k + dt) come from the cumulative demand, a line per window.
    n = max(1, int(np.ceil(end / dt_s)))
    t = np.arange(n + 1) * dt_s
    cumulative = np.concatenate([[0.0], np.cumsum(demand * np.asarray(durations_s, dtype=float))])
    arrivals = np.diff(np.interp(t, edges, cumulative))
    q = lindley(arrivals, mu * dt_s)
    demand_series = np.concatenate([arrivals / dt_s, [0.0]])
    # After the arrivals the backlog only drains, at μ: a straight line to zero, so its
    # samples are two points however slow the cards are (bounded work for any μ in range).
    horizon = end + drain + max(0.1 * (end + drain), dt_s)
    if not np.isfinite(horizon):
        raise ParamError("steps_per_s_per_card", f"got {steps_per_s_per_card:g}: the backlog of {q_end:.3g} steps "
                         "would take longer to drain than a float can hold; valid: a larger μ per card")
    tail_t, tail_q = [], []
    t_last, q_last = float(t[-1]), float(q[-1])
    if q_last > 0:
        tail_t.append(t_last + q_last / mu)
        tail_q.append(0.0)
    if horizon > (tail_t[-1] if tail_t else t_last):
        tail_t.append(horizon)
        tail_q.append(0.0)
    t = np.concatenate([t, tail_t])
    q = np.concatenate([q, tail_q])
    demand_series = np.concatenate([demand_series, np.zeros(len(tail_t))])

    return {
        "peak_backlog_steps": float(q_edges[k_peak]),
        "peak_at_s": float(edges[k_peak]),
        "backlog_at_end_of_arrivals": q_end,
        "drain_s": drain,
        "capacity_steps_per_s": mu,
        "window_demand_steps_per_s": [float(d) for d in demand],
        "t_s": t.tolist(),
        "backlog_steps": q.tolist(),
        "demand_steps_per_s": demand_series.tolist(),
    }


def _check(values: dict) -> None:
    n = len(values["durations_s"])
    for name in ("rates_per_s", "shares_long_input"):
        if len(values[name]) != n:
            raise ParamError(name, f"got {len(values[name])} values for {n} windows; valid: one per window (as many as durations_s)")
    for share in values["shares_long_input"]:
        if not 0 <= share <= 1:
            raise ParamError("shares_long_input", f"got {share:g}; valid: each in [0, 1]")
    horizon = sum(values["durations_s"])
    if horizon / values["dt_s"] > MAX_SAMPLES / 4:
        raise ParamError("dt_s", f"got {values['dt_s']:g} s for {horizon:g} s of arrivals; valid: >= {4 * horizon / MAX_SAMPLES:g} s")


BACKLOG = Calculator(
    name="serving.backlog",
    title="空闲的算力存不起来 · decode backlog over arrival windows",
    ref=BookRef("3.1.3", "例题 3-1 · 练习 3-2"),
    params=(
        Param("durations_s", "s", (60.0, 60.0), "length of each arrival window (例题 3-1: two minutes)", 0, 1e7, kind="floats", min_exclusive=True, max_items=1000),
        Param("rates_per_s", "1/s", (4.0, 4.0), "requests per second in each window (例题 3-1: 4)", 0, 1e6, kind="floats", max_items=1000),
        Param("shares_long_input", "ratio", (0.9, 0.1), "share of long-input requests in each window (②: 9:1 then 1:9)", 0, 1, kind="floats", max_items=1000),
        Param("long_input_out_tokens", "tokens", LONG_INPUT.output_tokens, "long-input class: output tokens (256)", 1, MAX_TOKENS, kind="int"),
        Param("long_output_out_tokens", "tokens", LONG_OUTPUT.output_tokens, "long-output class: output tokens (2,048)", 1, MAX_TOKENS, kind="int"),
        Param("cards", "cards", 2, "cards doing decode (例题 3-1: 2; 练习 3-2: 2 or 3)", 1, 100_000, kind="int"),
        Param("steps_per_s_per_card", "steps/s", BOOK_STEPS_PER_S_PER_CARD, "μ per card (书中取值 2,795.66; serving.decode_rate)", 0, 1e9, min_exclusive=True, label="μ/卡"),
        Param("dt_s", "s", 0.1, "Δt of the recursion's samples", 1e-4, 60),
    ),
    outputs=(
        Output("peak_backlog_steps", "steps", "largest backlog of decode steps", "max_k Q_k"),
        Output("peak_at_s", "s", "when the backlog peaks", "argmax_k Q_k"),
        Output("backlog_at_end_of_arrivals", "steps", "backlog when the last window ends (the book prints 112,792.8 truncated: 112,792)", "Σ_w (λ_w − μ)τ_w, clipped at 0"),
        Output("drain_s", "s", "time to clear it after arrivals stop", "Q_end / μ"),
        Output("capacity_steps_per_s", "steps/s", "μ of all cards", "cards · μ/卡"),
        Output("window_demand_steps_per_s", "steps/s", "decode steps per second each window brings", "λ · (s·(G₁−1) + (1−s)·(G₂−1))", kind="series"),
        Output("t_s", "s", "sample times", "k · Δt", kind="series"),
        Output("backlog_steps", "steps", "the backlog curve", "Q_{k+1} = max(0, Q_k + A_k − μΔt)", kind="series"),
        Output("demand_steps_per_s", "steps/s", "arriving decode steps per second", "A_k / Δt", kind="series"),
    ),
    compute=backlog,
    check=_check,
    book=(
        BookValue("backlog_at_end_of_arrivals", 112792.8, "后一分钟仍积压 112,792 步", rel_tol=1e-5),
        BookValue("peak_backlog_steps", 112792.8, "积压 11 万步 decode 工作", rel_tol=1e-5),
        BookValue("drain_s", 112792.8 / 5591.32, "排空 (λw−μ)τ/μ", rel_tol=1e-6, derived=True),
        BookValue("peak_backlog_steps", 0.0, "均匀混合:处理能力绰绰有余", params=preset_params("uniform"), abs_tol=1e-9),
        BookValue("peak_backlog_steps", 56396.4, "练习 3-2 两卡:(7,471.2 − 5,591.32) × 30", params=preset_params("burst_2cards"), rel_tol=1e-6, derived=True),
        BookValue("drain_s", 56396.4 / 5591.32, "练习 3-2 两卡排空", params=preset_params("burst_2cards"), rel_tol=1e-6, derived=True),
        BookValue("peak_backlog_steps", 0.0, "练习 3-2 三卡:8,386.98 > 7,471.2,不积压", params=preset_params("burst_3cards"), abs_tol=1e-9, derived=True),
        BookValue("drain_s", 0.0, "练习 3-2 三卡排空", params=preset_params("burst_3cards"), abs_tol=1e-9, derived=True),
    ),
)

CALCULATORS = (BACKLOG,)
