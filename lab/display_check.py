"""Why a window could not start, found before Qt tries: Qt aborts the process (SIGABRT, exit
134) when its platform plugin fails to load, with a message that blames the wrong library
(it names xcb-cursor0 when libxcb-icccm4 is missing). `lab` and `lab talk` ask here first
and turn a problem into the lab's own message and exit 3.

Two checks, both cheap (no Qt imported):
- the X11 plugin's libraries: `ldd` of Qt's libqxcb.so and its libQt6XcbQpa, every
  "not found" mapped to its Debian package (scripts/system-packages.txt's list);
- the X server: DISPLAY's socket (a unix socket /tmp/.X11-unix/XN, or TCP 6000+N on a
  host) accepts a connection within a second (a stale DISPLAY otherwise aborts the same way).
Wayland, macOS, Windows and a platform the user chose (QT_QPA_PLATFORM=offscreen, vnc...)
are left to Qt.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

CONNECT_TIMEOUT_S = 1.0
# Library file -> Debian package, for the X11 plugin (scripts/system-packages.txt holds the
# same pairs for the installer; this copy travels with the package, which has no scripts/).
XCB_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-util.so.1": "libxcb-util1", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0", "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0", "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1", "libxcb.so.1": "libxcb1", "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1", "libX11-xcb.so.1": "libx11-xcb1", "libX11.so.6": "libx11-6",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libxkbcommon.so.0": "libxkbcommon0",
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


def uses_x11(environ=os.environ) -> bool:
    """Whether Qt will start its X11 (xcb) plugin: Linux, DISPLAY set, no other platform chosen."""
    if not sys.platform.startswith("linux"):
        return False
    platform = environ.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.split(":")[0] == "xcb"
    return bool(environ.get("DISPLAY")) and not environ.get("WAYLAND_DISPLAY")


def xcb_plugin_files() -> list[Path]:
    """Qt's X11 plugin and the library it loads, in the installed PySide6 (none: [])."""
    try:
        import importlib.util
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = Path(list(spec.submodule_search_locations)[0]) / "Qt"
    files = [qt / "plugins" / "platforms" / "libqxcb.so", *sorted((qt / "lib").glob("libQt6XcbQpa.so*"))]
    return [f for f in files if f.is_file()]


def missing_libraries(files: list[Path]) -> list[str]:
    """Library files `ldd` cannot find for these files (none, or no ldd: [])."""
    missing: list[str] = []
    for path in files:
        try:
            out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        missing += [m for m in _NOT_FOUND.findall(out) if m not in missing]
    return missing


def display_address(display: str) -> tuple[str, str | int] | None:
    """('unix', socket path) or ('tcp', (host, port)) of an X DISPLAY like ':0', ':1.0',
    'host:10'; None when it is not of that form (left to Qt)."""
    match = re.fullmatch(r"(?:unix)?(?P<host>[^:/]*)(?:/unix)?:(?P<number>\d+)(?:\.\d+)?", display)
    if match is None or display.startswith("/"):
        return None
    host, number = match["host"], int(match["number"])
    if host in ("", "unix"):
        return "unix", f"/tmp/.X11-unix/X{number}"
    return "tcp", f"{host}:{6000 + number}"


def display_answers(display: str) -> bool:
    """Whether the X server of DISPLAY accepts a connection (a form not understood: True)."""
    address = display_address(display)
    if address is None:
        return True
    kind, where = address
    try:
        if kind == "unix":
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(CONNECT_TIMEOUT_S)
                s.connect(str(where))
        else:
            host, port = str(where).rsplit(":", 1)
            socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError:
        return False
    return True


def platform_problem(environ=os.environ) -> str | None:
    """One line on why the window cannot start here, with the fix; None when nothing is known
    to be wrong."""
    if not uses_x11(environ):
        return None
    missing = missing_libraries(xcb_plugin_files())
    if missing:
        packages = sorted({XCB_PACKAGES.get(m, m) for m in missing})
        return (f"Qt's X11 plugin cannot load: {', '.join(missing)} missing; install with "
                f"`sudo apt-get install -y {' '.join(packages)}` (or run `make run`, which installs them)")
    display = environ.get("DISPLAY", "")
    if display and not display_answers(display):
        return (f"no X server answers at DISPLAY={display} (a stale DISPLAY?); start one, fix DISPLAY, or try "
                "`lab snapshot main --out lab.png`")
    return None
