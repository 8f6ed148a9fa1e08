"""The Plan panel's RL split card (issue 16 in the window): the rows are `lab sweep rl`'s
for the same keys, the marks its summary's, GPU-hours the pool's cards times the step
time; a refused edit shows under its field; the inputs live in the Plan state (sessions,
reset) and can be taken from the RL tab; the sweep runs off the GUI thread and cancels."""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import shiboken6

from core.rl.plan_state import PlanState
from core.rl.split_card import RL_SPLIT, START_POOL, command_texts
from core.training_state import TrainingState
from lab.cli import main
from widgets.kit.jobs import jobs
from widgets.plan import PlanPanel

SMALL = {"pool_cards": "4", "mode": "one_step", "steps": "2", "prompts": "2", "group": "4", "output_tokens": "64",
         "lengths": "fixed"}


def _panel(qtbot, state=None):
    p = PlanPanel(state=state, first_sweep=False)
    qtbot.addWidget(p)
    p.resize(1280, 720)
    p.show()
    return p


def _close(p):
    if shiboken6.isValid(p):
        p.close()
    jobs().wait_idle()


def _type(card, values: dict) -> None:
    for key, text in values.items():
        edit = card.fields[key].edit
        edit.setText(text)
        edit.textEdited.emit(text)  # as a user's typing does


