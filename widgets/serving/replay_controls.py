"""The replays' controls: A's form, B's shares, the A/B table beside the book's observed
values, the band over seeds and the status line. Forms bind to the state's replay cards;
the table and texts draw what core.serving.figures computed."""
from __future__ import annotations

import re

from PySide6 import QtCore, QtWidgets

from core.serving import figures as F
from core.serving.state import ServingState
from widgets.kit.i18n import has_cjk
from widgets.kit.jobs import BusyBadge
from widgets.kit.page import ReflowLayout, fit_content_width, fixed_lines
from widgets.kit.param_form import ParamForm
from widgets.kit.theme import color

TABLE_MIN_EM = 44  # the A/B table's six columns of numbers and its row names stay whole
# The names the catalogs' entry for the caption matches (its numbers are placeholders, its
# words are not): the book's model and card and their siblings.
_CATALOG_NAMES = (re.compile(r"Qwen3-\d+B"), re.compile(r"RTX PRO \d+"))


def caption(model: str = "Qwen3-8B", card: str = "RTX PRO 6000", token_budget: int = 8192,
            prefix_a: bool | None = None) -> str:
    """The replays' setup; the model, card and budget follow the pickers (the book's run by default).
    prefix_a: A's prefix caching for a trace that carries prefix information (B the other
    way), None when there is nothing to cache (the book's windows: no hits, as if off).
    Another model or card (a config.json, a TOML) or a prefix cache on is in no catalog
    entry: the caption is then a "中文 · English" pair of its own, so it still reads in one language."""
    zh_prefix, en_prefix = ("关", "off") if prefix_a is None else (
        (" A 开、B 关", "A on, B off") if prefix_a else (" A 关、B 开", "A off, B on"))
    zh = (f"{model} · 1 张 {card} · KV 池 24 GiB · 64 序列 · 前缀缓存{zh_prefix}。FCFS、16-token 块、每步先 decode 再分块 prefill"
          f"(预算 {token_budget} token)、整段 prompt 的块空出来才接纳、块不够时抢占最近接纳的请求并重算。"
          "步时 = 屋顶线(带宽效率、prefill MFU、每步开销为示意旋钮)。书中实测值(vLLM 0.23)列在模拟值旁。")
    if prefix_a is None and all(pattern.fullmatch(name) for pattern, name in zip(_CATALOG_NAMES, (model, card))):
        return zh
    en = (f"{model} · 1× {card} · KV pool 24 GiB · 64 sequences · prefix cache {en_prefix}. FCFS, 16-token blocks, "
          f"each step decodes first, then chunked prefill (budget {token_budget} tokens); a request is admitted only "
          "when its whole prompt's blocks are free; when blocks run out the latest admitted request is preempted and "
          "recomputed. Step time = roofline (bandwidth efficiency, prefill MFU and per-step overhead are "
          "illustrative knobs). The book's measured values (vLLM 0.23) sit beside the simulated ones.")
    return zh.replace(" · ", ",") + " · " + en


CAPTION = caption()


A_AND_B = "<b>A</b> uses the form; <b>B</b> is A with these shares of long-input requests per window:"
# One "中文 · English" pair of plain text (rich text is translated piece by piece between
# its tags, which would split the pair).
A_AND_B_TRACE = ("A 与 B 用表单的引擎回放同一轨迹文件,B 的前缀缓存与 A 相反(没有前缀信息时两者相同) · "
                 "A and B both replay the trace with the form's engine; B with prefix caching the other way "
                 "(the same run without prefix information)")
BAND_TIP = ("Re-run A and B with Poisson arrivals and random class order for seeds 0-4: each metric as "
            "min – max (median), a band rather than one number; while on, every edit recomputes it")
BAND_TRACE_TIP = "The band over seeds redraws the book's windows; a trace's arrivals are fixed (Clear the trace first)"
# The form's fields that make the book's windows: a trace replaces them.
WINDOW_FIELDS = ("durations_s", "rates_per_s", "shares_long_input", "long_input_in_tokens", "long_input_out_tokens",
                 "long_output_in_tokens", "long_output_out_tokens", "arrival", "cv", "seed", "class_order")


