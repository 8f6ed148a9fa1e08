"""The step log's one-off costs (core/calibrate/step_log.py): which logged steps the engine
started after waiting for work (`woke`), which ran a token count for the first time
(`first_size`, with the sizes a `# load-lab: sizes run before:` line lists), and their
price when the step-time model has coef_wake_s / coef_shape_s (nothing added without)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from core.calibrate.step_log import WAKE_GAP_MS, StepLog
from core.observe.steps import lab_cost
from core.serving.step_basis import BasisCost

LINE = ("(APIServer pid=1) INFO 12-01 19:35:{s:06.3f} [loggers.py:199] Engine 000: Iteration({i}): "
        "{cr} context requests, {ct} context tokens, {gr} generation requests, {gr} generation tokens, "
        "iteration elapsed time: {t:.2f} ms, CPU KV cache usage: 1.0%")
POOL = "(EngineCore pid=2) INFO 12-01 19:35:00.000 [kv_cache_utils.py:1] CPU KV cache size: 32,768 tokens"
# (context requests, context tokens, generation requests, elapsed ms, ms between the step's
# line and the line before, past its elapsed time): back to back is ~1 ms, a wait is 50.
STEPS = [(1, 100, 0, 10.0, None),  # the log's first step: the engine had nothing to do
         (0, 0, 1, 2.0, 1.0),
         (1, 100, 0, 9.0, 50.0),  # prompts only, after a wait
         (1, 80, 1, 8.0, 50.0),  # a wait before it, but it decodes: it ran right after the step before
         (1, 50, 0, 6.0, 1.0),  # prompts only, back to back (the last request had just finished)
         (0, 0, 2, 2.5, 1.0),
         (0, 0, 1, 2.0, WAKE_GAP_MS - 1.0)]
WOKE = [True, False, True, False, False, False, False]


def write(path, header: str = "") -> str:
    lines = [header] if header else []
    lines.append(POOL)
    clock = 10.0
    for i, (cr, ct, gr, t, gap) in enumerate(STEPS):
        clock += (gap or 0.0) / 1e3 + t / 1e3
        lines.append(LINE.format(s=clock, i=40 + i, cr=cr, ct=ct, gr=gr, t=t))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_woke_is_a_step_of_prompts_only_after_a_wait(tmp_path):
    log = StepLog(write(tmp_path / "steps.log"))
    assert log.woke.tolist() == WOKE


def test_first_size_counts_the_log_and_the_sizes_run_before_it(tmp_path):
    # rows (prompt + decode tokens): 100, 1, 100, 81, 50, 2, 1
    assert StepLog(write(tmp_path / "a.log")).first_size.tolist() == [True, True, False, True, True, True, False]
    header = "# load-lab: sizes run before: 1,2, 50"
    assert StepLog(write(tmp_path / "b.log", header)).first_size.tolist() == \
        [True, False, False, True, False, False, False]


WithOneOff = dataclasses.make_dataclass("WithOneOff", [("coef_wake_s", float, 0.0), ("coef_shape_s", float, 0.0)],
                                        bases=(BasisCost,), frozen=True)


@pytest.fixture(scope="module")
def cost():
    return lab_cost({"model": "tiny-llama-cpu", "hardware": "core/data/hardware/cpu-2core.toml"})


def test_one_off_costs_are_priced_only_where_the_model_has_them(tmp_path, cost):
    log = StepLog(write(tmp_path / "steps.log", "# load-lab: sizes run before: 1,2,50"))
    plain = log.predicted_ms(cost)
    fields = {f.name: getattr(cost, f.name) for f in dataclasses.fields(BasisCost)}
    assert np.array_equal(log.predicted_ms(WithOneOff(**fields)), plain)  # coefficients 0: bit for bit
    both = log.predicted_ms(WithOneOff(**fields, coef_wake_s=3e-3, coef_shape_s=2e-3))
    # woke: steps 0 and 2; first size: steps 0 and 3 (100 and 81 tokens)
    assert both - plain == pytest.approx([5.0, 0.0, 3.0, 2.0, 0.0, 0.0, 0.0], abs=1e-9)


def test_the_step_by_step_path_adds_them_too(tmp_path, cost):
    """A model priced step by step (here: pp = 2) gets the same one-off times added."""
    fields = {f.name: getattr(cost, f.name) for f in dataclasses.fields(BasisCost)}
    fields["pp"] = 2
    log = StepLog(write(tmp_path / "steps.log"))
    plain = log.predicted_ms(BasisCost(**fields))
    both = log.predicted_ms(WithOneOff(**fields, coef_wake_s=1e-3, coef_shape_s=4e-3))
    assert both - plain == pytest.approx([5.0, 4.0, 1.0, 4.0, 4.0, 4.0, 0.0], abs=1e-9)
