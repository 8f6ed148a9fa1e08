"""Window feature: session (install(window) adds its menu actions and keys)."""
from __future__ import annotations


def install(window) -> None:
    """Add this feature's actions to window.menus."""
