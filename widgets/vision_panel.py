"""§3.3.1-3.3.2 on the user's own images: pixels → patches → visual tokens, the three data
volumes (file, EC, KV), where the question sits and what KV survives a new one, the
E→P→D handoff points, 练习 3-5 (640 vs 1280) and the image-generation loop.

Images load on a worker thread (QThreadPool); every number comes from core.vision_math,
core.image_gen and vision/; this module only draws them."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core import catalog, image_gen
from core import vision_math as vm
from core.registry import ParamError
from core.units import format_bytes, format_count, format_flops
from vision.grid import PatchGrid
from vision.loading import DEFAULT_MAX_PIXELS, FILE_EXTENSIONS, HARD_MAX_PIXELS, ImageLoadError, LoadedImage, load_image
from vision.resize import ResizePolicy
from vision.sample import sample_image
from widgets.calculator_card import CalculatorCard
from widgets.panels import PanelInfo
from widgets.param_form import ParamForm
from widgets.plot_card import PlotCard
from widgets.theme import COLORS, brush, color, pen, setup_pyqtgraph

_VOLUME_KINDS = (("file", "压缩文件 file", "wait"), ("ec", "编码结果 EC", "accent"), ("kv", "语言 KV", "state"))
_SHAPE_PARAMS = ("patch", "merge", "feature_width", "feature_copies", "kv_bytes_per_token", "dtype_bytes")
_RESIZE_PARAMS = ("resize", "min_pixels", "max_pixels")
_REQUEST_PARAMS = ("text_tokens", "prefix_tokens", "question")
_LOG_FLOOR = 3  # bars start at 1 kB (10^3 B)
_SWEEP_SIDES = np.arange(256, 4096 + 1, 64)
_IMAGE_FILTER = "Images (" + " ".join(f"*{e}" for e in FILE_EXTENSIONS) + ");;All files (*)"


def _mib(value: float) -> str:
    return format_bytes(value, "iec", digits=6)


def _file(value: float) -> str:
    """Compressed files in SI units, as the book writes them (0.8 MB)."""
    return format_bytes(value, "si", digits=4)


def _qimage(pixels: np.ndarray) -> QtGui.QImage:
    """A deep-copied QImage of an (rows, cols, 3) uint8 array."""
    rows, cols = pixels.shape[:2]
    data = np.ascontiguousarray(pixels)
    return QtGui.QImage(data.data, cols, rows, 3 * cols, QtGui.QImage.Format.Format_RGB888).copy()


def _text_item(anchor=(0.5, 1), size: int = 9, kind: str = "ink") -> pg.TextItem:
    item = pg.TextItem("", color=color(kind), anchor=anchor)
    font = item.textItem.font()
    font.setPointSize(size)
    item.setFont(font)
    return item


# --------------------------------------------------------------------------------------
# Loading off the GUI thread
# --------------------------------------------------------------------------------------

class _LoadSignals(QtCore.QObject):
    loaded = QtCore.Signal(int, object)
    failed = QtCore.Signal(int, str, str)


class _LoadJob(QtCore.QRunnable):
    """Decode one file on a pool thread; the result comes back through queued signals."""

    def __init__(self, ticket: int, path: str, max_pixels: int, signals: _LoadSignals):
        super().__init__()
        self._ticket, self._path, self._max_pixels, self._signals = ticket, path, max_pixels, signals

    def run(self) -> None:
        try:
            image = load_image(self._path, max_pixels=self._max_pixels)
        except ImageLoadError as err:
            self._signals.failed.emit(self._ticket, self._path, str(err))
            return
        except Exception as err:  # noqa: BLE001 - never let a worker die silently
            self._signals.failed.emit(self._ticket, self._path, f"{Path(self._path).name}: {err}")
            return
        self._signals.loaded.emit(self._ticket, image)


# --------------------------------------------------------------------------------------
# Image view with the patch and token overlays
# --------------------------------------------------------------------------------------

class ImageGridView(pg.GraphicsLayoutWidget):
    """The image, its patch grid and merged-token grid, and the hovered token's patches."""

    token_hovered = QtCore.Signal(object)  # token id or None

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(360, 320)
        self.view: pg.ViewBox = self.addViewBox(lockAspect=True, invertY=True, enableMenu=False)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image_item)
        self.patch_overlay = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(255, 255, 255, 150, width=1))
        self.patch_shadow = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(0, 0, 0, 70, width=2.2))
        self.token_overlay = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("decode"), width=1.8))
        for item in (self.patch_shadow, self.patch_overlay, self.token_overlay):
            item.setZValue(5)
            self.view.addItem(item)
        self.hover_rect = QtWidgets.QGraphicsRectItem()
        self.hover_rect.setBrush(brush("backlog", 70))
        self.hover_rect.setPen(pg.mkPen(color("backlog"), width=3))
        self.hover_rect.setZValue(8)
        self.hover_rect.setVisible(False)
        self.view.addItem(self.hover_rect)
        self.hover_patches = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen(color("paper"), width=2))
        self.hover_patches.setZValue(9)
        self.view.addItem(self.hover_patches)
        self.grid: PatchGrid | None = None
        self.hovered: int | None = None
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def set_image(self, pixels: np.ndarray, grid: PatchGrid) -> None:
        self.image_item.setImage(pixels, autoLevels=False, levels=(0, 255))
        self.set_grid(grid)
        right = max(grid.display_width, grid.layout.grid_w * grid.patch_w)
        bottom = max(grid.display_height, grid.layout.grid_h * grid.patch_h)
        self.view.setRange(QtCore.QRectF(0, 0, right, bottom), padding=0.02)

    def set_grid(self, grid: PatchGrid) -> None:
        self.grid = grid
        x, y = grid.patch_lines()
        self.patch_overlay.setData(x, y)
        self.patch_shadow.setData(x, y)
        tx, ty = grid.token_lines()
        self.token_overlay.setData(tx, ty)
        # Thin lines would merge into grey at low zoom; fade the patch grid when dense.
        dense = grid.patch_w < 4
        self.patch_overlay.setPen(pg.mkPen(255, 255, 255, 60 if dense else 150, width=1))
        self.hover(None)

    def show_patch_grid(self, on: bool) -> None:
        self.patch_overlay.setVisible(on)
        self.patch_shadow.setVisible(on)

    def show_token_grid(self, on: bool) -> None:
        self.token_overlay.setVisible(on)

    def hover_at(self, x: float, y: float) -> int | None:
        """Highlight the token under view point (x, y) and its patches."""
        token = self.grid.token_at(x, y) if self.grid is not None else None
        self.hover(token)
        return token

    def hover(self, token: int | None) -> None:
        if token == self.hovered and (token is None) == (not self.hover_rect.isVisible()):
            return
        self.hovered = token
        if token is None or self.grid is None:
            self.hover_rect.setVisible(False)
            self.hover_patches.setData([], [])
        else:
            x, y, w, h = self.grid.token_rect(token)
            self.hover_rect.setRect(QtCore.QRectF(x, y, w, h))
            self.hover_rect.setVisible(True)
            rects = self.grid.patch_rects(self.grid.patches_of_token(token))
            xs, ys = [], []
            inset = min(self.grid.patch_w, self.grid.patch_h) * 0.08
            for rx, ry, rw, rh in rects:
                x0, y0, x1, y1 = rx + inset, ry + inset, rx + rw - inset, ry + rh - inset
                xs += [x0, x1, x1, x1, x1, x0, x0, x0]
                ys += [y0, y0, y0, y1, y1, y1, y1, y0]
            self.hover_patches.setData(np.array(xs), np.array(ys))
        self.token_hovered.emit(token)

    def _on_mouse_moved(self, scene_pos) -> None:
        if not self.view.sceneBoundingRect().contains(scene_pos):
            self.hover(None)
            return
        point = self.view.mapSceneToView(scene_pos)
        self.hover_at(point.x(), point.y())

    def leaveEvent(self, event):  # noqa: N802
        self.hover(None)
        super().leaveEvent(event)


