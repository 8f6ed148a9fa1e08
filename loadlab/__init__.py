"""Load Lab from Python: the `lab` command line's simulations as keyword functions whose
results are tables.

    >>> import loadlab
    >>> run = loadlab.simulate_serving(durations_s=20, rates_per_s=2, shares_long_input=0.5)
    >>> run.summary["completed"]
    40

- simulate_serving(**keys) -> ServingRun: .summary (dict: the book's names in seconds, vLLM
  bench serve's in ms), .requests, .series (vLLM's Prometheus names), .preemptions
  (pandas DataFrames when pandas is installed, else pyarrow Tables), .trace (Perfetto),
  .prometheus(), .to_parquet(folder), .save(folder) (the files of --out);
- sweep(**keys) -> SweepRun: .summary, .rows, .points (a table), .to_parquet(path);
- calibrate(results, **keys) -> Calibration: .summary, .coefficients, .save(profile.toml);
- calc(name, **params) -> CalcResult: .summary (scalar outputs), .outputs, .inputs;
- simulate_voice(**keys) -> VoiceRun: .summary, .turns (a table of every span of every turn).
Keys are the CLI's (our names or vLLM's, e.g. max_num_batched_tokens=token_budget), with its
defaults and checks: every refusal is a ParamError (a ValueError) whose .param names the
field and whose message gives the valid range, word for word the CLI's. No Qt here.
"""
from __future__ import annotations

from core.registry import ParamError
from loadlab import serving as _serving
from loadlab import sweeping as _sweeping
from loadlab.calc import CalcResult, calc
from loadlab.calibration import Calibration, calibrate
from loadlab.serving import ServingRun
from loadlab.sweeping import SweepRun
from loadlab.voice import VoiceRun, simulate_voice

__all__ = ["CalcResult", "Calibration", "ParamError", "ServingRun", "SweepRun", "VoiceRun", "calc", "calibrate",
           "simulate_serving", "simulate_voice", "sweep"]
# Given their signatures (every key of lab simulate serving, its default and type:
# loadlab/signatures.py) on first use.
_KEYED = {"simulate_serving": _serving, "sweep": _sweeping}


def __getattr__(name: str):
    if name not in _KEYED:
        raise AttributeError(f"module 'loadlab' has no attribute {name!r}")
    from loadlab.signatures import keyed

    fn = keyed(getattr(_KEYED[name], name), alternatives=name == "sweep")
    globals()[name] = fn
    return fn


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
