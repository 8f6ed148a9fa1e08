"""The Plan panel's RL split card (issue 16): one RL loop on a pool of cards, swept over
every split between rollout engines and trainer cards, as `lab sweep rl pool_cards=N
rollout_cards=…` runs it, on the panel's sweep runner (widgets/plan/runner.py: the job
runner, the engine chosen in the panel's form; cancellable). Time per step and GPU-hours
per 1,000 steps against the split, the fewest-GPU-hours and fastest splits marked
(widgets/plan/rl_split_plot.py); a refusal shows under its field.

The inputs are the Plan state's rl_split card (core/rl/split_card.py): sessions, undo and
↺ reset carry them. They start at the RL tab's starting loop; "take the RL tab's loop"
copies the loop the Training panel shows now (its cards become the pool).

    card = attach(panel)   # PlanPanel's one hook"""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.rl.split_card import LOOP_NAMES, MAX_POOL, command_texts, pools_text, sweep_keys
from widgets.plan.form import Field
from widgets.plan.rl_split_plot import SplitPlots
from widgets.plan.sweep_card import SweepCard

LEAD = ("同一个 RL 循环,卡池在生成与训练之间每种划分各跑一次(每点一次完整的 RL 模拟);"
        "方块 = 每千步 GPU 小时最少,菱形 = 每步最快;同一卡池两者落在同一划分,几个卡池(如 4,6,8)才会分开 · the same "
        f"RL loop run once for every split of the pool between rollout and trainer (each point one full lab "
        f"simulate rl, up to {MAX_POOL} cards a pool here); square: fewest GPU-hours per 1,000 steps, diamond: "
        "fastest; on one pool they fall on the same split, a few pools (say 4,6,8) can part them")
# (key, label): the card's fields, in its order (the loop's keys after the pool's)
LABELS = {
    "pool_cards": "卡池 · pool cards", "rollout_tp": "生成引擎 TP · rollout_tp", "mode": "模式 · mode",
    "steps": "步数 · steps", "prompts": "每步提示 · prompts", "group": "每提示样本 · samples (group)",
    "lengths": "输出长度分布 · lengths", "output_tokens": "G (tokens)", "sigma": "对数标准差 σ · sigma",
    "max_tokens": "最长输出 · max_tokens", "staleness": "滞后上限 η · staleness", "partial_tokens":
    "部分生成上限 · partial_tokens",
}
KEYS = ("pool_cards", "rollout_tp", *LOOP_NAMES)
# The loop's keys a split leaves out (the split sets them) and where a refusal of them shows.
SPLIT_FIELDS = {"rollout_cards": "pool_cards", "rollout_replicas": "pool_cards", "trainer_cards": "pool_cards"}


