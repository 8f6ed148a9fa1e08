"""Export of plots and panels: valid PNG, SVG and PDF through Qt's painters, CSV of the data
drawn, atomic writes that leave nothing behind when they fail, and the plots' menus."""
import csv
import os
import re
import xml.etree.ElementTree as ET

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtGui, QtWidgets

from widgets.kit import export, export_menu
from widgets.kit.export import ExportError, export_plot, write_widget
from widgets.kit.plot_card import PlotCard
from widgets.request import RequestPanel

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def panel(qtbot):
    w = RequestPanel()
    qtbot.addWidget(w)
    w.resize(1280, 900)
    w.show()
    qtbot.waitUntil(lambda: w.decode_curve.getData()[0] is not None and len(w.decode_curve.getData()[0]) > 0,
                    timeout=10_000)
    return w


def check_png(path, size):
    image = QtGui.QImage(str(path))
    assert not image.isNull()
    assert (image.width(), image.height()) == (size.width(), size.height())
    assert len({image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}) > 10


def check_svg(path, size):
    root = ET.parse(path).getroot()  # valid XML
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox") == f"0 0 {size.width()} {size.height()}"
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert {"path", "polyline"} & tags  # lines drawn as vector paths
    return root


def svg_text(root) -> str:
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def check_pdf(path):
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and len(data) > 2_000
    assert b"%%EOF" in data[-64:]
    return data


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir())


def test_a_real_plot_exports_png_svg_pdf(panel, tmp_path):
    card = panel.anatomy_plot
    view = card.plot_widget
    export_plot(card, tmp_path / "a.png")
    check_png(tmp_path / "a.png", view.size())
    export_plot(card, tmp_path / "a.svg")
    root = check_svg(tmp_path / "a.svg", view.size())
    assert "1000" in svg_text(root) and "context tokens" in svg_text(root)  # ticks and axis label stay text
    assert not list(root.iter(f"{SVG}image"))  # the plot background is not a pasted pixmap
    export_plot(card, tmp_path / "a.pdf")
    check_pdf(tmp_path / "a.pdf")
    assert leftovers(tmp_path) == ["a.pdf", "a.png", "a.svg"]


