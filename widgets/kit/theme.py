"""Colours, pens and the application style sheet, per theme (light, dark, high contrast).

One semantic palette: each colour key has ONE meaning on every panel, so legends agree
(MEANINGS says which). The phase colours follow the book's legend: 输入处理/prefill,
生成/decode, 状态驻留, 工具/环境/反馈, 等待/空闲, 积压/超限.
COLORS always holds the current theme's colours (set_theme updates it in place), so code
that looks a colour up when it draws follows the theme; pens made earlier are re-coloured
by widgets.kit.plot_zoom when the theme changes.
"""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.zoom_factor import zoom, zoom_notifier

# What each semantic colour means, on every panel (chrome colours are not listed).
MEANINGS = {
    "prefill": "输入处理 / prefill",
    "decode": "生成 / decode",
    "state": "状态驻留 (KV cache, state in memory)",
    "tool": "工具 / 环境 / 反馈 (tool, environment, feedback)",
    "wait": "等待 / 空闲 (waiting, idle)",
    "backlog": "积压 / 超限 (backlog, overload, error)",
    "ec": "编码结果 EC (encoder cache)",
    "activations": "激活 (activations)",
    "weights": "权重 (weights)",
    "gradients": "梯度 (gradients)",
    "master": "主权重 FP32 (master weights)",
    "adam": "优化器状态 (optimizer state)",
    "arrival": "音频块到达 (audio chunk arrived)",
    # Keys of one family share its colour: played audio is decode's output, a late chunk
    # and an underrun are failures like a backlog (FAMILY says which).
    "played": "已播放音频 (audio played) = 生成 decode 的输出",
    "late": "迟到 (late chunk) = 积压/超限 family",
    "underrun": "欠载 (underrun) = 积压/超限 family",
    "sync": "权重同步 (weight sync)",
    "cursor": "当前时刻 (now / cursor)",
    "capacity": "容量上限 (capacity)",
}
# One quantity in order (model sizes small -> large, presets ①-④) or the parts of one total
# in stacking order: a ramp, read by position, never as a phase of the legend.
SERIES = tuple(f"series{i}" for i in range(1, 7))
MEANINGS.update({key: f"有序系列第 {i} 档 (ordered series, step {i})" for i, key in enumerate(SERIES, 1)})

_LIGHT = {
    "prefill": "#3b7dd8", "decode": "#e08a1e", "state": "#8e5cc2", "tool": "#2e9e6a",
    "wait": "#9aa3ad", "backlog": "#d64545", "ec": "#1f9bb5", "activations": "#c2519a",
    # Resident training state in shades of the "状态驻留" purple (the Training panel's stack).
    "weights": "#5b3a8e", "gradients": "#7d55b5", "master": "#a07fd0", "adam": "#c9b3ea",
    "arrival": "#8d6e3f", "sync": "#4f6d7a",
    "cursor": "#222831", "capacity": "#222831",
    **dict(zip(SERIES, ("#440154", "#414487", "#2a788e", "#22a884", "#5fb83a", "#b59a00"))),
    # Chrome: text, plot paper, window and cards, navigation, tags, links, errors.
    "ink": "#222831", "muted": "#5f6873", "grid": "#e3e6ea", "paper": "#ffffff",
    "page": "#f4f5f7", "card": "#ffffff", "border": "#d5d9de", "ref": "#1f5fa0",
    "error": "#c62828", "invalid": "#fff3f3", "tag": "#4d5661", "tag_ink": "#ffffff",
    "good_tint": "#e3f4e8", "bad_tint": "#fdecd9",
    # Lines drawn over a picture: white with a dark shadow whatever the paper colour is.
    "overlay": "#ffffff", "shadow": "#000000",
    "nav": "#262b33", "nav_ink": "#e8eaed", "nav_selected": "#3b7dd8",
}