def side_header(header: str) -> str:
    """"A 模拟 · trace" with its side on the English side too ("A simulated · trace"): as a pair
    the English side would read just "trace", the same over A's and B's columns. The book's
    scenario names are Chinese and in the catalogs with their side ("A 模拟 · 均匀混合 %1:%2")."""
    side, sep, rest = header.partition(" 模拟 · ")
    return f"{side} 模拟 · {side} simulated · {rest}" if sep and side in ("A", "B") and not has_cjk(rest) else header


def _keep_place(widget: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """Showing or hiding the widget does not re-lay out the page (a busy badge comes and
    goes with every edit)."""
    policy = widget.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    widget.setSizePolicy(policy)
    return widget


# With table_later, A's form comes FORM_FIRST fields now and FORM_PER_TURN a turn after
# (its thirty fields together held the window for about 0.1 s, more on a loaded machine).
FORM_FIRST = 8
FORM_PER_TURN = 8


class ReplayControls(QtWidgets.QWidget):
    """A's form and B's shares, and beside them the comparison table with the band and the
    status. table_later: A's form comes in parts (form_steps()) and the table half waits for
    build_table(): the panel builds them a turn each (together they held the window for
    0.1-0.2 s)."""

    def __init__(self, state: ServingState, replay_keys: tuple[str, ...], band_key: str, parent=None,
                 table_later: bool = False):
        super().__init__(parent)
        self.state = state
        self._replay_keys, self._band_key = replay_keys, band_key
        # The form at its width and the table beside it with the rest when that leaves the
        # table TABLE_MIN_EM line heights; the form above the table when not.
        self._top = ReflowLayout(self, columns=2, natural=True, grow=1, min_column_em=TABLE_MIN_EM)
        self._build_forms(FORM_FIRST if table_later else None)
        if not table_later:
            self.build_table()

    def _build_forms(self, first: int | None) -> None:
        state, top = self.state, self._top
        form_box = QtWidgets.QWidget()
        form_col = QtWidgets.QVBoxLayout(form_box)
        form_col.setContentsMargins(0, 0, 0, 0)
        self.replay_form = ParamForm(state.replay("A"), first=first)  # the rest: form_steps()
        form_scroll = QtWidgets.QScrollArea()
        form_scroll.setWidgetResizable(True)
        form_scroll.setWidget(self.replay_form)
        fit_content_width(form_scroll)
        form_scroll.setMaximumHeight(330)
        a_label = QtWidgets.QLabel(A_AND_B)
        self.a_label = a_label
        a_label.setProperty("role", "caption")
        a_label.setWordWrap(True)
        # Three lines for either text: loading a trace does not re-lay out the page.
        fixed_lines(a_label, 3)
        a_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self.b_form = ParamForm(state.replay("B"), names=("shares_long_input",))
        field = self.b_form.field("shares_long_input")
        field.label.setText("B · shares_long_input")
        field.edit.setObjectName("b_shares")
        field.edit.setToolTip("B: shares_long_input per window (9:1 then 1:9 = 0.9, 0.1); one value per window of A")
        self.b_shares_edit, self.b_error = field.edit, field.error_label
        form_col.addWidget(form_scroll, 1)
        form_col.addWidget(a_label)
        form_col.addWidget(self.b_form)
        top.addWidget(form_box)

    def form_steps(self) -> list:
        """A's fields that table_later left out, FORM_PER_TURN a step."""
        return self.replay_form.rest_steps(FORM_PER_TURN)

    def build_table(self) -> None:
        """The comparison table, the band's button and the replays' status."""
        replay_keys, band_key, top = self._replay_keys, self._band_key, self._top
        right_box = QtWidgets.QWidget()
        right = QtWidgets.QVBoxLayout(right_box)
        right.setContentsMargins(0, 0, 0, 0)
        self.busy = _keep_place(BusyBadge(*replay_keys, owner=self, text="replaying…"))
        head = QtWidgets.QHBoxLayout()
        head.addStretch(1)
        head.addWidget(self.busy)
        right.addLayout(head)
        self.compare_table = QtWidgets.QTableWidget(len(F.COMPARE_ROWS), 6)
        self.compare_table.setObjectName("compare_table")
        self.compare_table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.compare_table.horizontalHeader()
        header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        # Six columns share the table's width: a header wraps onto more lines rather
        # than being cut ("A simulated · even mix 1:1" at 1280 px).
        header.setDefaultAlignment(QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap)
        header.setMinimumHeight(3 * header.fontMetrics().lineSpacing() + 6)  # "first 9:1, then 1:9" takes three
        self.compare_table.setMinimumHeight(290)
        self.compare_table.setVerticalHeaderLabels(list(F.COMPARE_ROWS))
        for r in range(len(F.COMPARE_ROWS)):
            for c in range(6):
                item = QtWidgets.QTableWidgetItem("")
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                self.compare_table.setItem(r, c, item)
        self.draw_table(F.compare_rows({"A": None, "B": None}))
        right.addWidget(self.compare_table, 1)
        band_row = QtWidgets.QHBoxLayout()
        self.band_button = QtWidgets.QPushButton("Band over seeds")
        self.band_button.setObjectName("band_button")
        self.band_button.setCheckable(True)
        self.band_button.setToolTip(BAND_TIP)
        self.band_busy = _keep_place(BusyBadge(band_key, owner=self.band_button))
        self.band_label = QtWidgets.QLabel("")
        self.band_label.setProperty("role", "caption")
        self.band_label.setWordWrap(True)
        band_row.addWidget(self.band_button)
        band_row.addWidget(self.band_busy)
        band_row.addWidget(self.band_label, 1)
        right.addLayout(band_row)
        self.replay_status = QtWidgets.QLabel("replaying both scenarios…")
        self.replay_status.setProperty("role", "caption")
        self.replay_status.setWordWrap(True)
        # Three lines, whatever the text: a new result must not change the page's height
        # (the whole page would be laid out and repainted again).
        fixed_lines(self.replay_status, 3)
        self.replay_status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        right.addWidget(self.replay_status)
        top.addWidget(right_box)
        self.band_button.toggled.connect(lambda on: self.state.set_view("band", on))
        self.show_band(None)

    def show_source(self, trace: bool) -> None:
        """A trace replaces the windows: their fields and B's shares are greyed out."""
        for name in WINDOW_FIELDS:
            self.replay_form.field(name).setEnabled(not trace)
        self.b_form.setEnabled(not trace)
        self.a_label.setText(A_AND_B_TRACE if trace else A_AND_B)
        self.band_button.setEnabled(not trace)  # the band redraws the windows' arrivals, not a trace's
        self.band_button.setToolTip(BAND_TRACE_TIP if trace else BAND_TIP)

    def draw_table(self, table: dict) -> None:
        self.compare_table.setUpdatesEnabled(False)
        for r, tip in enumerate(table["tips"]):
            self.compare_table.verticalHeaderItem(r).setToolTip(tip)
        for c0, side in ((0, "A"), (3, "B")):
            for r, (sim, book, delta, ok) in enumerate(table["cells"].get(side, ())):
                for k, text in enumerate((sim, book, delta)):
                    item = self.compare_table.item(r, c0 + k)
                    item.setText(text)
                    # Looked up as drawn: the theme may have changed since the module loaded.
                    tint = ("good_tint" if ok else "bad_tint") if (k == 2 and ok is not None) else "paper"
                    item.setBackground(color(tint))
        self.compare_table.setHorizontalHeaderLabels([side_header(h) for h in table["headers"]])
        for c in (1, 2, 4, 5):  # the book's columns, when there is a book run to compare with
            self.compare_table.setColumnHidden(c, not table.get("book", True))
        self.compare_table.setUpdatesEnabled(True)

    def show_band(self, band: dict | None) -> None:
        on = self.state.view("band")
        if self.band_button.isChecked() != on:
            blocker = QtCore.QSignalBlocker(self.band_button)
            self.band_button.setChecked(on)
            del blocker
        if band is not None:
            self.band_label.setText(band["text"])
        elif on:
            self.band_label.setText("Poisson arrivals, 5 seeds: computing the band of each scenario…")
        else:
            self.band_label.setText("Poisson arrivals, 5 seeds: press for the band of each scenario.")
