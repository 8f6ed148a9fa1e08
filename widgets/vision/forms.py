"""A form over some fields of a card that other forms share."""
from __future__ import annotations

from core.state_model import CardModel
from widgets.param_form import ParamForm, _shows


class PartForm(ParamForm):
    """ParamForm over `names` of a card split across several forms (the request's shape,
    resize and text fields). An error shows only next to the field it names: the form
    holding that field shows it, the others stay quiet (a plain ParamForm would repeat an
    error about a field it does not hold on its first field)."""

    def _show(self, card: CardModel) -> None:
        for name, field in self._fields.items():
            field.show_error(card.errors.get(name))
            if name not in card.errors and not _shows(field, card.inputs[name]):
                field.set_value(card.inputs[name])
