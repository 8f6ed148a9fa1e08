"""The rl kind of core.sweep (RL: `lab sweep rl KEY=v1,v2 ...`): a point is exactly
`lab simulate rl` for its keys, its row that run's --json summary plus the sweep's columns
(point, setting, seed, param.NAME for every resolved input, error when refused).

The rollout/trainer split of a fixed pool is two keys of its own: pool_cards=N (fixed) and
rollout_cards=a,b,c (swept; whole rollout_tp engines), the trainer taking the rest
(trainer_cards = pool_cards − rollout_cards), so a grid over rollout_cards is the split:

    lab sweep rl pool_cards=64 rollout_cards=8:56:8 mode=one_step --out DIR

summarize(spec, rows) adds to summary.json the split with the least GPU-hours per 1,000
steps and the fastest one. No Qt here.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, fields
from typing import Any

from core.cancel import NEVER, Cancelled, CancelToken
from core.registry import ParamError
from core.rl.params import PARAM_BY_NAME, RLParams
from core.sweep.points import file_digest

SPLIT_KEYS = ("pool_cards", "rollout_cards")
FIXED_KEYS = ("pool_cards", "lengths_file")
VALUE_KINDS = {"int": "int", "float": "number"}


class RLKind:
    name = "rl"
    evaluate: Any  # evaluate_point, set below (workers unpickle it by name)

    def value_kind(self, key: str) -> str | None:
        if key in SPLIT_KEYS:
            return "int"
        p = PARAM_BY_NAME.get(key)
        return None if p is None else VALUE_KINDS.get(p.kind, "text")

    def unit(self, key: str) -> str | None:
        p = PARAM_BY_NAME.get(key)
        return "cards" if key in SPLIT_KEYS else (None if p is None else p.unit)

    def valid_keys(self) -> list[str]:
        return list(PARAM_BY_NAME) + list(SPLIT_KEYS)

    def fixed_keys(self) -> tuple[str, ...]:
        return FIXED_KEYS

    def check_search(self, fixed: dict) -> None:
        raise ParamError("search", "lab sweep rl has no capacity search; valid: a grid of lab simulate rl keys "
                                   "(pool_cards= and rollout_cards= for the split)")

    def resolve(self, raw: dict) -> dict:
        params = resolve_params(raw)
        values = asdict(params)
        extras = {}
        if params.lengths_file is not None:  # the lengths count by content, not by name
            try:
                extras["lengths_sha256"] = file_digest(params.lengths_file)
            except OSError as err:
                raise ParamError("lengths_file", f"cannot read {params.lengths_file!r} ({err.strerror}); valid: a "
                                 "readable file of output lengths") from None
        return {"values": values, "extras": extras}

    def load_shared(self, fixed: dict) -> None:
        return None

    def summarize(self, spec, rows: list[dict]) -> dict:
        """The split with the least GPU-hours per 1,000 steps, and the fastest one."""
        ok = [r for r in rows if not r.get("error") and _finite(r.get("gpu_hours_per_1000_steps"))]
        if not ok:
            return {"rl_best": None, "rl_fastest": None}
        axes = [k for k, _ in spec.axes]

        def item(r):
            return {"values": {k: r.get(k if k in SPLIT_KEYS else f"param.{k}") for k in axes},
                    "rollout_cards": r["rollout_cards"],
                    "trainer_cards": r["trainer_cards"], "step_time_s": r["step_time_s"],
                    "gpu_hours_per_1000_steps": r["gpu_hours_per_1000_steps"],
                    "cost_per_1000_steps": r.get("cost_per_1000_steps")}

        return {"rl_best": item(min(ok, key=lambda r: r["gpu_hours_per_1000_steps"])),
                "rl_fastest": item(min(ok, key=lambda r: r["step_time_s"]))}


def resolve_params(raw: dict) -> RLParams:
    """The point's RLParams (ParamError naming the key): the split keys become
    rollout_replicas and trainer_cards."""
    raw = dict(raw)
    pool, rollout = raw.pop("pool_cards", None), raw.pop("rollout_cards", None)
    if (pool is None) != (rollout is None):
        missing = "rollout_cards" if rollout is None else "pool_cards"
        raise ParamError(missing, "the split needs both; valid: pool_cards=N (fixed) and rollout_cards=a,b,... "
                                  "(the trainer takes the rest)")
    if pool is not None:
        for key in ("rollout_replicas", "trainer_cards", "placement"):
            if key in raw:
                raise ParamError(key, "set by the split; valid: leave it out with pool_cards= and rollout_cards=")
        pool_n, roll_n = _whole("pool_cards", pool), _whole("rollout_cards", rollout)
        tp = PARAM_BY_NAME["rollout_tp"].parse(raw.get("rollout_tp", "1"))
        if roll_n % tp or not 0 < roll_n < pool_n:
            raise ParamError("rollout_cards", f"got {roll_n} of pool_cards={pool_n} (rollout_tp {tp}); valid: a "
                             f"multiple of rollout_tp in [{tp}, {pool_n - 1}] (the trainer keeps at least one card)")
        raw["rollout_replicas"], raw["trainer_cards"] = str(roll_n // tp), str(pool_n - roll_n)
    return RLParams.from_raw(raw)


def _whole(key: str, text) -> int:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ParamError(key, f"got {text!r}; valid: a whole number of cards >= 1") from None
    if not value.is_integer() or value < 1 or value > 1_000_000:
        raise ParamError(key, f"got {text!r}; valid: a whole number of cards in [1, 1000000]")
    return int(value)


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def evaluate_point(shared, payload: dict) -> dict:
    """One point's row (a worker process or a Ray task); a refused point is a row with its error."""
    from core.rl.loop import simulate
    from core.rl.summary import summarize

    row: dict = {"point": payload["key"], "setting": payload["setting"], "seed": payload["seed"]}
    values = payload["params"]["values"]
    row.update({f"param.{k}": _cell(v) for k, v in values.items()})
    row.update({f"param.{k}": _cell(v) for k, v in payload["params"]["extras"].items()})
    try:
        report = summarize(simulate(RLParams(**values)))
    except ParamError as err:
        return dict(row, error=str(err))
    row.update({k: _cell(v) for k, v in report.items()})
    return row


