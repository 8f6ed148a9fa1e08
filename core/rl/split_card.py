"""The Plan panel's RL split card (issue 16): a loop of `lab simulate rl` keys and a pool of
cards, swept over every split between rollout engines and trainer cards, as
`lab sweep rl pool_cards=N rollout_cards=…` runs it (core/rl/sweep.py). It is a deferred
card of core.sweep.plan_state.PlanState, so sessions, undo and ↺ reset carry it; the sweep
itself runs on the Plan panel's job runner (widgets/plan/rl_split_card.py).

The loop's keys start at the RL tab's starting values (core/rl/loop_card.py: the same short
loop), its pool at that loop's cards. pool_cards may name a few pools ("4,6,8"): one
`lab sweep rl` each, so that the fewest GPU-hours (a small pool kept busy) and the fastest
step (a large one) can be different splits; on one pool GPU-hours are the pool's cards
times the step time and the two are the same split. The window sweeps at most MAX_POOL
cards a pool and MAX_SPLITS splits in all (one point a split); `lab sweep rl` takes more.
"""
from __future__ import annotations

from dataclasses import replace

from core.registry import BookRef, Calculator, Param, ParamError
from core.rl.loop_card import MAX_STEPS, WINDOW_VALUES
from core.rl.params import PARAM_BY_NAME, RLParams
from core.rl.sweep import resolve_params, split_command

MAX_POOL = 32
MAX_POOLS = 4
MAX_SPLITS = 64
LOOP_NAMES = tuple(name for name, _ in WINDOW_VALUES if name not in ("rollout_replicas", "trainer_cards"))
_START = dict(WINDOW_VALUES)
START_POOL = _START["rollout_replicas"] + _START["trainer_cards"]  # the RL tab's loop, rollout_tp 1

POOL = Param("pool_cards", "", (float(START_POOL),), "cards split between the rollout engines and the trainer "
             "(a few pools: one sweep each)", 2, MAX_POOL, kind="floats", max_items=MAX_POOLS)


def check_split(values: dict) -> None:
    """The window's bounds, then the smallest split as `lab sweep rl` resolves it (one
    rollout engine, the rest the trainer's): ParamError naming the field."""
    if values["steps"] > MAX_STEPS:
        raise ParamError("steps", f"got {values['steps']}; valid: <= {MAX_STEPS} in the window "
                         "(lab sweep rl takes more)")
    tp, pools = values["rollout_tp"], values["pool_cards"]
    text = pools_text(pools)
    if any(not float(n).is_integer() for n in pools) or len(set(pools)) != len(pools):
        raise ParamError("pool_cards", f"got {text}; valid: distinct whole numbers of cards")
    if min(pools) <= tp:
        raise ParamError("pool_cards", f"got {text} with rollout_tp {tp}; valid: each > {tp} (one rollout engine "
                         "and at least one trainer card)")
    splits = sum((int(n) - 1) // tp for n in pools)
    if splits > MAX_SPLITS:
        raise ParamError("pool_cards", f"got {text}: {splits} splits; valid: at most {MAX_SPLITS} in the window "
                         "(lab sweep rl takes more)")
    raw = {k: str(v) for k, v in values.items() if k != "pool_cards"}
    resolve_params(dict(raw, pool_cards=str(int(min(pools))), rollout_cards=str(tp))).check()


def pools_text(pools) -> str:
    return ",".join(f"{n:g}" for n in pools)


def split_params(values, pool: int) -> RLParams:
    """The loop of pool's smallest split (one rollout engine); split_command names every split."""
    values = dict(values)
    values.pop("pool_cards")
    return RLParams(**values, rollout_replicas=1, trainer_cards=int(pool) - values["rollout_tp"])


def sweep_keys(values) -> list[dict[str, str]]:
    """The `lab sweep rl` keys of the card, one sweep a pool (in the card's order): the
    loop's keys not at their defaults, the pool and every split (1 to pool − 1 cards in
    whole rollout_tp engines)."""
    return [split_command(split_params(values, pool), max_replicas=MAX_POOL) for pool in values["pool_cards"]]


def command_texts(values) -> list[str]:
    return ["lab sweep rl " + " ".join(f"{k}={v}" for k, v in raw.items()) for raw in sweep_keys(values)]


def _calculator() -> Calculator:
    """Not a registered calculator: the Plan panel's RL split form (the label says the unit)."""
    loop = tuple(replace(PARAM_BY_NAME[name], default=_START[name], unit="") for name in LOOP_NAMES)
    tp = replace(PARAM_BY_NAME["rollout_tp"], unit="")
    return Calculator(name="plan.rl_split", title="强化学习划分扫描 · RL split sweep", ref=BookRef("3.5"),
                      params=(POOL, tp, *loop), outputs=(), compute=lambda **_: {},
                      check=check_split)


RL_SPLIT = _calculator()
