import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.registry import Param, ParamError, get, registry
from core.verify import verify_all

CONTRACT = {
    "request.anatomy": {"prefill_calls", "decode_steps", "first_decode_context", "last_decode_context"},
    "request.split": {"prefill_calls", "prefill_batches", "decode_steps_total", "end_context_per_request",
                      "weight_read_rounds"},
    "metrics.latency": {"ttft_s", "t_request_s", "t_token_s"},
    "metrics.percentile": {"rank", "value"},
    "state.area": {"mean_waiting_tasks", "mean_occupancy_bytes", "area_byte_s_per_task"},
    "cost.success": {"cost_per_success"},
    "cost.compare": {"cost_per_success_1", "cost_per_success_2", "break_even_p2"},
}


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_contract_outputs_exist(name):
    calc = get(name)
    assert CONTRACT[name] <= {o.name for o in calc.outputs}
    result = calc.run()
    assert CONTRACT[name] <= set(result)


def test_every_calculator_declares_what_the_gui_and_cli_need():
    for calc in registry():
        assert calc.title and calc.ref.section and calc.outputs
        for p in calc.params:
            assert p.help, f"{calc.name}.{p.name} has no help"
            p.parse(p.default)  # every default is valid


def test_every_book_figure_matches():
    rows = verify_all()
    assert rows, "no book figures registered"
    bad = [(r.calculator, r.output, r.book_value, r.computed) for r in rows if not r.ok]
    assert not bad


def test_error_names_the_parameter_and_range():
    with pytest.raises(ParamError) as err:
        get("request.anatomy").run({"output_tokens": 0})
    assert err.value.param == "output_tokens"
    assert "valid: a whole number [1, 10000000] tokens" in str(err.value)


@pytest.mark.parametrize("raw", ["nan", "inf", "-1", "abc", "2.5"])
def test_bad_numbers_are_refused(raw):
    with pytest.raises(ParamError) as err:
        get("request.split").run({"requests": raw})
    assert err.value.param == "requests"


def test_cross_field_check_names_the_field():
    with pytest.raises(ParamError) as err:
        get("request.split").run({"requests": 3})
    assert err.value.param == "output_tokens_total"


def test_unknown_parameter_is_refused():
    with pytest.raises(ParamError) as err:
        get("state.area").run({"lambda": 2})
    assert "valid: arrival_rate_per_s" in str(err.value)


def test_exclusive_minimum_for_rates_that_divide():
    with pytest.raises(ParamError) as err:
        get("state.area").run({"arrival_rate_per_s": 0})
    assert "valid: (0, 1000000000] 1/s" in str(err.value)


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_param_accepts_exactly_its_range(x):
    p = Param("x", "s", 1.0, "h", min=0, max=1e6)
    assert p.parse(str(x)) == pytest.approx(x)


def test_registry_lists_calculators_in_book_order():
    sections = [tuple(int(s) for s in c.ref.section.split(".")) for c in registry()]
    assert sections == sorted(sections)
    assert not math.isnan(len(registry()))


@pytest.mark.parametrize("raw,why", [
    ("40ms", "is a time, not a size in bytes"),  # once read as 0.04 bytes
    ("4k", "is a count, not a size in bytes"),
])
def test_a_suffix_must_fit_the_unit_of_the_parameter(raw, why):
    with pytest.raises(ParamError) as err:
        get("serving.decode_rate").resolve({"weights_bytes": raw})
    assert err.value.param == "weights_bytes"
    assert f"{raw!r} {why}; valid: [0, 1000000000000000] bytes" in str(err.value)
    assert "GiB" in str(err.value)  # and the suffixes it does take


def test_a_byte_suffix_on_a_count_is_refused():
    with pytest.raises(ParamError) as err:
        get("serving.decode_rate").resolve({"cards": "1GiB"})  # once read as 1,073,741,824 cards
    assert err.value.param == "cards" and "is a size in bytes, not a count" in str(err.value)
    assert "valid: a whole number [1, 100000] cards" in str(err.value)


def test_durations_are_counted_in_the_unit_of_the_parameter():
    calc = get("audio.timeline")
    for raw in ("20ms", "0.02s", "20", 20, "20000us", "20000µs"):
        assert calc.resolve({"chunk_ms": raw})["chunk_ms"] == 20
    assert get("state.area").resolve({"wait_s": "2min"})["wait_s"] == 120
    assert get("serving.decode_rate").resolve({"cards": "1k"})["cards"] == 1000


def test_a_scalar_with_a_comma_is_refused():
    # speedup=1,5 once computed with 15; commas only separate list items.
    with pytest.raises(ParamError) as err:
        get("agent.amdahl").resolve({"speedup": "1,5"})
    assert err.value.param == "speedup" and "comma" in str(err.value) and "valid: [1, 1000000000]" in str(err.value)
    assert get("request.split").resolve({"requests": "1_024", "output_tokens_total": 1024})["requests"] == 1024


@pytest.mark.parametrize("raw", [10**400, "1" * 400, "1e400", "-inf", "nan", float("nan"), float("inf")])
def test_huge_and_non_finite_numbers_raise_the_error_type(raw):
    with pytest.raises(ParamError) as err:
        get("request.split").resolve({"requests": raw})
    assert err.value.param == "requests" and "valid: a whole number [1, 100000] requests" in str(err.value)
    assert len(str(err.value)) < 200 and "\n" not in str(err.value)  # the input is quoted short
