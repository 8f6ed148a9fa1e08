"""The language of the lab's labels, as panels and the window use it: 中文, English or both.

`set_language(lang)` shows every window on screen in lang; `translate_tree(widget)` shows a
widget built or shown later in it. The text rules (the Qt catalogs, "中文 · English" pairs,
the book's references) are widgets/kit/i18n_text.py and are read from here too; the walk
over a widget's strings is widgets/kit/i18n_tree.py.
"""
from __future__ import annotations

from PySide6 import QtWidgets

from widgets.kit.i18n_text import (
    CACHE_SIZE,
    CATALOG_DIR,
    LANGUAGES,
    PAIR_SEPARATOR,
    ZH_TERMS,
    book_refs_in_english,
    english_words,
    has_cjk,
    has_latin_word,
    humanized,
    identifier_label,
    language,
    lookup,
    needs_translation,
    notifier,
    record_catalog_use,
    reload_catalogs,
    select_language,
    split_pair,
    split_spaced_pair,
    template,
    tr,
    translate_text,
)
from widgets.kit.i18n_tree import translate_tree

__all__ = ["CACHE_SIZE", "CATALOG_DIR", "LANGUAGES", "PAIR_SEPARATOR", "ZH_TERMS",
           "book_refs_in_english", "english_words", "has_cjk", "has_latin_word", "humanized",
           "identifier_label", "language", "lookup", "needs_translation", "notifier",
           "record_catalog_use", "reload_catalogs", "select_language", "set_language", "split_pair",
           "split_spaced_pair", "template", "tr", "translate_text", "translate_tree"]


def set_language(lang: str) -> None:
    """Show every label in lang ("zh", "en" or "both"): the windows on screen now, panels
    built later as they are built (the main window translates each new panel); a widget
    shown later is given translate_tree by its owner."""
    changed = select_language(lang)
    for widget in QtWidgets.QApplication.topLevelWidgets():
        if widget.isVisible():  # not a window closed but not yet deleted (its plots may be gone)
            translate_tree(widget)
    if changed:
        notifier().language_changed.emit(lang)
