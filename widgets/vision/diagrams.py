"""Two painted diagrams: the three handoff points of E → P → D (图 3-16) and the
image-generation loop of §3.3.2. They paint what core.vision.figures computed."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.theme import color


class HandoffDiagram(QtWidgets.QWidget):
    """Three handoff points (raw image, EC, KV) between the stages E, P and D (图 3-16)."""

    POINTS = (("raw", "原图 raw image", "接收方还要做视觉编码 E", "wait"),
              ("ec", "编码结果 EC", "接收方从语言 prefill P 开始", "ec"),
              ("kv", "语言 KV", "交接已完成的语言上下文,直接 D", "state"))
    STAGES = (("E", "视觉编码", "prefill"), ("P", "语言 prefill", "prefill"), ("D", "decode", "decode"))

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(132)
        self.values: dict[str, float] = {"raw": 0.0, "ec": 0.0, "kv": 0.0}
        self.texts: dict[str, str] = {}

    def set_figure(self, figure: dict) -> None:
        """figure: core.vision.figures.handoff_figure."""
        self.values, self.texts = dict(figure["values"]), dict(figure["texts"])
        self.setToolTip("<br>".join(f"{label}: {self.texts[key]} — {note}" for key, label, note, _ in self.POINTS))
        self.update()

    def paintEvent(self, event):
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
        self.texts: dict = {}

    def set_figure(self, loop: dict) -> None:
        """loop: the 'loop' part of core.vision.figures.diffusion_figure."""
        self.result, self.texts = dict(loop["result"]), dict(loop)
        self.update()

    def paintEvent(self, event):
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
        branches = r["branches"]
        p.drawText(loop.adjusted(12, 6, -12, 0), QtCore.Qt.AlignmentFlag.AlignLeft, self.texts["title"])
        p.setFont(font)
        inner_w = (loop.width() - 36) / 2
        for b in range(branches):
            rect = QtCore.QRectF(loop.left() + 12 + b * (inner_w + 12), loop.top() + 30, inner_w, loop.height() - 42)
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(color("prefill", 200 if b == 0 else 140))
            p.drawRoundedRect(rect, 6, 6)
            p.setPen(color("paper"))
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, self.texts["branches"][b])
        p.setPen(QtGui.QPen(color("muted"), 1.5))
        mid = h / 2
        p.drawLine(QtCore.QPointF(side.right(), mid), QtCore.QPointF(loop.left(), mid))
        p.drawLine(QtCore.QPointF(loop.right(), mid), QtCore.QPointF(vae.left(), mid))
        p.end()
