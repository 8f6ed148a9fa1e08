"""The Book check panel's state: the filter text and the column the table is sorted by.
Pure Python; the panel binds to it. The rows themselves are `core.verify.verify_all()`."""
from __future__ import annotations

from core.state_model import PanelModel


class VerifyState(PanelModel):
    key = "verify"
    # filter: text matched against calculator, output, book ref and printed figure.
    # sort_column: -1 keeps the registry's order; sort_descending flips a sorted column.
    VIEW = {"filter": "", "sort_column": -1, "sort_descending": False}
