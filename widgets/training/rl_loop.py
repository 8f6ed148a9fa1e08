"""The RL tab's live pipeline (issue 16): `lab simulate rl`'s loop, its rollout replayed by
the serving engine on the job runner (never on the GUI thread), drawn as Gantt lanes
(rl_loop_view.py) and played with ▶. Synchronous, one-step, fully async and partial
rollouts are a switch; the inputs are a form whose refusals show next to the field.

The form and the switch are views of the state's rl_loop card (core/rl/loop_card.py):
sessions, talks, ↺ and undo carry the loop, and the ▶'s position is the state's rl_loop
player. The window plays a few steps on a few replicas: the card refuses more.
"""
from __future__ import annotations

import shiboken6
from PySide6 import QtWidgets

from core.rl.gantt import LoopFigure, loop_figure
from core.rl.loop_card import FORM_NAMES, MAX_REPLICAS, loop_params
from core.rl.params import MODES, RLParams
from core.rl.sweep import split_sweep
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.page import column
from widgets.kit.param_form import ParamForm
from widgets.kit.timeline_player import TimelinePlayer
from widgets.training.kit import PlayedSection, caption
from widgets.training.rl_loop_view import FitReadout, LoopView
from widgets.training.rl_split import SplitView

# The form's labels, each a "中文 English" pair (the fields are the card's FORM_NAMES).
LABELS = {
    "steps": "训练步数 training steps",
    "prompts": "每步提示数 prompts per step",
    "group": "每组样本数 samples per prompt",
    "lengths": "输出长度分布 output lengths",
    "output_tokens": "输出长度 output tokens (G)",
    "sigma": "长尾 σ lognormal σ",
    "max_tokens": "最长回答 max response tokens",
    "rollout_replicas": "生成副本 rollout replicas",
    "trainer_cards": "训练卡 trainer cards",
    "staleness": "滞后上限 η staleness bound η",
    "partial_tokens": "部分生成预算 partial budget (tokens)",
}
MODE_LABELS = {"synchronous": "同步 synchronous", "one_step": "一步异步 one-step off-policy",
               "async": "全异步 fully async", "partial": "部分生成 partial rollouts"}


