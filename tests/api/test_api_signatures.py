"""loadlab's keyword functions are typed: inspect.signature (what help(), Jupyter's
completion and live-object IDEs read) lists every key of `lab simulate serving --help`
with the CLI's default and a Python type, built on first use, not by `import loadlab`."""
from __future__ import annotations

import inspect
import subprocess
import sys
from typing import Literal

import loadlab
from core.registry import get
from lab.cli.args import PARAM
from lab.cli.parser import build_parser

KW = inspect.Parameter.KEYWORD_ONLY


def _cli_keys() -> list[str]:
    sub = build_parser("simulate")._subparsers._group_actions[0].choices["simulate"]
    serving = sub._subparsers._group_actions[0].choices["serving"]
    return [a.dest[len(PARAM):] for a in serving._actions if a.dest.startswith(PARAM)]


def test_every_key_of_the_cli_is_a_typed_keyword_with_its_default():
    sig = inspect.signature(loadlab.simulate_serving)
    params = sig.parameters
    keys = _cli_keys()
    assert set(keys) <= set(params) and len(keys) > 100
    assert list(params)[0] == "config" and list(params)[-1] == "params"  # vLLM's names still go in **params
    assert params["params"].kind is inspect.Parameter.VAR_KEYWORD
    assert all(params[k].kind is KW for k in keys)
    for p in get("serving.replay").params:  # the CLI's defaults, lists for its comma lists
        assert params[p.name].default == (list(p.default) if isinstance(p.default, tuple) else p.default), p.name
    assert params["max_num_seqs"].annotation is int and params["max_num_seqs"].default == 64
    assert params["prefix_caching"].annotation is bool
    assert params["arrival"].annotation == Literal["even", "poisson", "gamma"]
    assert params["durations_s"].annotation == list[float] and params["durations_s"].default == [60.0, 60.0]
    assert params["trace"].annotation == str | None and params["trace"].default is None
    assert params["slo_ttft_ms"].annotation == float | None


def test_a_sweeps_keys_take_alternatives_and_its_own_come_first():
    params = inspect.signature(loadlab.sweep).parameters
    assert list(params)[:6] == ["out", "workers", "engine", "address", "force", "config"]
    assert params["max_num_seqs"].annotation == int | list | str
    assert "seeds" in params and list(params)[-1] == "params"


def test_the_signature_is_built_on_first_use_only():
    code = ("import sys, loadlab; print(any(m in sys.modules for m in ('loadlab.signatures', "
            "'core.serving.simulate_keys'))); import inspect; inspect.signature(loadlab.simulate_serving); "
            "print('loadlab.signatures' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.split() == ["False", "True"]
    from loadlab import simulate_serving  # the same function, signed, from either spelling

    assert simulate_serving is loadlab.simulate_serving and "simulate_serving" in dir(loadlab)