def test_plot_csv_matches_the_curves_drawn(panel, tmp_path):
    card = panel.anatomy_plot
    export_plot(card, tmp_path / "a.csv")
    with open(tmp_path / "a.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    x, y = panel.decode_curve.getData()
    i = header.index("decode_context_x")
    assert header[i + 1] == "decode_context_y"
    got_x = [float(r[i]) for r in body if r[i] != ""]
    got_y = [float(r[i + 1]) for r in body if r[i] != ""]
    assert got_x == pytest.approx(list(x)) and got_y == pytest.approx(list(y))
    assert len(body) == max(len(x), 1)
    # The bars, named by the panel's own attributes: x and height.
    j = header.index("prefill_bar_height")
    assert float(body[0][j]) == pytest.approx(panel.prefill_bar.opts["height"][0])


def test_csv_names_columns_by_legend_label_and_bars_by_x_and_height(qtbot, tmp_path):
    card = PlotCard("图 9-9 · test")
    qtbot.addWidget(card)
    card.plot.addLegend()
    card.add_curve("rising", pen="r", name="上升 rising").setData([0, 1, 2], [0.5, 1.5, 2.5])
    card.add_curve("plain", pen="b").setData([0, 1], [7, 8])
    bars = pg.BarGraphItem(x=[1, 2, 3], height=[4, 5, 6], width=0.5)
    card.plot.addItem(bars)
    points = pg.ScatterPlotItem(x=[1.25], y=[2.5])
    card.plot.addItem(points)
    hidden = card.add_curve("hidden")
    hidden.setData([1], [1])
    hidden.setVisible(False)
    edges = pg.BarGraphItem(x0=[0, 2], x1=[1, 3], y0=[0.2, 1.2], y1=[0.8, 1.8])
    card.plot.addItem(edges)
    card.export(str(tmp_path / "d.csv"))
    rows = list(csv.reader(open(tmp_path / "d.csv", newline="", encoding="utf-8")))
    assert rows[0] == ["上升 rising_x", "上升 rising_y", "plain_x", "plain_y", "bars1_x", "bars1_height",
                       "points1_x", "points1_y", "bars2_x0", "bars2_x1", "bars2_y0", "bars2_y1"]
    assert rows[1] == ["0", "0.5", "0", "7", "1", "4", "1.25", "2.5", "0", "1", "0.2", "0.8"]
    assert rows[3] == ["2", "2.5", "", "", "3", "6", "", "", "", "", "", ""]
    assert len(rows) == 4


def test_whole_panel_exports_png_svg_pdf_at_its_size(panel, tmp_path):
    write_widget(panel, tmp_path / "p.png")
    check_png(tmp_path / "p.png", panel.size())
    write_widget(panel, tmp_path / "p.svg")
    root = check_svg(tmp_path / "p.svg", panel.size())
    text = svg_text(root)
    assert "Request" in text and "prefill_calls" in text  # the page header and a card's output names
    write_widget(panel, tmp_path / "p.pdf")
    data = check_pdf(tmp_path / "p.pdf")
    assert b"/FontFile2" in data  # text with embedded fonts, not a picture of text
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert (float(box[1]), float(box[2])) == (panel.width(), panel.height())  # page size = widget size


def test_format_comes_from_argument_then_suffix_then_png(panel, tmp_path):
    write_widget(panel, tmp_path / "p.svg", "pdf")
    assert (tmp_path / "p.svg").read_bytes().startswith(b"%PDF")
    write_widget(panel, tmp_path / "noext")
    assert QtGui.QImage(str(tmp_path / "noext")).width() == panel.width()
    with pytest.raises(ExportError, match="valid: png, svg, pdf"):
        write_widget(panel, tmp_path / "p.gif", "gif")


@pytest.mark.parametrize("where", ["folder", "missing", "under_a_file"])
def test_a_bad_path_is_refused_with_a_message_and_leaves_nothing(panel, tmp_path, where):
    (tmp_path / "file.txt").write_text("x")
    path = {"folder": tmp_path, "missing": tmp_path / "no" / "p.svg",
            "under_a_file": tmp_path / "file.txt" / "p.svg"}[where]
    with pytest.raises(ExportError) as err:
        write_widget(panel, path, "svg")
    assert str(path) in str(err.value)
    assert {"folder": "is a folder", "missing": "does not exist", "under_a_file": "is not a folder"}[where] in str(err.value)
    assert leftovers(tmp_path) == ["file.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(panel, tmp_path, monkeypatch):
    target = tmp_path / "p.pdf"
    target.write_bytes(b"old")

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export.os, "replace", full_disk)
    with pytest.raises(ExportError, match="No space left on device"):
        write_widget(panel, target)
    assert target.read_bytes() == b"old"
    assert leftovers(tmp_path) == ["p.pdf"]


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux's sysfs")
def test_a_folder_nobody_can_create_files_in_is_refused(panel):
    # sysfs refuses new files even to root (CI runs as root, where chmod would not stop it)
    with pytest.raises(ExportError, match="cannot write in the folder /sys"):
        write_widget(panel, "/sys/load-lab-export.svg")
    assert not os.path.exists("/sys/load-lab-export.svg")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused(panel, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ExportError, match="cannot write in the folder"):
            write_widget(panel, folder / "p.png")
        assert leftovers(folder) == []
    finally:
        folder.chmod(0o700)


def test_plot_card_button_and_right_click_offer_png_svg_pdf_csv(panel, qtbot, tmp_path, monkeypatch):
    card = panel.anatomy_plot
    button_actions = {a.objectName(): a for a in card.export_button.menu().actions()}
    assert set(button_actions) == {"export_png", "export_svg", "export_pdf", "export_csv"}
    # Right-click: pyqtgraph's own "Export..." (its SVG crashes here) is replaced by ours.
    scene_actions = card.plot_widget.scene().contextMenu
    assert [a.text() for a in scene_actions] == ["Export"]
    assert [a.objectName() for a in scene_actions[0].menu().actions()] == list(button_actions)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "from-menu"), export.FILTERS["svg"]))
    button_actions["export_svg"].trigger()
    qtbot.waitUntil((tmp_path / "from-menu.svg").exists)  # written by the job runner
    check_svg(tmp_path / "from-menu.svg", card.plot_widget.size())
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "typed.png"), export.FILTERS["png"]))
    button_actions["export_png"].trigger()
    qtbot.waitUntil((tmp_path / "typed.png").exists)
    check_png(tmp_path / "typed.png", card.plot_widget.size())


def test_an_unwritable_path_from_the_menu_shows_a_message_and_the_app_goes_on(panel, tmp_path, monkeypatch):
    card = panel.anatomy_plot
    shown = []
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "gone" / "x.pdf"), export.FILTERS["pdf"]))
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    next(a for a in card.export_button.menu().actions() if a.objectName() == "export_pdf").trigger()
    assert len(shown) == 1 and "Nothing was written" in shown[0] and "does not exist" in shown[0]
    assert leftovers(tmp_path) == []
    assert card.isVisible()


