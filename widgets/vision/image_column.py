"""The left column: the request's images, the current one with its grids, what the model
sees of it, the load messages, and the model constants, resize policy and pixel limit."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from core.state_model import CardModel
from core.vision import calculator as vm
from vision.figures import HOVER_HINT
from widgets.vision.forms import PartForm
from widgets.vision.image_view import ImageGridView
from widgets.vision.reflow import DownScroll, ReflowBox

SHAPE_PARAMS = ("patch", "merge", "feature_width", "feature_copies", "kv_bytes_per_token", "dtype_bytes")
RESIZE_PARAMS = ("resize", "min_pixels", "max_pixels")


def _caption(text: str = "", wrap: bool = False) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setProperty("role", "caption")
    label.setWordWrap(wrap)
    return label


class ImageColumn(QtWidgets.QWidget):
    """Top: the thumbnails, the picture (zoom with the wheel or −/+, drag to pan) and what
    the model makes of it. Below, scrolling when the window is short: the loader's notes and
    messages and the model's constants."""

    def __init__(self, request: CardModel, parent=None, deferred: bool = False):
        """deferred=True builds the picture only: the caller runs build_details() on a
        later turn of the event loop (a panel's first visit)."""
        super().__init__(parent)
        self._request = request
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 2, 0)
        lay.setSpacing(4)
        self.image_list = QtWidgets.QListWidget()
        self.image_list.setViewMode(QtWidgets.QListView.ViewMode.IconMode)
        self.image_list.setFlow(QtWidgets.QListView.Flow.LeftToRight)
        self.image_list.setWrapping(False)
        self.image_list.setIconSize(QtCore.QSize(44, 44))
        self.image_list.setMovement(QtWidgets.QListView.Movement.Static)
        self.image_list.setToolTip("Images of the request; drop more files here, Delete removes the selected one")
        lay.addWidget(self.image_list)
        self._split = split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(self._picture())
        self.notes_label = self.status_label = None  # the details' (build_details)
        if not deferred:
            self.build_details()

    def build_details(self) -> None:
        """The loader's messages and the model's constants, under the picture. The two go
        on the column together: a splitter shown with the picture alone gave it all its
        height, and the details then took theirs from the picture."""
        self._split.addWidget(self._details(self._request))
        self._split.setStretchFactor(0, 4)
        self._split.setStretchFactor(1, 1)
        self.layout().addWidget(self._split, 1)
        self._fit_text_heights()

    def _picture(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.view = ImageGridView()
        lay.addWidget(self.view, 1)
        toggles = QtWidgets.QHBoxLayout()
        self.patch_toggle = QtWidgets.QCheckBox("patch 网格")
        self.token_toggle = QtWidgets.QCheckBox("token 网格")
        self.token_toggle.setToolTip("合并 token 网格: the merged tokens the language model gets")
        toggles.addWidget(self.patch_toggle)
        toggles.addWidget(self.token_toggle)
        toggles.addStretch(1)
        self.zoom_out_button = QtWidgets.QToolButton(text="−", toolTip="Zoom out (or Ctrl+wheel on the picture)")
        self.zoom_in_button = QtWidgets.QToolButton(text="+", toolTip="Zoom in (or Ctrl+wheel on the picture); "
                                                    "drag the picture to pan")
        self.zoom_fit_button = QtWidgets.QToolButton(text="全图", toolTip="The whole picture")
        for button in (self.zoom_out_button, self.zoom_in_button, self.zoom_fit_button):
            toggles.addWidget(button)
        self.zoom_out_button.clicked.connect(lambda: self.view.zoom_by(1 / self.view.ZOOM_STEP))
        self.zoom_in_button.clicked.connect(lambda: self.view.zoom_by(self.view.ZOOM_STEP))
        self.zoom_fit_button.clicked.connect(self.view.zoom_fit)
        lay.addLayout(toggles)
        self.hover_label = _caption(HOVER_HINT)
        # One line that may be cut short on a narrow column (the full text is its tooltip).
        self.hover_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        lay.addWidget(self.hover_label)
        self.size_label = QtWidgets.QLabel()
        self.size_label.setObjectName("size_label")
        self.size_label.setWordWrap(True)
        lay.addWidget(self.size_label)
        self.token_label = QtWidgets.QLabel()
        self.token_label.setObjectName("token_label")
        self.token_label.setProperty("role", "value")
        self.token_label.setWordWrap(True)
        lay.addWidget(self.token_label)
        return box

    def _details(self, request: CardModel) -> QtWidgets.QScrollArea:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.notes_label = _caption(wrap=True)
        lay.addWidget(self.notes_label)
        self.error_label = QtWidgets.QLabel()
        self.error_label.setProperty("role", "error")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        lay.addWidget(self.error_label)
        self.status_label = _caption()
        lay.addWidget(self.status_label)
        lay.addWidget(self._model_box(request))
        lay.addStretch(1)
        area = DownScroll(min_lines=3)
        area.setWidget(page)
        area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        return area

    def _fit_text_heights(self) -> None:
        """Heights fixed to the lines they may take (a name and its size wrap to 3 in a narrow
        column): a new picture's captions then repaint without laying the column (and the
        image view in it) out again. Again on a zoom."""
        for label, lines in ((self.size_label, 3), (self.token_label, 2), (self.notes_label, 2),
                             (self.status_label, 1), (self.hover_label, 1)):
            if label is not None:
                label.setFixedHeight(label.fontMetrics().lineSpacing() * lines + 4)
        side = self.fontMetrics().height() * 3
        self.image_list.setIconSize(QtCore.QSize(side, side))
        self.image_list.setFixedHeight(side + self.fontMetrics().lineSpacing() + 16)

    def changeEvent(self, event):
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._fit_text_heights()
        super().changeEvent(event)

    def _model_box(self, request: CardModel) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("模型与缩放策略 · Qwen3-VL-4B")
        box.setToolTip("Qwen3-VL-4B: patch 16, 2×2 合并, DeepStack ×4")
        row = QtWidgets.QVBoxLayout(box)
        self.shape_form = PartForm(request, names=SHAPE_PARAMS)
        self.resize_form = PartForm(request, names=RESIZE_PARAMS)
        right = QtWidgets.QWidget()
        right_lay = QtWidgets.QVBoxLayout(right)
        right_lay.setContentsMargins(0, 0, 0, 0)
        right_lay.addWidget(self.resize_form)
        limit = QtWidgets.QFormLayout()
        self.pixel_limit = QtWidgets.QDoubleSpinBox()
        self.pixel_limit.setDecimals(1)
        # Rounded inwards: the largest value shown is a limit the loader takes.
        self.pixel_limit.setRange(vm.PIXEL_LIMIT_MIN_MP, vm.PIXEL_LIMIT_MAX_MP)
        self.pixel_limit.setSuffix(" MP")
        self.pixel_limit.setToolTip("Files whose header claims more pixels are refused before decoding "
                                    f"(decompression bombs); valid: {vm.PIXEL_LIMIT_MIN_MP:g}-"
                                    f"{vm.PIXEL_LIMIT_MAX_MP:g} MP. Applies to the next files you open.")
        limit.addRow("像素上限 pixel limit", self.pixel_limit)
        right_lay.addLayout(limit)
        right_lay.addStretch(1)
        self.model_forms = ReflowBox(self.shape_form, right, stretch=(1, 1))
        row.addWidget(self.model_forms)
        return box

    def show_hover(self, text: str) -> None:
        self.hover_label.setText(text)
        self.hover_label.setToolTip(text)

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))
