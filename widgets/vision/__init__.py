"""§3.3.1-3.3.2 on the user's own images: pixels → patches → visual tokens, the three data
volumes (file, EC, KV), where the question sits and what KV survives a new one, the
E→P→D handoff points, 练习 3-5 (640 vs 1280) and the image-generation loop.

The panel is a view of a VisionState (core.vision.state): edits go to the state, the state's
changes redraw the panel. Figures come from core.vision.figures and vision.figures. Files
load on the app's job runner (widgets.kit.jobs) with a busy badge and cancel; the latest load
wins, and closing the panel cancels a decode without waiting for it.
"""
from __future__ import annotations

import dataclasses

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from core.registry import ParamError
from core.vision import figures as vf
from core.vision.state import TABS, ImageEntry, VisionState
from vision.figures import image_captions, token_caption
from vision.grid import PatchGrid
from vision.loading import LoadedImage
from vision.resize import ResizePolicy
from vision.sample import placeholder_image
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.jobs import jobs
from widgets.kit.lifetime import free_on_close
from widgets.kit.panels import PanelInfo
from widgets.kit.param_form import ParamForm
from widgets.kit.theme import setup_pyqtgraph
from widgets.kit.turns import InTurns
from widgets.vision.image_view import thumbnail_icon
from widgets.vision.loads import LOAD_KEY, PIXELS_KEY, FileLoads
from widgets.vision.pages import PanelPages, sample_once


