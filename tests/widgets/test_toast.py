"""copy CLI says so on an invalid form instead of copying the last valid command; a short
toast confirms a copy and goes away by itself; an invalid form fades its outputs."""
import time

from PySide6 import QtWidgets

from core.registry import get
from widgets.kit.calculator_card import STALE_OPACITY, CalculatorCard
from widgets.kit.toast import SHOW_MS, Toast, show_toast


def _card(qtbot, name):
    host = QtWidgets.QWidget()
    qtbot.addWidget(host)
    host.resize(900, 500)
    layout = QtWidgets.QVBoxLayout(host)
    card = CalculatorCard(get(name))
    layout.addWidget(card)
    host.show()
    return host, card


def _toast(host):
    return host.findChild(Toast, "toast")


def test_copy_on_a_valid_form_copies_and_a_toast_confirms(qtbot):
    host, card = _card(qtbot, "state.area")
    card.set_value("wait_s", "30")
    card.copy_button.click()
    assert QtWidgets.QApplication.clipboard().text() == "lab calc state.area wait_s=30"
    toast = _toast(host)
    assert toast.isVisible() and toast.text() == "copied: lab calc state.area wait_s=30"
    assert host.rect().contains(toast.geometry())  # inside the window, over its bottom
    assert toast.geometry().bottom() > host.height() // 2
    started = time.monotonic()
    qtbot.waitUntil(lambda: not toast.isVisible(), timeout=SHOW_MS + 2_000)
    assert time.monotonic() - started > SHOW_MS / 1000 * 0.5  # it stayed long enough to read


def test_copy_on_an_invalid_form_says_so_and_copies_nothing(qtbot):
    host, card = _card(qtbot, "state.area")
    card.set_value("wait_s", "30")  # a valid command exists...
    QtWidgets.QApplication.clipboard().setText("before")
    card.set_value("wait_s", "-1")  # ...but the form now holds an invalid value
    card.copy_button.click()
    assert QtWidgets.QApplication.clipboard().text() == "before"
    toast = _toast(host)
    assert toast.isVisible()
    assert toast.text().startswith("not copied: wait_s is invalid") and "valid:" in toast.text()


def test_an_invalid_form_fades_its_outputs_until_fixed(qtbot):
    host, card = _card(qtbot, "cost.compare")
    assert card.outputs.graphicsEffect() is None
    card.set_value("p1", "0")
    fade = card.outputs.graphicsEffect()
    assert isinstance(fade, QtWidgets.QGraphicsOpacityEffect) and fade.opacity() == STALE_OPACITY
    assert "last valid" in card.outputs.toolTip()
    card.set_value("p1", "0.25")
    assert card.outputs.graphicsEffect() is None and card.outputs.toolTip() == ""


def test_one_toast_per_window_the_latest_message_wins(qtbot):
    host = QtWidgets.QWidget()
    qtbot.addWidget(host)
    host.resize(400, 300)
    host.show()
    first = show_toast(host, "one")
    second = show_toast(host, "two")
    assert first is second and second.text() == "two"
    assert len(host.findChildren(Toast)) == 1


def test_copy_cli_keeps_every_digit_so_the_command_gives_the_numbers_shown(qtbot):

    host, card = _card(qtbot, "serving.decode_rate")
    card.set_value("mean_context_tokens", "2741.7734")
    card.copy_button.click()
    command = QtWidgets.QApplication.clipboard().text()
    assert "mean_context_tokens=2741.7734" in command.split()  # {:g} gave 2741.77
    words = dict(word.split("=", 1) for word in command.split()[3:])
    calc = get("serving.decode_rate")
    assert calc.run(calc.resolve(words)) == card.model.result
