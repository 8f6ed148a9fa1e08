"""translate_tree(widget): every visible string under a widget in the current language.

Each string slot (a label's text, a button's, a group box title, a tab, a tooltip, an
action, a data-backed combo item, a table header, a plot's title, axis label, legend entry
or text item) keeps the text its panel wrote in a dynamic property the first time it is
seen, with the text shown for it. A slot whose text is no longer what was shown was set
again by its panel: that new text is its source from then on. So switching languages back
and forth is stable, and "both" gives back exactly what the panel wrote.
"""
from __future__ import annotations

import sys

from PySide6 import QtCore, QtWidgets

from widgets.kit.i18n_text import PAIR_SEPARATOR, has_cjk, identifier_label, language, split_pair, translate_text

SOURCE = "i18n_source_"  # + slot name: the panel's own text
SHOWN = "i18n_shown_"  # + slot name: what translate_tree set
LANG = "i18n_lang_"  # + slot name: the language it was set for
KEY = "i18n_key"  # on a parameter/output name label: the identifier
KIND = "i18n_kind"  # "param" or "output"
_ITEM_SOURCE = int(QtCore.Qt.ItemDataRole.UserRole) + 0x1180  # a table item's own text


def translate_tree(root: QtWidgets.QWidget, visible_only: bool = False) -> None:
    """visible_only: only the widgets on screen (a re-walk after the panel wrote new text;
    a widget that comes on screen later is walked when it is shown or on the next re-walk)."""
    lang = language()
    for widget in [root, *root.findChildren(QtWidgets.QWidget)]:
        if visible_only and not widget.isVisible():
            continue
        for slot, get, put, *how in _widget_slots(widget, widget is root):
            _translate_slot(widget, slot, get, put, lang, *how)
        for action in widget.actions():
            if action.property("i18n_skip"):
                continue
            _translate_slot(action, "text", action.text, action.setText, lang)
            _translate_slot(action, "tip", action.toolTip, action.setToolTip, lang, _tooltip_text)
        if isinstance(widget, QtWidgets.QStatusBar) and widget.currentMessage():
            translate_status(widget, lang)
        if isinstance(widget, QtWidgets.QTableWidget):
            _translate_table(widget, lang)
        if isinstance(widget, QtWidgets.QGraphicsView) and widget.scene() is not None:
            _translate_scene(widget.scene(), lang)


def _translate_slot(owner: QtCore.QObject, slot: str, get, put, lang: str, translate=None) -> None:
    current = get()
    shown = owner.property(SHOWN + slot)
    if current == shown and owner.property(LANG + slot) == lang:
        return  # translated for lang already, and not written since: most slots on a re-walk
    source = owner.property(SOURCE + slot)
    if source is None or current != shown:
        if not current:
            return
        source = current  # first seen, or set again by its panel since
    text = (translate or translate_text)(source, lang)
    owner.setProperty(SOURCE + slot, source)
    owner.setProperty(SHOWN + slot, text)
    owner.setProperty(LANG + slot, lang)
    if text != current:
        put(text)


def _widget_slots(widget: QtWidgets.QWidget, is_root: bool = False):
    if widget.toolTip():
        yield "tip", widget.toolTip, widget.setToolTip, _tooltip_text
    if isinstance(widget, QtWidgets.QLabel):
        key = widget.property(KEY)
        if key:
            kind = widget.property(KIND) or "param"
            yield "text", widget.text, widget.setText, lambda text, lang: identifier_text(text, kind, key, lang)
        else:
            yield "text", widget.text, widget.setText
    elif isinstance(widget, QtWidgets.QAbstractButton):
        yield "text", widget.text, widget.setText
    if isinstance(widget, QtWidgets.QGroupBox):
        yield "title", widget.title, widget.setTitle
    if isinstance(widget, QtWidgets.QTabWidget):
        for i in range(widget.count()):
            yield f"tab{i}", (lambda i=i: widget.tabText(i)), (lambda t, i=i: widget.setTabText(i, t))
            yield f"tabtip{i}", (lambda i=i: widget.tabToolTip(i)), (lambda t, i=i: widget.setTabToolTip(i, t))
    if isinstance(widget, QtWidgets.QComboBox):
        # Only items with data: a combo without data reads its value from the item's text.
        # An item whose text is its value is a name (a sound device), not a label.
        for i in range(widget.count()):
            if widget.itemData(i) is not None and widget.itemData(i) != widget.itemText(i):
                yield f"item{i}", (lambda i=i: widget.itemText(i)), (lambda t, i=i: _set_item_text(widget, i, t))
    if isinstance(widget, QtWidgets.QMenu):
        yield "menutitle", widget.title, widget.setTitle
    if (is_root or isinstance(widget, QtWidgets.QDialog)) and widget.windowTitle():
        yield "window", widget.windowTitle, widget.setWindowTitle
    if isinstance(widget, QtWidgets.QLineEdit) and widget.placeholderText():
        yield "placeholder", widget.placeholderText, widget.setPlaceholderText


