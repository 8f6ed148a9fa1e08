"""What the Vision panel's tests share: a panel at a size that shows every part, image files
made on the spot, and a row of the volumes table as text."""
from __future__ import annotations

import numpy as np
from PIL import Image

from widgets.vision import VisionPanel

MIB = 1024 ** 2


def open_panel(qtbot):
    """A Vision panel for a fixture to yield (`yield from open_panel(qtbot)`); closed after."""
    w = VisionPanel()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    yield w
    w.close()


def table_row(panel, label):
    """The volumes table's row that starts with label, each cell's text."""
    for row in range(panel.volumes.table.rowCount()):
        if panel.volumes.table.item(row, 0).text() == label:
            return [panel.volumes.table.item(row, c).text() for c in range(panel.volumes.table.columnCount())]
    raise AssertionError(f"no row {label}")


def save_image(path, w, h, mode="RGB", **kw):
    """A w×h gradient saved at path in the format its suffix names (kw go to Pillow's save)."""
    yy, xx = np.mgrid[0:h, 0:w]
    arr = np.dstack([xx % 256, yy % 256, (xx + yy) % 256]).astype(np.uint8)
    Image.fromarray(arr).convert(mode).save(path, **kw)
    return path
