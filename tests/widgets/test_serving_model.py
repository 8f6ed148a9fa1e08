"""The Serving panel's model and hardware pickers: a config.json or a card fills replay A's
fields as `lab simulate serving model= hardware=` does (B follows), the replays run again on
the job runner, a refused file shows its error next to the field and the last replay
stays; the model.config card counts the chosen model."""
import json
import os

import pytest

from core.model_config import load_model_config
from core.registry import get
from core.serving import replay as rp
from core.serving.model_choice import MODEL_CHOICE, choice_text, expand_model_hardware, price_note
from core.serving.simulate_keys import model_defaults
from core.serving.state import ServingState
from widgets.kit.i18n import translate_text
from widgets.kit.jobs import jobs
from widgets.serving.replay_controls import CAPTION

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "data", "model_configs")
LLAMA = os.path.abspath(os.path.join(CONFIGS, "llama-3.1-8b.json"))
# Llama-3.1-8B: 32 layers, 8 KV heads of 128, BF16: 2 (K and V) · 8 · 128 · 32 · 2 bytes.
LLAMA_KV_BYTES = 2 * 8 * 128 * 32 * 2


def ready(panel) -> bool:
    return panel.is_ready() and not jobs().busy_keys()


@pytest.fixture
def panel(open_serving_panel):
    return open_serving_panel(1280, 720)


def pick(field, text):
    """Type a path (or key) in a picker's combo and finish, as a user does."""
    field.edit.setCurrentText(text)
    field.edit.lineEdit().editingFinished.emit()


def summary(panel, side):
    return {k: v for k, v in panel.state.replay(side).result.items() if k not in ("figure", "wall_s")}


def test_picking_a_config_changes_kv_per_token_and_the_replay(panel, qtbot):
    before = summary(panel, "A")
    assert panel.state.replay("A").inputs["kv_bytes_per_token"] == 147456  # Qwen3-8B: 144 KiB
    pick(panel.model_section.model_field, LLAMA)
    assert panel.state.replay("A").inputs["kv_bytes_per_token"] == LLAMA_KV_BYTES == 131072
    assert panel.state.replay("B").inputs["kv_bytes_per_token"] == LLAMA_KV_BYTES  # B follows A
    spec = load_model_config(LLAMA)
    assert panel.state.replay("A").inputs["weights_bytes"] == spec.replay_params()["weights_bytes"]
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    after = summary(panel, "A")
    assert after != before
    # The panel's replay is the CLI's: the same values through the same replay.
    values = get("serving.replay").resolve(model_defaults({"model": LLAMA}))
    assert panel.state.replay("A").inputs == values
    cli, work, config = rp.run_replay(values)
    cli_summary = {k: v for k, v in rp.summarize(cli, work, config).items() if k in after}
    assert len(cli_summary) > 10 and cli_summary == {k: after[k] for k in cli_summary}
    # The model.config card counts the same file.
    assert panel.state.card("your_model").inputs["config"] == LLAMA
    assert panel.model_section.card.outputs.label("kv_bytes_per_token").text().startswith("131")
    assert panel.model_section.model_field.edit.findText(LLAMA) >= 0  # in the list from now on


def test_a_bad_config_shows_its_error_and_keeps_the_last_replay(panel, qtbot, tmp_path):
    bad = tmp_path / "config.json"
    data = json.load(open(LLAMA))
    del data["num_key_value_heads"], data["num_attention_heads"]
    bad.write_text(json.dumps(data))
    result, inputs = panel.state.replay("A").result, panel.state.replay("A").inputs
    pick(panel.model_section.model_field, str(bad))
    field = panel.model_section.model_field
    assert field.error_label.isVisibleTo(panel) and "num_attention_heads" in field.error_label.text()
    assert "config.json" in field.error_label.text()
    assert panel.state.replay("A").inputs == inputs and panel.state.replay("A").result is result
    assert ready(panel)  # nothing to run again
    assert panel.state.card("model_choice").inputs["model"] == "qwen3-8b"  # the last good choice
    pick(panel.model_section.model_field, "qwen3-8b")  # fixed: the error goes
    assert not field.error_label.isVisibleTo(panel)
    pick(panel.model_section.hardware_field, str(tmp_path / "missing.toml"))
    assert "missing.toml" in panel.model_section.hardware_field.error_label.text()
    assert panel.state.replay("A").inputs == inputs


