"""图 3-14 CED and goodput of the measured runs (core/agents/ced.py)."""
import numpy as np
import pytest

from core.agents import ced as ac
from core.registry import ParamError
from core.verify import verify_calculator


@pytest.mark.parametrize("calc", ac.CALCULATORS, ids=lambda c: c.name)
def test_every_book_value_matches(calc):
    rows = verify_calculator(calc)
    assert rows and all(r.ok for r in rows), [(r.output, r.computed, r.book_value) for r in rows if not r.ok]


@pytest.mark.parametrize("p, ced", [(1, 40), (128, 40 * 128), (129, 20 * 129 + 20 * 128), (100_000, 20 * 100_000 + 2560)])
def test_ced_is_20p_plus_20_min_p_128(p, ced):
    out = ac.CED.run({"prompt_tokens": p, "output_tokens": 10})
    assert out["ced_prompt_layer_tokens"] == ced and out["decoder_only_prompt_layer_tokens"] == 40 * p
    assert out["task_ratio"] == pytest.approx((ced + 400) / (40 * p + 400))


def test_ced_curve_falls_from_all_layers_to_the_encoder():
    c = ac.ced_curve(40, 20, 128)
    assert np.all(c["ced"][c["prompt_tokens"] <= 128] == 40)
    assert c["ced"][-1] == pytest.approx(20 + 20 * 128 / 2**17)
    assert np.all(np.diff(c["ced"]) <= 0)


def test_more_encoder_layers_than_layers_is_refused():
    with pytest.raises(ParamError) as err:
        ac.CED.run({"encoder_layers": 41})
    assert err.value.param == "encoder_layers"


def test_goodput_counts_only_passed_tasks_on_time():
    on = ac.GOODPUT.run()
    assert on["passed"] and on["goodput_tasks_per_s"] == pytest.approx(1 / 76.5102791490499)
    late = ac.GOODPUT.run({"deadline_s": 60})
    assert not late["on_time"] and late["goodput_tasks_per_s"] == 0.0
    off = ac.GOODPUT.run({"trace": "thinking_off"})
    assert off["throughput_tasks_per_s"] > 5 * on["throughput_tasks_per_s"] and off["goodput_tasks_per_s"] == 0.0
    assert off["case_pass_rate"] == pytest.approx(315 / 1013)
    alias = ac.GOODPUT.run({"completion": "checks_and_alias"})
    assert alias["case_pass_rate"] == pytest.approx(710 / 1013) and not alias["passed"]


def test_goodput_of_a_csv_without_checks_has_no_verdict(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("input_tokens,cached_tokens,output_tokens,model_wall_s,tool_wall_s\n100,0,5,1,0\n", encoding="utf-8")
    out = ac.GOODPUT.run({"trace": str(path)})
    assert out["goodput_tasks_per_s"] is None and out["passed"] is None
