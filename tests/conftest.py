import os

# Tests never need a screen: Qt renders offscreen, before any Qt module is imported.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path, monkeypatch):
    """Each test gets its own settings folder, so no test sees another's (or a user's).
    Only the lab's own variable moves: XDG_CONFIG_HOME also holds the sound server's cookie."""
    monkeypatch.setenv("LAB_SETTINGS_DIR", str(tmp_path / "config"))
    yield


@pytest.fixture(autouse=True)
def _default_look():
    """Zoom, theme and language are app-wide: whatever a test set, the next starts at 1×,
    light and both languages (only for the modules a test has loaded: core tests stay Qt-free)."""
    yield
    import sys

    zoom, theme, i18n = (sys.modules.get(f"widgets.kit.{name}") for name in ("zoom", "theme", "i18n"))
    if zoom is not None and zoom.zoom() != 1.0:
        zoom.set_zoom(1.0)
    if theme is not None and theme.current_theme() != "light":
        theme.set_theme("light")
    if i18n is not None and i18n.language() != "both":
        i18n.set_language("both")