def _tooltip_text(text: str, lang: str) -> str:
    # A tooltip is read up close, often a parameter's help by its identifier: the catalog
    # translates those it has, and the Chinese side does not require one (scripts/i18n_strings.py).
    return translate_text(text, lang, "tip")


def _set_item_text(combo: QtWidgets.QComboBox, index: int, text: str) -> None:
    blocker = QtCore.QSignalBlocker(combo)
    combo.setItemText(index, text)
    del blocker


def identifier_text(source: str, kind: str, identifier: str, lang: str) -> str:
    """A parameter or output name label in lang: the readable label, then the symbol the
    form shows (and the unit) when there is one; the identifier itself stays in the tooltip."""
    readable = identifier_label(kind, identifier, lang)
    if not readable:
        return source
    symbol, bracket, unit = source.partition(" (")
    unit = bracket + unit
    if symbol == identifier or symbol == readable:
        return readable + unit
    if has_cjk(symbol):  # the calculator's own Chinese label ("μ/卡"): it is the zh label
        return (symbol if lang == "zh" else readable) + unit
    return f"{readable} {symbol}{unit}"



def _translate_table(table: QtWidgets.QTableWidget, lang: str) -> None:
    headers = [table.horizontalHeaderItem(c) for c in range(table.columnCount())]
    headers += [table.verticalHeaderItem(r) for r in range(table.rowCount())]
    cells = [table.item(r, c) for r in range(table.rowCount()) for c in range(table.columnCount())]
    for item in headers + cells:
        if item is None or not item.text():
            continue
        source, shown = item.data(_ITEM_SOURCE), item.data(_ITEM_SOURCE + 1)
        if source is None or item.text() != shown:
            source = item.text()
        text = translate_text(source, lang)
        item.setData(_ITEM_SOURCE, source)
        item.setData(_ITEM_SOURCE + 1, text)
        if text != item.text():
            item.setText(text)


def _translate_scene(scene: QtWidgets.QGraphicsScene, lang: str) -> None:
    pg = sys.modules.get("pyqtgraph")
    if pg is None:
        return
    for item in scene.items():
        if isinstance(item, pg.InfLineLabel):
            _translate_slot(item, "format", lambda item=item: item.format,
                            lambda text, item=item: (setattr(item, "format", text), item.valueChanged()), lang)
        elif isinstance(item, pg.TextItem):
            _translate_slot(item, "text", item.toPlainText, item.setText, lang)
        elif isinstance(item, pg.LabelItem):
            _translate_slot(item, "text", lambda item=item: item.text, item.setText, lang)
        elif isinstance(item, pg.AxisItem):
            _translate_slot(item, "axis", lambda item=item: item.labelText,
                            lambda text, item=item: _set_axis_label(item, text=text), lang)
            _translate_slot(item, "units", lambda item=item: item.labelUnits,
                            lambda text, item=item: _set_axis_label(item, units=text), lang)
            _translate_ticks(item, lang)


def _set_axis_label(axis, text: str | None = None, units: str | None = None) -> None:
    axis.labelText = axis.labelText if text is None else text
    axis.labelUnits = axis.labelUnits if units is None else units
    axis._updateLabel()


def _translate_ticks(axis, lang: str) -> None:
    """Named ticks (setTicks: categories under bars) in lang; the panel's own list is kept
    the same way as a label's text."""
    current = axis._tickLevels
    if not current:
        return
    source, shown = getattr(axis, "_i18n_ticks", (None, None))
    if source is None or current != shown:
        source = current
    translated = [[(value, translate_text(text, lang)) for value, text in level] for level in source]
    axis._i18n_ticks = (source, translated)
    if translated != current:
        axis.setTicks(translated)


def translate_status(status: QtWidgets.QStatusBar, lang: str) -> None:
    """The status bar's message: a "中文 · English" title among its pieces shows one side,
    the other pieces (keys) are translated one by one."""
    _translate_slot(status, "message", status.currentMessage, status.showMessage, lang, translate_pieces)


def translate_pieces(text: str, lang: str) -> str:
    pieces, out, i = text.split(PAIR_SEPARATOR), [], 0
    while i < len(pieces):
        pair = split_pair(PAIR_SEPARATOR.join(pieces[i:i + 2])) if i + 1 < len(pieces) else None
        if pair is not None and lang != "both":
            out.append(pair[0] if lang == "zh" else pair[1])
            i += 2
        else:
            out.append(translate_text(pieces[i], lang))
            i += 1
    return PAIR_SEPARATOR.join(out)
