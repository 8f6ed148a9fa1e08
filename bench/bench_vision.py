"""Benchmark: a 24-megapixel JPEG through the vision pipeline, and the GUI while it loads.

Stages (each timed, with the Python-heap peak from tracemalloc and the process peak RSS):
  make     write a 6000×4000 JPEG with EXIF orientation 6 (child process; not in the peak)
  load     load_image: header checks, reduced-scale JPEG decode, orient, display array
  decode   load_full_rgb: the whole picture, upright, as a numpy array
  resize   resize_for_model: Qwen-style fit to multiples of 32 under 16,777,216 pixels
  patchify the encoder's input rows (patches × 3·16·16) and the merged-token mosaic
  overlay  patch + token grid lines, drawn with the image in pyqtgraph offscreen
  panel    VisionPanel.load_files on its worker thread: time to result, and the longest
           gap of a 5 ms GUI timer meanwhile (the GUI stays responsive)

Prints one JSON object. Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_vision.py
"""
from __future__ import annotations

import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from vision.grid import PatchGrid  # noqa: E402
from vision.loading import load_full_rgb, load_image  # noqa: E402
from vision.resize import ResizePolicy, patchify, resize_for_model, token_mosaic  # noqa: E402

WIDTH, HEIGHT = 6000, 4000


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


class Stage:
    def __init__(self, name: str, out: dict):
        self.name, self.out = name, out

    def __enter__(self):
        tracemalloc.reset_peak()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        seconds = time.perf_counter() - self.t0
        _, peak = tracemalloc.get_traced_memory()
        self.out[self.name] = {"s": round(seconds, 4), "py_peak_mib": round(peak / 2**20, 1),
                               "process_peak_rss_mib": round(_rss_mib(), 1)}
        return False


def make_jpeg(path: Path) -> None:
    """A photo-like picture: smooth colour fields upscaled, plus sensor-like noise, stored
    sideways (EXIF 6). Runs in a child process so its buffers do not count as our peak."""
    from PIL import ImageChops

    yy, xx = np.mgrid[0:400, 0:600].astype(np.float32)
    small = np.dstack([128 + 100 * np.sin(xx / 37) * np.cos(yy / 51), 128 + 90 * np.cos((xx + yy) / 80),
                       255 * yy / 400]).clip(0, 255).astype(np.uint8)
    big = Image.fromarray(small).resize((WIDTH, HEIGHT), Image.Resampling.BICUBIC)
    noise = Image.effect_noise((WIDTH, HEIGHT), 10)
    noisy = Image.merge("RGB", [ImageChops.add(ch, noise, offset=-128) for ch in big.split()])
    exif = Image.Exif()
    exif[0x0112] = 6
    noisy.save(path, quality=90, exif=exif.tobytes())


def overlay_render(display: np.ndarray, grid: PatchGrid) -> float:
    """Draw image + both grids offscreen once; returns seconds for build + render."""
    import pyqtgraph as pg
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance()
    t0 = time.perf_counter()
    widget = pg.GraphicsLayoutWidget()
    widget.resize(1200, 900)
    view = widget.addViewBox(lockAspect=True, invertY=True)
    view.addItem(pg.ImageItem(display, axisOrder="row-major"))
    px, py = grid.patch_lines()
    tx, ty = grid.token_lines()
    view.addItem(pg.PlotCurveItem(px, py, connect="pairs", pen=pg.mkPen(255, 255, 255, 120)))
    view.addItem(pg.PlotCurveItem(tx, ty, connect="pairs", pen=pg.mkPen("#e08a1e", width=1.8)))
    view.autoRange()
    widget.show()
    app.processEvents()
    widget.grab()
    seconds = time.perf_counter() - t0
    widget.close()
    return seconds


def panel_load(path: Path) -> dict:
    """Load through the panel's worker; the GUI timer's longest gap shows responsiveness."""
    from PySide6 import QtCore, QtWidgets

    from widgets.vision import VisionPanel

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    panel = VisionPanel()
    panel.resize(1600, 1000)
    panel.show()
    app.processEvents()
    ticks: list[float] = []
    timer = QtCore.QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    done: list[float] = []
    panel.images_changed.connect(lambda _n: done.append(time.perf_counter()))
    timer.start()
    t0 = time.perf_counter()
    panel.load_files([path])
    call_s = time.perf_counter() - t0
    while not done and time.perf_counter() - t0 < 60:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    worker_s = (done[0] if done else time.perf_counter()) - t0
    # Gaps while the worker ran (before the result came back to the GUI thread).
    during = [t for t in ticks if t <= (done[0] if done else time.perf_counter())]
    gaps = np.diff([t0] + during) if during else np.array([worker_s])
    t1 = time.perf_counter()
    for _ in range(3):
        app.processEvents()
    timer.stop()
    result = {"load_files_call_s": round(call_s, 5), "result_s": round(worker_s, 4),
              "gui_timer_max_gap_ms_while_loading": round(float(gaps.max()) * 1000, 1),
              "gui_timer_ticks_while_loading": len(during),
              "tokens_shown": panel.token_label.text(),
              "display_after_result_s": round(time.perf_counter() - t1, 4)}
    panel.close()
    return result


def main() -> None:
    out: dict = {"image": f"{WIDTH}x{HEIGHT} JPEG (24 MP), EXIF orientation 6",
                 "baseline_rss_mib": round(_rss_mib(), 1)}
    stages: dict = {}
    tracemalloc.start()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "photo24mp.jpg"
        t0 = time.perf_counter()
        child = multiprocessing.get_context("fork").Process(target=make_jpeg, args=(path,))
        child.start()
        child.join()
        out["make_s"] = round(time.perf_counter() - t0, 3)
        out["file_bytes"] = path.stat().st_size
        with Stage("load", stages):
            shown = load_image(path)
        out["oriented_size"] = [shown.width, shown.height]
        out["display_size"] = [shown.pixels.shape[1], shown.pixels.shape[0]]
        with Stage("decode", stages):
            full = load_full_rgb(path)
        policy = ResizePolicy("fit")
        with Stage("resize", stages):
            model = resize_for_model(full, policy)
        del full
        lay = policy.layout(shown.height, shown.width)
        out["model_size"] = [lay.model_width, lay.model_height]
        out["patches"] = lay.patches
        out["visual_tokens"] = lay.visual_tokens
        with Stage("patchify", stages):
            rows = np.ascontiguousarray(patchify(model, policy.patch)).reshape(lay.patches, -1)
            mosaic = token_mosaic(model, policy.patch, policy.merge)
        out["patch_rows_shape"] = list(rows.shape)
        out["mosaic_shape"] = list(mosaic.shape)
        del rows, model
        grid = PatchGrid(lay, shown.pixels.shape[1], shown.pixels.shape[0])
        t0 = time.perf_counter()
        import pyqtgraph  # noqa: F401  (start-up cost kept out of the overlay figure)
        from PySide6 import QtWidgets
        QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
        out["qt_startup_s"] = round(time.perf_counter() - t0, 3)
        with Stage("overlay", stages):
            overlay_render(shown.pixels, grid)
        out["overlay_lines"] = int(len(grid.patch_lines()[0]) // 2 + len(grid.token_lines()[0]) // 2)
        tracemalloc.stop()
        out["stages"] = stages
        out["peak_rss_mib_pipeline"] = round(_rss_mib(), 1)
        out["pipeline_s"] = round(sum(stages[k]["s"] for k in ("load", "decode", "resize", "patchify", "overlay")), 4)
        out["panel"] = panel_load(path)
    out["peak_rss_mib_with_panel"] = round(_rss_mib(), 1)
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