def test_hardware_sets_bandwidth_peak_and_token_budget(panel, qtbot):
    pick(panel.model_section.hardware_field, "h100-sxm")
    a = panel.state.replay("A").inputs
    assert (a["bandwidth_bytes_per_s"], a["peak_flops"], a["token_budget"]) == (3.35e12, 989.4e12, 8192)
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    # A form edit after the choice wins and is named.
    panel.replay_form.field("peak_flops").edit.setText("500e12")
    panel.replay_form.field("peak_flops").edit.editingFinished.emit()
    assert panel.state.replay("A").inputs["peak_flops"] == 500e12
    assert "peak_flops" in panel.model_section.edited_label.text()


def test_qwen3_8b_on_the_book_card_reproduces_the_book_run(panel, qtbot):
    book = summary(panel, "A"), summary(panel, "B")
    defaults = panel.state.replay("A").inputs
    assert defaults == get("serving.replay").resolve()
    pick(panel.model_section.model_field, LLAMA)
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    pick(panel.model_section.model_field, "qwen3-8b")
    pick(panel.model_section.hardware_field, "rtx-pro-6000-blackwell")
    assert panel.state.replay("A").inputs == defaults
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    assert (summary(panel, "A"), summary(panel, "B")) == book
    assert panel.model_section.edited_label.text() == ""


def test_choice_round_trips_through_a_session(tmp_path):
    toml = tmp_path / "card.toml"
    toml.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 989.4\n')
    s = ServingState()
    assert s.set_model_choice({"model": LLAMA, "hardware": str(toml)})
    s.replay("A").update({"peak_flops": "400e12"})  # a hand edit after the choice stays
    data = json.loads(json.dumps(s.to_json()))
    assert data["cards"]["model_choice"] == {"model": LLAMA, "hardware": str(toml)}
    t = ServingState()
    t.load_json(data)
    assert t.card("model_choice").inputs == s.card("model_choice").inputs
    assert t.replay("A").inputs == s.replay("A").inputs and t.replay("A").inputs["peak_flops"] == 400e12
    assert t.replay("A").inputs["bandwidth_bytes_per_s"] == 4.8e12
    assert t.card("your_model").inputs["config"] == LLAMA
    assert t.model_choice_edited() == ["peak_flops"]
    t.reset()
    assert t.replay("A").inputs == get("serving.replay").resolve()
    assert t.card("model_choice").inputs["model"] == "qwen3-8b"


def test_expansion_is_the_clis():
    got = {"model": LLAMA, "hardware": "a100-80gb"}
    assert model_defaults(dict(got)) == expand_model_hardware(got)
    assert expand_model_hardware({}) == {}


def test_a_refused_trace_leaves_the_path_line_on_the_file_replayed(panel, qtbot, tmp_path):
    good = os.path.join(os.path.dirname(__file__), "..", "data", "traces", "serving_azure_code_200.csv")
    section = panel.trace_section
    section.open_path(good)
    qtbot.waitUntil(lambda: panel.state.trace_loaded is not None and ready(panel), timeout=60_000)
    assert section.path_label.text() == good
    replayed = panel.state.replay("A").result["figure"]
    bad = tmp_path / "refused.csv"
    bad.write_text("when,how many\nyesterday,lots\n")
    section.open_path(str(bad))
    qtbot.waitUntil(lambda: bool(panel.state.trace_message) and ready(panel), timeout=30_000)
    assert panel.state.trace.path == str(bad) and panel.state.trace_refused()
    assert section.path_label.text() == good  # the file the replays are of, not the refused one
    message = section.message.text()
    assert "refused.csv" in message and "still replaying serving_azure_code_200.csv" in message
    assert panel.state.replay("A").result["figure"] is replayed
    section.open_path(good)  # the good file again: the line and message follow
    qtbot.waitUntil(lambda: not panel.state.trace_message and ready(panel), timeout=60_000)
    assert section.path_label.text() == good and not section.message.isVisible()