def _text(value) -> str:
    if isinstance(value, tuple):
        return pools_text(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


class RLSplitCard(SweepCard):
    def __init__(self, panel=None, parent=None):
        super().__init__("rl_split", "强化学习划分扫描:生成与训练各用几张卡 · RL split sweep: how many cards for "
                         "rollout, how many for the trainer", LEAD, "扫描划分 · sweep the split", parent)
        self.panel = panel
        self.model = panel.state.card("rl_split")
        self._editing = False
        form = QtWidgets.QGridLayout()
        form.setHorizontalSpacing(8)
        self.fields = {key: Field(f"rl_split_{key}") for key in KEYS}
        for key, f in self.fields.items():
            f.key = key
            p = self.model.calculator.param(key)
            f.edit.setPlaceholderText(" | ".join(p.choices) if p.kind == "choice" else p.range_text())
            f.edit.setToolTip(p.help)
            f.edit.textEdited.connect(lambda text, k=key: self._on_edit(k, text))
        for i, key in enumerate(KEYS):  # two fields a row
            r, c = divmod(i, 2)
            form.addWidget(QtWidgets.QLabel(LABELS[key]), r, 2 * c)
            form.addWidget(self.fields[key], r, 2 * c + 1)
        form.setColumnStretch(1, 1)
        form.setColumnStretch(3, 1)
        self.take_button = QtWidgets.QPushButton("取 RL 页的循环 · take the RL tab's loop")
        self.take_button.setObjectName("rl_split_take")
        self.plots = SplitPlots()
        self.lay_out(form, self.plots, more_buttons=(self.take_button,), min_column_em=22)
        self.ran = None  # the inputs of the rows on screen
        self.rows: list[dict] = []  # every finished row of this run (each pool's sweep in turn)
        self._queue: list[dict] = []  # the pools' sweeps not started yet
        self._done: list[dict] = []  # the summaries of the pools' sweeps that finished
        self._engine: tuple = ()
        self._total = 0
        self.run_button.clicked.connect(lambda: self.run())
        self.cancel_button.clicked.connect(self.cancel)
        self.take_button.clicked.connect(lambda: self.take_rl_tab())
        r = self.runner
        r.row_arrived.connect(lambda _row: self.plots.draw(self.shown_rows()))
        r.progressed.connect(self._on_progress)
        r.finished.connect(self._on_finished)
        r.failed.connect(self._on_failed)
        r.cancelled.connect(self._on_cancelled)
        r.running_changed.connect(self._on_running)
        self.model.changed.connect(self._on_model_changed)
        self._show_inputs()

    # ---- the state ----------------------------------------------------------------------
    def _on_edit(self, key: str, text: str) -> None:
        self._editing = True
        try:
            self.model.update({key: text.strip()})
        finally:
            self._editing = False
        self._show_errors()

    def _on_model_changed(self, _card) -> None:
        if not shiboken6.isValid(self):
            return
        if not self._editing:  # a session, undo, reset or the RL tab's loop: the fields follow
            self._show_inputs()
        self._show_errors()
        self._show_command()

    def _show_inputs(self) -> None:
        for key, f in self.fields.items():
            text = _text(self.model.inputs[key])
            if f.edit.text().strip() != text:
                f.edit.setText(text)
        self._show_command()

    def _show_errors(self) -> None:
        for key, f in self.fields.items():
            f.show_error(self.model.errors.get(key))

    def _show_command(self) -> None:
        self.command.setText("<br>".join(f"<code>{c} --out DIR</code>" for c in self.command_texts()))

    def command_texts(self) -> list[str]:
        """One `lab sweep rl` a pool."""
        return command_texts(self.model.inputs)

    def shown_rows(self) -> list[dict]:
        return self.rows + (list(self.runner.rows) if self.runner.running else [])

    def take_rl_tab(self) -> bool:
        """The Training panel's RL loop as this card's inputs (its cards the pool); False
        when this panel is in no window with a Training panel."""
        window = self.panel.window() if self.panel is not None else None
        if not all(hasattr(window, n) for n in ("panel", "panel_keys")) or "training" not in window.panel_keys():
            self.status.setText("没有 Training 面板可取 · no Training panel to take the loop from")
            self._translate()
            return False
        loop = window.panel("training").state.card("rl_loop").inputs
        values = {k: loop[k] for k in LOOP_NAMES}
        values.update(rollout_tp=1, pool_cards=loop["rollout_replicas"] + loop["trainer_cards"])  # the tab's engines
        ok = self.model.update({k: _text(v) for k, v in values.items()})
        self.status.setText("已取 RL 页的循环 · the RL tab's loop taken" if ok else
                            "RL 页的循环超出此处的范围(见字段)· the RL tab's loop is out of this card's range "
                            "(see the fields)")
        self._translate()
        return ok

    # ---- the sweep ----------------------------------------------------------------------
    def run(self, engine: str | None = None) -> bool:
        """Sweep the split of the card's inputs; False (errors under the fields) when refused."""
        if self.model.errors:
            self.status.setText("先改正标红的字段 · correct the marked fields first")
            self._translate()
            return False
        form = getattr(self.panel, "form", None)
        engine = engine or (form.engine() if form is not None else "inprocess")
        workers = form.workers() if form is not None else 1
        address = form.address() if form is not None and engine == "ray" else None
        self.summary, self.ran = None, self.model.inputs
        self._queue, self._done, self.rows = sweep_keys(self.model.inputs), [], []
        self._engine = (engine, workers, address)
        self._total = sum(len(raw["rollout_cards"].split(",")) for raw in self._queue)
        self.answer.setText("")
        self.plots.set_pools([int(n) for n in self.model.inputs["pool_cards"]])
        self.status.setText("解析中… · checking the sweep…")
        self._start_next()
        return True

    def _start_next(self) -> None:
        self.runner.start(self._queue.pop(0), *self._engine, kind="rl")

    def _on_progress(self, done: int, total: int) -> None:
        done += len(self.rows)
        self.status.setText(f"{done}/{self._total} 种划分 · {done}/{self._total} splits")
        self._translate()

    def _on_running(self, running: bool) -> None:
        busy = running or bool(self._queue)  # between two pools' sweeps the run goes on
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)

    def cancel(self) -> None:
        self._queue = []
        self.runner.cancel()

    def _on_finished(self, summary: dict) -> None:
        self.rows += self.runner.rows
        self._done.append(summary)
        if self._queue:  # the next pool
            self._start_next()
            return
        summary = combined(self._done)
        self.summary = summary
        self.plots.draw(self.rows)
        self._on_running(False)
        refused = sum(1 for r in self.rows if r.get("error"))
        self.status.setText(f"完成 {len(self.rows)} 种划分 · {len(self.rows)} splits done"
                            + (f"({refused} 个被拒)· ({refused} refused)" if refused else ""))
        self.answer.setText(answer_text(summary))
        self._translate()
        self.finished.emit(summary)

    def _on_failed(self, field: str, message: str) -> None:
        self._queue = []
        self._on_running(False)
        self.status.setText("")
        shown = SPLIT_FIELDS.get(field, field)
        if shown in self.fields:
            self.fields[shown].show_error(message if shown == field else f"{field}: {message}")
        else:
            self.status.setText(f"出错 · failed: {field + ': ' if field else ''}{message}")
        self._translate()
        self.failed.emit(field, message)

    def _on_cancelled(self) -> None:
        self.rows += self.runner.rows
        self.plots.draw(self.rows)
        self.status.setText(f"已取消,保留 {len(self.rows)} 种划分 · cancelled; {len(self.rows)} splits kept")
        self._translate()

    def eventFilter(self, watched, event):
        if event.type() == QtCore.QEvent.Type.Close and watched is self.panel and shiboken6.isValid(self.runner):
            self.runner.close()
            self.model.changed.disconnect(self._on_model_changed)
        return False


