"""The Plan panel's RL split card (issue 16): a loop of `lab simulate rl` keys and a pool of
cards, swept over every split between rollout engines and trainer cards, as
`lab sweep rl pool_cards=N rollout_cards=…` runs it (core/rl/sweep.py). It is a deferred
card of core.sweep.plan_state.PlanState, so sessions, undo and ↺ reset carry it; the sweep
itself runs on the Plan panel's job runner (widgets/plan/rl_split_card.py).

The loop's keys start at the RL tab's starting values (core/rl/loop_card.py: the same short
loop), its pool at that loop's cards. The window sweeps at most MAX_POOL cards (one point a
split); `lab sweep rl` takes more.
"""
from __future__ import annotations

from dataclasses import replace

from core.registry import BookRef, Calculator, Param, ParamError
from core.rl.loop_card import MAX_STEPS, WINDOW_VALUES
from core.rl.params import PARAM_BY_NAME, RLParams
from core.rl.sweep import resolve_params, split_command

MAX_POOL = 32
LOOP_NAMES = tuple(name for name, _ in WINDOW_VALUES if name not in ("rollout_replicas", "trainer_cards"))
_START = dict(WINDOW_VALUES)
START_POOL = _START["rollout_replicas"] + _START["trainer_cards"]  # the RL tab's loop, rollout_tp 1

POOL = Param("pool_cards", "", START_POOL, "cards split between the rollout engines and the trainer", 2, MAX_POOL,
             kind="int")


def check_split(values: dict) -> None:
    """The window's bounds, then the smallest split as `lab sweep rl` resolves it (one
    rollout engine, the rest the trainer's): ParamError naming the field."""
    if values["steps"] > MAX_STEPS:
        raise ParamError("steps", f"got {values['steps']}; valid: <= {MAX_STEPS} in the window "
                         "(lab sweep rl takes more)")
    tp, pool = values["rollout_tp"], values["pool_cards"]
    if pool <= tp:
        raise ParamError("pool_cards", f"got {pool} with rollout_tp {tp}; valid: > {tp} (one rollout engine and "
                         "at least one trainer card)")
    raw = {k: str(v) for k, v in values.items() if k != "pool_cards"}
    resolve_params(dict(raw, pool_cards=str(pool), rollout_cards=str(tp))).check()


def split_params(values) -> RLParams:
    """The loop of the smallest split (one rollout engine); split_command names every split."""
    values = dict(values)
    pool = values.pop("pool_cards")
    return RLParams(**values, rollout_replicas=1, trainer_cards=pool - values["rollout_tp"])


def sweep_keys(values) -> dict[str, str]:
    """The `lab sweep rl` keys of the card: the loop's keys not at their defaults, the pool
    and every split (1 to pool − 1 cards in whole rollout_tp engines)."""
    return split_command(split_params(values), max_replicas=MAX_POOL)


def command_text(values) -> str:
    return "lab sweep rl " + " ".join(f"{k}={v}" for k, v in sweep_keys(values).items())


def _calculator() -> Calculator:
    """Not a registered calculator: the Plan panel's RL split form (the label says the unit)."""
    loop = tuple(replace(PARAM_BY_NAME[name], default=_START[name], unit="") for name in LOOP_NAMES)
    tp = replace(PARAM_BY_NAME["rollout_tp"], unit="")
    return Calculator(name="plan.rl_split", title="强化学习划分扫描 · RL split sweep", ref=BookRef("3.5"),
                      params=(POOL, tp, *loop), outputs=(), compute=lambda **_: {},
                      check=check_split)


RL_SPLIT = _calculator()