def test_a_write_failing_on_the_worker_shows_a_message_and_leaves_nothing(panel, qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "x.png"), export.FILTERS["png"]))
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda parent, title, text: shown.append(text))

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export.os, "replace", full_disk)
    next(a for a in panel.anatomy_plot.export_button.menu().actions() if a.objectName() == "export_png").trigger()
    qtbot.waitUntil(lambda: bool(shown))
    assert "No space left on device" in shown[0] and "x.png" in shown[0]
    assert leftovers(tmp_path) == []


def test_views_without_a_plot_menu_get_the_export_menu_as_their_context_menu(qtbot, tmp_path):
    from widgets.vision.image_view import ImageGridView

    holder = QtWidgets.QWidget()
    qtbot.addWidget(holder)
    view = ImageGridView(holder)
    view.image_item.setImage(np.full((40, 60, 3), 200, dtype=np.uint8))
    holder.resize(400, 300)
    holder.show()
    assert export_menu.add_plot_menus(holder) == 1
    assert export_menu.add_plot_menus(holder) == 0  # once per view
    from PySide6 import QtCore

    assert view.contextMenuPolicy() == QtCore.Qt.ContextMenuPolicy.CustomContextMenu
    export_plot(view, tmp_path / "img.pdf")
    check_pdf(tmp_path / "img.pdf")


def test_default_file_names_come_from_titles():
    assert export_menu.file_name_for("<b>图 3-1 · 一次 prefill</b>", "svg") == "图-3-1.svg"
    assert export_menu.file_name_for("§3.1 Request & Metrics", "pdf") == "3-1-Request-Metrics.pdf"
    assert export_menu.file_name_for("···", "png") == "plot.png"


def test_vector_exports_clip_what_a_scroll_area_hides(qtbot):
    from PySide6 import QtCore

    from widgets.kit import vector_render

    root = QtWidgets.QWidget()
    qtbot.addWidget(root)
    layout = QtWidgets.QVBoxLayout(root)
    area = QtWidgets.QScrollArea()
    page = QtWidgets.QLabel("page")
    page.setStyleSheet("background: red")
    page.resize(300, 900)  # far taller than the area: most of it is hidden
    area.setWidget(page)
    layout.addWidget(area)
    layout.addWidget(QtWidgets.QLabel("status line"))
    root.resize(320, 300)
    root.show()
    qtbot.waitExposed(root)
    order = {w: visible for w, _, visible in vector_render.paint_order(root)}
    viewport = QtCore.QRect(area.viewport().mapTo(root, QtCore.QPoint(0, 0)), area.viewport().size())
    assert order[page] == viewport  # the page is drawn only where the area shows it
    svg = ET.fromstring(vector_render.svg_bytes(root, "t"))
    clips = {c.get("id"): c[0] for c in svg.iter(f"{SVG}clipPath") if c.get("id", "").startswith("clip")}
    groups = [g for g in svg if g.tag == f"{SVG}g"]
    assert groups and all(g.get("clip-path", "").startswith("url(#clip") for g in groups)
    rects = [tuple(int(float(clips[g.get("clip-path")[5:-1]].get(k))) for k in ("x", "y", "width", "height"))
             for g in groups]
    assert (viewport.x(), viewport.y(), viewport.width(), viewport.height()) in rects
    assert all(x + w <= 320 and y + h <= 300 for x, y, w, h in rects)


def test_pdf_draws_a_plot_half_out_of_view_as_an_image_and_a_whole_plot_as_vectors(qtbot):
    from widgets.kit import vector_render

    root = QtWidgets.QWidget()
    qtbot.addWidget(root)
    area = QtWidgets.QScrollArea(root)
    plot = pg.PlotWidget()
    plot.plot([0, 1, 2], [2, 0, 1])
    plot.resize(280, 600)
    area.setWidget(plot)
    area.resize(300, 200)
    root.resize(300, 200)
    root.show()
    qtbot.waitExposed(root)

    def image_widths(data: bytes) -> list[int]:
        return [int(w) for w in re.findall(rb"/Subtype /Image\s*/Width (\d+)", data)]

    assert max(image_widths(vector_render.pdf_bytes(root, "t"))) >= 200  # the plot's visible part
    plot.resize(200, 150)  # now wholly inside the area
    qtbot.waitUntil(lambda: not area.verticalScrollBar().isVisible())
    assert max(image_widths(vector_render.pdf_bytes(root, "t")), default=0) < 50  # style glyphs at most
