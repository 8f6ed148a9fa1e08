"""`lab calc NAME` imports what NAME needs, not all of core (issue 14: 0.87 s of CPU for one
formula): its parser alone, the one module that declares it, no sweep, observe or serving
engine code; the calculator is the object the whole registry holds, and `lab list` still
lists every calculator in the registry's order. Imports are read in a fresh interpreter."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import core.registry as reg

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import contextlib, io, json, sys
from lab.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def _lab(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _calculator_modules(modules: list[str]) -> set[str]:
    return set(modules) & set(reg.calculator_modules())


def test_calc_of_a_formula_without_numpy_imports_its_module_alone():
    got = _lab("calc", "cost.success", "--json")
    assert got["code"] == 0 and json.loads(got["out"])  # it ran
    assert _calculator_modules(got["modules"]) == {"core.request.cost"}
    for heavy in ("numpy", "numba", "core.serving.replay", "core.serving.engine", "core.sweep.executors",
                  "core.sweep.run", "lab.cli.observe", "lab.cli.calibrate", "concurrent.futures"):
        assert heavy not in got["modules"], heavy


def test_calc_request_split_imports_its_topic_only():
    got = _lab("calc", "request.split", "requests=4", "--json")
    assert got["code"] == 0
    assert _calculator_modules(got["modules"]) == {"core.request.calculator"}
    assert "core.serving.replay" not in got["modules"] and "core.sweep.run" not in got["modules"]


def test_list_is_the_whole_registry_in_its_order():
    got = _lab("list", "--json")
    assert [c["name"] for c in json.loads(got["out"])] == reg.registry().names()


def test_calc_help_still_lists_every_calculator():
    got = _lab("calc", "--help")
    assert all(name in got["out"] for name in reg.registry().names())


def test_an_unknown_calculator_is_refused_as_before(capsys):
    from lab.cli import main

    assert main(["calc", "request.splitt"]) == 2
    assert "no calculator 'request.splitt'; valid: see `lab list`" in capsys.readouterr().err


@pytest.mark.parametrize("name", reg.registry().names())
def test_get_before_the_registry_is_the_registry_s_object(monkeypatch, name):
    whole = reg.registry()
    monkeypatch.setattr(reg, "_REGISTRY", None)  # as in a fresh `lab calc NAME`
    assert reg.get(name) is whole.get(name)
    assert reg._REGISTRY is None  # found without building the registry


VERSION_PROBE = """
import contextlib, io, json, sys
from lab.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):
    main(sys.argv[1:])
print(json.dumps({"out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_build_no_command_s_keys(argv):
    """`lab --version` and `lab --help` list the commands; observe's and calibrate's key options
    (lab simulate serving's, with the serving and observe code behind them) wait for their own
    command, so the start is as light as before they took keys."""
    done = subprocess.run([sys.executable, "-c", VERSION_PROBE, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["out"].startswith("lab ") or "observe" in got["out"]
    for heavy in ("core.serving.simulate_keys", "core.serving.engine", "core.observe.schedule",
                  "core.serving.traces"):
        assert heavy not in got["modules"], heavy