def test_picking_a_card_sets_its_price_as_the_cli_does(panel, qtbot, tmp_path):
    from core.serving.headless import serving_report

    pick(panel.model_section.hardware_field, "h100-sxm")
    cli, _ = serving_report({"hardware": "h100-sxm"})
    assert cli["price_per_card_hour"] == 2.99
    for side in ("A", "B"):  # B follows A
        assert panel.state.replay(side).inputs["price_per_card_hour"] == cli["price_per_card_hour"]
    assert panel.replay_form.field("price_per_card_hour").edit.text() == "2.99"
    sets = panel.model_section.sets_label.text()
    assert "$2.99/card-hour" in sets and cli["price_source"] in sets  # the CLI's source note
    assert cli["price_source"] in panel.model_section.sets_label.toolTip()
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    # Editable afterwards: the form's price wins and is named as edited since the choice.
    price = panel.replay_form.field("price_per_card_hour")
    price.edit.setText("4.5")
    price.edit.editingFinished.emit()
    assert panel.state.replay("A").inputs["price_per_card_hour"] == 4.5
    assert panel.state.replay("B").inputs["price_per_card_hour"] == 4.5
    assert "price_per_card_hour" in panel.model_section.edited_label.text()
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    # A card file with its own price and note sets both; one without a price leaves the form's.
    priced = tmp_path / "priced.toml"
    priced.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\nprice_per_card_hour = 3.25\n'
                      'price_source = "our contract, 2026"\n[peak_tflops]\nbf16 = 989.4\n')
    pick(panel.model_section.hardware_field, str(priced))
    assert panel.state.replay("A").inputs["price_per_card_hour"] == 3.25
    assert serving_report({"hardware": str(priced)})[0]["price_source"] == "our contract, 2026"
    assert "$3.25/card-hour (our contract, 2026)" in panel.model_section.sets_label.text()
    assert panel.model_section.edited_label.text() == ""
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)
    bare = tmp_path / "bare.toml"
    bare.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 989.4\n')
    pick(panel.model_section.hardware_field, str(bare))
    assert panel.state.replay("A").inputs["price_per_card_hour"] == 3.25
    assert panel.state.replay("A").inputs["bandwidth_bytes_per_s"] == 4.8e12
    assert "no list price" in panel.model_section.sets_label.text()
    assert serving_report({"hardware": str(bare)})[0]["cost_per_hour"] is None  # the CLI reports no cost
    qtbot.waitUntil(lambda: ready(panel), timeout=60_000)


def choice(hardware: str) -> dict:
    return MODEL_CHOICE.compute(**MODEL_CHOICE.resolve({"hardware": hardware}))


def test_the_price_line_is_a_pair_whose_english_side_names_the_source(tmp_path):
    text = choice_text(choice("a100-80gb"))
    price_line = text.split("<br>")[-1]
    chinese, english = translate_text(price_line, "zh"), translate_text(price_line, "en")
    assert chinese == "每卡时价格 $1.79(来源见提示)"
    assert english.startswith("price $1.79/card-hour (Lambda on-demand list price")
    card = tmp_path / "card.toml"
    card.write_text('memory_gib = 141\nbandwidth_tb_s = 4.8\nprice_per_card_hour = 2\n'
                    'price_source = "合同价"\n[peak_tflops]\nbf16 = 989.4\n')
    result = choice(str(card))
    assert translate_text(choice_text(result).split("<br>")[-1], "en") == "price $2.00/card-hour"
    assert price_note(result) == "合同价"  # the tooltip's


def test_the_caption_names_your_model_in_one_language(panel, qtbot):
    """The caption's catalog entry matches the book's model and card only; with your own
    config.json it is a pair of its own and still reads whole in English and in Chinese."""
    from widgets.kit.i18n import english_words, has_cjk, set_language, translate_tree

    pick(panel.model_section.model_field, LLAMA)
    qtbot.waitUntil(lambda: ready(panel) and "llama-3.1-8b" in panel.caption.text(), timeout=60_000)
    try:
        set_language("en")
        translate_tree(panel)
        text = panel.caption.text()
        assert not has_cjk(text) and text.startswith("llama-3.1-8b · 1× RTX PRO 6000 · KV pool 24 GiB")
        set_language("zh")
        translate_tree(panel)
        text = panel.caption.text()
        assert text.startswith("llama-3.1-8b,1 张 RTX PRO 6000,KV 池 24 GiB") and not english_words(text)
    finally:
        set_language("both")
    # The book's model and card: the catalog's entry, as before.
    assert translate_text(CAPTION, "en").startswith("Qwen3-8B · 1× RTX PRO 6000")
