"""`lab simulate rl`: an RL loop (rollout, reward, reference, update, weight sync) whose
rollout runs through the lab's serving engine (issue 16). params.py: the inputs;
lengths.py: output lengths, rewards, the keep rule; rollout.py: a step's batch through
the engine; stages.py: the other stages from core/training's calculators and the cards;
loop.py: the modes on one clock; summary.py: the report and the CSV rows. No Qt here.

The names below load on first use, so a module that only needs the inputs (the Plan
panel's state, core/rl/split_card.py) does not import the loop and the engine.
"""
import importlib

_NAMES = {"LANES": "core.rl.loop", "Run": "core.rl.loop", "simulate": "core.rl.loop",
          "MODES": "core.rl.params", "PARAMS": "core.rl.params", "RLParams": "core.rl.params",
          "SUMMARY_KEYS": "core.rl.summary", "summarize": "core.rl.summary"}
__all__ = ["LANES", "MODES", "PARAMS", "RLParams", "Run", "SUMMARY_KEYS", "simulate", "summarize"]


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'core.rl' has no attribute {name!r}")
