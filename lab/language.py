"""Window feature: the language of the labels (View → Language: 中文 / English / both),
saved in the settings. Each panel is translated when it is built, and again after its
state changes (panels write their captions from the state; widgets/kit/i18n keeps what they
wrote, so a caption set again is translated again)."""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtGui

from widgets.kit.i18n import LANGUAGES, language, notifier, set_language, tr, translate_tree
from widgets.kit.i18n_tree import translate_status

__all__ = ["install", "apply_language", "language", "set_language", "tr", "translate_tree"]

SETTING = "language"
MENU_TEXTS = {"zh": "中文", "en": "English", "both": "中文 · English"}
# Panels also set text when a job ends or a player moves: the widgets on screen are walked
# again this often while a language other than "both" is chosen (a walk that finds nothing
# new costs ~10-20 ms on the biggest panel: bench/bench_language.py).
REFRESH_MS = 1000
# After a state change, once its slots have written their captions (a drag sends many).
AFTER_CHANGE_MS = 80


def install(window) -> None:
    """View → Language, the saved language, and translation of every panel as it is built."""
    window.language_feature = WindowLanguage(window)
    saved = str(window.settings.get(SETTING, "both"))
    apply_language(saved if saved in LANGUAGES else "both", window)


class WindowLanguage(QtCore.QObject):
    """The window's side of the language: its menu, navigation and refresh follow every
    set_language, whoever calls it (the menu, a session, a talk)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        menu = window.menus["view"].addMenu("Language · 语言")
        group = QtGui.QActionGroup(window)
        window.language_actions = {}
        for lang in LANGUAGES:
            action = QtGui.QAction(MENU_TEXTS[lang], window, checkable=True)
            action.setProperty("i18n_skip", True)  # each language named in its own words
            action.triggered.connect(lambda _=False, lang=lang: choose_language(window, lang))
            group.addAction(action)
            menu.addAction(action)
            window.language_actions[lang] = action
        self.refresh = QtCore.QTimer(self)
        self.refresh.setInterval(REFRESH_MS)
        self.refresh.timeout.connect(lambda: _translate_current(window, visible_only=True))
        window.panel_built.connect(lambda key: _on_panel_built(window, key))
        window.panel_shown.connect(lambda key: _translate_current(window))
        notifier().language_changed.connect(self.show_language)

    @QtCore.Slot(str)
    def show_language(self, lang: str) -> None:
        window = self.window
        window.language_actions[lang].setChecked(True)
        _translate_navigation(window)
        translate_tree(window)
        if lang == "both":
            self.refresh.stop()
        else:
            self.refresh.start()


def choose_language(window, lang: str) -> None:
    """The user's choice: shown now and saved for the next start."""
    apply_language(lang, window)
    window.settings.set(SETTING, lang)


def apply_language(lang: str, window=None) -> None:
    """Show lang everywhere (lab snapshot --lang uses this without a window)."""
    set_language(lang)
    if window is not None:
        window.language_feature.show_language(lang)  # also when lang was already set


def _on_panel_built(window, key: str) -> None:
    panel = window.panel(key)
    if language() != "both":  # "both" is how panels are written: nothing to do
        translate_tree(panel)
    state = getattr(panel, "state", None)
    changed = getattr(state, "changed", None)
    if changed is not None:
        changed.connect(lambda *_: _translate_soon(panel))


def _translate_soon(panel) -> None:
    """Once, after the panel's own slots have written their text, however many changes a
    drag sends meanwhile; only what is on screen."""
    if language() == "both" or not shiboken6.isValid(panel) or panel.property("i18n_pending"):
        return  # (a state can outlive its panel)
    panel.setProperty("i18n_pending", True)

    def run():
        panel.setProperty("i18n_pending", False)
        translate_tree(panel, visible_only=True)

    QtCore.QTimer.singleShot(AFTER_CHANGE_MS, panel, run)


def _translate_current(window, visible_only: bool = False) -> None:
    if language() == "both":
        return
    key = window.current_key()
    if window.is_built(key):
        translate_tree(window.panel(key), visible_only)
    translate_status(window.status, language())


def _translate_navigation(window) -> None:
    """Navigation rows: "§3.1  中文" over "English" in both; one line of the language else."""
    lang = language()
    for row, key in enumerate(window.panel_keys()):
        info = window.info(key)
        item = window.nav.item(row)
        chinese, _, english = info.title.partition(" · ")
        section = f"§{info.section}" if info.section[:1].isdigit() else info.section
        if lang == "both":
            text = f"{section}  {chinese}\n{english}" if english else f"{section}\n{chinese}"
        elif english:
            text = f"{section}  {chinese if lang == 'zh' else english}"
        else:
            text = f"{section}\n{tr(chinese)}"
        item.setText(text)
