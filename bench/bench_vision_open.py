"""Benchmark: first view of a 24 MP photo in the Vision panel, decoding the whole picture
first ("before", kept here as a copy of that path) against decoding at display size
("after": JPEG draft mode, what vision.loading does), in the same run.

  decode      the loader alone: full decode + shrink to the display side, vs draft decode
  first_view  VisionPanel at 1280×720: from load_files until the new picture is painted
              (decode on the job runner, figures, grid), target 500 ms; before and after
              alternate so both see the same machine
  figures     the request's numbers (tokens, EC, KV) from the draft load equal those of
              the full-resolution picture (checked, not timed)

Prints one JSON object (median/min/max). Run:
  QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_vision_open.py
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from benchstats import stats
from PIL import Image

from core.cancel import NEVER
from vision.loading import DEFAULT_MAX_PIXELS, LoadedImage, LoadOutcome, load_full_rgb, load_image
from vision.sample import write_photo

WIDTH, HEIGHT = 6000, 4000
REPEATS = 5
TARGET_MS = 500.0


def load_full_first(path, max_pixels: int, display_side: int) -> LoadedImage:
    """Before: the whole picture decoded, then shrunk for the screen."""
    import dataclasses

    full = load_full_rgb(path, max_pixels)
    shown = Image.fromarray(full)
    shown.thumbnail((display_side, display_side), Image.Resampling.BILINEAR)
    header = load_image(path, max_pixels, display_max_side=64)  # name, format, size, notes
    return dataclasses.replace(header, pixels=np.asarray(shown))


def load_images_full_first(paths, max_pixels, display_side, cancel=NEVER) -> list[LoadOutcome]:
    """The panel's loader with the before path (same arguments as vision.loading.load_images)."""
    out = []
    for path in paths:
        cancel.check()
        out.append(LoadOutcome(str(path), load_full_first(path, max_pixels, display_side)))
    return out


def time_decodes(path: Path, display_side: int) -> dict:
    before, after = [], []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        load_full_first(path, DEFAULT_MAX_PIXELS, display_side)
        before.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        load_image(path, display_max_side=display_side)
        after.append(time.perf_counter() - t0)
    return {"before_full_decode_s": stats(before), "after_draft_decode_s": stats(after)}


def first_view(path: Path) -> dict:
    """load_files → the new picture's first paint, before and after, alternating."""
    from PySide6 import QtCore, QtWidgets

    import widgets.vision.loads as loads
    from widgets.kit.jobs import jobs
    from widgets.vision import VisionPanel

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    panel = VisionPanel()
    panel.resize(1280, 720)
    panel.show()
    painted: list[float] = []
    item = panel.view.image_item
    real_paint = item.paint

    def paint(*args):
        if panel.view.pixels is not None and max(panel.view.pixels.shape[:2]) >= 1000:  # the photo, not the sample
            painted.append(time.perf_counter())
        return real_paint(*args)

    item.paint = paint
    wake = QtCore.QTimer(interval=100)  # a wait for more events never outlasts a missed wake-up
    wake.start()
    real_loader = loads.load_images
    times: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(REPEATS):
        for label, loader in (("before", load_images_full_first), ("after", real_loader)):
            panel.clear_images()
            for _ in range(5):
                app.processEvents()
            loads.load_images = loader
            painted.clear()
            t0 = time.perf_counter()
            panel.load_files([path])
            # Wait as the app's event loop does (asleep until an event comes), not in a busy
            # loop that takes a core from the decoder.
            while not painted and time.perf_counter() - t0 < 60:
                app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
            times[label].append(painted[0] - t0)
    loads.load_images = real_loader
    wake.stop()
    shown = panel.column.token_label.text()
    panel.close()
    jobs().wait_idle()
    return {"before_ms": stats(times["before"], scale=1000, digits=1),
            "after_ms": stats(times["after"], scale=1000, digits=1, target=TARGET_MS),
            "tokens_shown": shown}


def figures_match(path: Path) -> bool:
    from core.registry import get

    shown = load_image(path, display_max_side=1280)
    full = load_full_rgb(path)
    calc = get("vision.request")
    a = calc.run({"heights": [shown.height], "widths": [shown.width], "file_bytes": [shown.file_bytes]})
    b = calc.run({"heights": [full.shape[0]], "widths": [full.shape[1]], "file_bytes": [path.stat().st_size]})
    return all(a[k] == b[k] for k in ("visual_tokens", "ec_bytes", "input_kv_bytes"))


def main() -> None:
    from widgets.vision.loads import DISPLAY_SIDE

    out: dict = {"image": f"{WIDTH}x{HEIGHT} JPEG (24 MP), EXIF orientation 6"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "photo24mp.jpg"
        write_photo(path, WIDTH, HEIGHT, orientation=6)
        out["file_bytes"] = path.stat().st_size
        out["display_side"] = DISPLAY_SIDE
        out["decode"] = time_decodes(path, DISPLAY_SIDE)
        out["first_view"] = first_view(path)
        out["figures_match_full_resolution"] = figures_match(path)
    before, after = out["first_view"]["before_ms"]["median"], out["first_view"]["after_ms"]["median"]
    out["first_view_speedup"] = round(before / after, 1)
    out["over_target"] = out["first_view"]["after_ms"]["over_target"]
    out["machine"] = f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (shared with other work)"
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
