"""How the Vision panel is put together: the header, the picture's column and the tabs,
built a piece per turn of the event loop on a first visit (widgets/kit/turns.py; built at
once they held the window for a third of a second), and each tab's page on first use."""
from __future__ import annotations

import functools

from PySide6 import QtCore, QtGui, QtWidgets

from core.vision.state import TABS
from vision.loading import LoadedImage
from vision.sample import sample_image
from widgets.kit.export_menu import add_plot_menus
from widgets.kit.jobs import BusyBadge
from widgets.vision.compare import CompareTab
from widgets.vision.generation import GenerationTab
from widgets.vision.image_column import ImageColumn
from widgets.vision.loads import LOAD_KEY, PIXELS_KEY
from widgets.vision.reflow import DownScroll, ReflowBox, ReflowSplitter, tab_titles_width
from widgets.vision.volumes import VolumesTab

# Short English sides: the catalog's long ones ran the tab bar past its width at 1280x720.
_TAB_TITLES = ("图 3-16 · 三种数据与交接 · data and hand-offs", "练习 3-5 · 640 vs 1280",
               "§3.3.2 · 图像生成循环 · generation loop")


@functools.cache
def sample_once() -> LoadedImage:
    """The generated sample picture, made once (its pixels are only read)."""
    return sample_image()


