"""§3.2 multi-turn and agents: where an edit lands, the measured code-agent runs (timeline,
cold vs cached prefill), the same run through the engine's prefix cache with its token gaps
and goodput under an SLO, tasks that qualify, Amdahl's cap, serial vs parallel tools,
branches sharing a prefix, and 图 3-14's CED.

A view of core.agents.state.AgentsState; the figures come from core.agents.figures and
core.agents.trace_figures. Sections live in classic.py, trajectory.py and structure.py."""
from __future__ import annotations

from PySide6 import QtWidgets

from core.agents.state import AgentsState
from widgets.agents.classic import ClassicSections
from widgets.agents.structure import StructureSections
from widgets.agents.trajectory import TrajectorySections
from widgets.kit.binding import FigureBinding
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import StagedGrid, scroll_page
from widgets.kit.panels import PanelInfo


class AgentsPanel(ClassicSections, TrajectorySections, StructureSections, FigureBinding, QtWidgets.QWidget):
    def __init__(self, state: AgentsState | None = None, parent=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else AgentsState()
        layout = scroll_page(self, "§3.2 多轮交互与 Agent 任务 · Multi-turn & Agents")
        # Two to a row, the tall ones together: the measured runs and their replay; then the
        # book's order: 3.2.1 edit, goodput, 3.2.3 Amdahl, 3.2.4 tools, branches and 图 3-14.
        self._grid = StagedGrid(self, layout, [self._trajectory_section, self._replay_section, self._edit_section,
                                               self._goodput_section, self._amdahl_section, self._path_section,
                                               self._branch_section, self._ced_section], then=self._bind)
        layout.addStretch(1)

    def _bind(self) -> None:
        """Every section exists: follow the state and draw it."""
        self._connect()
        self.refresh()

    def is_ready(self) -> bool:
        """Every section built and drawn, the replay computed for the current inputs
        (snapshots, tests and benchmarks wait on this)."""
        replay = self.state.card("replay")
        return self._grid.done and (replay.result_inputs == replay.inputs or bool(replay.errors))

    def _connect(self) -> None:
        self.bind_figures({**self.classic_handlers(), **self.trajectory_handlers(), **self.structure_handlers()})

    def closeEvent(self, event):
        self._grid.stop()
        self.unbind_figures()
        super().closeEvent(event)


PANEL = PanelInfo(key="agents", title="多轮与 Agent · Multi-turn & Agents", section="3.2", order=2.0,
                  factory=AgentsPanel)
