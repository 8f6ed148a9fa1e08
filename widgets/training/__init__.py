"""§3.4-3.5 as three pages: a training step you can watch (图 3-20, 例题 3-3), the FLOPs
beside 6ND, packing and label masking (图 3-23, 练习 3-6), and the RL cycle (图 3-24,
例题 3-4, 练习 3-7, and the loop of `lab simulate rl` played through the serving engine).

The panel is a view of a TrainingState (core/training_state.py); every figure comes from
core/training/figures.py (the RL ones from core/training/rl/figures.py). It shows at once and fills in: each section is built a step per
turn of the event loop (the page on screen first; all at once when no event loop runs
yet), and the ▶ figures are computed on the job runner, so the window keeps
answering during a first visit.
"""
from __future__ import annotations

from collections import deque

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.training_state import TABS, TrainingState
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.jobs import jobs
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import PAGE_COLUMN_EM, ReflowLayout, page_header, scroll_layout
from widgets.kit.panels import PanelInfo
from widgets.kit.param_form import ParamForm
from widgets.kit.theme import COLORS
from widgets.training.flops import FlopsSection, PackingSection, UpdateSection
from widgets.training.kit import Section
from widgets.training.memory import KIND_COLORS
from widgets.training.pipeline import PipelineSection
from widgets.training.rl import AdvantageSection, CycleSection, LossSection
from widgets.training.rl_loop import RLLoopSection
from widgets.training.step import StateSection, StepSection

TAB_TITLES = {"step": "训练一步 · step && memory", "flops": "运算量与 token · FLOPs, packing, labels",
              "rl": "强化学习 · RL cycle"}


class TrainingPanel(QtWidgets.QWidget):
    """Training state, FLOPs and the RL cycle."""

    figure_drawn = QtCore.Signal(str)  # a section drew a new figure: 'step', 'flops', 'pipeline', …
    built = QtCore.Signal()  # every section exists

    def __init__(self, state: TrainingState | None = None, parent=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else TrainingState()
        self._build_ui()
        self._connect()
        self._queue: deque = deque()
        order = [self.state.view("tab")] + [t for t in TABS if t != self.state.view("tab")]
        for tab in order:
            for section in self.sections_of[tab]:
                self._queue.append(section)
        self._current = None  # (section, its build generator)
        self._closed = False
        if QtCore.QThread.currentThread().loopLevel() == 0:
            # No event loop runs yet (`lab snapshot`, a script): nothing to keep answering,
            # and nothing would build the rest later. Build it all now.
            self.finish_building()
        QtCore.QTimer.singleShot(1, self._build_next)

    # ---- construction -------------------------------------------------------------
    def _build_ui(self) -> None:
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        header = QtWidgets.QWidget()
        header.setObjectName("page")
        row = QtWidgets.QVBoxLayout(header)
        row.setContentsMargins(14, 10, 14, 2)
        row.addWidget(page_header("§3.4–3.5 训练的计算与状态需求,强化学习 · Training state & RL", (
            (COLORS["prefill"], "前向 forward"), (COLORS["decode"], "反向 backward"),
            (KIND_COLORS["gradients"], "状态 state"), (KIND_COLORS["activations"], "激活 activations"),
            (COLORS["tool"], "更新 / 反馈"))))
        outer.addWidget(header)
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        outer.addWidget(self.tabs, 1)
        layouts = {}
        for tab in TABS:
            scroll, layout = scroll_layout((14, 10, 14, 14), spacing=10)
            layout.addStretch(1)
            layouts[tab] = layout
            self.tabs.addTab(scroll, TAB_TITLES[tab])
        self.tabs.setCurrentIndex(TABS.index(self.state.view("tab")))
        flops_grid, rl_grid = _grid(), _grid()
        layouts["flops"].insertLayout(0, flops_grid)
        layouts["rl"].insertLayout(0, rl_grid)
        self.step = StepSection(self, layouts["step"])
        self.state_section = StateSection(self, layouts["step"])
        self.flops = FlopsSection(self, flops_grid)
        self.packing = PackingSection(self, flops_grid)
        self.update_section = UpdateSection(self, flops_grid)
        self.pipeline = PipelineSection(self, layouts["rl"])
        self.rl_loop = RLLoopSection(self, layouts["rl"], rl_grid)
        self.cycle = CycleSection(self, rl_grid)
        self.advantage = AdvantageSection(self, rl_grid)
        self.loss = LossSection(self, rl_grid)
        self.sections_of: dict[str, list[Section]] = {
            "step": [self.step, self.state_section],
            "flops": [self.flops, self.packing, self.update_section],
            "rl": [self.pipeline, self.rl_loop, self.cycle, self.advantage, self.loss],
        }

    def _build_next(self) -> None:
        """One step of one section's build; then yield to the event loop."""
        if self._closed or not shiboken6.isValid(self):
            return
        if self._current is None and not self._queue:
            self.built.emit()
            return
        self._step()
        QtCore.QTimer.singleShot(1, self._build_next)

    def _step(self) -> None:
        if self._current is None:
            section = self._queue.popleft()
            self._current = (section, section.build())
        section, steps = self._current
        try:
            next(steps)
        except StopIteration:
            self._current = None
            section.built = True
            section.refresh()

    def finish_building(self) -> None:
        """Build what is left now, in one go (an offscreen snapshot has no event loop to
        wait on); figures still come from the job runner."""
        while not self._closed and (self._current is not None or self._queue):
            self._step()

    @property
    def sections(self) -> list[Section]:
        return [s for group in self.sections_of.values() for s in group]

    def is_built(self) -> bool:
        return all(s.built for s in self.sections)

    def is_ready(self) -> bool:
        """Every section built and no figure still computing (tests and benchmarks wait on this)."""
        return self.is_built() and not any(jobs().busy(s.job_key) for s in self.sections if hasattr(s, "job_key"))

    # ---- binding ------------------------------------------------------------------
    def _connect(self) -> None:
        self.state.changed.connect(self._on_state_changed)
        self.tabs.currentChanged.connect(lambda i: self.state.set_view("tab", TABS[i]))

    def _on_state_changed(self, path: str, _value=None) -> None:
        if not shiboken6.isValid(self):
            return
        if path == "view.tab":
            index = TABS.index(self.state.view("tab"))
            if self.tabs.currentIndex() != index:
                with QtCore.QSignalBlocker(self.tabs):
                    self.tabs.setCurrentIndex(index)
            return
        for section in self.sections:
            if section.built and path in section.paths:
                section.on_changed(path)

    def refresh(self) -> None:
        for section in self.sections:
            if section.built:
                section.refresh()

    def close(self) -> bool:
        """Stop the players and jobs, and leave nothing listening to a state that may
        outlive this panel (a session, a scene)."""
        if not shiboken6.isValid(self):  # freed already (widgets/kit/lifetime.py): nothing to close
            return True
        self._closed = True
        self.state.changed.disconnect(self._on_state_changed)
        for section in self.sections:
            if section.built:
                section.close()
        for card in self.findChildren(CalculatorCard):
            card.close()  # disconnects the card from its model
        for form in self.findChildren(ParamForm):
            form.model.changed.disconnect(form._on_model_changed)
        return super().close()


def _grid() -> ReflowLayout:
    """A tab's two columns of sections (one when the page is narrow)."""
    return ReflowLayout(columns=2, min_column_em=PAGE_COLUMN_EM)


PANEL = PanelInfo(key="training", title="训练与 RL · Training state & RL", section="3.4", order=4.0,
                  factory=TrainingPanel)