class RLLoopSection(PlayedSection):
    paths = ("cards.rl_loop", "player.rl_loop")
    player_name = "rl_loop"

    def __init__(self, panel, layout: QtWidgets.QVBoxLayout, before: QtWidgets.QLayout):
        super().__init__(panel)
        self._layout, self._before = layout, before
        self.card = self.state.card("rl_loop")
        self.job_key = f"training.rl_loop.{id(panel)}"
        self.split_key = f"training.rl_split.{id(panel)}"  # the split sweep, after each loop
        self.figures_shown = 0
        self._asked = None  # the card's inputs of the latest loop sent to the job runner
        self._stale = False  # an input changed while the RL tab was not shown
        self._held: LoopFigure | None = None  # a loop that came back while another tab was shown

    def build(self):
        self.form = ParamForm(self.card, names=FORM_NAMES)
        self.form.setObjectName("rl_loop_form")
        for name in FORM_NAMES:  # the pair reads in either language by itself
            field = self.form.field(name)
            field.label.setText(LABELS[name])
            field.label.setProperty("i18n_key", "")
        self.mode_buttons: dict[str, QtWidgets.QToolButton] = {}
        switch = QtWidgets.QWidget()
        grid = QtWidgets.QGridLayout(switch)  # two by two: the column is narrow
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(2)
        group = QtWidgets.QButtonGroup(switch)
        group.setExclusive(True)
        for i, mode in enumerate(MODES):
            b = QtWidgets.QToolButton()
            b.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)
            b.setText(MODE_LABELS[mode])
            b.setCheckable(True)
            b.setChecked(mode == self.mode)
            b.setObjectName(f"rl_mode_{mode}")
            b.clicked.connect(lambda _=False, m=mode: self.set_mode(m))
            group.addButton(b)
            grid.addWidget(b, i // 2, i % 2)
            self.mode_buttons[mode] = b
        self.summary = FitReadout()
        self.summary.setObjectName("rl_loop_summary")
        self.player = TimelinePlayer(duration=1.0, unit="s")
        self.player.setObjectName("rl_loop_player")
        yield
        self.view = LoopView()
        self.split = SplitView()
        self.busy = BusyBadge(self.job_key, self.split_key, owner=self.view)
        controls = QtWidgets.QWidget()
        cl = QtWidgets.QHBoxLayout(controls)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.player, 1)
        cl.addWidget(self.busy)
        left = column(caption("生成经服务引擎回放(连续批处理、KV 池、组内共享提示前缀),最长的样本决定同步的一步;"
                              "异步让下一批在长尾未完时开始,样本滞后不超过 η 个权重版本。 · The rollout is "
                              "replayed by the serving engine (continuous batching, the KV pool, a group sharing "
                              "its prompt's blocks): its longest sample sets a synchronous step; asynchronous "
                              "modes start the next batch during the tail, samples at most η versions stale."),
                      switch, self.summary, self.form, stretch_last=False)
        left.layout().addStretch(1)
        box = QtWidgets.QHBoxLayout()
        box.addWidget(left, 2)
        # The ▶ under the lanes it plays (the form's column is too narrow for its slider).
        box.addWidget(column(self.view, controls, self.split, stretch_last=False), 5)
        index = next(i for i in range(self._layout.count()) if self._layout.itemAt(i).layout() is self._before)
        self._layout.insertLayout(index, box)
        self.player.position_changed.connect(lambda t: self.state.set_player(self.player_name, t))
        self.state.changed.connect(self._on_state_changed)  # the panel tells sections no tab changes
        yield

    # ---- inputs -------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return self.card.inputs["mode"]

    def params(self, values: dict | None = None) -> RLParams:
        """The loop the window runs: the card's values (or these), the rest RLParams' defaults."""
        return loop_params(self.card.inputs if values is None else values)

    def set_mode(self, mode: str) -> None:
        self.card.update({"mode": mode})

    def on_changed(self, path: str) -> None:
        if path == "player.rl_loop":
            self.follow_position()
            return
        self.mode_buttons[self.mode].setChecked(True)  # whoever changed it: a click, undo, a session
        if self.card.inputs != self._asked:  # a refused edit keeps the loop on screen
            self.refresh()

    def _on_state_changed(self, path: str, _value=None) -> None:
        if path != "view.tab" or not self._stale or not shiboken6.isValid(self.view):
            return
        held, self._held = self._held, None
        if held is not None and held.params == self.params() and self.state.view("tab") == "rl":
            self._stale = False
            self._show(held)
        else:
            self.refresh()

    # ---- the figure ---------------------------------------------------------------
    def refresh(self) -> None:
        """Replay on a worker; the figure comes back to _show (a newer edit wins). Only
        while the RL tab is the panel's: the other tabs never wait for the engine."""
        if self.state.view("tab") != "rl":
            self._stale = True
            return
        self._stale, self._held = False, None
        self._asked = self.card.inputs
        jobs().submit(self.job_key, loop_figure, self.params(), done=self._show, context=self.view)

    def _show(self, fig: LoopFigure) -> None:
        if self.state.view("tab") != "rl":
            # Another tab now (a session opened meanwhile): the figure waits, and the
            # player's position in the state stays as it was until the tab is shown.
            self._held, self._stale = fig, True
            return
        self.view.show_figure(fig)
        position = self.start_position(fig.end_s)  # a restored position holds; an edit keeps the fraction
        self.set_duration(fig.end_s)
        self.player.seek(position)
        self.view.set_time(self.player.position)
        s = fig.summary
        self.summary.setText(
            f"每步 {s['step_time_s']:.1f} s,生成池忙 {s['rollout_pool_utilisation']:.0%},训练池忙 "
            f"{s['trainer_pool_utilisation']:.0%},长尾空闲 {s['rollout_tail_idle_share']:.0%},最大滞后 "
            f"{s['staleness_max']} 版 · step {s['step_time_s']:.1f} s, rollout pool "
            f"{s['rollout_pool_utilisation']:.0%} busy, trainer {s['trainer_pool_utilisation']:.0%} busy, "
            f"{s['rollout_tail_idle_share']:.0%} of seats idle on the long tail, staleness at most "
            f"{s['staleness_max']}")
        self.figures_shown += 1
        self.panel.figure_drawn.emit("rl_loop")
        jobs().submit(self.split_key, split_sweep, fig.params, MAX_REPLICAS, done=self._show_split, context=self.split)

    def _show_split(self, result: dict) -> None:
        p = self.view.figure.params if self.view.figure is not None else self.params()
        self.split.show_result(result, p.rollout_replicas * p.rollout_tp)
        self.panel.figure_drawn.emit("rl_split")

    def close(self) -> None:
        self.player.pause()
        self.state.changed.disconnect(self._on_state_changed)
        jobs().cancel(self.job_key)
        jobs().cancel(self.split_key)
