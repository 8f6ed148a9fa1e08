"""Colours and pens shared by every panel. The phase colours follow the book's legend:
输入处理/prefill, 生成/decode, 状态驻留, 工具/环境/反馈, 等待/空闲, 积压/超限."""
from __future__ import annotations

from PySide6 import QtGui

# pyqtgraph (and numpy with it) is imported where it is used, not here: the main window
# shows before any plot library is loaded.

COLORS = {
    "prefill": "#3b7dd8",   # 输入处理 / prefill
    "decode": "#e08a1e",    # 生成 / decode
    "state": "#8e5cc2",     # 状态驻留 (KV, 显存)
    "tool": "#2e9e6a",      # 工具 / 环境 / 反馈
    "wait": "#9aa3ad",      # 等待 / 空闲
    "backlog": "#d64545",   # 积压 / 超限
    "ink": "#222831",
    "muted": "#6b7480",
    "grid": "#e3e6ea",
    "capacity": "#222831",
    "accent": "#1f9bb5",
    "paper": "#ffffff",
    # Resident training state in shades of the "状态驻留" purple (the Training panel's stack).
    "weights": "#5b3a8e",
    "gradients": "#7d55b5",
    "master": "#a07fd0",
    "adam": "#c9b3ea",
    # Table cell tints: better / worse than the other side.
    "good_tint": "#e3f4e8",
    "bad_tint": "#fdecd9",
    # Lines drawn over a picture: white with a dark shadow whatever the paper colour is.
    "overlay": "#ffffff",
    "shadow": "#000000",
    # The navigation list of the main window.
    "nav": "#262b33",
    "nav_ink": "#e8eaed",
}

LEGEND = (
    ("prefill", "输入处理 / prefill"),
    ("decode", "生成 / decode"),
    ("state", "状态驻留(KV、显存)"),
    ("tool", "工具 / 环境 / 反馈"),
    ("wait", "等待 / 空闲"),
    ("backlog", "积压 / 超限"),
)

ILLUSTRATIVE_TAG = "示意"

_configured = False


def color(kind: str, alpha: int = 255) -> QtGui.QColor:
    c = QtGui.QColor(COLORS.get(kind, kind))
    c.setAlpha(alpha)
    return c


def pen(kind: str, width: float = 2.0, dashed: bool = False, alpha: int = 255) -> QtGui.QPen:
    import pyqtgraph as pg

    p = pg.mkPen(color(kind, alpha), width=width)
    if dashed:
        p.setStyle(pg.QtCore.Qt.PenStyle.DashLine)
    return p


def brush(kind: str, alpha: int = 200) -> QtGui.QBrush:
    import pyqtgraph as pg

    return pg.mkBrush(color(kind, alpha))


def span(kind: str, text: str, bold: bool = False) -> str:
    """Rich text in a theme colour, for QLabels: span("backlog", "零成功")."""
    weight = "; font-weight:600" if bold else ""
    return f"<span style='color:{COLORS.get(kind, kind)}{weight}'>{text}</span>"


def setup_pyqtgraph() -> None:
    """Light plots with antialiasing, as a printed figure would look. Called once."""
    global _configured
    if _configured:
        return
    import pyqtgraph as pg

    pg.setConfigOptions(antialias=True, background=COLORS["paper"], foreground=COLORS["ink"])
    _configured = True


STYLE_SHEET = """
QWidget { font-size: 13px; }
QGroupBox { font-weight: 600; border: 1px solid #d5d9de; border-radius: 6px; margin-top: 14px; padding: 8px 6px 6px 6px; background: #ffffff; }
QGroupBox::title { subcontrol-origin: margin; left: 10px; padding: 0 4px; color: #222831; }
QLabel[role="error"] { color: #c62828; font-size: 12px; }
QLabel[role="tag"] { color: #ffffff; background: #9aa3ad; border-radius: 3px; padding: 0px 4px; font-size: 11px; }
QLabel[role="ref"] { color: #1f6fb5; font-size: 12px; }
QLabel[role="value"] { font-weight: 600; font-size: 14px; color: #222831; }
QLabel[role="caption"] { color: #6b7480; font-size: 12px; }
QLabel[role="title"] { font-size: 20px; font-weight: 600; color: #222831; }
QLineEdit[invalid="true"] { border: 1px solid #c62828; background: #fff3f3; }
QFrame[role="card"] { background: #ffffff; border: 1px solid #d5d9de; border-radius: 6px; }
QScrollArea { background: #f4f5f7; border: none; }
QWidget#page { background: #f4f5f7; }
"""

NAV_STYLE_SHEET = (
    f"QListWidget {{ background: {COLORS['nav']}; color: {COLORS['nav_ink']}; border: none; font-size: 14px; }}"
    "QListWidget::item { padding: 10px 12px; }"
    f"QListWidget::item:selected {{ background: {COLORS['prefill']}; color: {COLORS['paper']}; }}")
