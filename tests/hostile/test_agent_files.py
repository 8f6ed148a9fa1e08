"""Hostile files handed to the agent calculators as trace=: JSON where a trajectory CSV is
expected, fields past the csv module's limit, an unclosed quote, a NUL. Each is refused
with the one ParamError naming `trace` and the valid form, within the corpus's bound
(in-process: tests/hostile/bounds.py)."""
from __future__ import annotations

import json

import pytest

from core.registry import ParamError, get
from tests.hostile.bounds import bounded

HEADER = "input_tokens,cached_tokens,output_tokens,model_wall_s,tool_wall_s\n"
CALCULATORS = ("agent.goodput", "agent.replay", "agent.round", "agent.trajectory")

# name -> (file name, its text)
FILES = {
    "a JSON object with one huge field": ("huge.json", json.dumps({"x": "a" * 200_000})),
    "a JSON list with one huge field": ("list.json", json.dumps([{"input_tokens": 1, "note": "b" * 300_000}])),
    "a CSV value of a megabyte": ("wide.csv", HEADER + "1" * 1_000_000 + ",0,1,0.1,0.1\n"),
    "a quote never closed": ("quote.csv", HEADER + '10,"0,1,0.1,0.1\n' + "9,0,1,0.1,0.1\n" * 20_000),
    "a NUL in a value": ("nul.csv", HEADER + "10,0\x00,1,0.1,0.1\n"),
}


@pytest.mark.parametrize("calc", CALCULATORS)
@pytest.mark.parametrize("name", FILES)
def test_an_agent_calculator_refuses_the_file(tmp_path, calc, name):
    filename, text = FILES[name]
    path = tmp_path / filename
    path.write_text(text, encoding="utf-8")
    with bounded(), pytest.raises(ParamError) as err:
        get(calc).run({"trace": str(path)})
    assert err.value.param == "trace"
    assert "valid" in err.value.message and str(path) in err.value.message
