"""A model that does not fit on the card: the replay says so (a real engine would not start)."""
from pathlib import Path

from lab.cli.simulate import simulate

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "model_configs"
SMALL = {"durations_s": "30", "rates_per_s": "1", "shares_long_input": "0.5"}


def test_weights_and_pool_over_the_cards_memory_are_a_warning_with_the_figures():
    report, text = simulate("serving", dict(SMALL, model=str(CONFIGS / "deepseek-v3.json")))
    (warning,) = report["warnings"]
    # DeepSeek-V3's 671B parameters in bf16, and the book's 24 GiB pool, on one 96 GB card
    assert "1,342.1 GB" in warning and "25.8 GB" in warning and "96.0 GB" in warning
    assert "warning: " + warning in text
    assert report["requests"] == 30  # it still replays: the figures are one card's steps


def test_the_book_model_on_a_catalog_card_has_no_warning():
    for hardware in ("rtx-pro-6000-blackwell", "h100-sxm"):
        report, text = simulate("serving", dict(SMALL, hardware=hardware, model="qwen3-8b"))
        assert "warnings" not in report and "warning:" not in text