def split_command(p: RLParams, max_replicas: int) -> dict[str, str]:
    """The `lab sweep rl` keys of p's loop with its pool split every way: pool_cards = p's
    cards, rollout_cards = 1..max_replicas engines of rollout_tp (the trainer keeping >= 1).
    Keys at their defaults are left out."""
    pool = p.rollout_replicas * p.rollout_tp + p.trainer_cards
    top = min(max_replicas, (pool - 1) // p.rollout_tp)
    raw = {f.name: _text(getattr(p, f.name)) for f in fields(p)
           if getattr(p, f.name) != f.default and f.name not in ("rollout_replicas", "trainer_cards", "placement")}
    cards = [str(r * p.rollout_tp) for r in range(1, top + 1)]
    return dict(raw, pool_cards=str(pool), rollout_cards=",".join(cards))


def split_sweep(p: RLParams, max_replicas: int, cancel: CancelToken = NEVER) -> dict:
    """split_command's sweep run here, point after point (core.sweep's InProcess): its rows
    by rollout cards, the best split and the command that runs the same sweep."""
    from core.sweep.executors import InProcess
    from core.sweep.run import parse_sweep, run_sweep

    raw = split_command(p, max_replicas)
    if "," not in raw["rollout_cards"]:  # one split only: nothing to compare (parse_sweep needs >= 2 for an axis)
        rows = [evaluate_point(None, {"key": "", "setting": "", "seed": None,
                                      "params": RL.resolve(raw)})]
        best = RL.summarize(_OneAxis(), rows)["rl_best"]
    else:
        rows = []
        summary = run_sweep(parse_sweep("rl", raw), None, InProcess(), on_row=rows.append, cancel=cancel)
        if summary["cancelled"]:
            raise Cancelled()
        best = summary["rl_best"]
    rows.sort(key=lambda r: r.get("rollout_cards", 0))
    command = "lab sweep rl " + " ".join(f"{k}={v}" for k, v in raw.items()) + " --out DIR"
    return {"rows": rows, "best": best, "command": command, "pool_cards": int(raw["pool_cards"])}


class _OneAxis:
    axes: list = []


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _cell(value):
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list, tuple)) else value


RL = RLKind()
RL.evaluate = evaluate_point
