"""`lab sweep rl`: the rollout/trainer split of a pool as a sweep; a point is `lab simulate rl`."""
import csv
import json

import pytest

from core.registry import ParamError
from core.rl import RLParams, simulate, summarize
from core.rl.sweep import resolve_params
from core.sweep.executors import make_executor
from core.sweep.run import parse_sweep, run_sweep
from lab.cli import main

SPLIT = {"pool_cards": "8", "rollout_cards": "2:6:2", "steps": "2", "prompts": "2", "group": "4",
         "output_tokens": "64", "mode": "one_step"}


def test_the_split_keys_become_replicas_and_trainer_cards():
    p = resolve_params({"pool_cards": "8", "rollout_cards": "6", "rollout_tp": "2"})
    assert (p.rollout_replicas, p.rollout_tp, p.trainer_cards, p.total_cards) == (3, 2, 2, 8)
    for raw, field in (({"pool_cards": "8", "rollout_cards": "8"}, "rollout_cards"),
                       ({"pool_cards": "8", "rollout_cards": "3", "rollout_tp": "2"}, "rollout_cards"),
                       ({"pool_cards": "8"}, "rollout_cards"),
                       ({"pool_cards": "8", "rollout_cards": "2", "trainer_cards": "4"}, "trainer_cards")):
        with pytest.raises(ParamError) as err:
            resolve_params(raw)
        assert err.value.param == field, raw


def test_a_sweep_point_is_lab_simulate_rl_of_its_keys():
    spec = parse_sweep("rl", SPLIT)
    assert [p.params["values"]["rollout_replicas"] for p in spec.points] == [2, 4, 6]
    summary_rows = []
    summary = run_sweep(spec, None, make_executor("local", 1), on_row=summary_rows.append)
    assert summary["points"]["done"] == 3 and summary["points"]["refused"] == 0
    by_cards = {r["rollout_cards"]: r for r in summary_rows}
    for r in (2, 4, 6):
        alone = summarize(simulate(RLParams(steps=2, prompts=2, group=4, output_tokens=64, mode="one_step",
                                            rollout_replicas=r, trainer_cards=8 - r)))
        row = by_cards[r]
        assert row["trainer_cards"] == 8 - r and row["param.trainer_cards"] == 8 - r
        for key in ("step_time_s", "gpu_hours_per_1000_steps", "kept_samples", "staleness_max"):
            assert row[key] == alone[key], (r, key)
    best = min(summary_rows, key=lambda row: row["gpu_hours_per_1000_steps"])
    assert summary["rl_best"]["rollout_cards"] == best["rollout_cards"]
    assert summary["rl_best"]["values"] == {"rollout_cards": best["rollout_cards"]}
    assert summary["rl_fastest"]["step_time_s"] == min(row["step_time_s"] for row in summary_rows)


def test_lab_sweep_rl_writes_the_folder(tmp_path, capsys):
    out = tmp_path / "split"
    args = ["sweep", "rl"] + [f"{k}={v}" for k, v in SPLIT.items()] + ["--out", str(out), "--workers", "1", "--json"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert len(rows) == 3 and summary["rl_best"] is not None
    assert sorted(int(r["rollout_cards"]) for r in rows) == [2, 4, 6]
    assert main(args[:-1]) == 0  # the same folder again, as text: every point reused, the split named
    text = capsys.readouterr().out
    best = summary["rl_best"]
    assert "3 of 3 points (3 reused, 0 computed)" in text
    assert f"least GPU-hours: {best['rollout_cards']} rollout + {best['trainer_cards']} trainer cards" in text
    assert "Pareto" not in text and "SLO" not in text
    assert main(["sweep", "rl", "search=max_rate", "--out", str(tmp_path / "x")]) == 2
    assert "search:" in capsys.readouterr().err


def test_split_command_names_only_the_loops_own_keys():
    from core.rl.sweep import split_command, split_sweep

    p = RLParams(steps=2, prompts=3, group=4, rollout_replicas=2, rollout_tp=2, trainer_cards=3)
    raw = split_command(p, max_replicas=8)
    # A pool of 2·2 + 3 = 7 cards; engines of 2 cards: 1..3 of them leave the trainer >= 1 card
    # (prompts=2 would be the default, left out).
    assert raw == {"steps": "2", "prompts": "3", "group": "4", "rollout_tp": "2", "pool_cards": "7",
                   "rollout_cards": "2,4,6"}
    assert split_command(p, max_replicas=2)["rollout_cards"] == "2,4"
    one = split_sweep(RLParams(steps=2, prompts=2, group=4, rollout_replicas=1, trainer_cards=1), 8)
    assert [r["rollout_cards"] for r in one["rows"]] == [1] and one["best"]["trainer_cards"] == 1