class PanelPages:
    """VisionPanel's construction (a mixin: the panel holds the state and draws)."""

    def _first_steps(self, tab: str) -> list:
        """The column, the first picture, the tab on screen (图 3-16's a piece a step), and
        the rest of what a built panel shows."""
        if tab == "volumes":
            page = self._new_page(tab, deferred=True)
            pages = [lambda: self._place_page(tab, page), *page.build_steps()]
        else:
            pages = [lambda: self._place_page(tab, self._new_page(tab))]
        return [self._build_column, lambda: self.column.build_details(), self._bind, *pages, self._finish_build]

    # ---- construction -------------------------------------------------------
    def _build_ui(self) -> None:
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.setSpacing(8)
        outer.addWidget(self._header())
        # Side by side when the tab's page gets its width, else the picture above the tabs.
        split = ReflowSplitter(self._pane_widths, side_by_side_least=lambda: tab_titles_width(self.tabs))
        self.column: ImageColumn | None = None  # the next piece (_build_column)
        self.tabs = QtWidgets.QTabWidget()
        self._areas: dict[str, QtWidgets.QScrollArea] = {}
        self._sections: dict[str, QtWidgets.QWidget] = {}  # tab pages built and drawn
        self._pages: dict[str, QtWidgets.QWidget] = {}  # tab pages placed (the first one may be building)
        self._built = False
        for name, title in zip(TABS, _TAB_TITLES):
            area = QtWidgets.QScrollArea()
            area.setWidgetResizable(True)
            area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            self._areas[name] = area
            self.tabs.addTab(area, title)
        self.tabs.setCurrentIndex(TABS.index(self.state.view("tab")))
        split.addWidget(self.tabs)
        self.split = split
        # Stacked on a short window the panes scroll down together (never sideways).
        self.body = DownScroll(min_lines=8)
        self.body.setObjectName("vision_body")
        self.body.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.body.setWidget(split)
        outer.addWidget(self.body, 1)

    def _build_column(self) -> None:
        self._sample = sample_once()
        self.column = ImageColumn(self.state.card("request"), deferred=True)
        self.split.insertWidget(0, self.column)
        self.view = self.column.view

    def _bind(self) -> None:
        """The column exists: follow the state and show the first picture."""
        self._connect()
        self._show_images()

    def _finish_build(self) -> None:
        """Every piece exists: draw the tab pages built so far and show the state's view
        options (which builds another tab if a session chose one meanwhile)."""
        self._built = True
        for name, page in self._pages.items():
            if name not in self._sections:
                self._sections[name] = page
                self._draw_page(name)
        self.setAcceptDrops(True)  # a drop loads into the column
        add_plot_menus(self)  # the picture's view was not here when the window gave the plots theirs
        self._show_view_options()
        self.split.reflow()

    def _pane_widths(self) -> tuple[int, int]:
        """What the column and the tab on screen need to show without scrolling sideways."""
        tabs = getattr(self, "tabs", None)  # asked while the panel is being built
        area = tabs.currentWidget() if tabs is not None else None
        page = area.widget() if isinstance(area, QtWidgets.QScrollArea) else None
        page_width = max(page.minimumSizeHint().width(), page.minimumWidth()) if page is not None else 0
        chrome = 0
        if area is not None:
            # The scroll bar, the area's frame and the tab widget's own frame around the area.
            around = tabs.width() - area.width() if area.width() > 0 else 8
            chrome = area.verticalScrollBar().sizeHint().width() + 2 * area.frameWidth() + max(around, 0) + 2
        column = self.column.minimumSizeHint().width() if self.column is not None else 0
        return column, page_width + chrome

    def _section(self, name: str) -> QtWidgets.QWidget:
        """A tab's page, built and drawn on first use: a first visit builds only the tab on
        screen (each of the others costs the GUI thread ~50 ms of pyqtgraph set-up). Asked
        for while the panel is still being built, the rest is built now."""
        if not self._built:
            self._build.finish()
        if name not in self._sections:
            self._place_page(name, self._new_page(name))
            self._sections[name] = self._pages[name]
            self._draw_page(name)
        return self._sections[name]

    def _new_page(self, name: str, deferred: bool = False) -> QtWidgets.QWidget:
        s = self.state
        if name == "volumes":
            return VolumesTab(s.card("request"), deferred=deferred)
        if name == "compare":
            return CompareTab(s.card("compare"), s.card("encode"))
        return GenerationTab(s.card("diffusion"))

    def _place_page(self, name: str, page: QtWidgets.QWidget) -> None:
        page.setObjectName("page")
        self._areas[name].setWidget(page)
        self._pages[name] = page

    def _draw_page(self, name: str) -> None:
        {"volumes": self._draw_request, "compare": self._draw_compare, "generation": self._draw_diffusion}[name]()

    @property
    def volumes(self) -> VolumesTab:
        return self._section("volumes")

    @property
    def compare(self) -> CompareTab:
        return self._section("compare")

    @property
    def generation(self) -> GenerationTab:
        return self._section("generation")

    def _header(self) -> QtWidgets.QWidget:
        """Title, formula and buttons on one line when they fit; else the title above the
        formula and buttons (and those two one above the other when they do not fit either)."""
        title = QtWidgets.QLabel("§3.3.1 图片进入语言模型 · Vision & multimodal")
        title.setProperty("role", "title")
        formula = QtWidgets.QLabel("n<sub>v</sub> = H·W / (p²·r²) &nbsp; · &nbsp; E → P → D")
        formula.setProperty("role", "caption")
        actions = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(actions)
        row.setContentsMargins(0, 0, 0, 0)
        row.addStretch(1)
        self.busy = BusyBadge(LOAD_KEY, PIXELS_KEY, owner=self, text="载入中 loading…")
        row.addWidget(self.busy)
        self.open_button = QtWidgets.QPushButton("打开图片 Open…")
        self.open_button.setShortcut(QtGui.QKeySequence.StandardKey.Open)
        self.open_button.setToolTip("Open one or more images (Ctrl+O), or drop files on the panel")
        self.book_button = QtWidgets.QPushButton("书中例 4×640²")
        self.book_button.setToolTip("书中例:四张 640×640 + 400 token — the book's request: four 640×640 images "
                                    "and 400 text tokens")
        self.clear_button = QtWidgets.QPushButton("清空 Clear")
        self.clear_button.setToolTip("Remove all images; the generated 640×640 sample comes back")
        for b in (self.book_button, self.open_button, self.clear_button):
            row.addWidget(b)
        return ReflowBox(title, ReflowBox(formula, actions, stretch=(1, 0), spacing=12), stretch=(0, 1), spacing=12)
