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
