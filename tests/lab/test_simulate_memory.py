"""A model that does not fit on its cards is refused with the figures (a real engine would
not start); one that fits replays, its deployment named in the report."""
from pathlib import Path

import pytest

from core.registry import ParamError
from lab.cli.simulate import simulate

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "model_configs"
SMALL = {"durations_s": "30", "rates_per_s": "1", "shares_long_input": "0.5"}


def test_weights_over_the_cards_memory_are_refused_with_the_figures():
    with pytest.raises(ParamError) as err:
        simulate("serving", dict(SMALL, model=str(CONFIGS / "deepseek-v3.json")))
    assert err.value.param == "tp"
    # DeepSeek-V3's 671B parameters in bf16 on the book's one 96 GB card (the book's 24 GiB pool given)
    assert "1,342.1 GB of weights per card" in err.value.message and "the card's 96.0 GB" in err.value.message


def test_the_book_model_on_a_catalog_card_has_no_warning():
    for hardware in ("rtx-pro-6000-blackwell", "h100-sxm"):
        report, text = simulate("serving", dict(SMALL, hardware=hardware, model="qwen3-8b"))
        assert "warnings" not in report and "warning:" not in text
        assert report["deployment"]["card"] == hardware


def test_a_given_pool_over_the_card_is_refused_naming_kv_pool_bytes():
    with pytest.raises(ParamError) as err:
        simulate("serving", dict(SMALL, hardware="h100-sxm", model="qwen3-8b", kv_pool_bytes="80e9"))
    assert err.value.param == "kv_pool_bytes" and "the KV pool given" in err.value.message