_DARK = dict(_LIGHT, **{
    "prefill": "#6aa4f0", "decode": "#f0a040", "state": "#b48be6", "tool": "#4cc48c",
    "wait": "#7f8994", "backlog": "#f06a6a", "ec": "#3cc4dc", "activations": "#e07ab8",
    "weights": "#8d6cc4", "gradients": "#a585d8", "master": "#c2a6ea", "adam": "#ddd0f2",
    "arrival": "#c9a36b", "sync": "#8fb1c0",
    "cursor": "#e6e9ed", "capacity": "#e6e9ed",
    **dict(zip(SERIES, ("#a58cf0", "#6f9be8", "#2fb8c0", "#3fd08a", "#a6dc4a", "#fde725"))),
    "ink": "#e6e9ed", "muted": "#a4adb8", "grid": "#3a414b", "paper": "#1b1f24",
    "page": "#121519", "card": "#1b1f24", "border": "#3a414b", "ref": "#8cc0ff",
    "error": "#ff8a80", "invalid": "#3d1f1f", "tag": "#c9d1da", "tag_ink": "#14171b",
    "good_tint": "#1e3a2a", "bad_tint": "#43301a",
    "nav": "#0c0e11", "nav_ink": "#e6e9ed", "nav_selected": "#2f64b0",
})

_HIGH_CONTRAST = dict(_LIGHT, **{
    "prefill": "#0047b3", "decode": "#b35900", "state": "#6a1fb3", "tool": "#006b3c",
    "wait": "#5c6670", "backlog": "#c00000", "ec": "#006a80", "activations": "#a3006b",
    "weights": "#3d1a73", "gradients": "#5a2d99", "master": "#7a4dbf", "adam": "#a380d9",
    "arrival": "#5c4013", "sync": "#1f3b47",
    "cursor": "#000000", "capacity": "#000000",
    **dict(zip(SERIES, ("#5b005b", "#2a2aa0", "#00607a", "#006b2e", "#5a6e00", "#8a5200"))),
    "ink": "#000000", "muted": "#333333", "grid": "#b0b0b0", "paper": "#ffffff",
    "page": "#ffffff", "card": "#ffffff", "border": "#000000", "ref": "#00308f",
    "error": "#b00000", "invalid": "#ffe0e0", "tag": "#000000", "tag_ink": "#ffffff",
    "good_tint": "#c8f0d2", "bad_tint": "#ffd9b3",
    "nav": "#000000", "nav_ink": "#ffffff", "nav_selected": "#0047b3",
})

# Keys that are one meaning's family: they take that meaning's colour in every theme.
FAMILY = {"played": "decode", "late": "backlog", "underrun": "backlog"}
for _palette in (_LIGHT, _DARK, _HIGH_CONTRAST):
    _palette.update({key: _palette[of] for key, of in FAMILY.items()})

THEMES = {"light": _LIGHT, "dark": _DARK, "high-contrast": _HIGH_CONTRAST}

COLORS: dict[str, str] = dict(_LIGHT)

LEGEND = (
    ("prefill", "输入处理 / prefill"),
    ("decode", "生成 / decode"),
    ("state", "状态驻留(KV、显存)"),
    ("tool", "工具 / 环境 / 反馈"),
    ("wait", "等待 / 空闲"),
    ("backlog", "积压 / 超限"),
)

ILLUSTRATIVE_TAG = "示意"

_theme = "light"
_configured = False


def _pg():
    """pyqtgraph, imported on first use: it (and numpy with it) takes longer to load than
    the main window takes to show, so the window shows before any plot library is loaded."""
    import pyqtgraph

    return pyqtgraph


def current_theme() -> str:
    return _theme


def set_theme(name: str) -> str:
    """Switch every colour to theme name (one of THEMES): COLORS, the style sheet, Qt's
    colour scheme and palette, pyqtgraph's default colours. Plots already built are
    re-coloured by widgets.kit.plot_zoom.recolor_plots (the window does it on theme_changed)."""
    global _theme
    if name not in THEMES:
        raise ValueError(f"theme must be one of {', '.join(THEMES)}, not {name!r}")
    changed = name != _theme
    _theme = name
    COLORS.clear()
    COLORS.update(THEMES[name])
    if _configured:
        _pg().setConfigOptions(background=COLORS["paper"], foreground=COLORS["ink"])
    apply_style()
    if changed:
        zoom_notifier().theme_changed.emit(name)
    return name


