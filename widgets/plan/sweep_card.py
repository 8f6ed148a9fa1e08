"""The frame of a Plan card that runs one sweep (the xPyD card, the RL split card): a heading
and its lead, the card's fields with run / cancel (and the card's own buttons) over a status
line, beside the card's figure and its answer (under them when the page is narrow), and the
exact command under both. The card builds its form and figure; the frame lays them out."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from widgets.kit.i18n_text import language
from widgets.kit.i18n_tree import translate_tree
from widgets.kit.page import ReflowLayout, caption
from widgets.plan.runner import SweepRunner


class SweepCard(QtWidgets.QFrame):
    finished = QtCore.Signal(object)  # the sweep's summary, once the figure is drawn
    failed = QtCore.Signal(str, str)  # field ('' when none), message

    def __init__(self, name: str, heading: str, lead: str, run_text: str, parent=None):
        super().__init__(parent)
        self._name = name
        self.setProperty("role", "card")
        self.setObjectName(f"{name}_card")
        self.runner = SweepRunner(self)
        self._column = QtWidgets.QVBoxLayout(self)
        self._column.setContentsMargins(8, 6, 8, 6)
        title = QtWidgets.QLabel(heading)
        title.setStyleSheet("font-weight: 600;")
        title.setWordWrap(True)
        self._column.addWidget(title)
        self._column.addWidget(caption(lead))
        self.run_button = QtWidgets.QPushButton(run_text)
        self.run_button.setObjectName(f"{name}_run")
        self.cancel_button = QtWidgets.QPushButton("取消 · cancel")
        self.cancel_button.setEnabled(False)
        self.summary: dict | None = None

    def lay_out(self, form: QtWidgets.QLayout, figure: QtWidgets.QWidget, more_buttons=(),
                min_column_em: int = 18, rich_answer: bool = False, answer_on_top: bool = False) -> None:
        """form and its buttons on the left, figure and the answer on the right (stacked when
        narrow); answer_on_top: the right column's room below goes under the answer."""
        left = QtWidgets.QWidget()
        left_col = QtWidgets.QVBoxLayout(left)
        left_col.setContentsMargins(0, 0, 0, 0)
        left_col.addLayout(form)
        buttons = QtWidgets.QHBoxLayout()
        for b in (self.run_button, self.cancel_button, *more_buttons):
            buttons.addWidget(b)
        buttons.addStretch(1)
        left_col.addLayout(buttons)
        self.status = caption("", name=f"{self._name}_status")
        left_col.addWidget(self.status)
        left_col.addStretch(1)
        right = QtWidgets.QWidget()
        right_col = QtWidgets.QVBoxLayout(right)
        right_col.setContentsMargins(0, 0, 0, 0)
        right_col.addWidget(figure)
        self.answer = caption("", name=f"{self._name}_answer")
        self.answer.setStyleSheet("font-weight: 600;")
        if rich_answer:
            self.answer.setTextFormat(QtCore.Qt.TextFormat.RichText)
        right_col.addWidget(self.answer)
        if answer_on_top:
            right_col.addStretch(1)
        both = ReflowLayout(columns=2, min_column_em=min_column_em, stretch=(2, 3))
        both.addWidget(left)
        both.addWidget(right)
        self._column.addLayout(both)
        self.command = caption("", name=f"{self._name}_command")
        self.command.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.command.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self._column.addWidget(self.command)

    def _translate(self) -> None:
        """Texts set after the window translated the panel, in the language shown."""
        if language() != "both":
            translate_tree(self)
