"""Your model and card: the replays' model and hardware pickers (a catalog key, or a
config.json / TOML typed or browsed) beside the model.config card of the chosen model.

A choice fills replay A's model and hardware fields as `lab simulate serving model=
hardware=` does (B follows A), the card's price per card-hour too (its source note under
the pickers; the field stays editable) and the replays run again on the job runner; a refused file
shows why next to its field and the last good choice and replays stay
(core.serving.state.ServingState holds the choice; core.serving.model_choice expands it)."""
from __future__ import annotations

import shiboken6
from PySide6 import QtWidgets

from core.serving.model_choice import choice_text, price_note
from core.serving.state import ServingState
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import PAGE_COLUMN_EM, ReflowLayout, caption, narrow_headers
from widgets.kit.param_form import ParamForm
from widgets.serving.deployment import DeploymentSection
from widgets.serving.trace_source import in_language

HEADING = "你的模型与硬件 · your model and card"
LEAD = ("选一个目录里的模型或 config.json、一张卡或它的 TOML,两个回放的权重、KV、FLOPs、带宽、峰值与每卡时价格随之改变 · "
        "pick a catalog model or a Hugging Face config.json, a catalog card or a TOML of its figures: both "
        "replays take its weights, KV per token, FLOPs, bandwidth, peak and price per card-hour (the KV pool "
        "stays the form's)")
SETS_TIP = ("What the choice sets in both replays' forms (serving.replay's weights_bytes, kv_bytes_per_token, "
            "FLOPs, bandwidth_bytes_per_s, peak_flops, token_budget, and price_per_card_hour when the card has a "
            "list price)")
EDITED = "表单已手改 {fields} · edited in the form since: {fields}"
PICKER_FIELDS = ("model", "hardware")


class ModelPickerSection(QtWidgets.QWidget):
    """The pickers (a form over the state's model_choice card) and the model.config card."""

    def __init__(self, state: ServingState, parent=None):
        super().__init__(parent)
        self.state = state
        layout = ReflowLayout(self, columns=2, min_column_em=PAGE_COLUMN_EM, spacing=10, fill=False)
        left = QtWidgets.QWidget()
        col = QtWidgets.QVBoxLayout(left)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        heading = QtWidgets.QLabel(HEADING)
        heading.setObjectName("model_heading")
        heading.setStyleSheet("font-weight: 600;")
        lead = caption(LEAD)
        self.form = ParamForm(state.card("model_choice"))
        for name in PICKER_FIELDS:
            field = self.form.field(name)
            field.label.setProperty("i18n_key", None)  # the pair itself: no catalog entry for these names
            field.edit.setObjectName(f"pick_{name}")
        self.model_field, self.hardware_field = self.form.field("model"), self.form.field("hardware")
        self.sets_label = caption(name="model_sets")
        self.edited_label = caption(name="model_edited")
        self.edited_label.setVisible(False)
        # How the model runs on its cards (tp, quantization, ...): next to what it is.
        self.deployment = DeploymentSection(state)
        for w in (heading, lead, self.form, self.sets_label, self.edited_label, self.deployment):
            col.addWidget(w)
        col.addStretch(1)
        self._left = col
        layout.addWidget(left)
        self.card = narrow_headers(CalculatorCard(state.card("your_model")))
        layout.addWidget(self.card)
        state.changed.connect(self._on_state_changed)
        self.show_state()

    def add_below(self, widget: QtWidgets.QWidget) -> None:
        """A widget under the pickers (the replays' caption: the setup they describe)."""
        self._left.insertWidget(self._left.count() - 1, widget)

    def _on_state_changed(self, path: str, value) -> None:
        if not shiboken6.isValid(self):
            return
        if path in ("cards.model_choice", "cards.replay_a"):
            self.show_state()

    def show_state(self) -> None:
        """Remember a file chosen in its combo's list; say which fields the form changed since."""
        choice = self.state.card("model_choice")
        if not choice.errors:
            for name in PICKER_FIELDS:
                combo = self.form.field(name).edit
                value = str(choice.inputs[name])
                if combo.findText(value) < 0:
                    combo.addItem(value)  # a browsed or typed file: in the list from now on
        self.sets_label.setText(choice_text(choice.result))
        note = price_note(choice.result)
        self.sets_label.setToolTip(SETS_TIP + (f"\nprice_per_card_hour: {note}" if note else ""))
        set_by_deployment = self.deployment.deployed.values
        edited = [f for f in self.state.model_choice_edited() if f not in set_by_deployment]
        text = EDITED.format(fields=", ".join(edited)) if edited else ""
        if text != self.edited_label.text():
            self.edited_label.setText(text)
            self.edited_label.setVisible(bool(text))
            in_language(self.edited_label)
