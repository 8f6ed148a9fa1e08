"""core.serving.model_choice: a card's price per card-hour with its source note, as
hardware= sets it on the command line and the Serving panel's picker shows it."""
import pytest

from core.registry import ParamError
from core.serving.model_choice import MODEL_CHOICE, card_price, choice_text


def compute(hardware: str) -> dict:
    return MODEL_CHOICE.compute(**MODEL_CHOICE.resolve({"hardware": hardware}))


def test_a_catalog_card_sets_its_price_and_says_where_it_is_from():
    price, source = card_price("h100-sxm")
    assert price == 2.99 and "Lambda" in source
    result = compute("h100-sxm")
    assert result["replay_values"]["price_per_card_hour"] == 2.99 and result["price_source"] == source
    text = choice_text(result)
    assert "$2.99/card-hour (Lambda on-demand list price" in text and text.count("<br>") == 2


def test_a_card_file_without_a_price_leaves_the_price_alone(tmp_path):
    bare = tmp_path / "bare.toml"
    bare.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 989.4\n')
    assert card_price(str(bare)) == (None, "")
    result = compute(str(bare))
    assert "price_per_card_hour" not in result["replay_values"]
    assert "no list price" in choice_text(result)


def test_a_source_note_is_shown_as_text(tmp_path):
    card = tmp_path / "card.toml"
    card.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\nprice_per_card_hour = 2\n'
                    'price_source = "<b>quote</b> & co"\n[peak_tflops]\nbf16 = 989.4\n')
    assert "$2.00/card-hour (&lt;b&gt;quote&lt;/b&gt; &amp; co)" in choice_text(compute(str(card)))


def test_a_bad_card_file_is_refused_naming_hardware(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\nprice_per_card_hour = -1\n[peak_tflops]\nbf16 = 1\n')
    with pytest.raises(ParamError) as err:
        card_price(str(bad))
    assert err.value.param == "hardware" and "price_per_card_hour" in str(err.value)



def test_a_choice_puts_its_model_on_its_cards():
    from core.serving.model_choice import choose

    choice = choose("llama-3.1-70b", "h200")
    d = choice.deployment(tp=2)
    assert (d.model, d.card, d.tp, d.kv_heads_per_rank) == ("llama-3.1-70b", "h200", 2, 4)
    assert d.card_memory_bytes == pytest.approx(139.81 * 2**30)  # the driver's total, not the 141 GB label
    book = choose(None, None).deployment()  # the book's model and card stand in
    assert (book.model, book.card) == ("qwen3-8b", "rtx-pro-6000-blackwell")
    with pytest.raises(ParamError) as err:
        choose("llama-3.1-70b", "l40s").deployment(tp=2)
    assert err.value.param == "tp" and "tp=4 (KV pool" in err.value.message


def test_the_shipped_models_are_named_choices():
    from core.serving.model_choice import model_keys

    keys = model_keys()
    assert keys[0] == "qwen3-8b"  # the book's model first
    for key in ("llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "qwen3-14b", "qwen3-32b",
                "qwen3-30b-a3b", "mixtral-8x7b"):
        assert key in keys
