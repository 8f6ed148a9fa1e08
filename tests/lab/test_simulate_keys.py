"""simulate_keys.expand: the one check and expansion `lab simulate serving` (serving_report)
and `lab sweep serving` (the sweep's resolve) share: an unknown key refused in each
command's own words, scenario= / model= / hardware= filling what raw leaves unset (keys
given win), hardware='s price with its source note, raw itself untouched."""
import pytest

from core.hardware_config import hardware_price
from core.registry import ParamError, get
from core.serving import replay as rp
from core.serving import simulate_keys as keys
from core.serving.headless import serving_report
from core.sweep.serving import SERVING


def test_each_command_words_its_own_refusal():
    with pytest.raises(ParamError) as simulate:
        serving_report({"max_num_seq": "8"})
    with pytest.raises(ParamError) as sweep:
        SERVING.resolve({"max_num_seq": "8"})
    assert simulate.value.param == sweep.value.param == "max_num_seq"
    assert "unknown parameter of lab simulate serving; valid: " in str(simulate.value)
    assert "unknown key of lab sweep serving; valid: " in str(sweep.value)
    for err in (simulate.value, sweep.value):  # both name the replay's keys and the extra ones
        assert "max_num_seqs" in str(err) and "scenario" in str(err) and "hardware" in str(err)


def test_defaults_fill_only_what_raw_leaves_unset():
    raw = {"scenario": "shift", "hardware": "h100-sxm", "peak_flops": "500e12", "max_num_seqs": "32"}
    before = dict(raw)
    replay, got, note = keys.expand(raw, lambda: "unused")
    assert raw == before  # the caller's dict is not changed
    assert got == {"scenario": "shift", "hardware": "h100-sxm"}
    values = get("serving.replay").resolve(replay)
    shift = rp.SCENARIOS["shift"]["params"]["shares_long_input"]
    assert tuple(values["shares_long_input"]) == tuple(shift)  # the scenario's
    assert values["bandwidth_bytes_per_s"] == 3.35e12  # the card's
    assert values["peak_flops"] == 500e12 and values["max_num_seqs"] == 32  # given: they win
    price, source = hardware_price("h100-sxm")
    assert values["price_per_card_hour"] == price and note == source


def test_the_sweep_records_the_price_the_report_costs():
    params = SERVING.resolve({"hardware": "h100-sxm"})
    report, _ = serving_report({"hardware": "h100-sxm"})
    assert params["values"]["price_per_card_hour"] == report["price_per_card_hour"] == 2.99
    assert report["cost_per_hour"] == 2.99  # one replica of one card
    given, _ = serving_report({"hardware": "h100-sxm", "price_per_card_hour": "4"})
    assert given["price_per_card_hour"] == 4.0 and given["price_source"] == "given (price_per_card_hour=)"
    book, _ = serving_report({})
    assert book["price_source"].startswith(rp.BOOK_CARD_KEY)