def combined(summaries: list[dict]) -> dict:
    """The pools' sweeps as one answer: the fewest GPU-hours and the fastest of their own
    picks (the first pool's on a tie, as one sweep takes its first row), and each summary."""
    best = [s["rl_best"] for s in summaries if s.get("rl_best")]
    fast = [s["rl_fastest"] for s in summaries if s.get("rl_fastest")]
    return {"rl_best": min(best, key=lambda x: x["gpu_hours_per_1000_steps"]) if best else None,
            "rl_fastest": min(fast, key=lambda x: x["step_time_s"]) if fast else None, "sweeps": summaries}


def answer_text(summary: dict) -> str:
    """The fewest-GPU-hours split and the fastest (one line when they are the same split)."""
    best, fast = summary.get("rl_best"), summary.get("rl_fastest")
    if best is None:
        return "没有一种划分跑成 · no split ran"

    def split(x):
        return f"{x['rollout_cards']}+{x['trainer_cards']}"

    text = (f"每千步 GPU 小时最少:{split(best)}(生成+训练),{best['gpu_hours_per_1000_steps']:.2f} GPU·h,"
            f"每步 {best['step_time_s']:.2f} s · fewest GPU-hours: {split(best)} (rollout + trainer cards), "
            f"{best['gpu_hours_per_1000_steps']:.2f} GPU-h per 1,000 steps, {best['step_time_s']:.2f} s a step")
    if fast is not None and (fast["rollout_cards"], fast["trainer_cards"]) != (best["rollout_cards"],
                                                                               best["trainer_cards"]):
        text += (f"\n最快:{split(fast)},每步 {fast['step_time_s']:.2f} s · fastest: {split(fast)}, "
                 f"{fast['step_time_s']:.2f} s a step")
    return text


def attach(panel) -> RLSplitCard:
    """The card under the xPyD card (full width), its runner stopped when the panel closes."""
    card = RLSplitCard(panel)
    panel.rl_split_card = card
    panel.installEventFilter(card)
    return card
