"""Two painted diagrams: the three handoff points of E → P → D (图 3-16) and the
image-generation loop of §3.3.2. They paint what core.vision.figures computed, each text
fitted to its box (widgets/vision/fit_text.py), in the chosen language."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.i18n_text import language, notifier
from widgets.kit.i18n_text import translate_text as tr
from widgets.kit.theme import color
from widgets.vision.fit_text import Drawn, fitted, floor_points, points, text_height, wrap_flags


class HandoffDiagram(QtWidgets.QWidget):
    """Three handoff points (raw image, EC, KV) between the stages E, P and D (图 3-16).
    Every text is fitted to its box (widgets/vision/fit_text.py): the widget asks for the
    height its texts need at its width, so nothing is clipped at 1280x720 or in F11."""

    # "中文 · English" pairs: the language switch shows one side.
    POINTS = (("raw", "原图 · raw image", "接收方还要做视觉编码 E · the receiver still encodes (E)", "wait"),
              ("ec", "编码结果 EC · encoder output EC", "接收方从语言 prefill P 开始 · the receiver starts at prefill P", "ec"),
              ("kv", "语言 KV · language KV", "交接已完成的语言上下文,直接 D · the finished context: straight to D", "state"))
    STAGES = (("E", "视觉编码 · vision encoder", "prefill"), ("P", "语言 prefill · language prefill", "prefill"),
              ("D", "decode", "decode"))
    HANDOFF = "交接点 · handoff"
    OUTPUT = "输出文本 token 或声音、图像 · output text tokens, or audio, images"
    SLOTS = 7  # point, stage, point, stage, point, stage, output
    GAP, TOP, PAD = 10.0, 6.0, 4.0

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(132)
        self.values: dict[str, float] = {"raw": 0.0, "ec": 0.0, "kv": 0.0}
        self.texts: dict[str, str] = {}
        notifier().language_changed.connect(self._relayout)

    def set_figure(self, figure: dict) -> None:
        """figure: core.vision.figures.handoff_figure."""
        self.values, self.texts = dict(figure["values"]), dict(figure["texts"])
        self.setToolTip("<br>".join(f"{label}: {self.texts[key]} — {note}" for key, label, note, _ in self.POINTS))
        self._relayout()

    def _relayout(self, *_args) -> None:
        self._fit_height(self.layout_texts()[1])
        self.update()

    def _fit_height(self, need: float) -> None:
        need = max(132, int(need + 0.999))
        if need != self.minimumHeight():
            self.setMinimumHeight(need)  # the box around grows or shrinks with it

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit_height(self.layout_texts()[1])

    def changeEvent(self, event):
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._relayout()  # a zoom
        super().changeEvent(event)

    def layout_texts(self) -> tuple[list[Drawn], float, list[tuple[str, QtCore.QRectF]]]:
        """Every text as painted at the widget's width, the height they need, and the shapes
        (kind, rect) behind them: point, stage, output."""
        w, gap, pad = float(self.width()), self.GAP, self.PAD
        cell = max((w - gap * (self.SLOTS + 1)) / self.SLOTS, 24.0)
        inner = cell - 2 * pad
        floor = floor_points()
        base = QtGui.QFont(self.font())
        small = QtGui.QFont(base)
        small.setPointSizeF(max(floor, points(base) * 0.85))
        bold = QtGui.QFont(base)
        bold.setBold(True)
        big = QtGui.QFont(bold)
        big.setPointSizeF(points(base) * 1.25)
        align = int(QtCore.Qt.AlignmentFlag.AlignCenter)

        def center(font: QtGui.QFont, text: str, width: float) -> int:
            return align | wrap_flags(font, text, width)
        labels = [tr(label) for _, label, _, _ in self.POINTS]
        values = [self.texts.get(key, "—") for key, *_ in self.POINTS]
        stages = [f"{letter} →\n{tr(label)}" for letter, label, _ in self.STAGES]
        notes = [f"{tr(self.HANDOFF)} {'①②③'[i]}\n{tr(note)}" for i, (_, _, note, _) in enumerate(self.POINTS)]
        output = tr(self.OUTPUT)
        # One font per row of texts: the boxes read alike.
        label_font = min((fitted(small, t, inner, floor) for t in labels), key=points)
        value_font = min((fitted(big, t, inner, floor) for t in values), key=points)
        stage_font = min((fitted(bold, t, cell - 2, floor) for t in stages), key=points)
        note_font = QtGui.QFont(small)
        label_h = max(text_height(label_font, t, inner) for t in labels)
        value_h = max(text_height(value_font, t, inner) for t in values)
        stage_h = max(text_height(stage_font, t, cell - 2) for t in stages)
        output_h = text_height(small, output, inner)
        box_h = max(64.0, 2 * pad + label_h + 2 + value_h, stage_h + 16 + 2, output_h + 2 * pad)
        # A note spreads under half of each stage beside its point (no note is under a stage).
        note_w = min(cell * 1.8, w - 2)

        def note_left(x: float) -> float:
            return min(max(1.0, x + cell / 2 - note_w / 2), w - 1 - note_w)

        note_h = max(text_height(note_font, t, note_w) for t in notes)
        drawn: list[Drawn] = []
        shapes: list[tuple[str, QtCore.QRectF]] = []
        top = self.TOP
        for i in range(self.SLOTS):
            x = gap + i * (cell + gap)
            rect = QtCore.QRectF(x, top, cell, box_h)
            if i % 2 == 0 and i < 6:
                k = i // 2
                shapes.append((self.POINTS[k][3], rect))
                room = box_h - 2 * pad - label_h - 2  # the value centred in what the label leaves
                drawn.append(Drawn(labels[k], QtCore.QRectF(x + pad, top + pad, inner, label_h), label_font,
                                   center(label_font, labels[k], inner), "ink"))
                drawn.append(Drawn(values[k], QtCore.QRectF(x + pad, top + pad + label_h + 2, inner, room),
                                   value_font, center(value_font, values[k], inner), "ink"))
                note = QtCore.QRectF(note_left(x), top + box_h + 6, note_w, note_h)
                drawn.append(Drawn(notes[k], note, note_font, int(QtCore.Qt.AlignmentFlag.AlignHCenter)
                                   | wrap_flags(note_font, notes[k], note_w), "muted"))
            elif i < 6:
                stage = rect.adjusted(0, 8, 0, -8)
                shapes.append(("stage:" + self.STAGES[i // 2][2], stage))
                drawn.append(Drawn(stages[i // 2], stage.adjusted(1, 1, -1, -1), stage_font,
                                   center(stage_font, stages[i // 2], cell - 2), "paper"))
            else:
                shapes.append(("output", rect))
                drawn.append(Drawn(output, rect.adjusted(pad, pad, -pad, -pad), small, center(small, output, inner), "ink"))
        return drawn, top + box_h + 6 + note_h + 4, shapes

    def paintEvent(self, event):
        drawn, _need, shapes = self.layout_texts()
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        for kind, rect in shapes:
            if kind == "output":
                p.setPen(QtGui.QPen(color("muted"), 1.5, QtCore.Qt.PenStyle.DashLine))
                p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(rect, 10, 10)
            elif kind.startswith("stage:"):
                p.setPen(QtCore.Qt.PenStyle.NoPen)
                p.setBrush(color(kind[len("stage:"):]))
                p.drawRoundedRect(rect, 6, 6)
            else:
                p.setPen(QtGui.QPen(color(kind), 2))
                p.setBrush(color(kind, 40))
                p.drawRoundedRect(rect, 10, 10)
        for d in drawn:
            p.setPen(color(d.role))
            p.setFont(d.font)
            p.drawText(d.rect, d.flags, d.text)
        p.end()


# --------------------------------------------------------------------------------------
# The image-generation loop (§3.3.2)
# --------------------------------------------------------------------------------------

BRANCH_WORDS = {"条件分支": "conditional branch", "负向分支": "negative branch", "位置": "positions"}


class DiffusionLoopDiagram(QtWidgets.QWidget):
    """text encoder → n_s × (n_b DiT forwards at n_v positions) → VAE decode; its texts
    fitted like the handoff's (in F11 the branches read "@ 4,096 位置 (64×")."""

    SIDES = ("文本编码器 (另算) · text encoder (not counted)", "VAE 解码 (另算) · VAE decode (not counted)")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(120)
        self.result: dict = {}
        self.texts: dict = {}
        notifier().language_changed.connect(self._relayout)

    def set_figure(self, loop: dict) -> None:
        """loop: the 'loop' part of core.vision.figures.diffusion_figure."""
        self.result, self.texts = dict(loop["result"]), dict(loop)
        self._relayout()

    def _relayout(self, *_args) -> None:
        if self.result:
            need = max(120, int(self.layout_texts()[1] + 0.999))
            if need != self.minimumHeight():
                self.setMinimumHeight(need)
        self.update()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._relayout()

    def changeEvent(self, event):
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._relayout()
        super().changeEvent(event)

    def layout_texts(self) -> tuple[list[Drawn], float, dict]:
        """The texts as painted, the height they need and the shapes: sides, loop, branches."""
        w, h = float(self.width()), float(self.height())
        floor = floor_points()
        font = QtGui.QFont(self.font())
        bold = QtGui.QFont(font)
        bold.setBold(True)
        side_w = w * 0.16
        sides = [tr(t) for t in self.SIDES]
        side_font = min((fitted(font, t, side_w - 8, floor) for t in sides), key=points)
        side_h = max(text_height(side_font, t, side_w - 8) for t in sides)
        loop_w = w * 0.68 - 60
        title = self._title()
        title_font = fitted(bold, title, loop_w - 24, floor)
        title_h = text_height(title_font, title, loop_w - 24)
        inner_w = (loop_w - 36) / 2
        names = [self._in_language(t) for t in self.texts.get("branches", [])][: self.result.get("branches", 0)]
        branch_font = min((fitted(font, t, inner_w - 8, floor) for t in names), key=points, default=font)
        branch_h = max((text_height(branch_font, t, inner_w - 8) for t in names), default=0.0)
        loop_h = max(h - 24, 6 + title_h + 6 + branch_h + 8 + 12)
        loop = QtCore.QRectF(side_w + 30, 12, loop_w, loop_h)
        mid = loop.center().y()
        box_h = max(side_h + 8, loop_h - 36)
        side_rects = (QtCore.QRectF(10, mid - box_h / 2, side_w, box_h),
                      QtCore.QRectF(w - 10 - side_w, mid - box_h / 2, side_w, box_h))
        center = int(QtCore.Qt.AlignmentFlag.AlignCenter)
        drawn = [Drawn(t, r.adjusted(4, 4, -4, -4), side_font, center | wrap_flags(side_font, t, side_w - 8), "ink")
                 for t, r in zip(sides, side_rects)]
        left = int(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
        drawn.append(Drawn(title, QtCore.QRectF(loop.left() + 12, loop.top() + 6, loop_w - 24, title_h), title_font,
                           left | wrap_flags(title_font, title, loop_w - 24), "ink"))
        branches = []
        top = loop.top() + 6 + title_h + 6
        for b, text in enumerate(names):
            rect = QtCore.QRectF(loop.left() + 12 + b * (inner_w + 12), top, inner_w, loop.bottom() - 12 - top)
            branches.append(rect)
            drawn.append(Drawn(text, rect.adjusted(4, 4, -4, -4), branch_font,
                               center | wrap_flags(branch_font, text, inner_w - 8), "paper"))
        return drawn, 12 + loop_h + 12, {"sides": side_rects, "loop": loop, "branches": branches}

    def _title(self) -> str:
        if language() != "en":
            return self.texts.get("title", "")
        r = self.result
        return (f"↻ {r['dit_forwards'] // r['branches']} steps × {r['branches']} branches (CFG) = "
                f"{r['dit_forwards']} DiT forwards")

    @staticmethod
    def _in_language(text: str) -> str:
        """core.vision.figures' branch text (Chinese) in English when English is chosen."""
        if language() != "en":
            return text
        for zh, en in BRANCH_WORDS.items():
            text = text.replace(zh, en)
        return text

    def paintEvent(self, event):
        if not self.result:
            return
        drawn, _need, shapes = self.layout_texts()
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        for rect in shapes["sides"]:
            p.setPen(QtGui.QPen(color("muted"), 1.5, QtCore.Qt.PenStyle.DashLine))
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(rect, 8, 8)
        loop = shapes["loop"]
        p.setPen(QtGui.QPen(color("decode"), 2))
        p.setBrush(color("decode", 30))
        p.drawRoundedRect(loop, 14, 14)
        for b, rect in enumerate(shapes["branches"]):
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(color("prefill", 200 if b == 0 else 140))
            p.drawRoundedRect(rect, 6, 6)
        p.setPen(QtGui.QPen(color("muted"), 1.5))
        mid = loop.center().y()
        side, vae = shapes["sides"]
        p.drawLine(QtCore.QPointF(side.right(), mid), QtCore.QPointF(loop.left(), mid))
        p.drawLine(QtCore.QPointF(loop.right(), mid), QtCore.QPointF(vae.left(), mid))
        for d in drawn:
            p.setPen(color(d.role))
            p.setFont(d.font)
            p.drawText(d.rect, d.flags, d.text)
        p.end()
