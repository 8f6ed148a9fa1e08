"""A result rerun from its written config.toml is bit-identical, whatever order the keys were
given in: config.toml keeps the order the run resolved, so a sweep's axes (the first the
slowest) come back in that order and so do its rows and its summary."""
from __future__ import annotations

import csv

from lab.cli import main

SMALL = ["durations_s=10", "rates_per_s=2", "shares_long_input=0.5"]


def _rows(folder):
    with open(folder / "results.csv", encoding="utf-8") as fh:
        return [{k: v for k, v in r.items() if k != "wall_s"} for r in csv.DictReader(fh)]


def test_a_two_axis_sweep_reruns_in_its_own_order(tmp_path, capsys):
    first, again = tmp_path / "first", tmp_path / "again"
    # not in alphabetical order: token_budget is the slowest axis
    argv = ["sweep", "serving", *SMALL, "token_budget=512,1024", "max_num_seqs=4,8", "--workers", "1", "--json"]
    assert main(argv + ["--out", str(first)]) == 0
    assert main(["sweep", "serving", "--config", str(first / "config.toml"), "--workers", "1", "--json",
                 "--out", str(again)]) == 0
    capsys.readouterr()
    assert [(r["param.token_budget"], r["param.max_num_seqs"]) for r in _rows(first)] == [
        ("512", "4"), ("512", "8"), ("1024", "4"), ("1024", "8")]
    assert _rows(again) == _rows(first)
    assert (again / "summary.json").read_bytes() == (first / "summary.json").read_bytes()
    assert (again / "config.toml").read_bytes() == (first / "config.toml").read_bytes()