def test_the_split_is_lab_sweep_rls_for_the_same_keys(qtbot, tmp_path, capsys):
    p = _panel(qtbot)
    card = p.rl_split_card
    _type(card, SMALL)
    assert not card.model.errors
    [command] = card.command_texts()
    keys = command.removeprefix("lab sweep rl ").split()
    assert "pool_cards=4" in keys and "rollout_cards=1,2,3" in keys and "mode=one_step" in keys
    assert card.command.text() == f"<code>{command_texts(card.model.inputs)[0]} --out DIR</code>"
    with qtbot.waitSignal(card.finished, timeout=120_000) as got:
        assert card.run("inprocess")
    summary = got.args[0]
    [one] = summary["sweeps"]
    assert one["points"]["done"] == 3 and one["points"]["refused"] == 0
    rows = {r["rollout_cards"]: r for r in card.rows}
    for r, row in rows.items():  # the rest of the pool is the trainer's; GPU-hours by hand
        assert row["trainer_cards"] == 4 - r
        assert row["gpu_hours_per_1000_steps"] == pytest.approx(4 * row["step_time_s"] * 1000 / 3600, rel=1e-12)
    capsys.readouterr()
    out = tmp_path / "split"
    assert main(["sweep", "rl", *keys, "--out", str(out), "--workers", "1", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["rl_best"] == summary["rl_best"] and cli["rl_fastest"] == summary["rl_fastest"]
    for line in csv.DictReader((out / "results.csv").open()):
        row = rows[int(line["rollout_cards"])]
        for key in ("step_time_s", "gpu_hours_per_1000_steps", "kept_samples", "staleness_max"):
            assert float(line[key]) == row[key], key
    # The figures hold the rows, the marks on the summary's splits.
    x = sorted(rows)
    for key in ("step_time_s", "gpu_hours_per_1000_steps"):
        cx, cy = card.plots.curve(key, 4).getData()
        assert cx.tolist() == x and cy.tolist() == [rows[r][key] for r in x]
        bx, by = card.plots.best_items[key].getData()
        fx, fy = card.plots.fast_items[key].getData()
        assert (bx.tolist(), by.tolist()) == ([summary["rl_best"]["rollout_cards"]], [summary["rl_best"][key]])
        assert (fx.tolist(), fy.tolist()) == ([summary["rl_fastest"]["rollout_cards"]], [summary["rl_fastest"][key]])
    # One pool: GPU-hours follow the step time, so the two marks are one split (named once).
    assert summary["rl_best"]["rollout_cards"] == summary["rl_fastest"]["rollout_cards"]
    best = summary["rl_best"]
    assert f"{best['rollout_cards']}+{best['trainer_cards']}" in card.answer.text()
    assert "fastest:" not in card.answer.text()
    _close(p)


def test_a_refused_edit_shows_under_its_field_and_keeps_the_last_loop(qtbot):
    p = _panel(qtbot)
    card = p.rl_split_card
    before = card.model.inputs
    _type(card, {"pool_cards": "1"})
    error = card.fields["pool_cards"].error_label
    assert error.isVisibleTo(card) and "[2, 32]" in error.text()
    assert card.model.inputs == before and not card.run("inprocess")
    _type(card, {"pool_cards": "4", "rollout_tp": "4"})  # one engine takes the whole pool
    assert "pool_cards" in card.model.errors and "rollout_tp 4" in card.fields["pool_cards"].error_label.text()
    _type(card, {"rollout_tp": "1", "steps": "13"})  # the window's bound, as the RL tab's
    assert not card.fields["pool_cards"].error_label.isVisibleTo(card)
    assert "<= 12" in card.fields["steps"].error_label.text()
    _type(card, {"steps": "2", "mode": "sometimes"})
    assert "synchronous" in card.fields["mode"].error_label.text()
    _close(p)


def test_the_inputs_are_the_plan_states_card(qtbot):
    state = PlanState()
    p = _panel(qtbot, state)
    card = p.rl_split_card
    assert card.fields["pool_cards"].edit.text() == str(START_POOL) == "6"  # the RL tab's loop: 2 + 4 cards
    _type(card, {"pool_cards": "8", "mode": "async"})
    saved = state.to_json()
    assert saved["cards"]["rl_split"] == {"pool_cards": [8.0], "mode": "async"}
    state.reset()  # ↺: the fields follow the state
    assert card.fields["pool_cards"].edit.text() == "6" and card.fields["mode"].edit.text() == "synchronous"
    state.load_json(saved)  # a session opened
    assert card.fields["pool_cards"].edit.text() == "8" and card.fields["mode"].edit.text() == "async"
    assert "pool_cards=8 " in card.command.text()
    with pytest.raises(Exception) as err:  # a saved card the form would refuse is refused whole
        state.load_json({**saved, "cards": {"rl_split": {"pool_cards": 99}}})
    assert "pool_cards" in str(err.value) and card.fields["pool_cards"].edit.text() == "8"
    _close(p)


def test_take_the_rl_tabs_loop(qtbot, monkeypatch):
    training = TrainingState()
    training.card("rl_loop").update({"mode": "async", "rollout_replicas": "3", "trainer_cards": "5", "steps": "6"})

    class Window:
        def panel_keys(self):
            return ["plan", "training"]

        def panel(self, key):
            return type("Panel", (), {"state": training})()

    p = _panel(qtbot)
    card = p.rl_split_card
    assert not card.take_rl_tab()  # no window with a Training panel: said, nothing changed
    assert "Training" in card.status.text() and card.model.inputs == RL_SPLIT.default_inputs
    monkeypatch.setattr(p, "window", lambda: Window())
    assert card.take_rl_tab()
    values = card.model.inputs
    assert (values["pool_cards"], values["mode"], values["steps"], values["rollout_tp"]) == ((8,), "async", 6, 1)
    assert card.fields["pool_cards"].edit.text() == "8"
    _close(p)


def test_the_sweep_runs_off_the_gui_thread_and_cancels(qtbot):
    p = _panel(qtbot)
    card = p.rl_split_card
    _type(card, {"pool_cards": "12", "steps": "6"})
    with qtbot.waitSignal(card.runner.row_arrived, timeout=120_000):
        assert card.run("inprocess")
    assert card.cancel_button.isEnabled() and not card.run_button.isEnabled()
    with qtbot.waitSignal(card.runner.cancelled, timeout=10_000):
        card.cancel_button.click()
    kept = len(card.rows)
    assert 1 <= kept < 11 and "cancelled" in card.status.text()
    assert card.run_button.isEnabled()
    jobs().wait_idle()
    assert len(card.rows) == kept and not card.runner.rows[kept:]  # no row of the cancelled sweep arrives later
    xs, _ys = card.plots.curve("step_time_s", 12).getData()
    assert len(xs) == kept
    _close(p)


def test_a_few_pools_part_the_fewest_gpu_hours_from_the_fastest(qtbot, tmp_path, capsys):
    # More cards shorten both the rollout and the update but not in proportion (a batch of 8
    # samples on more engines, the sync): a bigger pool steps faster, a small one spends
    # fewer GPU-hours. One `lab sweep rl` a pool, the marks over all.
    p = _panel(qtbot)
    card = p.rl_split_card
    _type(card, dict(SMALL, pool_cards="3,6", mode="synchronous"))
    commands = card.command_texts()
    assert [c.split("pool_cards=")[1].split()[0] for c in commands] == ["3", "6"]
    with qtbot.waitSignal(card.finished, timeout=120_000) as got:
        assert card.run("inprocess")
    summary = got.args[0]
    assert len(card.rows) == 2 + 5 and len(summary["sweeps"]) == 2
    capsys.readouterr()
    cli = []
    for i, command in enumerate(commands):
        keys = command.removeprefix("lab sweep rl ").split()
        assert main(["sweep", "rl", *keys, "--out", str(tmp_path / str(i)), "--workers", "1", "--json"]) == 0
        cli.append(json.loads(capsys.readouterr().out))
    assert [s["rl_best"] for s in cli] == [s["rl_best"] for s in summary["sweeps"]]
    # By hand over the two sweeps' rows: GPU-hours = pool × step time × 1000 / 3600.
    for r in card.rows:
        pool = r["rollout_cards"] + r["trainer_cards"]
        assert r["gpu_hours_per_1000_steps"] == pytest.approx(pool * r["step_time_s"] / 3.6, rel=1e-12)
    best = min(card.rows, key=lambda r: r["gpu_hours_per_1000_steps"])
    fast = min(card.rows, key=lambda r: r["step_time_s"])
    assert summary["rl_best"]["gpu_hours_per_1000_steps"] == best["gpu_hours_per_1000_steps"]
    assert summary["rl_fastest"]["step_time_s"] == fast["step_time_s"]
    assert best["rollout_cards"] + best["trainer_cards"] == 3 and fast["rollout_cards"] + fast["trainer_cards"] == 6
    assert "fastest:" in card.answer.text()
    for key in ("step_time_s", "gpu_hours_per_1000_steps"):
        assert len(card.plots.curve(key, 3).getData()[0]) == 2 and len(card.plots.curve(key, 6).getData()[0]) == 5
        assert card.plots.best_items[key].getData()[1].tolist() == [best[key]]
        assert card.plots.fast_items[key].getData()[1].tolist() == [fast[key]]
    _close(p)


def test_the_card_reads_in_either_language(qtbot):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_i18n import assert_reads_in_either_language, shown_texts

    p = _panel(qtbot)
    card = p.rl_split_card
    _type(card, SMALL)
    with qtbot.waitSignal(card.finished, timeout=120_000):
        assert card.run("inprocess")
    assert_reads_in_either_language(lambda: shown_texts(card))
    _close(p)


def test_marks_pick_as_the_sweeps_summary():
    from widgets.plan.rl_split_plot import finished, marks

    rows = [{"rollout_cards": 2, "step_time_s": 3.0, "gpu_hours_per_1000_steps": 5.0},
            {"rollout_cards": 1, "step_time_s": 2.0, "gpu_hours_per_1000_steps": 6.0},
            {"rollout_cards": 3, "error": "max_tokens: too long"}]
    best, fast = marks(rows)
    assert (best["rollout_cards"], fast["rollout_cards"]) == (2, 1)  # pools of 6 and 9 cards, say
    assert [r["rollout_cards"] for r in finished(rows)] == [1, 2]
    assert marks([rows[2]]) == (None, None)
    assert np.isfinite([r["step_time_s"] for r in finished(rows)]).all()
