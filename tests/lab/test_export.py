"""The window's export: File → Export panel / window as shown, plot menus on every built
panel, and `lab snapshot --format`."""
import xml.etree.ElementTree as ET

import pytest
from PySide6 import QtGui, QtWidgets

from lab import export as lab_export
from lab.cli import main
from widgets.kit import export

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def window(window, qtbot):
    """conftest's window (1280×720), on the Request panel, built and ready."""
    window.show_panel("request")
    qtbot.waitUntil(lambda: window.is_ready("request") and window.stack.currentWidget() is window.panel("request"),
                    timeout=30_000)
    return window


def svg_root(path):
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return root


def test_file_menu_has_the_export_actions(window):
    texts = [a.text() for a in window.menus["file"].actions()]
    assert "Export panel… (PNG, SVG, PDF)" in texts and "Export window as shown… (PNG, SVG, PDF)" in texts
    assert window.export_actions["panel"].shortcut().toString() == "Ctrl+Shift+E"


def test_export_panel_and_window_write_vector_files(window, tmp_path):
    panel = window.panel("request")
    lab_export.export_panel(window, str(tmp_path / "panel.svg"))
    root = svg_root(tmp_path / "panel.svg")
    assert root.get("viewBox") == f"0 0 {panel.width()} {panel.height()}"
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "Request" in text
    lab_export.export_window(window, str(tmp_path / "window.pdf"))
    assert (tmp_path / "window.pdf").read_bytes().startswith(b"%PDF-")
    lab_export.export_window(window, str(tmp_path / "window.png"))
    image = QtGui.QImage(str(tmp_path / "window.png"))
    assert (image.width(), image.height()) == (window.width(), window.height())


def test_export_panel_dialog_uses_the_filter_for_a_path_without_suffix(window, qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "talk-slide"), export.FILTERS["pdf"]))
    window.export_actions["panel"].trigger()
    qtbot.waitUntil(lambda: "talk-slide.pdf" in window.status.currentMessage())  # written by the job runner
    assert (tmp_path / "talk-slide.pdf").read_bytes().startswith(b"%PDF-")


def test_an_unwritable_export_path_shows_a_message_and_leaves_nothing(window, tmp_path, monkeypatch):
    shown = []
    folder = tmp_path / "exports"  # tmp_path also holds the window's settings
    folder.mkdir()
    (folder / "a-file").write_text("x")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(folder / "a-file" / "panel.svg"), export.FILTERS["svg"]))
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda parent, title, text: shown.append((title, text)))
    window.export_actions["window"].trigger()
    assert shown and shown[0][0] == "Export failed" and "is not a folder" in shown[0][1]
    assert sorted(p.name for p in folder.iterdir()) == ["a-file"]
    assert window.isVisible() and window.stack.currentWidget() is window.panel("request")


def test_every_plot_of_a_built_panel_gets_the_export_menu(window, qtbot):
    import pyqtgraph as pg

    window.show_panel("vision")
    qtbot.waitUntil(lambda: window.is_ready("vision") and window.stack.currentWidget() is window.panel("vision"),
                    timeout=30_000)
    for key in ("request", "vision"):
        views = window.panel(key).findChildren(pg.GraphicsView)
        assert views
        missing = [type(v).__name__ for v in views if not v.property("lab_export_menu")]
        assert missing == []
        assert all(v.scene().contextMenu[0].text() == "Export" for v in views)


def test_snapshot_format_svg_and_pdf(tmp_path, capsys):
    assert main(["snapshot", "request", "--out", str(tmp_path / "r.svg"), "--size", "1280x720"]) == 0
    root = svg_root(tmp_path / "r.svg")
    assert root.get("viewBox") == "0 0 1280 720"
    assert main(["snapshot", "request", "--out", str(tmp_path / "r.pdf"), "--size", "1280x720"]) == 0
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF-")
    capsys.readouterr()
    # --format wins over the suffix, and says so
    assert main(["snapshot", "request", "--out", str(tmp_path / "odd.png"), "--format", "svg",
                 "--size", "800x600"]) == 0
    assert "--format svg writes SVG into" in capsys.readouterr().err
    assert svg_root(tmp_path / "odd.png").get("viewBox") == "0 0 800 600"


@pytest.mark.parametrize("where", ["folder", "missing"])
def test_snapshot_to_a_bad_path_exits_2_naming_out_and_writes_nothing(tmp_path, capsys, where):
    out = tmp_path if where == "folder" else tmp_path / "no" / "r.pdf"
    assert main(["snapshot", "request", "--out", str(out), "--format", "pdf"]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and str(out) in err
    assert list(tmp_path.iterdir()) == []


def test_snapshot_format_helper():
    assert lab_export.snapshot_format("x.PDF", None) == "pdf"
    assert lab_export.snapshot_format("x", None) == "png"
    assert lab_export.snapshot_format("x.jpg", "svg") == "svg"