# --------------------------------------------------------------------------------------
# The E → P → D handoff diagram
# --------------------------------------------------------------------------------------

class HandoffDiagram(QtWidgets.QWidget):
    """Three handoff points (raw image, EC, KV) between the stages E, P and D (图 3-16)."""

    POINTS = (("raw", "原图 raw image", "接收方还要做视觉编码 E", "wait"),
              ("ec", "编码结果 EC", "接收方从语言 prefill P 开始", "accent"),
              ("kv", "语言 KV", "交接已完成的语言上下文,直接 D", "state"))
    STAGES = (("E", "视觉编码", "prefill"), ("P", "语言 prefill", "prefill"), ("D", "decode", "decode"))

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(132)
        self.values: dict[str, float] = {"raw": 0.0, "ec": 0.0, "kv": 0.0}
        self.texts: dict[str, str] = {}

    def set_values(self, raw: float, ec: float, kv: float) -> None:
        self.values = {"raw": raw, "ec": ec, "kv": kv}
        self.texts = {k: (_file(v) if k == "raw" else _mib(v)) for k, v in self.values.items()}
        self.setToolTip("<br>".join(f"{label}: {self.texts[key]} — {note}" for key, label, note, _ in self.POINTS))
        self.update()

    def paintEvent(self, event):  # noqa: N802
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        slots = 7  # point, stage, point, stage, point, stage, output
        gap = 10
        cell = (w - gap * (slots + 1)) / slots
        top, box_h = 18, 64
        font = p.font()
        base = QtGui.QFontInfo(font).pointSizeF()  # the style sheet sets pixels, not points
        small = QtGui.QFont(font)
        small.setPointSizeF(max(7.5, base * 0.85))
        bold = QtGui.QFont(font)
        bold.setBold(True)
        big = QtGui.QFont(bold)
        big.setPointSizeF(base * 1.25)
        for i in range(slots):
            x = gap + i * (cell + gap)
            rect = QtCore.QRectF(x, top, cell, box_h)
            if i % 2 == 0 and i < 6:
                key, label, note, kind = self.POINTS[i // 2]
                p.setPen(QtGui.QPen(color(kind), 2))
                p.setBrush(color(kind, 40))
                p.drawRoundedRect(rect, 10, 10)
                p.setPen(color("ink"))
                p.setFont(small)
                p.drawText(rect.adjusted(4, 4, -4, -box_h / 2), QtCore.Qt.AlignmentFlag.AlignCenter, label)
                p.setFont(big)
                p.drawText(rect.adjusted(4, box_h / 2 - 6, -4, -4), QtCore.Qt.AlignmentFlag.AlignCenter,
                           self.texts.get(key, "—"))
                p.setFont(small)
                p.setPen(color("muted"))
                note_rect = QtCore.QRectF(x - gap / 2, top + box_h + 6, cell + gap, h - top - box_h - 8)
                p.drawText(note_rect, QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.TextFlag.TextWordWrap,
                           "交接点 " + "①②③"[i // 2] + "\n" + note)
            elif i < 6:
                letter, label, kind = self.STAGES[i // 2]
                stage = rect.adjusted(0, 8, 0, -8)
                p.setPen(QtCore.Qt.PenStyle.NoPen)
                p.setBrush(color(kind))
                p.drawRoundedRect(stage, 6, 6)
                p.setPen(color("paper"))
                p.setFont(bold)
                p.drawText(stage, QtCore.Qt.AlignmentFlag.AlignCenter, f"{letter} →\n{label}")
            else:
                p.setPen(QtGui.QPen(color("muted"), 1.5, QtCore.Qt.PenStyle.DashLine))
                p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(rect, 10, 10)
                p.setPen(color("ink"))
                p.setFont(small)
                p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap,
                           "输出文本 token\n或声音、图像")
        p.end()


# --------------------------------------------------------------------------------------
# The image-generation loop (§3.3.2)
# --------------------------------------------------------------------------------------

class DiffusionLoopDiagram(QtWidgets.QWidget):
    """text encoder → n_s × (n_b DiT forwards at n_v positions) → VAE decode."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(120)
        self.result: dict = {}

    def set_result(self, result: dict) -> None:
        self.result = dict(result)
        self.update()

    def paintEvent(self, event):  # noqa: N802
        r = self.result
        if not r:
            return
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        font = p.font()
        bold = QtGui.QFont(font)
        bold.setBold(True)
        side = QtCore.QRectF(10, 30, w * 0.16, h - 50)
        loop = QtCore.QRectF(w * 0.16 + 30, 12, w * 0.84 - 60 - w * 0.16, h - 24)
        vae = QtCore.QRectF(w - 10 - w * 0.16, 30, w * 0.16, h - 50)
        for rect, text in ((side, "文本编码器\n(另算)"), (vae, "VAE 解码\n(另算)")):
            p.setPen(QtGui.QPen(color("muted"), 1.5, QtCore.Qt.PenStyle.DashLine))
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(rect, 8, 8)
            p.setPen(color("ink"))
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)
        p.setPen(QtGui.QPen(color("decode"), 2))
        p.setBrush(color("decode", 30))
        p.drawRoundedRect(loop, 14, 14)
        p.setFont(bold)
        p.setPen(color("ink"))
        steps, branches = r["dit_forwards"] // r["branches"], r["branches"]
        p.drawText(loop.adjusted(12, 6, -12, 0), QtCore.Qt.AlignmentFlag.AlignLeft,
                   f"↻ {steps} 步 × {branches} 分支 (CFG) = {r['dit_forwards']} 次 DiT 前向")
        p.setFont(font)
        inner_w = (loop.width() - 36) / 2
        for b in range(branches):
            rect = QtCore.QRectF(loop.left() + 12 + b * (inner_w + 12), loop.top() + 30, inner_w, loop.height() - 42)
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(color("prefill", 200 if b == 0 else 140))
            p.drawRoundedRect(rect, 6, 6)
            p.setPen(color("paper"))
            label = "条件分支" if b == 0 else "负向分支 (CFG)"
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter,
                       f"{label}\nDiT @ {format_count(r['latent_positions'])} 位置 "
                       f"({r['latent_height']}×{r['latent_width']})\n{format_flops(r['flops_per_forward'])}")
        p.setPen(QtGui.QPen(color("muted"), 1.5))
        mid = h / 2
        p.drawLine(QtCore.QPointF(side.right(), mid), QtCore.QPointF(loop.left(), mid))
        p.drawLine(QtCore.QPointF(loop.right(), mid), QtCore.QPointF(vae.left(), mid))
        p.end()


# --------------------------------------------------------------------------------------
# The panel
# --------------------------------------------------------------------------------------

class VisionPanel(QtWidgets.QWidget):
    """The Vision & multimodal panel."""

    images_changed = QtCore.Signal(int)
    load_failed = QtCore.Signal(str, str)
    refreshed = QtCore.Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        setup_pyqtgraph()
        self.setAcceptDrops(True)
        self.images: list[LoadedImage] = []
        self.current = 0
        self.request_result: dict = {}
        self.handoff_result: dict = {}
        self.max_pixels = DEFAULT_MAX_PIXELS
        self._pool = QtCore.QThreadPool(self)
        self._pool.setMaxThreadCount(2)
        self._signals = _LoadSignals(self)
        self._ticket = 0
        self._pending: dict[int, str] = {}
        self._batch: dict[int, LoadedImage] = {}
        self._batch_replaces = False
        self._failures: list[str] = []
        self._closed = False
        self._build_ui()
        self._connect()
        self._set_images([sample_image()])

    # ---- construction -------------------------------------------------------
    def _build_ui(self) -> None:
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 10)
        outer.setSpacing(8)
        outer.addWidget(self._header())
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self._image_column())
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._scroll(self._volumes_tab()), "图 3-16 · 三种数据与交接")
        self.tabs.addTab(self._scroll(self._compare_tab()), "练习 3-5 · 640 vs 1280")
        self.tabs.addTab(self._scroll(self._generation_tab()), "§3.3.2 · 图像生成循环")
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 6)
        split.setSizes([680, 900])
        outer.addWidget(split, 1)

    def _scroll(self, widget: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
        area = QtWidgets.QScrollArea()
        area.setWidgetResizable(True)
        widget.setObjectName("page")
        area.setWidget(widget)
        return area

    def _header(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        title = QtWidgets.QLabel("§3.3.1 图片进入语言模型 · Vision & multimodal")
        title.setProperty("role", "title")
        row.addWidget(title)
        formula = QtWidgets.QLabel("n<sub>v</sub> = H·W / (p²·r²) &nbsp; · &nbsp; E → P → D")
        formula.setProperty("role", "caption")
        row.addWidget(formula)
        row.addStretch(1)
        self.open_button = QtWidgets.QPushButton("打开图片 Open…")
        self.open_button.setShortcut(QtGui.QKeySequence.StandardKey.Open)
        self.open_button.setToolTip("Open one or more images (Ctrl+O), or drop files on the panel")
        self.book_button = QtWidgets.QPushButton("书中例:四张 640×640 + 400 token")
        self.book_button.setToolTip("The book's request: four 640×640 images and 400 text tokens")
        self.clear_button = QtWidgets.QPushButton("清空 Clear")
        self.clear_button.setToolTip("Remove all images; the generated 640×640 sample comes back")
        for b in (self.book_button, self.open_button, self.clear_button):
            row.addWidget(b)
        return box

    def _image_column(self) -> QtWidgets.QWidget:
        col = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(col)
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
        lay.addWidget(self.view, 1)
        toggles = QtWidgets.QHBoxLayout()
        self.patch_toggle = QtWidgets.QCheckBox("patch 网格")
        self.patch_toggle.setChecked(True)
        self.token_toggle = QtWidgets.QCheckBox("合并 token 网格")
        self.token_toggle.setChecked(True)
        toggles.addWidget(self.patch_toggle)
        toggles.addWidget(self.token_toggle)
        toggles.addStretch(1)
        self.hover_label = QtWidgets.QLabel("悬停一个 token,看它合并了哪几个 patch")
        self.hover_label.setProperty("role", "caption")
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
        self.notes_label = QtWidgets.QLabel()
        self.notes_label.setProperty("role", "caption")
        self.notes_label.setWordWrap(True)
        lay.addWidget(self.notes_label)
        self.error_label = QtWidgets.QLabel()
        self.error_label.setProperty("role", "error")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        lay.addWidget(self.error_label)
        self.status_label = QtWidgets.QLabel()
        self.status_label.setProperty("role", "caption")
        lay.addWidget(self.status_label)
        model_box = QtWidgets.QGroupBox("模型与缩放策略 · Qwen3-VL-4B (patch 16, 2×2 合并, DeepStack ×4)")
        mlay = QtWidgets.QHBoxLayout(model_box)
        params = {p.name: p for p in vm.REQUEST.params}
        self.shape_form = ParamForm([params[n] for n in _SHAPE_PARAMS])
        self.resize_form = ParamForm([params[n] for n in _RESIZE_PARAMS], self._check_resize)
        mlay.addWidget(self.shape_form, 1)
        right = QtWidgets.QVBoxLayout()
        right.addWidget(self.resize_form)
        limit_col = QtWidgets.QFormLayout()
        self.pixel_limit = QtWidgets.QDoubleSpinBox()
        self.pixel_limit.setRange(1, HARD_MAX_PIXELS / 1e6)
        self.pixel_limit.setDecimals(1)
        self.pixel_limit.setSuffix(" MP")
        self.pixel_limit.setValue(DEFAULT_MAX_PIXELS / 1e6)
        self.pixel_limit.setToolTip("Files whose header claims more pixels are refused before decoding "
                                    "(decompression bombs). Applies to the next files you open.")
        limit_col.addRow("像素上限 pixel limit", self.pixel_limit)
        right.addLayout(limit_col)
        right.addStretch(1)
        mlay.addLayout(right, 1)
        lay.addWidget(model_box)
        return col

    def _volumes_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.setSpacing(10)
        req_row = QtWidgets.QHBoxLayout()
        params = {p.name: p for p in vm.REQUEST.params}
        # One small form per field, side by side: the request fits on one line.
        self.request_forms = {n: ParamForm([params[n]]) for n in _REQUEST_PARAMS}
        for form in self.request_forms.values():
            req_row.addWidget(form, 1)
        lay.addLayout(req_row)
        self.table = QtWidgets.QTableWidget(0, 7)
        self.table.setHorizontalHeaderLabels(["", "原尺寸 → 模型尺寸", "patch", "视觉 token", "文件 file", "EC", "KV"])
        tips = ["", "原图(EXIF 方向已应用)→ 缩放策略后编码器看到的尺寸", "H'·W' / p²", "n_v = H'·W' / (p²·r²)",
                "压缩文件字节数(SI 单位,书中 0.8 MB)", "EC = n_v · feature_width · feature_copies · dtype_bytes",
                "KV = tokens · kv_bytes_per_token (144 KiB)"]
        for col, tip in enumerate(tips):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(22)
        lay.addWidget(self.table)
        self.volume_plot = PlotCard("三种数据量(对数刻度)", "同一张图在三个阶段差一个数量级:说“贵”要指明是哪一段")
        p = self.volume_plot.plot
        p.setLabel("left", "bytes (log)")
        p.setMouseEnabled(x=False, y=False)
        p.getAxis("left").setTicks([[(k, format_bytes(10 ** k, "si", 3)) for k in range(_LOG_FLOOR, 13)]])
        self.volume_bars = {}
        legend = p.addLegend(offset=(10, 4), colCount=3)
        for key, label, kind in _VOLUME_KINDS:
            bar = pg.BarGraphItem(x=[0], height=[0], y0=[_LOG_FLOOR], width=0.9, brush=brush(kind, 220),
                                  pen=pen(kind, 1))
            p.addItem(bar)
            legend.addItem(bar, label)
            self.volume_bars[key] = bar
        self.volume_labels: list[pg.TextItem] = []
        self.volume_plot.plot_widget.setMinimumHeight(200)
        self.volume_plot.setMaximumHeight(290)
        lay.addWidget(self.volume_plot, 3)
        self.question_plot = PlotCard("问题放在哪里 · 换一个问题,哪些 KV 还能用",
                                      "因果注意力:token 的 KV 取决于它之前的一切")
        q = self.question_plot.plot
        q.setMouseEnabled(x=False, y=False)
        q.hideAxis("left")
        q.setLabel("bottom", "prompt tokens, in order")
        q.setYRange(-0.6, 1.6)
        self.question_segments = pg.BarGraphItem(x0=[0], x1=[0], y0=[0], y1=[0], brushes=[brush("wait")],
                                                 pens=[pg.mkPen(None)])
        self.question_stale = pg.BarGraphItem(x0=[0], x1=[0], y0=[0], y1=[0], brush=pg.mkBrush(0, 0, 0, 0),
                                              pen=pg.mkPen(color("backlog"), width=2, style=QtCore.Qt.PenStyle.DashLine))
        q.addItem(self.question_segments)
        q.addItem(self.question_stale)
        self.question_row_labels = [_text_item(anchor=(0, 0.5), size=9) for _ in range(2)]
        for item in self.question_row_labels:
            q.addItem(item)
        self.question_plot.plot_widget.setMinimumHeight(120)
        self.question_plot.setMaximumHeight(180)
        lay.addWidget(self.question_plot, 2)
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
        return page

    def _compare_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(8, 8, 8, 8)
        self.compare_card = CalculatorCard(vm.COMPARE)
        lay.addWidget(self.compare_card)
        pair = QtWidgets.QHBoxLayout()
        self.compare_views: list[ImageGridView] = []
        self.compare_captions: list[QtWidgets.QLabel] = []
        for _ in range(2):
            col = QtWidgets.QVBoxLayout()
            view = ImageGridView()
            view.setMinimumSize(260, 240)
            view.setMaximumHeight(320)
            view.show_patch_grid(False)  # the token grid alone shows the ×4 at a glance
            caption = QtWidgets.QLabel()
            caption.setProperty("role", "caption")
            caption.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
            caption.setWordWrap(True)
            caption.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
            col.addWidget(view, 1)
            col.addWidget(caption)
            pair.addLayout(col)
            self.compare_views.append(view)
            self.compare_captions.append(caption)
        lay.addLayout(pair)
        self.compare_plot = PlotCard("边长加倍:token、EC、KV ×4;视觉编码 FLOPs 多于 ×4",
                                     "注意力在 patch 之间两两计算,随 N² 增长")
        p = self.compare_plot.plot
        p.setMouseEnabled(x=False, y=False)
        p.setLabel("left", "side_b / side_a 时的倍数")
        p.getAxis("bottom").setTicks([[(0, "视觉 token"), (1, "EC"), (2, "KV"), (3, "编码 FLOPs")]])
        self.compare_bars = pg.BarGraphItem(x=[0, 1, 2, 3], height=[0, 0, 0, 0], width=0.6,
                                            brushes=[brush("decode"), brush("accent"), brush("state"), brush("prefill")])
        p.addItem(self.compare_bars)
        self.compare_line = pg.InfiniteLine(angle=0, pen=pen("ink", 1.5, dashed=True), label="(边长倍数)²",
                                            labelOpts={"position": 0.08, "color": COLORS["ink"]})
        p.addItem(self.compare_line)
        self.compare_labels = [_text_item() for _ in range(4)]
        for item in self.compare_labels:
            p.addItem(item)
        lay.addWidget(self.compare_plot)
        self.encode_card = CalculatorCard(vm.ENCODE_FLOPS)
        lay.addWidget(self.encode_card)
        lay.addStretch(1)
        return page

    def _generation_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(8, 8, 8, 8)
        self.diffusion_card = CalculatorCard(image_gen.DIFFUSION)
        lay.addWidget(self.diffusion_card)
        self.loop_diagram = DiffusionLoopDiagram()
        lay.addWidget(self.loop_diagram)
        self.diffusion_plot = PlotCard("总运算量 n_s·n_b·F_step(n_v):步数线性,分辨率不线性",
                                       "对数坐标;虚线 = 按像素线性外推(以 1024² 为基准)")
        p = self.diffusion_plot.plot
        p.setLogMode(x=True, y=True)
        p.setLabel("bottom", "边长 side (px), 正方形")
        p.setLabel("left", "FLOPs / 张图")
        p.addLegend(offset=(10, 10))
        self.diffusion_curve = self.diffusion_plot.add_curve("flops", pen=pen("decode", 2.5), name="DiT FLOPs")
        self.diffusion_linear = self.diffusion_plot.add_curve("linear", pen=pen("muted", 1.5, dashed=True),
                                                              name="按像素线性")
        self.diffusion_point = self.diffusion_plot.add_curve("current", pen=None, symbol="o", symbolSize=11,
                                                             symbolBrush=brush("backlog"), symbolPen=pen("ink", 1),
                                                             name="当前 H×W")
        self.diffusion_point_label = _text_item(anchor=(-0.08, 1.1), size=9, kind="backlog")
        p.addItem(self.diffusion_point_label)
        lay.addWidget(self.diffusion_plot)
        lay.addStretch(1)
        return page

    def _connect(self) -> None:
        self.open_button.clicked.connect(self._on_open_clicked)
        self.book_button.clicked.connect(self.show_book_example)
        self.clear_button.clicked.connect(self.clear_images)
        self.remove_shortcut = QtGui.QShortcut(QtGui.QKeySequence.StandardKey.Delete, self.image_list)
        self.remove_shortcut.setContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        self.remove_shortcut.activated.connect(self.remove_current)
        self.image_list.currentRowChanged.connect(self._on_current_changed)
        self.patch_toggle.toggled.connect(self.view.show_patch_grid)
        self.token_toggle.toggled.connect(self.view.show_token_grid)
        self.view.token_hovered.connect(self._on_token_hovered)
        self.shape_form.values_changed.connect(self._on_params_changed)
        self.resize_form.values_changed.connect(self._on_params_changed)
        for form in self.request_forms.values():
            form.values_changed.connect(self._on_params_changed)
        self.pixel_limit.valueChanged.connect(self._on_pixel_limit_changed)
        self._signals.loaded.connect(self._on_loaded)
        self._signals.failed.connect(self._on_failed)
        self.compare_card.computed.connect(self._refresh_compare)
        self.diffusion_card.computed.connect(self._refresh_diffusion)

    # ---- images ---------------------------------------------------------------
    @property
    def loading(self) -> bool:
        return bool(self._pending)

    def model_values(self) -> dict:
        """Model constants and resize policy, as vision.request parameters."""
        return {**self.shape_form.values(), **self.resize_form.values()}

    def _check_resize(self, values: dict) -> None:
        vm.check_layout_params({**self.shape_form.values(), **values})

    def policy(self) -> ResizePolicy:
        v = self.model_values()
        return ResizePolicy(v["resize"], v["patch"], v["merge"], v["min_pixels"], v["max_pixels"])

    def load_files(self, paths, replace: bool | None = None) -> None:
        """Start decoding files on the pool; the GUI thread never waits for a decoder.

        By default the generated sample is replaced and user images are added to."""
        paths = [str(p) for p in paths]
        if not paths:
            return
        if not self._pending:
            self._batch = {}
            self._failures = []
            self.error_label.setVisible(False)
            self._batch_replaces = replace if replace is not None else all(i.path is None for i in self.images)
        for path in paths:
            self._ticket += 1
            self._pending[self._ticket] = path
            self._pool.start(_LoadJob(self._ticket, path, self.max_pixels, self._signals))
        self.status_label.setText(f"正在载入 {len(self._pending)} 张图片… loading off the GUI thread")

    def _on_loaded(self, ticket: int, image: LoadedImage) -> None:
        if self._pending.pop(ticket, None) is None:
            return
        self._batch[ticket] = image
        self._finish_batch_if_done()

    def _on_failed(self, ticket: int, path: str, message: str) -> None:
        if self._pending.pop(ticket, None) is None:
            return
        self._failures.append(message)
        self.error_label.setText("\n".join(self._failures[-4:]))
        self.error_label.setVisible(True)
        self.load_failed.emit(path, message)
        self._finish_batch_if_done()

    def _finish_batch_if_done(self) -> None:
        if self._pending:
            self.status_label.setText(f"正在载入 {len(self._pending)} 张图片…")
            return
        loaded = [self._batch[t] for t in sorted(self._batch)]
        self._batch = {}
        self.status_label.setText(f"载入 {len(loaded)} 张" + (f",{len(self._failures)} 张失败" if self._failures else ""))
        if not loaded:
            return
        images = loaded if self._batch_replaces else self.images + loaded
        self._set_images(images, select=len(images) - len(loaded))

    def _set_images(self, images: list[LoadedImage], select: int = 0) -> None:
        self.images = list(images)
        blocker = QtCore.QSignalBlocker(self.image_list)
        self.image_list.clear()
        for i, img in enumerate(self.images):
            thumb = img.pixels[:: max(1, img.pixels.shape[0] // 112), :: max(1, img.pixels.shape[1] // 112)]
            item = QtWidgets.QListWidgetItem(QtGui.QIcon(QtGui.QPixmap.fromImage(_qimage(thumb))), f"图 {i + 1}")
            item.setToolTip(f"{img.name}\n{img.width}×{img.height}, {format_bytes(img.file_bytes)}, {img.format} {img.mode}")
            self.image_list.addItem(item)
        del blocker
        self.current = max(0, min(select, len(self.images) - 1))
        self.image_list.setCurrentRow(self.current)
        self._show_current()
        self.refresh()
        self.images_changed.emit(len(self.images))

    def remove_current(self) -> None:
        """Drop the selected image from the request (Delete key); the sample returns when none is left."""
        rest = [img for i, img in enumerate(self.images) if i != self.current]
        self._set_images(rest or [sample_image()], select=min(self.current, len(rest) - 1))

    def clear_images(self) -> None:
        self._set_images([sample_image()])
        self.error_label.setVisible(False)

    def show_book_example(self) -> None:
        """四张图 + 400 文本 token: the request of the book's exercise."""
        self._set_images([sample_image()] * 4)
        self.set_request(text_tokens=400, prefix_tokens=0, question="after")

    def request_values(self) -> dict:
        """text_tokens, prefix_tokens and question as parsed by their forms."""
        out = {}
        for form in self.request_forms.values():
            out.update(form.values())
        return out

    def set_request(self, **values) -> bool:
        ok = True
        for name, value in values.items():
            ok = self.request_forms[name].set_value(name, value) and ok
        return ok

    def _on_current_changed(self, row: int) -> None:
        if 0 <= row < len(self.images) and row != self.current:
            self.current = row
            self._show_current()

    def _on_open_clicked(self) -> None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(self, "打开图片 Open images", "", _IMAGE_FILTER)
        if paths:
            self.load_files(paths)

    def _on_pixel_limit_changed(self, megapixels: float) -> None:
        self.max_pixels = int(megapixels * 1e6)

    def dragEnterEvent(self, event):  # noqa: N802
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event):  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.load_files(paths)

    # ---- the current image ----------------------------------------------------
    def current_grid(self) -> PatchGrid:
        img = self.images[self.current]
        policy = self.policy()
        return PatchGrid(policy.layout(img.height, img.width), img.pixels.shape[1], img.pixels.shape[0], policy.mode)

    def _show_current(self) -> None:
        img = self.images[self.current]
        grid = self.current_grid()
        self.view.set_image(img.pixels, grid)
        self._describe_current(grid)

    def _describe_current(self, grid: PatchGrid) -> None:
        img = self.images[self.current]
        lay = grid.layout
        changed = (lay.model_height, lay.model_width) != (img.height, img.width)
        model = f"模型看到 {lay.model_width}×{lay.model_height}" + ("" if not changed else
                                                                     f"({'缩放' if grid.resize == 'fit' else '补边'})")
        self.size_label.setText(f"<b>{img.name}</b> · 原图 {img.width}×{img.height} ({img.megapixels:.2f} MP, "
                                f"{_file(img.file_bytes)}, {img.format} {img.mode}) → {model}")
        self.token_label.setText(f"{lay.grid_w}×{lay.grid_h} = {format_count(lay.patches)} 个 patch → "
                                 f"{lay.token_grid_w}×{lay.token_grid_h} = {format_count(lay.visual_tokens)} 个视觉 token")
        self.notes_label.setText(" · ".join(img.notes))

    def _on_token_hovered(self, token) -> None:
        if token is None or self.view.grid is None:
            self.hover_label.setText("悬停一个 token,看它合并了哪几个 patch")
            return
        grid = self.view.grid
        row, col = divmod(token, grid.layout.token_grid_w)
        patches = ", ".join(f"({r},{c})" for r, c in grid.patches_of_token(token))
        self.hover_label.setText(f"token #{token} (行 {row}, 列 {col}) ← patch {patches}")

    # ---- refresh ----------------------------------------------------------------
    def _on_params_changed(self, _values: dict) -> None:
        if self.images:
            self._show_current()
        self.refresh()

    def request_overrides(self) -> dict:
        overrides = {"heights": [i.height for i in self.images], "widths": [i.width for i in self.images],
                     "file_bytes": [i.file_bytes for i in self.images]}
        overrides.update(self.model_values())
        overrides.update(self.request_values())
        return overrides

    def refresh(self) -> None:
        try:
            self.request_result = vm.REQUEST.run(self.request_overrides())
        except ParamError as err:  # e.g. an image too elongated for the fit policy
            self.error_label.setText(str(err))
            self.error_label.setVisible(True)
            return
        values = self.request_overrides()
        handoff = {k: v for k, v in values.items() if k not in ("prefix_tokens", "question")}
        handoff["text_tokens"] = values["text_tokens"] + values["prefix_tokens"]
        self.handoff_result = vm.HANDOFF.run(handoff)
        self._refresh_table()
        self._refresh_volume_bars()
        self._refresh_question()
        h = self.handoff_result
        self.handoff.set_values(h["raw_bytes"], h["ec_bytes"], h["kv_bytes"])
        self._refresh_compare(self.compare_card.result)
        self._refresh_diffusion(self.diffusion_card.result)
        self.refreshed.emit()

    def _refresh_table(self) -> None:
        r = self.request_result
        policy = self.policy()
        kv_per_token = self.model_values()["kv_bytes_per_token"]
        rows = []
        for i, img in enumerate(self.images):
            lay = policy.layout(img.height, img.width)
            rows.append((f"图 {i + 1}", f"{img.width}×{img.height} → {lay.model_width}×{lay.model_height}",
                         format_count(lay.patches), format_count(r["per_image_tokens"][i]), _file(img.file_bytes),
                         _mib(r["per_image_ec_bytes"][i]), _mib(r["per_image_kv_bytes"][i])))
        text = self.request_values()["text_tokens"] + self.request_values()["prefix_tokens"]
        rows.append(("文本 text", "—", "—", format_count(text), "—", "—", _mib(text * kv_per_token)))
        rows.append(("整个请求", f"{r['images']} 张图 + {format_count(text)} 文本 token", "—",
                     format_count(r["input_tokens"]), _file(r["raw_bytes"]), _mib(r["ec_bytes"]),
                     _mib(r["input_kv_bytes"])))
        self.table.setRowCount(len(rows))
        bold = QtGui.QFont(self.table.font())
        bold.setBold(True)
        for row, cells in enumerate(rows):
            for col, value in enumerate(cells):
                item = self.table.item(row, col)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    self.table.setItem(row, col, item)
                item.setText(value)
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignVCenter |
                                      (QtCore.Qt.AlignmentFlag.AlignLeft if col < 2 else QtCore.Qt.AlignmentFlag.AlignRight))
                item.setFont(bold if row == len(rows) - 1 else self.table.font())
        self.table.setFixedHeight(min(10, len(rows)) * self.table.verticalHeader().defaultSectionSize()
                                  + self.table.horizontalHeader().height() + 6)

    def volume_groups(self) -> tuple[list[str], dict[str, list[float]]]:
        """Bar groups: each image (file, EC, its visual KV), then the whole request."""
        r = self.request_result
        labels = [f"图 {i + 1}" for i in range(len(self.images))] + ["整个请求"]
        values = {"file": list(r["per_image_raw_bytes"]) + [r["raw_bytes"]],
                  "ec": list(r["per_image_ec_bytes"]) + [r["ec_bytes"]],
                  "kv": list(r["per_image_kv_bytes"]) + [r["input_kv_bytes"]]}
        return labels, values

    def _refresh_volume_bars(self) -> None:
        labels, values = self.volume_groups()
        n = len(labels)
        centers = np.arange(n) * 4.0
        p = self.volume_plot.plot
        text_items = []
        for k, (key, _, kind) in enumerate(_VOLUME_KINDS):
            v = np.asarray(values[key], dtype=float)
            logs = np.log10(np.maximum(v, 1.0))
            heights = np.maximum(logs - _LOG_FLOOR, 0.0)
            xs = centers + (k - 1)
            self.volume_bars[key].setOpts(x=xs, height=heights, y0=np.full(n, float(_LOG_FLOOR)))
            for x, value, top in zip(xs, v, np.maximum(logs, _LOG_FLOOR)):
                text_items.append((x, top, value, key))
        while len(self.volume_labels) < len(text_items):
            item = _text_item(size=8)
            p.addItem(item)
            self.volume_labels.append(item)
        show_text = n <= 6
        for item, (x, top, value, key) in zip(self.volume_labels, text_items):
            item.setText((_file(value) if key == "file" else _mib(value)) if value > 0 else "0")
            item.setPos(x, top)
            item.setVisible(show_text)
        for item in self.volume_labels[len(text_items):]:
            item.setVisible(False)
        p.getAxis("bottom").setTicks([[(c, label) for c, label in zip(centers, labels)]])
        top = max(np.log10(max(max(values["kv"]), 1.0)) + 1.5, _LOG_FLOOR + 1)  # room for the legend
        p.setXRange(-2, centers[-1] + 2, padding=0)
        p.setYRange(_LOG_FLOOR, top, padding=0)

    def question_layouts(self) -> dict[str, list[tuple[str, int, int]]]:
        """Token order for both layouts: (kind, start, end) segments."""
        r = self.request_result
        v = self.request_values()
        prefix, text = v["prefix_tokens"], v["text_tokens"]
        out = {}
        for where in vm.QUESTION_POSITIONS:
            segs, pos = [], 0
            if prefix:
                segs.append(("prefix", pos, pos + prefix))
                pos += prefix
            if where == "before":
                segs.append(("question", pos, pos + text))
                pos += text
            for tokens in r["per_image_tokens"]:
                segs.append(("image", pos, pos + tokens))
                pos += tokens
            if where == "after":
                segs.append(("question", pos, pos + text))
            out[where] = segs
        return out

    def _refresh_question(self) -> None:
        layouts = self.question_layouts()
        chosen = self.request_values()["question"]
        kind_color = {"prefix": "wait", "image": "accent", "question": "decode"}
        x0, x1, y0, y1, brushes, pens = [], [], [], [], [], []
        sx0, sx1, sy0, sy1 = [], [], [], []
        kv = self.model_values()["kv_bytes_per_token"]
        for row, where in ((1, "after"), (0, "before")):
            segs = layouts[where]
            alpha = 235 if where == chosen else 110
            first_question = next(s for s in segs if s[0] == "question")
            for kind, a, b in segs:
                x0.append(a)
                x1.append(b)
                y0.append(row - 0.3)
                y1.append(row + 0.3)
                brushes.append(brush(kind_color[kind], alpha))
                pens.append(pg.mkPen(color("paper"), width=1))
            # A new question invalidates its own KV and everything after it.
            end = segs[-1][2]
            sx0.append(first_question[1])
            sx1.append(end)
            sy0.append(row - 0.38)
            sy1.append(row + 0.38)
            stale_tokens = end - first_question[1]
            label = self.question_row_labels[row]
            label.setText(f"{'问题在后 after' if where == 'after' else '问题在前 before'}: 换问题后保留 "
                          f"{_mib((end - stale_tokens) * kv)},重算 {_mib(stale_tokens * kv)}")
            label.setPos(0, row + 0.55)
        self.question_segments.setOpts(x0=x0, x1=x1, y0=y0, y1=y1, brushes=brushes, pens=pens)
        self.question_stale.setOpts(x0=sx0, x1=sx1, y0=sy0, y1=sy1)
        total = max(x1) if x1 else 1
        self.question_plot.plot.setXRange(0, total, padding=0.02)
        r = self.request_result
        self.reuse_label.setText(
            f"<b>当前(问题{'在图片之后' if chosen == 'after' else '在图片之前'})</b>:只换问题时,"
            f"KV 保留 <b>{_mib(r['reusable_kv_bytes'])}</b>,需重算 <b>{_mib(r['recomputed_kv_bytes'])}</b>;"
            f"EC 只取决于图片,<b>{_mib(r['reusable_ec_bytes'])}</b> 全部可复用。"
            f"<span style='color:{COLORS['muted']}'> 蓝 = 图片 token,橙 = 问题,灰 = 前缀;红框 = 换问题后要重算的 KV。</span>")

    def _refresh_compare(self, result: dict) -> None:
        if not result:
            return
        # The same picture at both sides: every merged token drawn over it.
        pixels = self.images[self.current].pixels if self.images else sample_image().pixels
        v = self.compare_card.values()
        m = catalog.model(v["model"])
        for view, caption, tag in zip(self.compare_views, self.compare_captions, ("a", "b")):
            side = v[f"side_{tag}"]
            lay = vm.layout(side, side, m["patch_size"], m["spatial_merge_size"])
            view.set_image(pixels, PatchGrid(lay, pixels.shape[1], pixels.shape[0]))
            caption.setText(f"<b>{side}×{side}: {format_count(result[f'tokens_{tag}'])} 个视觉 token</b><br>"
                            f"EC {_mib(result[f'ec_bytes_{tag}'])} · KV {_mib(result[f'kv_bytes_{tag}'])} · "
                            f"编码 {format_flops(result[f'encode_flops_{tag}'])}")
        ratios = [result["tokens_ratio"], result["ec_ratio"], result["kv_ratio"], result["encode_flops_ratio"]]
        self.compare_bars.setOpts(height=ratios)
        self.compare_line.setValue(result["side_ratio"] ** 2)
        for i, (item, value) in enumerate(zip(self.compare_labels, ratios)):
            item.setText(f"×{value:.3g}")
            item.setPos(i, value)
        self.compare_plot.plot.setYRange(0, max(ratios + [result["side_ratio"] ** 2]) * 1.18, padding=0)

    def _refresh_diffusion(self, result: dict) -> None:
        if not result:
            return
        self.loop_diagram.set_result(result)
        v = self.diffusion_card.values()
        sweep = image_gen.sweep_sides(v["model"], _SWEEP_SIDES, v["steps"], v["cfg"], v["text_tokens"])
        self.diffusion_curve.setData(sweep["sides"], sweep["flops"])
        self.diffusion_linear.setData(sweep["sides"], sweep["linear_flops"])
        side = math.sqrt(v["height"] * v["width"])
        self.diffusion_point.setData([side], [result["flops"]])
        # Text items live in the plot's log coordinates.
        self.diffusion_point_label.setPos(math.log10(side), math.log10(result["flops"]))
        self.diffusion_point_label.setText(f"{v['width']}×{v['height']}: {format_count(result['latent_positions'])} 位置, "
                                           f"{result['flops']:.3e} FLOPs")

    # ---- lifecycle -----------------------------------------------------------------
    def close(self) -> bool:
        # Late results must not reach a closing panel; wait for running decodes to end.
        if not self._closed:
            self._closed = True
            self._pending.clear()
            self._signals.loaded.disconnect(self._on_loaded)
            self._signals.failed.disconnect(self._on_failed)
            self._pool.clear()
            self._pool.waitForDone(5000)
        return super().close()


PANEL = PanelInfo(key="vision", title="视觉与多模态 · Vision & multimodal", section="3.3.1", order=3.31,
                  factory=VisionPanel)
