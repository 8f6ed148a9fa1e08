"""The Plan panel's xPyD sweep (issue 15 in the window): the grid's best cell is the
capacity search's answer (`lab simulate serving pools=cheapest:XxY` for the same keys);
each cell is that point's row; a refused key shows under its field."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import shiboken6

from lab.cli import main
from widgets.kit.jobs import jobs
from widgets.plan import PlanPanel
from widgets.plan.xpyd_grid import Cell, best, cell_text, cells


def _panel(qtbot):
    p = PlanPanel(first_sweep=False)
    qtbot.addWidget(p)
    p.resize(1280, 720)
    p.show()
    return p


def _close(p):
    if shiboken6.isValid(p):
        p.close()
    jobs().wait_idle()


def test_best_cell_is_pools_cheapest(qtbot, capsys):
    p = _panel(qtbot)
    card = p.xpyd_card
    with qtbot.waitSignal(card.finished, timeout=120_000) as got:
        assert card.run("inprocess")
    summary = got.args[0]
    assert summary["points"]["done"] == 9 and summary["points"]["refused"] == 0
    capsys.readouterr()
    argv = [f"{k}={v}" for k, v in card.cheapest_keys().items()]
    assert argv[0] == "pools=cheapest:3x3"
    assert main(["simulate", "serving", *argv, "--json"]) == 0
    search = json.loads(capsys.readouterr().out)["pools_search"]
    assert card.best is not None and card.best.label == search["found"]
    # every run the search made is that cell of the grid, attainment for attainment
    grid = cells(card.runner.rows, summary["attainment"])
    for tried in search["tried"]:
        x, y = (int(n) for n in tried["pools"].rstrip("D").split("P"))
        assert grid[(x, y)].attainment == tried["slo_attainment"]
    label = card.grid.labels[(card.best.prefill, card.best.decode)]
    assert label.text() == cell_text(card.best) and "3px solid" in label.styleSheet()
    assert f"<code>{card.best.label}</code>" in card.answer.text()
    _close(p)


def test_a_refused_key_shows_under_its_field(qtbot):
    p = _panel(qtbot)
    card = p.xpyd_card
    card.fields["slo_ttft_ms"].edit.setText("soon")
    with qtbot.waitSignal(card.failed, timeout=60_000) as got:
        assert card.run("inprocess")
    assert got.args[0] == "slo_ttft_ms"
    error = card.fields["slo_ttft_ms"].error_label
    assert error.isVisibleTo(card) and error.text() == got.args[1]
    card.fields["other"].edit.setText("durations_s")  # not a KEY=VALUE pair: refused before any run
    assert not card.run("inprocess") and "KEY=VALUE" in card.fields["other"].error_label.text()
    _close(p)


def test_best_orders_as_the_capacity_search():
    grid = {(1, 1): Cell(1, 1, 0.5, 2.0, False), (2, 1): Cell(2, 1, 0.95, 3.0, True),
            (1, 2): Cell(1, 2, 0.92, 3.0, True), (2, 2): Cell(2, 2, 1.0, 4.0, True)}
    assert best(grid).label == "1P2D"  # equal cost: fewer instances, then fewer prefill
    assert best({(1, 1): grid[(1, 1)]}) is None
    rows = [{"param.prefill_replicas": 1, "param.decode_replicas": 2, "slo_attainment": 0.95, "cost_per_hour": 3.0},
            {"param.prefill_replicas": 1, "param.decode_replicas": 2, "slo_attainment": 0.85, "cost_per_hour": 3.0}]
    assert cells(rows, 0.9)[(1, 2)] == Cell(1, 2, 0.85, 3.0, False)  # seeds: the worst one


def test_the_swept_grid_reads_in_either_language(qtbot):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_i18n import assert_reads_in_either_language, shown_texts

    p = _panel(qtbot)
    card = p.xpyd_card
    card.max_prefill.setValue(2)
    card.max_decode.setValue(2)
    with qtbot.waitSignal(card.finished, timeout=120_000):
        assert card.run("inprocess")
    assert_reads_in_either_language(lambda: shown_texts(card))
    _close(p)
