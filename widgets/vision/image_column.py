"""The left column: the request's images, the current one with its grids, what the model
sees of it, the load messages, and the model constants, resize policy and pixel limit."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from core import vision_math as vm
from core.state_model import CardModel
from vision.figures import HOVER_HINT
from widgets.vision.forms import PartForm
from widgets.vision.image_view import ImageGridView

SHAPE_PARAMS = ("patch", "merge", "feature_width", "feature_copies", "kv_bytes_per_token", "dtype_bytes")
RESIZE_PARAMS = ("resize", "min_pixels", "max_pixels")


def _caption(text: str = "", wrap: bool = False) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setProperty("role", "caption")
    label.setWordWrap(wrap)
    return label


class ImageColumn(QtWidgets.QWidget):
    def __init__(self, request: CardModel, parent=None):
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 6, 0)
        lay.setSpacing(6)
        self.image_list = QtWidgets.QListWidget()
        self.image_list.setViewMode(QtWidgets.QListView.ViewMode.IconMode)
        self.image_list.setFlow(QtWidgets.QListView.Flow.LeftToRight)
        self.image_list.setWrapping(False)
        self.image_list.setIconSize(QtCore.QSize(56, 56))
        self.image_list.setFixedHeight(84)
        self.image_list.setMovement(QtWidgets.QListView.Movement.Static)
        self.image_list.setToolTip("Images of the request; drop more files here, Delete removes the selected one")
        lay.addWidget(self.image_list)
        self.view = ImageGridView()
        self.view.setMinimumSize(300, 200)  # the column fits a 720-pixel-high window
        lay.addWidget(self.view, 1)
        toggles = QtWidgets.QHBoxLayout()
        self.patch_toggle = QtWidgets.QCheckBox("patch 网格")
        self.token_toggle = QtWidgets.QCheckBox("合并 token 网格")
        toggles.addWidget(self.patch_toggle)
        toggles.addWidget(self.token_toggle)
        toggles.addStretch(1)
        self.hover_label = _caption(HOVER_HINT)
        toggles.addWidget(self.hover_label)
        lay.addLayout(toggles)
        self.size_label = QtWidgets.QLabel()
        self.size_label.setObjectName("size_label")
        self.size_label.setWordWrap(True)
        lay.addWidget(self.size_label)
        self.token_label = QtWidgets.QLabel()
        self.token_label.setObjectName("token_label")
        self.token_label.setProperty("role", "value")
        lay.addWidget(self.token_label)
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
        # Heights fixed to the lines they may take: a new picture's captions then repaint
        # without laying the column (and the image view in it) out again.
        for label, lines in ((self.size_label, 2), (self.token_label, 1), (self.notes_label, 2),
                             (self.status_label, 1)):
            label.setFixedHeight(label.fontMetrics().lineSpacing() * lines + 4)

    def _model_box(self, request: CardModel) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("模型与缩放策略 · Qwen3-VL-4B (patch 16, 2×2 合并, DeepStack ×4)")
        row = QtWidgets.QHBoxLayout(box)
        self.shape_form = PartForm(request, names=SHAPE_PARAMS)
        self.resize_form = PartForm(request, names=RESIZE_PARAMS)
        row.addWidget(self.shape_form, 1)
        right = QtWidgets.QVBoxLayout()
        right.addWidget(self.resize_form)
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
        right.addLayout(limit)
        right.addStretch(1)
        row.addLayout(right, 1)
        return box

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))
