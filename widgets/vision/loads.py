"""Opening files: dialogs and drops start loads on the app's job runner (LOAD_KEY; the latest
load wins, the busy badge cancels), and a restored state's files get their pixels back
(PIXELS_KEY). What loaded goes into the state; the decoded pixels stay in the panel's cache."""
from __future__ import annotations

from PySide6 import QtWidgets

from core.registry import ParamError
from core.vision.state import ImageEntry
from vision.loading import FILE_EXTENSIONS, LoadOutcome, load_images
from vision.sample import placeholder_image
from widgets.kit.jobs import jobs

LOAD_KEY = "vision.load"  # files the user opened
PIXELS_KEY = "vision.pixels"  # pixels of a restored state's files (the numbers are in the state)
# Pixels kept for the view: the grids need the picture, not a 24 MP decode, and every
# repaint scales the whole display array (2048 px sides cost the GUI ~3x 1280 px ones).
DISPLAY_SIDE = 1280
IMAGE_FILTER = "Images (" + " ".join(f"*{e}" for e in FILE_EXTENSIONS) + ");;All files (*)"


class FileLoads:
    """The VisionPanel's file loading (a mixin: it uses the panel's state, column, cache
    and signals)."""

    def load_files(self, paths, replace: bool | None = None) -> None:
        """Decode files on the job runner; the GUI thread never waits for a decoder. A new
        call cancels a load still running (the latest wins). By default the generated
        sample is replaced and user images are added to; replace=True replaces all."""
        paths = [str(p) for p in paths]
        if not paths:
            return
        self.column.show_error("")
        self.column.status_label.setText(f"正在载入 {len(paths)} 张图片… loading off the GUI thread")
        jobs().submit(LOAD_KEY, load_images, paths, self.state.pixel_limit(), DISPLAY_SIDE, context=self,
                      done=lambda outcomes: self._on_loaded(outcomes, bool(replace)),
                      failed=lambda text: self._on_load_crashed(paths, text))

    def _on_loaded(self, outcomes: list[LoadOutcome], replace: bool) -> None:
        entries, failures = [], []
        for out in outcomes:
            message = out.error
            if out.image is not None:
                entry = ImageEntry(out.path, out.image.height, out.image.width, out.image.file_bytes)
                refused = self.state.refusal(entry)
                if refused is None:
                    self._loaded[out.path] = out.image
                    entries.append(entry)
                    continue
                message = f"{out.image.name}: {refused}"
            failures.append(message)
            self.load_failed.emit(out.path, message)
        if entries:
            try:
                if replace:
                    self.state.set_images(entries, selected=entries[0].source)
                else:
                    self.state.add_images(entries)
            except ParamError as err:  # together too many for one request: keep the last good state
                for entry in entries:
                    failures.append(f"{entry.source}: {err}")
                    self.load_failed.emit(entry.source, str(err))
                entries = []
        self.column.show_error("\n".join(failures[-4:]))
        self.column.status_label.setText(f"载入 {len(entries)} 张" + (f",{len(failures)} 张失败" if failures else ""))

    def _on_load_crashed(self, paths: list[str], text: str) -> None:
        message = text.strip().splitlines()[-1] if text.strip() else "load failed"
        self.column.show_error(message)
        self.column.status_label.setText("载入失败 · load failed")
        for path in paths:
            self.load_failed.emit(path, message)

    def _fetch_missing_pixels(self, entries: list[ImageEntry]) -> None:
        """Files of a restored state: their numbers are in the state, their pixels load here."""
        missing = sorted({e.source for e in entries if e.source and e.source not in self._loaded})
        if missing and not self._closed:
            jobs().submit(PIXELS_KEY, load_images, missing, self.state.pixel_limit(), DISPLAY_SIDE, context=self,
                          done=self._on_pixels)

    def _on_pixels(self, outcomes: list[LoadOutcome]) -> None:
        sizes = {e.source: e for e in self.state.images()}
        for out in outcomes:
            entry = sizes.get(out.path)
            if entry is None:
                continue
            self._loaded[out.path] = out.image or placeholder_image(
                out.path, entry.height, entry.width, entry.file_bytes, f"not shown: {out.error}")
        self._show_images()

    def _on_open_clicked(self) -> None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(self, "打开图片 Open images", "", IMAGE_FILTER)
        if paths:
            self.load_files(paths)

    def dragEnterEvent(self, event):
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event):
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.load_files(paths)
