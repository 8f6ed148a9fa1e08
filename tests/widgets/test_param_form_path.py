"""A kind="path" field: an editable combo with the named choices, a "…" button that opens a
file dialog, and the refusal shown next to the field (model.config's config)."""
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from core.registry import get
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.param_form import ParamForm

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "model_configs"


def _card(qtbot, name="model.config"):
    card = CalculatorCard(get(name))
    qtbot.addWidget(card)
    return card


def _type(qtbot, field, text):
    line = field.edit.lineEdit()
    line.selectAll()
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, QtCore.Qt.Key.Key_Return)


def test_the_field_is_an_editable_combo_of_the_choices_with_a_browse_button(qtbot):
    field = _card(qtbot).form.field("config")
    assert isinstance(field.edit, QtWidgets.QComboBox) and field.edit.isEditable()
    assert [field.edit.itemText(i) for i in range(field.edit.count())] == list(get("model.config").param("config").choices)
    assert field.edit.currentText() == "qwen3-8b"
    assert field.browse_button is not None and field.browse_button.text() == "…"


def test_typing_a_config_path_computes_that_model(qtbot):
    card = _card(qtbot)
    assert card.result["parameters"] == 8_190_735_360  # the catalog's Qwen3-8B
    with qtbot.waitSignal(card.form.values_changed):
        _type(qtbot, card.form.field("config"), str(CONFIGS / "llama-3.1-8b.json"))
    assert card.result["parameters"] == 8_030_261_248
    assert card.form.field("config").edit.count() == len(get("model.config").param("config").choices)  # not inserted


def test_choosing_a_preset_from_the_list_goes_back_to_it(qtbot):
    card = _card(qtbot)
    field = card.form.field("config")
    _type(qtbot, field, str(CONFIGS / "qwen3-30b-a3b.json"))
    assert card.result["active_parameters"] == 3_353_032_704
    with qtbot.waitSignal(card.form.values_changed):
        field.edit.setCurrentIndex(field.edit.findText("qwen3-8b"))
        field.edit.activated.emit(field.edit.currentIndex())
    assert card.form.values()["config"] == "qwen3-8b"
    assert card.result["active_parameters"] == 8_190_735_360


def test_a_bad_config_shows_its_field_next_to_the_input_and_keeps_the_last_result(qtbot, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama", "num_hidden_layers": 2}')
    card = _card(qtbot)
    field = card.form.field("config")
    _type(qtbot, field, str(bad))
    assert field.error_label.isVisibleTo(card)
    assert "missing field hidden_size" in field.error_label.text()
    assert card.form.values()["config"] == "qwen3-8b"  # the model kept its last good inputs
    assert card.result["parameters"] == 8_190_735_360
    _type(qtbot, field, "qwen3-8b")
    assert not field.error_label.text()


def test_browse_puts_the_chosen_file_in_the_field(qtbot, monkeypatch):
    card = _card(qtbot)
    chosen = str(CONFIGS / "mistral-7b-v0.1.json")
    asked = {}

    def pick(parent, title, start, filters):
        asked["title"] = title
        return chosen, filters

    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", staticmethod(pick))
    with qtbot.waitSignal(card.form.values_changed):
        card.form.field("config").browse_button.click()
    assert card.form.field("config").edit.currentText() == chosen
    assert card.result["parameters"] == 7_241_732_096
    assert asked["title"] == "选择文件 · Choose a file"


def test_a_cancelled_dialog_changes_nothing(qtbot, monkeypatch):
    card = _card(qtbot)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a: ("", "")))
    card.form.field("config").browse_button.click()
    assert card.form.values()["config"] == "qwen3-8b"
    assert card.form.field("config").edit.currentText() == "qwen3-8b"


def test_training_model_field_takes_a_dense_config_and_names_the_field_of_a_moe_one(qtbot):
    form = ParamForm(get("train.flops").params)
    qtbot.addWidget(form)
    field = form.field("model")
    assert field.edit.isEditable() and field.edit.currentText() == "qwen3-8b"
    _type(qtbot, field, str(CONFIGS / "qwen2.5-7b.json"))
    assert form.values()["model"].endswith("qwen2.5-7b.json")
    card = _card(qtbot, "train.flops")
    _type(qtbot, card.form.field("model"), str(CONFIGS / "deepseek-v3.json"))
    assert "field n_routed_experts" in card.form.field("model").error_label.text()