def color(kind: str, alpha: int = 255) -> QtGui.QColor:
    c = QtGui.QColor(COLORS.get(kind, kind))
    c.setAlpha(alpha)
    return c


def pen(kind: str, width: float = 2.0, dashed: bool = False, alpha: int = 255) -> QtGui.QPen:
    p = _pg().mkPen(color(kind, alpha), width=width)
    if dashed:
        p.setStyle(QtCore.Qt.PenStyle.DashLine)
    return p


def brush(kind: str, alpha: int = 200) -> QtGui.QBrush:
    return _pg().mkBrush(color(kind, alpha))


def span(kind: str, text: str, bold: bool = False) -> str:
    """Rich text in a theme colour, for QLabels: span("backlog", "零成功")."""
    weight = "; font-weight:600" if bold else ""
    return f"<span style='color:{COLORS.get(kind, kind)}{weight}'>{text}</span>"


def setup_pyqtgraph() -> None:
    """Plots with antialiasing in the theme's paper and ink, as a printed figure would look."""
    global _configured
    if _configured:
        return
    _pg().setConfigOptions(antialias=True, background=COLORS["paper"], foreground=COLORS["ink"])
    _configured = True


BASE_POINTS = 9.75  # body text at zoom 1 (13 px at 96 dpi, the size the panels were laid out for)
# Text sizes by role at zoom 1 (points). Not in the style sheet: a style sheet's font size
# pins a widget's font, and re-styling a whole application takes seconds (about 1 ms per
# widget); fonts follow the zoom through apply_fonts instead, in milliseconds.
ROLE_POINTS = {"error": 9.0, "tag": 9.0, "ref": 9.0, "value": 10.5, "caption": 9.0, "title": 15.0,
               "nav": 10.5}


def style_sheet(zoom: float = 1.0, theme: str = "light") -> str:
    """The application's style sheet in theme's colours, borders and paddings scaled by zoom.
    Font sizes are points times the zoom too, but set by apply_fonts (ROLE_POINTS), not here."""
    c = THEMES[theme]

    def px(size: float) -> str:
        return f"{max(1, round(size * zoom))}px"

    line = px(1)
    return f"""
QGroupBox {{ font-weight: 600; border: {line} solid {c['border']}; border-radius: {px(6)}; margin-top: {px(14)}; padding: {px(8)} {px(6)} {px(6)} {px(6)}; background: {c['card']}; }}
QGroupBox::title {{ subcontrol-origin: margin; left: {px(10)}; padding: 0 {px(4)}; color: {c['ink']}; }}
QLabel[role="error"] {{ color: {c['error']}; }}
QLabel[role="tag"] {{ color: {c['tag_ink']}; background: {c['tag']}; border-radius: {px(3)}; padding: 0px {px(4)}; font-weight: 600; }}
QLabel[role="ref"] {{ color: {c['ref']}; }}
QLabel[role="value"] {{ font-weight: 600; color: {c['ink']}; }}
QLabel[role="caption"] {{ color: {c['muted']}; }}
QLabel[role="title"] {{ font-weight: 600; color: {c['ink']}; }}
QLineEdit[invalid="true"] {{ border: {line} solid {c['error']}; background: {c['invalid']}; }}
QFrame[role="card"] {{ background: {c['card']}; border: {line} solid {c['border']}; border-radius: {px(6)}; }}
QScrollArea {{ background: {c['page']}; border: none; }}
QWidget#page {{ background: {c['page']}; }}
QListWidget#navigation {{ background: {c['nav']}; color: {c['nav_ink']}; border: none; }}
QListWidget#navigation::item {{ padding: {px(10)} {px(12)}; }}
QListWidget#navigation::item:selected {{ background: {c['nav_selected']}; color: #ffffff; }}
"""


# The style sheet at zoom 1 in the light theme (benchmarks set it without a window).
STYLE_SHEET = style_sheet()


