"""SVG export for every renderer (issue 14): plot lines in pixel widths without
vector-effect="non-scaling-stroke" (librsvg drew the 2 px lines as hairlines), and a plot's
file titled with its figure."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pyqtgraph as pg

from widgets.kit import export, vector_render
from widgets.kit.plot_card import PlotCard

SVG = "{http://www.w3.org/2000/svg}"


def test_a_cosmetic_group_gets_its_matrix_applied_to_its_points():
    fragment = ('<g fill="none" stroke="#ff0000" stroke-width="2" transform="matrix(10,0,0,-2,5,100)"\n>\n'
                '<polyline fill="none" vector-effect="non-scaling-stroke" points="0,0 1,10 " />\n'
                '<path vector-effect="non-scaling-stroke" d="M1,1 L2,3 C1e-05,0,0,0,0,0"/>\n</g>')
    baked = vector_render.bake_cosmetic_strokes(fragment)
    assert "non-scaling" not in baked and "matrix" not in baked
    assert 'points="5,100 15,80 "' in baked  # x*10 + 5, y*-2 + 100
    assert 'd="M15,98 L25,94 C5.0001,100,5,100,5,100"' in baked
    assert 'stroke-width="2"' in baked  # pixels now, as the screen draws it
    frame = vector_render.bake_cosmetic_strokes(
        '<g transform="matrix(1,0,0,1,36,1)"><rect vector-effect="non-scaling-stroke" x="0" y="0" width="4" height="2"/></g>')
    assert frame == '<g><path d="M36,1 L40,1 L40,3 L36,3 Z"/></g>'
    # A group holding text keeps its transform (its glyphs are placed in its units).
    text = '<g transform="matrix(2,0,0,2,0,0)"><text vector-effect="non-scaling-stroke">a</text></g>'
    assert vector_render.bake_cosmetic_strokes(text) == text


def test_a_plot_exports_its_lines_in_pixels_under_its_title(qtbot):
    card = PlotCard("图 3-2 · one line", "sub")
    qtbot.addWidget(card)
    card.resize(400, 300)
    card.plot.plot([0, 1, 2, 3], [0, 10, 5, 20], pen=pg.mkPen("#d62728", width=2))
    card.show()
    qtbot.waitExposed(card)
    data = export.paint_plot(card, "svg")
    root = ET.fromstring(data)
    assert root.find(f"{SVG}title").text == "图 3-2 · one line"
    assert b"non-scaling-stroke" not in re.sub(rb"<clipPath.*?</clipPath>", b"", data, flags=re.S)
    red = [g for g in root.iter(f"{SVG}g") if g.get("stroke") == "#d62728"]
    assert red and all(g.get("stroke-width") == "2" and "matrix" not in (g.get("transform") or "") for g in red)
    view = export.plot_view(card)
    drawn = " ".join((line.get("points") or line.get("d") or "") for g in red for line in g
                     if line.tag in (f"{SVG}polyline", f"{SVG}path"))
    points = [(float(x), float(y)) for x, y in re.findall(r"(-?[\d.]+),(-?[\d.]+)", drawn)]
    assert len(points) == 4
    assert all(0 <= x <= view.width() and 0 <= y <= view.height() for x, y in points)  # pixels of the view
    assert points[0][1] > points[1][1]  # y = 0 below y = 10
