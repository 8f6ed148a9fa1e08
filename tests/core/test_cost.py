"""Cost: the arithmetic, the catalog's prices and their sources, a card file's price."""
from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

from core import catalog
from core.hardware_config import hardware_price, load_hardware
from core.registry import ParamError
from core.serving import replay as rp
from core.serving.cost import cost_per_hour, cost_per_million_output_tokens, cost_report, finished_output_tokens

CARD = """name = "Test card"
memory_gib = 141
bandwidth_tb_s = 4.8
[peak_tflops]
bf16 = 989.4
"""


def _result(arrival, finish, output, cancelled=None):
    r = SimpleNamespace(arrival_s=np.array(arrival, float), finish_s=np.array(finish, float),
                        output_tokens=np.array(output, np.int64))
    if cancelled is not None:
        r.cancelled = np.array(cancelled, bool)
    return r


def test_cost_arithmetic():
    assert cost_per_hour(3, 2, 1.5) == 9.0
    # 10 USD/h for 360 s is 1 USD; over 100,000 tokens that is 10 USD per million.
    assert cost_per_million_output_tokens(10.0, 360.0, 100_000) == pytest.approx(10.0, rel=1e-15)
    assert cost_per_million_output_tokens(10.0, 360.0, 0) is None


def test_cost_report_bills_every_replica_for_the_whole_run():
    # first arrival 10 s, last finish 190 s: 180 s; 4 replicas x 2.5 USD = 10 USD/h -> 0.5 USD
    result = _result([10, 20, 30], [100, 190, 50], [200_000, 250_000, 50_000])
    report = cost_report(result, replicas=4, price_per_card_hour=2.5)
    assert report["cost_per_hour"] == 10.0
    assert report["cost_per_million_output_tokens"] == pytest.approx(0.5 / 500_000 * 1e6, rel=1e-15)
    assert report["replicas"] == 4 and report["cards_per_replica"] == 1 and report["price_per_card_hour"] == 2.5
    none = cost_report(result, replicas=4, price_per_card_hour=None)
    assert none["cost_per_hour"] is None and none["cost_per_million_output_tokens"] is None


def test_cancelled_and_unfinished_requests_produce_no_tokens():
    result = _result([0, 0, 0], [10, np.nan, 5], [100, 1000, 10], cancelled=[False, False, True])
    assert finished_output_tokens(result) == 100


def test_catalog_cards_carry_a_price_with_its_source_and_date():
    for key in catalog.hardware_keys():
        card = catalog.hardware(key)
        assert card.price_source, key
        if card.price_per_card_hour is None:
            assert "price_per_card_hour=" in card.price_source
            continue
        assert 0 < card.price_per_card_hour < 100
        assert re.search(r"20\d\d", card.price_source), key  # when it was listed
        assert f"{card.price_per_card_hour:.2f}" in card.price_source  # the note says the figure it gives
    assert hardware_price("h100-sxm")[0] == catalog.hardware("h100-sxm").price_per_card_hour


def test_replay_default_price_is_the_book_cards():
    assert rp.REPLAY.resolve()["price_per_card_hour"] == catalog.hardware(rp.BOOK_CARD_KEY).price_per_card_hour


def test_card_file_price(tmp_path):
    path = tmp_path / "card.toml"
    path.write_text('price_per_card_hour = 3.25\nprice_source = "our contract, 2026"\n' + CARD)
    assert hardware_price(str(path)) == (3.25, "our contract, 2026")
    path.write_text(CARD)
    assert load_hardware(str(path)).price_per_card_hour is None
    path.write_text("price_per_card_hour = -1\n" + CARD)
    with pytest.raises(ParamError) as err:
        load_hardware(str(path))
    assert err.value.param == "hardware" and "price_per_card_hour" in err.value.message