def palette(theme: str) -> QtGui.QPalette:
    """A Qt palette for theme: widgets the style sheet does not reach (inputs, menus, tables)."""
    c = THEMES[theme]
    p = QtGui.QPalette()
    roles = QtGui.QPalette.ColorRole
    for role, key in ((roles.Window, "page"), (roles.WindowText, "ink"), (roles.Base, "card"),
                      (roles.AlternateBase, "page"), (roles.Text, "ink"), (roles.Button, "card"),
                      (roles.ButtonText, "ink"), (roles.ToolTipBase, "card"), (roles.ToolTipText, "ink"),
                      (roles.PlaceholderText, "muted"), (roles.Highlight, "nav_selected"),
                      (roles.Link, "ref"), (roles.Mid, "border"), (roles.Midlight, "grid")):
        p.setColor(role, QtGui.QColor(c[key]))
    p.setColor(roles.HighlightedText, QtGui.QColor("#ffffff"))
    p.setColor(roles.BrightText, QtGui.QColor(c["error"]))
    return p


_roots: list = []  # widgets that carry the style sheet themselves (the main window)


def style_root(widget) -> None:
    """widget carries the style sheet for everything inside it: a theme switch re-styles
    its widgets only (the application's sheet, re-set, re-polishes every widget there is)."""
    widget.setStyleSheet(style_sheet(zoom(), _theme))
    _roots.append(widget)
    key = id(widget)  # not the widget: the connection must not keep it alive
    widget.destroyed.connect(lambda *_: _forget_root(key))


def _forget_root(key: int) -> None:
    """A deleted style root leaves the list at once, and with it the list's reference to
    its Python side (a closed window's panels and plots)."""
    _roots[:] = [root for root in _roots if id(root) != key]


def apply_style() -> None:
    """Style the running application for the current theme and zoom (no-op without one):
    Qt's colour scheme, the palette, the style sheet (on the style roots, else on the
    application) and the fonts."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        return
    hints = app.styleHints()
    scheme = QtCore.Qt.ColorScheme.Dark if _theme == "dark" else QtCore.Qt.ColorScheme.Light
    if hasattr(hints, "setColorScheme") and hints.colorScheme() != scheme:  # Qt 6.8+
        hints.setColorScheme(scheme)
    new_palette = palette(_theme)
    if app.palette() != new_palette:
        app.setPalette(new_palette)
    sheet = style_sheet(zoom(), _theme)
    _roots[:] = [root for root in _roots if shiboken6.isValid(root)]
    if app.styleSheet() != sheet and (not app.styleSheet() or not any(root.isVisible() for root in _roots)):
        app.setStyleSheet(sheet)  # no window on screen carries it: widgets outside one need it
    for root in _roots:
        if root.styleSheet() != sheet:
            root.setStyleSheet(sheet)
    apply_fonts()


def apply_fonts(root=None, previous: float | None = None) -> None:
    """Text at the current zoom: the application's font, and every widget under root (default:
    every window) set to its size at zoom 1 times the zoom. A widget's size at zoom 1 is its
    role's (ROLE_POINTS), else what it had when first seen divided by the zoom it was made
    at (previous: the zoom before this change). Every font is set on the widget itself: with
    a style sheet, Qt passes a parent's font on to its children only one level down."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        return
    z = zoom()
    made_at = previous if previous is not None else z
    font = app.font()
    if abs(font.pointSizeF() - BASE_POINTS * z) > 1e-3:
        font.setPointSizeF(BASE_POINTS * z)
        app.setFont(font)
    widgets = app.allWidgets() if root is None else [root, *root.findChildren(QtWidgets.QWidget)]
    set_fonts(widgets, made_at)


def set_fonts(widgets, made_at: float | None = None) -> None:
    """apply_fonts for these widgets alone (the application's font already set): a caller
    that restyles a big page a part per turn of the event loop. Freed widgets are skipped."""
    z = zoom()
    made_at = made_at if made_at is not None else z
    for widget in widgets:
        if not shiboken6.isValid(widget):
            continue
        points = ROLE_POINTS.get(widget.property("role"))
        if points is None:
            points = widget.property("base_points")
            if points is None:
                size = widget.font().pointSizeF()
                if size <= 0:
                    continue  # a font in pixels: not ours to scale
                points = size / made_at
                widget.setProperty("base_points", points)
        f = widget.font()
        if abs(f.pointSizeF() - points * z) > 1e-3:
            f.setPointSizeF(points * z)
            widget.setFont(f)
