"""`lab simulate rl`: an RL loop (rollout, reward, reference, update, weight sync) whose
rollout runs through the lab's serving engine (issue 16). params.py: the inputs;
lengths.py: output lengths, rewards, the keep rule; rollout.py: a step's batch through
the engine; stages.py: the other stages from core/training's calculators and the cards;
loop.py: the modes on one clock; summary.py: the report and the CSV rows. No Qt here.
"""
from core.rl.loop import LANES, Run, simulate
from core.rl.params import MODES, PARAMS, RLParams
from core.rl.summary import SUMMARY_KEYS, summarize

__all__ = ["LANES", "MODES", "PARAMS", "RLParams", "Run", "SUMMARY_KEYS", "simulate", "summarize"]
