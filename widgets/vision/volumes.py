"""图 3-16 tab: the request's text fields, the volumes table, the three volumes on a log
scale, where the question sits (what KV a new question keeps) and the handoff points."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core.state_model import CardModel
from core.units import format_bytes
from core.vision import figures as vf
from widgets.kit.i18n_text import notifier
from widgets.kit.page import plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.plot_labels import wrap_in_plot
from widgets.kit.theme import COLORS, brush, color, pen
from widgets.kit.zoom_factor import zoom_notifier
from widgets.vision.diagrams import HandoffDiagram
from widgets.vision.forms import PartForm
from widgets.vision.reflow import ReflowBox
from widgets.vision.replay_card import HandoffReplay

# The question plot's rows: bars from core.vision.figures at y = 0 and 1, their dashed
# boxes 0.38 each side; the labels sit just outside them.
ROW_BOTTOM, ROW_TOP = -0.4, 1.4
LABEL_GAP_PX = 3.0  # between a label and the plot's edge
BAR_LEAST_PX = 12.0  # a row's bar no thinner than this
QUESTION_LEAST_PX, QUESTION_CARD_MOST_PX = 120, 180  # the plot's least height, its card's most
VOLUME_CARD_MOST_PX = 290

REQUEST_PARAMS = ("text_tokens", "prefix_tokens", "question")
_TIPS = ("", "原图(EXIF 方向已应用)→ 缩放策略后编码器看到的尺寸", "H'·W' / p²", "n_v = H'·W' / (p²·r²)",
         "压缩文件字节数(SI 单位,书中 0.8 MB)", "EC = n_v · feature_width · feature_copies · dtype_bytes",
         "KV = tokens · kv_bytes_per_token (144 KiB)")


class VolumesTab(QtWidgets.QWidget):
    def __init__(self, request: CardModel, parent=None, deferred: bool = False):
        """deferred=True builds nothing yet: the caller runs build_steps() one at a time
        (a panel's first visit spreads them over turns of the event loop)."""
        super().__init__(parent)
        self._request = request
        self._lay = lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 6, 4, 6)
        lay.setSpacing(10)
        if not deferred:
            for step in self.build_steps():
                step()

    def build_steps(self) -> list:
        """The request's fields and the table, each plot, the hand-offs: one a step, in
        the page's order."""
        return [self._build_request, self._volume_plot, self._question_plot, self._build_handoffs,
                self._build_replay]

    def _build_request(self) -> None:
        # One small form per field, side by side when they fit: the request on one line.
        self.request_forms = {n: PartForm(self._request, names=[n]) for n in REQUEST_PARAMS}
        self._lay.addWidget(ReflowBox(*self.request_forms.values(), stretch=(1, 1, 1)))
        self._lay.addWidget(self._table())

    def _build_handoffs(self) -> None:
        lay = self._lay
        self.reuse_label = QtWidgets.QLabel()
        self.reuse_label.setObjectName("reuse_label")
        self.reuse_label.setWordWrap(True)
        lay.addWidget(self.reuse_label)
        handoff_box = QtWidgets.QGroupBox("E → P → D:三种表示对应三个交接位置(本请求)")
        hlay = QtWidgets.QVBoxLayout(handoff_box)
        hlay.setContentsMargins(4, 4, 4, 4)
        self.handoff = HandoffDiagram()
        hlay.addWidget(self.handoff)
        lay.addWidget(handoff_box)

    def _build_replay(self) -> None:
        lay = self._lay
        self.replay = HandoffReplay()  # "replay it": the three handoffs through the engine
        self.handoff.parentWidget().layout().addWidget(self.replay)
        lay.addStretch(1)  # height the plots (stretch 30 and 20, with maximums) do not take: below them
        for card in (self.volume_plot, self.question_plot):
            card.installEventFilter(self)  # a zoomed title needs a taller card (eventFilter)

    def _table(self) -> QtWidgets.QTableWidget:
        self.table = QtWidgets.QTableWidget(0, len(vf.TABLE_HEADER))
        self.table.setHorizontalHeaderLabels(list(vf.TABLE_HEADER))
        for col, tip in enumerate(_TIPS):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().lineSpacing() + 6)
        return self.table

    def _volume_plot(self) -> None:
        self.volume_plot = PlotCard("三种数据量(对数刻度)", "同一张图在三个阶段差一个数量级:说“贵”要指明是哪一段")
        p = self.volume_plot.plot
        p.setLabel("left", "bytes (log)")
        p.setMouseEnabled(x=False, y=False)
        p.getAxis("left").setTicks([[(k, format_bytes(10 ** k, "si", 3)) for k in range(vf.LOG_FLOOR, 13)]])
        self.volume_bars = {}
        legend = self.volume_legend = p.addLegend(offset=(10, 4), colCount=3)
        for key, label, kind in vf.VOLUME_KINDS:
            bar = pg.BarGraphItem(x=[0], height=[0], y0=[vf.LOG_FLOOR], width=0.9, brush=brush(kind, 220),
                                  pen=pen(kind, 1))
            p.addItem(bar)
            legend.addItem(bar, label)
            self.volume_bars[key] = bar
        self.volume_labels: list[pg.TextItem] = []
        self._volume_y = (vf.LOG_FLOOR, 13)
        self._legend_fit = QtCore.QTimer(self)
        self._legend_fit.setSingleShot(True)
        self._legend_fit.timeout.connect(self._clear_the_legend)
        p.getViewBox().sigResized.connect(self._clear_the_legend_soon)
        notifier().language_changed.connect(self._clear_the_legend_soon)  # the legend's width
        legend.geometryChanged.connect(self._clear_the_legend_soon)  # laid out a pass later
        zoom_notifier().zoom_changed.connect(self._clear_the_legend_soon)
        self.volume_plot.plot_widget.setMinimumHeight(200)
        self.volume_plot.setMaximumHeight(VOLUME_CARD_MOST_PX)
        self._lay.addWidget(self.volume_plot, 30)

    def _question_plot(self) -> None:
        self.question_plot = PlotCard("问题放在哪里 · 换一个问题,哪些 KV 还能用",
                                      "因果注意力:token 的 KV 取决于它之前的一切")
        q = self.question_plot.plot
        q.setMouseEnabled(x=False, y=False)
        q.hideAxis("left")
        q.setLabel("bottom", "prompt tokens, in order")
        q.setYRange(-0.6, 1.6)
        self.question_segments = pg.BarGraphItem(x0=[0], x1=[0], y0=[0], y1=[0], brushes=[brush("wait")],
                                                 pens=[pg.mkPen(None)])
        self.question_stale = pg.BarGraphItem(x0=[0], x1=[0], y0=[0], y1=[0], brush=pg.mkBrush(None),
                                              pen=pg.mkPen(color("backlog"), width=2, style=QtCore.Qt.PenStyle.DashLine))
        q.addItem(self.question_segments)
        q.addItem(self.question_stale)
        # The top row's label above it, the bottom row's below it: each grows away from the
        # other row when it wraps at the plot's edge (between the rows they ran past it).
        self.question_row_labels = {row: plot_text(anchor=(0, 0 if row == 0 else 1), size=9) for row in (0, 1)}
        self._question_wraps = []
        for item in self.question_row_labels.values():
            q.addItem(item)
            self._question_wraps.append(wrap_in_plot(q, item))
        self.question_plot.plot_widget.setMinimumHeight(QUESTION_LEAST_PX)
        self.question_plot.setMaximumHeight(QUESTION_CARD_MOST_PX)  # raised when its labels need more
        self._question_fit = QtCore.QTimer(self)
        self._question_fit.setSingleShot(True)
        self._question_fit.timeout.connect(self._fit_question_rows)
        q.getViewBox().sigResized.connect(self._fit_question_soon)  # after the wraps
        notifier().language_changed.connect(self._fit_question_soon)  # after the new texts
        zoom_notifier().zoom_changed.connect(self._fit_question_soon)
        self._lay.addWidget(self.question_plot, 20)

    def eventFilter(self, watched, event):
        if event.type() == QtCore.QEvent.Type.LayoutRequest:  # its content's size changed
            self._fit_question_soon()
            self._clear_the_legend_soon()
        return super().eventFilter(watched, event)

    def _fit_question_soon(self, *_args) -> None:
        self._question_fit.start(0)

    def _fit_question_rows(self) -> None:
        """The y range that holds both rows and their (wrapped) labels at the plot's height;
        a taller plot when the bars would be thinner than BAR_LEAST_PX."""
        q = self.question_plot.plot
        box = q.getViewBox()
        for wrap in self._question_wraps:
            wrap.wrap()
        label = max(_label_px(item) for item in self.question_row_labels.values()) + LABEL_GAP_PX
        span = ROW_TOP - ROW_BOTTOM
        least = BAR_LEAST_PX / 0.6  # core.vision.figures draws a row's bar 0.6 units tall
        widget, card = self.question_plot.plot_widget, self.question_plot
        need = int(widget.height() - box.height() + 2 * label + least * span + 1)  # the plot's least height
        widget.setMinimumHeight(max(QUESTION_LEAST_PX, need))
        _no_less_than_its_content(card, QUESTION_CARD_MOST_PX)
        unit = (box.height() - 2 * label) / span  # px per row unit
        if unit < least:
            return  # being made taller: this runs again at the new height
        pad = label / unit
        q.setYRange(ROW_BOTTOM - pad, ROW_TOP + pad, padding=0)

    # ---- drawing --------------------------------------------------------------
    def draw(self, inputs, result) -> None:
        """Everything on the tab for the request card's inputs and result."""
        self.draw_table(vf.request_table(inputs, result))
        self.draw_volumes(vf.volume_bars(result))
        self.draw_question(vf.question_figure(inputs, result))
        self.handoff.set_figure(vf.handoff_figure(result))
        self.replay.set_request(inputs)

    def draw_table(self, rows: list[tuple[str, ...]]) -> None:
        self.table.setRowCount(len(rows))
        bold = QtGui.QFont(self.table.font())
        bold.setBold(True)
        left = QtCore.Qt.AlignmentFlag.AlignVCenter | QtCore.Qt.AlignmentFlag.AlignLeft
        right = QtCore.Qt.AlignmentFlag.AlignVCenter | QtCore.Qt.AlignmentFlag.AlignRight
        for r, cells in enumerate(rows):
            for c, value in enumerate(cells):
                item = self.table.item(r, c)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    item.setTextAlignment(left if c < 2 else right)
                    self.table.setItem(r, c, item)
                # The sizes on two lines: the table then fits beside the picture at 1280 px.
                item.setText(value.replace(" → ", "\n→ ").replace(" + ", "\n+ ") if c == 1 else value)
                item.setFont(bold if r == len(rows) - 1 else self.table.font())
        self.table.resizeRowsToContents()
        shown = sum(self.table.rowHeight(r) for r in range(min(10, len(rows))))
        self.table.setFixedHeight(shown + self.table.horizontalHeader().height() + 2 * self.table.frameWidth() + 2)
        self._fit_table_width()

    def _fit_table_width(self) -> None:
        """The table asks for its columns' width: the page reflows around it rather than
        the table scrolling sideways."""
        header = self.table.horizontalHeader()
        need = sum(max(self.table.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in range(self.table.columnCount()))
        self.table.setMinimumWidth(need + 2 * self.table.frameWidth() + 2)

    def changeEvent(self, event):
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange) and hasattr(self, "table"):
            self._fit_table_width()  # a zoom makes the columns wider
        super().changeEvent(event)

    def draw_volumes(self, fig: dict) -> None:
        p = self.volume_plot.plot
        for key, bar in self.volume_bars.items():
            bar.setOpts(**fig["bars"][key])
        while len(self.volume_labels) < len(fig["texts"]):
            item = plot_text(anchor=(0.5, 1), size=8)
            p.addItem(item)
            self.volume_labels.append(item)
        for item, (x, top, text) in zip(self.volume_labels, fig["texts"]):
            _set_text(item, text)
            item.setPos(x, top)
            item.setVisible(fig["show_text"])
        for item in self.volume_labels[len(fig["texts"]):]:
            item.setVisible(False)
        p.getAxis("bottom").setTicks([fig["ticks"]])
        p.setXRange(*fig["x_range"], padding=0)
        self._volume_y = fig["y_range"]
        p.setYRange(*fig["y_range"], padding=0)
        self._clear_the_legend_soon()

    def _clear_the_legend_soon(self, *_args) -> None:
        self._legend_fit.start(0)

    def _clear_the_legend(self) -> None:
        """Room above the bars for the legend: the y range's top raised until no bar label
        under the legend reaches it (at F11's zoom the legend covered one)."""
        p = self.volume_plot.plot
        box = p.getViewBox()
        lo, hi = self._volume_y
        height = box.height()
        legend = self.volume_legend.sceneBoundingRect()
        room = legend.bottom() + LABEL_GAP_PX - box.sceneBoundingRect().top()  # px the legend takes
        tops = []  # (value, px above it) of each label under the legend
        for item in self.volume_labels:
            # Where the label lands in the new x range (its scene rect is the old range's
            # until the view repaints: after a narrower plot a label came under the legend).
            middle = box.mapViewToScene(QtCore.QPointF(item.pos().x(), lo)).x()
            half = item.textItem.boundingRect().width() / 2
            if item.isVisible() and middle - half < legend.right() and middle + half > legend.left():
                margin = item.textItem.document().documentMargin()  # below the ink, over the bar
                tops.append((item.pos().y(), _label_px(item) + margin))
        top = hi
        for y, above in tops:  # y at `above` px under the room: (top - y) * height = (room + above) * (top - lo)
            if height - room - above > 0:
                top = max(top, (y * height - (room + above) * lo) / (height - room - above))
        p.setYRange(lo, top, padding=0)
        _no_less_than_its_content(self.volume_plot, VOLUME_CARD_MOST_PX)

    def draw_question(self, fig: dict) -> None:
        segs = fig["segments"]
        self.question_segments.setOpts(
            x0=[s["x0"] for s in segs], x1=[s["x1"] for s in segs], y0=[s["y0"] for s in segs],
            y1=[s["y1"] for s in segs], brushes=[brush(vf.QUESTION_KINDS[s["kind"]], s["alpha"]) for s in segs],
            pens=[pg.mkPen(color("paper"), width=1)] * len(segs))
        stale = fig["stale"]
        self.question_stale.setOpts(x0=[s["x0"] for s in stale], x1=[s["x1"] for s in stale],
                                    y0=[s["y0"] for s in stale], y1=[s["y1"] for s in stale])
        for row in fig["rows"]:
            label = self.question_row_labels[row["row"]]
            _set_text(label, row["label"])
            label.setPos(row["label_pos"][0], ROW_TOP if row["row"] == 1 else ROW_BOTTOM)
        self._question_fit.start(0)
        self.question_plot.plot.setXRange(*fig["x_range"], padding=0.02)
        self.reuse_label.setText(
            f"<b>当前(问题{'在图片之后' if fig['chosen'] == 'after' else '在图片之前'})</b>:只换问题时,"
            f"KV 保留 <b>{fig['reusable_kv']}</b>,需重算 <b>{fig['recomputed_kv']}</b>;"
            f"EC 只取决于图片,<b>{fig['reusable_ec']}</b> 全部可复用。"
            f"<span style='color:{COLORS['muted']}'> 蓝 = 图片 token,橙 = 问题,灰 = 前缀;红框 = 换问题后要重算的 KV。</span>")


def _no_less_than_its_content(card: QtWidgets.QWidget, most: int) -> None:
    """card's most height, raised to what its content needs (in F11 a card held to its
    zoom-1 most height cut its plot's axis label)."""
    card.setMaximumHeight(max(most, card.minimumSizeHint().height()))


def _label_px(item: pg.TextItem) -> float:
    """A plot label's height on screen (it ignores the view's scale), without its margin."""
    margin = item.textItem.document().documentMargin()
    return item.textItem.boundingRect().height() - 2 * margin if item.textItem.toPlainText() else 0.0


def _set_text(item: pg.TextItem, text: str) -> None:
    """Lay a plot label's text out again only when it changed (each layout costs ~0.2 ms)."""
    if item.toPlainText() != text:
        item.setText(text)
