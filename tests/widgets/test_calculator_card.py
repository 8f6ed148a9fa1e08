import json
import subprocess
import sys

from core.registry import get
from widgets.kit.calculator_card import CalculatorCard


def test_reset_brings_back_the_book_defaults(qtbot):
    card = CalculatorCard(get("state.area"))
    qtbot.addWidget(card)
    card.set_value("wait_s", "30")
    assert card.result["mean_waiting_tasks"] == 60
    with qtbot.waitSignal(card.computed):
        card.reset_button.click()
    assert card.result["mean_waiting_tasks"] == 20
    assert card.form.field("wait_s").edit.text() == "10"


def test_copied_command_reproduces_the_card(qtbot):
    card = CalculatorCard(get("request.split"))
    qtbot.addWidget(card)
    card.set_value("requests", "4")
    card.copy_button.click()
    from PySide6 import QtWidgets

    command = QtWidgets.QApplication.clipboard().text()
    assert command == "lab calc request.split requests=4"
    out = subprocess.run([sys.executable, "-m", "lab", *command.split()[1:], "--json"], capture_output=True,
                         text=True, check=True)
    assert json.loads(out.stdout)["weight_read_rounds"] == card.result["weight_read_rounds"]


def test_invalid_field_greys_outputs_until_fixed(qtbot):
    card = CalculatorCard(get("cost.compare"))
    qtbot.addWidget(card)
    card.set_value("p1", "0")
    assert not card.outputs.label("cost_per_success_1").isEnabled()
    assert "valid: [1e-09, 1]" in card.form.field("p1").error_label.text()
    card.set_value("p1", "0.25")
    assert card.outputs.label("cost_per_success_1").isEnabled()
    assert card.outputs.label("cost_per_success_1").text() == "4 cost"


def test_fixing_an_error_back_to_the_same_value_clears_it(qtbot):
    card = CalculatorCard(get("state.area"))
    qtbot.addWidget(card)
    card.set_value("wait_s", "-1")
    assert not card.outputs.label("mean_waiting_tasks").isEnabled()
    with qtbot.waitSignal(card.computed):
        card.set_value("wait_s", "10")
    assert card.outputs.label("mean_waiting_tasks").isEnabled()
    assert card.form.field("wait_s").error_label.isHidden()
    assert card.form.field("wait_s").error_label.text() == ""


def test_list_field_takes_text_as_well_as_numbers(qtbot):
    card = CalculatorCard(get("metrics.percentile"))
    qtbot.addWidget(card)
    card.set_value("values", "5,1,9,3")
    assert card.result["value"] == 9
    card.form.set_values({"values": (2.0, 4.0)})
    assert card.result["value"] == 4


def test_field_text_round_trips_exactly():
    from widgets.kit.param_form import _bytes_text, _plain

    for value in (15136811008, 8190735360, 1.792e12, 0.1 + 0.2, 2741.7734375, 989.4e12, 1e8):
        assert float(_plain(value)) == value
    assert _bytes_text(1024**3) == "1GiB" and _bytes_text(147456) == "144KiB"
    assert _bytes_text(15136811008) == "15136811008"


def test_reset_replaces_a_refused_edit_even_when_the_values_did_not_change(qtbot):
    card = CalculatorCard(get("state.area"))
    qtbot.addWidget(card)
    card.set_value("wait_s", "-1")  # refused: the model keeps the book's 10
    field = card.form.field("wait_s")
    assert field.edit.text() == "-1" and field.has_error
    card.reset_button.click()
    assert field.edit.text() == "10" and not field.has_error
    assert card.outputs.label("mean_waiting_tasks").isEnabled()


def test_a_field_keeps_what_the_user_typed_until_its_value_changes(qtbot):
    card = CalculatorCard(get("state.area"))
    qtbot.addWidget(card)
    field = card.form.field("wait_s")
    field.edit.setText("30000ms")
    field.edit.editingFinished.emit()
    assert card.result["mean_waiting_tasks"] == 60 and field.edit.text() == "30000ms"
    card.model.update({"wait_s": 15})  # changed elsewhere (a dragged handle, a scene)
    assert field.edit.text() == "15"


def test_a_list_value_is_shown_whole_at_any_card_width(qtbot):
    """The branch card's "1200,800,1500" was cut to "00,800,1500" in Chinese, whose longer
    labels left its input narrow beside the outputs: an input is at least as wide as its
    starting value, whatever the card's width and language."""
    from PySide6 import QtWidgets

    from widgets.kit.i18n import set_language, translate_tree

    card = CalculatorCard(get("agent.branch_state"))
    qtbot.addWidget(card)
    card.show()
    qtbot.waitExposed(card)
    edit = card.form.field("branch_tokens").edit
    assert edit.text() == "1200,800,1500"
    try:
        for language in ("zh", "both", "en"):
            set_language(language)
            translate_tree(card)
            for width in range(360, 900, 40):
                card.resize(width, 300)
                for _ in range(3):
                    QtWidgets.QApplication.processEvents()
                assert edit.width() >= edit.fontMetrics().horizontalAdvance(edit.text()), (language, width)
    finally:
        set_language("both")
