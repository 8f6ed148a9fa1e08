"""A form over some fields of a card that other forms share."""
from __future__ import annotations

from widgets.kit.param_form import ParamForm


class PartForm(ParamForm):
    """ParamForm over `names` of a card split across several forms (the request's shape,
    resize and text fields). An error shows only next to the field it names: the form
    holding that field shows it, the others stay quiet."""

    SHOW_FOREIGN_ERRORS = False