class VisionPanel(PanelPages, FileLoads, QtWidgets.QWidget):
    """The Vision & multimodal panel: a view of a VisionState."""

    images_changed = QtCore.Signal(int)
    load_failed = QtCore.Signal(str, str)  # path, message
    refreshed = QtCore.Signal()

    def __init__(self, state: VisionState | None = None, parent=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        setup_pyqtgraph()
        self.state = state if state is not None else VisionState()
        # Decoded pixels by path: a cache of what the files hold, not state.
        self._loaded: dict[str, LoadedImage] = {}
        self._placeholders: dict[ImageEntry, LoadedImage] = {}
        self._list_key: tuple = ()
        self._pending_view: tuple | None = None
        self._closed = self._connected = False
        self._build_ui()
        # The header and the empty tabs now; the picture's column, the tab on screen (a
        # piece a turn) and the first drawing on later turns of the event loop (built at
        # once, they held the window for a third of a second on a first visit).
        self._build = InTurns(self, self._first_steps(self.state.view("tab")))

    def is_ready(self) -> bool:
        """Every piece is built (a first visit builds it over a few turns of the event loop)."""
        return self._built

    def _connect(self) -> None:
        c = self.column
        self.open_button.clicked.connect(self._on_open_clicked)
        self.book_button.clicked.connect(self.show_book_example)
        self.clear_button.clicked.connect(self.clear_images)
        self.busy.cancel_button.clicked.connect(lambda: c.status_label.setText("已取消 · load cancelled"))
        self.remove_shortcut = QtGui.QShortcut(QtGui.QKeySequence.StandardKey.Delete, c.image_list)
        self.remove_shortcut.setContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        self.remove_shortcut.activated.connect(self.remove_current)
        c.image_list.currentRowChanged.connect(self._on_row_changed)
        c.patch_toggle.toggled.connect(lambda on: self.state.set_view("patch_grid", on))
        c.token_toggle.toggled.connect(lambda on: self.state.set_view("token_grid", on))
        c.pixel_limit.valueChanged.connect(lambda mp: self.state.set_view("pixel_limit_mp", mp))
        c.view.token_hovered.connect(lambda token: c.show_hover(token_caption(c.view.grid, token)))
        c.view.zoomed.connect(self._on_zoomed)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.state.changed.connect(self._on_state_changed)
        self._connected = True

    def _on_tab_changed(self, index: int) -> None:
        self._section(TABS[index])
        self.state.set_view("tab", TABS[index])
        self.split.reflow()  # another page may need another width

    # ---- the state ------------------------------------------------------------
    def _on_state_changed(self, path: str, _value) -> None:
        if path in ("cards.request", "images"):
            self._show_images()
            if path == "cards.request":
                self._draw_request()
        elif path == "view.image":
            self._show_current()
        elif path == "view.zoom":
            self._apply_zoom()
        elif path == "cards.compare":
            self._draw_compare()
        elif path == "cards.diffusion":
            self._draw_diffusion()
        elif path.startswith("view."):
            self._show_view_options()
            if path == "view.tab":
                self._draw_compare()

    def _show_view_options(self) -> None:
        c, s = self.column, self.state
        for widget, value in ((c.patch_toggle, s.view("patch_grid")), (c.token_toggle, s.view("token_grid"))):
            with QtCore.QSignalBlocker(widget):
                widget.setChecked(value)
        c.view.show_patch_grid(s.view("patch_grid"))
        c.view.show_token_grid(s.view("token_grid"))
        with QtCore.QSignalBlocker(c.pixel_limit):  # shown rounded; the state keeps its value
            c.pixel_limit.setValue(s.view("pixel_limit_mp"))
        with QtCore.QSignalBlocker(self.tabs):
            self.tabs.setCurrentIndex(TABS.index(s.view("tab")))
        self._section(s.view("tab"))

    # ---- images -----------------------------------------------------------------
    @property
    def images(self) -> list[LoadedImage]:
        """The request's images as shown (a placeholder while a file's pixels are missing)."""
        return [self._image_for(e) for e in self.state.images()]

    @property
    def current(self) -> int:
        """Index of the image on view: the list's row if it shows the selected source."""
        sources = self.state.sources
        row = self.column.image_list.currentRow()
        if 0 <= row < len(sources) and sources[row] == self.state.view("image"):
            return row
        return sources.index(self.state.view("image")) if self.state.view("image") in sources else 0

    @property
    def loading(self) -> bool:
        return jobs().busy(LOAD_KEY)

    @property
    def request_result(self) -> dict:
        return self.state.card("request").result or {}

    def _image_for(self, entry: ImageEntry) -> LoadedImage:
        if entry.source == "":
            img = self._sample
        elif entry.source in self._loaded:
            img = self._loaded[entry.source]
        else:
            if entry not in self._placeholders:
                self._placeholders[entry] = placeholder_image(entry.source, entry.height, entry.width, entry.file_bytes)
            return self._placeholders[entry]
        if (img.height, img.width, img.file_bytes) != (entry.height, entry.width, entry.file_bytes):
            img = dataclasses.replace(img, height=entry.height, width=entry.width, file_bytes=entry.file_bytes)
        return img

    def policy(self) -> ResizePolicy:
        v = self.state.card("request").inputs
        return ResizePolicy(v["resize"], v["patch"], v["merge"], v["min_pixels"], v["max_pixels"])

    def current_image(self) -> LoadedImage:
        return self._image_for(self.state.images()[self.current])

    def current_grid(self) -> PatchGrid:
        img = self.current_image()
        policy = self.policy()
        return PatchGrid(policy.layout(img.height, img.width), img.pixels.shape[1], img.pixels.shape[0], policy.mode)

    def _show_images(self) -> None:
        entries = self.state.images()
        images = [self._image_for(e) for e in entries]
        key = tuple((e, id(img.pixels)) for e, img in zip(entries, images))
        if key != self._list_key:
            self._list_key = key
            self._loaded = {p: img for p, img in self._loaded.items() if p in self.state.sources}
            self._placeholders = {e: img for e, img in self._placeholders.items() if e in entries}
            lst = self.column.image_list
            with QtCore.QSignalBlocker(lst):
                lst.clear()
                for i, img in enumerate(images):
                    item = QtWidgets.QListWidgetItem(thumbnail_icon(img.pixels), f"图 {i + 1}")
                    item.setToolTip(f"{img.name}\n{img.width}×{img.height}, {vf.file_size(img.file_bytes)}, "
                                    f"{img.format} {img.mode}")
                    lst.addItem(item)
            lst.setVisible(len(images) > 1)  # one picture needs no strip of thumbnails
            self._fetch_missing_pixels(entries)
            self.images_changed.emit(len(images))
        self._show_current()

    def _show_current(self) -> None:
        index = self.current
        lst = self.column.image_list
        if lst.currentRow() != index:
            with QtCore.QSignalBlocker(lst):
                lst.setCurrentRow(index)
        img = self.current_image()
        grid = self.current_grid()
        if img.pixels is self.view.pixels or not self.isVisible():
            self._pending_view = None
            self.view.show_image(img.pixels, grid)
            self._apply_zoom()
        else:
            # A new picture is drawn on a later turn of the event loop (a timer, not a queued
            # call, which would run in the same pass): its first paint and the plots' repaint
            # come as two slices of GUI time, not one long one.
            self._pending_view = (img.pixels, grid)
            QtCore.QTimer.singleShot(1, self, self._show_pending_view)
        captions = image_captions(img, grid)
        self.column.size_label.setText(captions["size"])
        self.column.token_label.setText(captions["tokens"])
        self.column.notes_label.setText(captions["notes"])
        self._draw_compare()

    def _show_pending_view(self) -> None:
        if self._pending_view is not None and not self._closed:
            self.view.show_image(*self._pending_view)
            self._apply_zoom()
        self._pending_view = None

    def _apply_zoom(self) -> None:
        """The state's zoom (image pixels) on the view (display pixels)."""
        box = self.state.view("zoom")
        scale = self.current_image().display_scale
        self.view.zoom_to(tuple(v * scale for v in box) if box else None)

    def _on_zoomed(self, box) -> None:
        if box is None:  # the whole picture again
            self.state.set_view("zoom", ())
            return
        scale = self.current_image().display_scale
        try:
            self.state.set_view("zoom", tuple(v / scale for v in box))
        except ParamError:  # a degenerate range while dragging: keep the last good zoom
            pass

    def _on_row_changed(self, row: int) -> None:
        sources = self.state.sources
        if 0 <= row < len(sources):
            self.state.select(sources[row])
            self._show_current()  # the same source twice: the view follows the row

    # ---- actions ----------------------------------------------------------------------
    def remove_current(self) -> None:
        """Drop the selected image from the request (Delete key); the sample returns when none is left."""
        self.state.remove_image(self.current)

    def clear_images(self) -> None:
        self.state.set_images([])
        self.column.show_error("")

    def show_book_example(self) -> None:
        """四张图 + 400 文本 token: the request of the book's exercise."""
        self.state.book_example()

    def set_request(self, **values) -> bool:
        """Set request fields (text_tokens, prefix_tokens, question, ...); True if valid."""
        return self.state.card("request").update(values)

    def question_layouts(self) -> dict:
        card = self.state.card("request")
        return vf.question_layouts(card.result_inputs, card.result)

    def volume_groups(self) -> tuple[list[str], dict[str, list[float]]]:
        fig = vf.volume_bars(self.request_result)
        return fig["labels"], fig["values"]

    # ---- drawing ----------------------------------------------------------------------
    def _draw_request(self) -> None:
        card = self.state.card("request")
        if card.result is not None and "volumes" in self._sections:
            self._sections["volumes"].draw(card.result_inputs, card.result)
            self.split.reflow()  # longer numbers may need a wider page
        self.refreshed.emit()

    def _draw_compare(self) -> None:
        card = self.state.card("compare")
        if card.result is not None and "compare" in self._sections:
            # Its pictures are drawn when the tab is on screen: a hidden tab would only cost
            # the GUI time on each new image.
            on_screen = self.state.view("tab") == "compare"
            self._sections["compare"].draw(vf.compare_figure(card.result_inputs, card.result),
                              self.current_image().pixels if on_screen else None)

    def _draw_diffusion(self) -> None:
        card = self.state.card("diffusion")
        if card.result is not None and "generation" in self._sections:
            self._sections["generation"].draw(vf.diffusion_figure(card.result_inputs, card.result))

    # ---- lifecycle ----------------------------------------------------------------------
    def close(self) -> bool:
        if not shiboken6.isValid(self):  # freed already (widgets/kit/lifetime.py): nothing to close
            return True
        # Cancel decodes and do not wait for them: a decoder that cannot stop finishes in
        # the background and its result is dropped (the job's context is this panel).
        if not self._closed:
            self._closed = True
            self._build.stop()
            for key in (LOAD_KEY, PIXELS_KEY):
                jobs().cancel(key)
            # The state may outlive the panel (a session, a talk): nothing here listens to it.
            if self._connected:
                self.state.changed.disconnect(self._on_state_changed)
            for card in self.findChildren(CalculatorCard):
                card.close()  # disconnects the card from its model
            for form in self.findChildren(ParamForm):
                form.model.changed.disconnect(form._on_model_changed)
        return super().close()


def warm_up() -> None:
    """The window's warm-up job (lab.main_window.import_panel_modules): what a first visit
    would otherwise do on the GUI thread."""
    import numpy.ma  # noqa: F401 - np.union1d's first call (the picture's grid lines) imports it

    sample_once()


PANEL = PanelInfo(key="vision", title="视觉与多模态 · Vision & multimodal", section="3.3.1", order=3.31,
                  factory=VisionPanel)
