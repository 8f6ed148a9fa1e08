"""`lab` on a real X server (Xvfb at a projector's 1280x720) through Qt's xcb plugin, the
path that crashed on a fresh Debian machine (missing xcb libraries), and the checks that
turn a window that cannot start into the lab's own message and exit 3 (lab.display_check).
CI installs Xvfb and xdotool; without them these tests fail in CI and skip elsewhere."""
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from lab import display_check

SCREEN = (1280, 720)


def _need(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        message = f"{', '.join(missing)} not installed (Debian: xvfb, xdotool)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def _wait(condition, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = condition()
        if got:
            return got
        time.sleep(0.05)
    pytest.fail(f"timed out after {timeout_s} s waiting for {what}")


def _free_display() -> int:
    for number in range(91, 199):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not os.path.exists(f"/tmp/.X{number}-lock"):
            return number
    pytest.fail("no free X display number")


@pytest.fixture
def xvfb():
    _need("Xvfb", "xdotool")
    number = _free_display()
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(lambda: display_check.display_answers(f":{number}") or server.poll() is not None, 30, "Xvfb")
        assert server.poll() is None, "Xvfb exited"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _lab_env(display, settings_dir):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=display, LAB_SETTINGS_DIR=str(settings_dir))
    return env


def _xdotool(env, *args) -> str:
    return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=30).stdout


def _open_window(env):
    """Start `lab`, wait until its window maps; (process, window id, geometry dict)."""
    process = subprocess.Popen([sys.executable, "-m", "lab"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)

    def mapped():
        if process.poll() is not None:
            pytest.fail(f"lab exited {process.returncode} before its window mapped: {process.stderr.read()[-2000:]}")
        found = _xdotool(env, "search", "--onlyvisible", "--name", "Load Lab").split()
        return found[0] if found else None

    window = _wait(mapped, 120, "the lab's window to map")
    shell = _xdotool(env, "getwindowgeometry", "--shell", window)
    geometry = {k: int(v) for k, v in (line.split("=") for line in shell.split()) if k in ("X", "Y", "WIDTH", "HEIGHT")}
    return process, window, geometry


def _quit(env, process, window):
    _xdotool(env, "windowfocus", "--sync", window)
    _xdotool(env, "key", "ctrl+q")
    assert process.wait(timeout=60) == 0, process.stderr.read()[-2000:]


def test_lab_opens_a_window_that_fits_a_projector_and_reopens_where_it_was(xvfb, tmp_path):
    env = _lab_env(xvfb, tmp_path / "settings")
    process, window, first = _open_window(env)
    # The whole window on the 1280x720 screen (it opened at 1500x950 whatever the screen).
    assert first["X"] >= 0 and first["Y"] >= 0
    assert first["X"] + first["WIDTH"] <= SCREEN[0] and first["Y"] + first["HEIGHT"] <= SCREEN[1]
    assert first["WIDTH"] >= 0.9 * SCREEN[0] and first["HEIGHT"] >= 0.9 * SCREEN[1]
    _xdotool(env, "windowsize", "--sync", window, "900", "600")
    _quit(env, process, window)
    process, window, second = _open_window(env)
    assert (second["WIDTH"], second["HEIGHT"]) == (900, 600)  # restored as it was closed
    _quit(env, process, window)


def test_a_stale_display_is_the_labs_message_and_exit_3_not_an_abort(tmp_path):
    number = _free_display()
    env = _lab_env(f":{number}", tmp_path)
    done = subprocess.run([sys.executable, "-m", "lab"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert done.stderr.startswith(f"lab: no X server answers at DISPLAY=:{number}")


def test_display_addresses():
    assert display_check.display_address(":0") == ("unix", "/tmp/.X11-unix/X0")
    assert display_check.display_address(":1.0") == ("unix", "/tmp/.X11-unix/X1")
    assert display_check.display_address("unix:2") == ("unix", "/tmp/.X11-unix/X2")
    assert display_check.display_address("localhost:10.0") == ("tcp", "localhost:6010")
    assert display_check.display_address("/private/tmp/launchd/org.xquartz:0") is None


def test_a_tcp_display_that_listens_answers_and_one_that_does_not_fails():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        if port < 6000:
            pytest.skip("the free port is below X's 6000 range")
        assert display_check.display_answers(f"127.0.0.1:{port - 6000}")
    assert not display_check.display_answers(f"127.0.0.1:{port - 6000}")


def test_a_library_the_plugin_needs_and_cannot_find_is_named_with_the_fix(tmp_path, monkeypatch):
    """A real ELF linked against a library the loader cannot find: ldd says 'not found', as it
    does for Qt's plugin on a machine without libxcb-icccm4, and lab names it with the fix."""
    if shutil.which("gcc") is None or shutil.which("ldd") is None:
        pytest.skip("needs gcc and ldd to build the ELF")
    name = "liblab-probe-missing.so.1"
    lib = tmp_path / name
    subprocess.run(["gcc", "-shared", "-fPIC", "-x", "c", "-", "-o", str(lib), f"-Wl,-soname,{name}"],
                   input="int probe(void) { return 4; }\n", text=True, check=True)
    plugin = tmp_path / "libqxcb.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-x", "c", "-", "-x", "none", str(lib), "-o", str(plugin)],
                   input="int probe(void); int plugin(void) { return probe(); }\n", text=True, check=True)
    lib.unlink()
    assert display_check.missing_libraries([plugin]) == [name]
    monkeypatch.setattr(display_check, "xcb_plugin_files", lambda: [plugin])
    problem = display_check.platform_problem({"DISPLAY": ":0"})
    assert problem.startswith(f"Qt's X11 plugin cannot load: {name} missing") and "apt-get install" in problem
    assert display_check.XCB_PACKAGES["libxcb-icccm.so.4"] == "libxcb-icccm4"
