"""Per-card coefficients in the calibration on summary figures (core/calibrate/card_keys.py,
summaries.py) and the held-out folds that choose keys (summary_select.py)."""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest

from core.calibrate import card_keys
from core.calibrate.profile import load_profile
from core.calibrate.summaries import SCORED, SummaryReplay, SummaryRun, calibrate_summaries, checked_keys, replays_of
from core.calibrate.summary_profile import cli_run
from core.calibrate.summary_select import fold_ids, leave_out, select_keys
from core.registry import ParamError
from tests.calibrate.test_summaries import _runs_toml, keys_of

H100, A100 = "h100-sxm", "a100-80gb"


def run_on(card: str, shape: str, coefs: dict | None = None, model: str = "qwen3-8b") -> SummaryRun:
    """A run on card whose 'measured' figures are the replay's own at coefs."""
    keys = dict(keys_of(shape), hardware=card, model=model)
    rid = f"{model}/{card}/{shape}"
    figures = SummaryReplay(SummaryRun(rid, keys, {m: 1.0 for m in SCORED})).predict(coefs or {})
    return SummaryRun(rid, keys, figures)


def test_expand_and_for_card_by_hand():
    assert card_keys.expand(("coef_decode_weights@card", "coef_seq_s", "coef_attention@h100-sxm"), (A100, H100)) == (
        "coef_decode_weights@a100-80gb", "coef_decode_weights@h100-sxm", "coef_seq_s", "coef_attention@h100-sxm")
    coefs = {"coef_decode_weights@a100-80gb": 0.8, "coef_decode_weights@h100-sxm": 1.25, "coef_seq_s": 2e-5}
    assert card_keys.for_card(coefs, H100) == {"coef_decode_weights": 1.25, "coef_seq_s": 2e-5}
    assert card_keys.for_card(coefs, A100) == {"coef_decode_weights": 0.8, "coef_seq_s": 2e-5}
    # A card with no value of its own: the geometric mean of the others', √(0.8 · 1.25) = 1.
    h200 = card_keys.for_card(coefs, "h200")
    assert h200["coef_decode_weights"] == pytest.approx(1.0, abs=1e-15) and h200["coef_seq_s"] == 2e-5
    assert card_keys.for_card({"coef_attention@h100-sxm": 1.5}, "h200") == {"coef_attention": 1.5}


def test_a_per_card_key_moves_its_cards_runs_only():
    """At its default a per-card key replays bit for bit as no key; moved, it changes the
    runs on its card and leaves the other card's as they were."""
    h, a = (SummaryReplay(run_on(c, "prefill")) for c in (H100, A100))
    assert h.predict({"coef_prefill_compute@h100-sxm": 1.0}) == h.predict({})
    moved = {"coef_prefill_compute@h100-sxm": 1.5}
    assert h.predict(moved)["mean_ttft_ms"] > 1.2 * h.predict({})["mean_ttft_ms"]
    assert a.predict(moved) != a.predict({})  # A100 has no value of its own: the mean (1.5)
    both = {"coef_prefill_compute@h100-sxm": 1.5, "coef_prefill_compute@a100-80gb": 1.0}
    assert a.predict(both) == a.predict({})


def test_per_card_fit_recovers_each_cards_coefficient_where_a_shared_one_cannot():
    """Runs simulated with the prompts' matrix work 1.25× on the H100 and 0.8× on the A100: fitting
    coef_prefill_compute per card recovers both within 2% and the figures to ≈ 0; one
    shared value must split the difference and misses both cards' runs."""
    truth = {"coef_prefill_compute@h100-sxm": 1.25, "coef_prefill_compute@a100-80gb": 0.8}
    runs = [run_on(c, s, truth) for c in (H100, A100) for s in ("prefill", "mixed")]
    cal = calibrate_summaries(runs, fit_keys=("coef_prefill_compute@card",), scan=False)
    assert cal.converged and set(cal.fit_keys) == set(truth)
    for k, v in truth.items():
        assert abs(cal.coefficients[k] - v) / v < 0.02, k
        assert cal.defaults[k] == 1.0
    errs = [abs(f["error_after_pct"]) for t in cal.per_run for f in t["figures"].values() if f["scored"]]
    shared = calibrate_summaries(runs, fit_keys=("coef_prefill_compute",), scan=False)
    shared_errs = [abs(f["error_after_pct"]) for t in shared.per_run for f in t["figures"].values() if f["scored"]]
    assert max(errs) < 1.0 < max(shared_errs)


def test_bad_per_card_keys_are_refused_by_name():
    runs = [run_on(H100, "prefill")]
    with pytest.raises(ParamError, match="'coef_bogus@h100-sxm' is no coefficient"):
        calibrate_summaries(runs, fit_keys=("coef_bogus@card",), scan=False)
    with pytest.raises(ParamError, match="coef_seq_s asked both shared and per card"):
        calibrate_summaries(runs, fit_keys=("coef_seq_s", "coef_seq_s@card"), scan=False)
    cal = calibrate_summaries(runs, fit_keys=("coef_prefill_compute@a100-80gb",), scan=False)
    assert cal.fit_keys == () and "no run on a100-80gb" in cal.frozen["coef_prefill_compute@a100-80gb"]


def test_folds_of_one_model_on_one_card():
    runs = [run_on(H100, "prefill"), run_on(A100, "prefill"), run_on(H100, "mixed"),
            run_on(H100, "prefill", model="qwen3-14b")]
    replays, _ = replays_of(runs)
    assert fold_ids(replays, "model_card") == [[0, 2], [1], [3]]
    assert fold_ids(replays, "run") == [[0], [1], [2], [3]]
    with pytest.raises(ParamError, match="folds"):
        fold_ids(replays, "card")


def test_held_out_folds_pick_the_per_card_key_where_the_cards_differ():
    """The H100's matrix work 1.25×, the A100's 0.8×, two workloads on each card: with one
    run a fold, a per-card fit to the other runs predicts the one left out (≈ 0), a shared
    fit cannot, so the selection takes the per-card key and nothing after it."""
    truth = {"coef_prefill_compute@h100-sxm": 1.25, "coef_prefill_compute@a100-80gb": 0.8}
    runs = [run_on(c, s, truth) for c in (H100, A100) for s in ("prefill", "mixed")]
    per_card = leave_out(runs, ("coef_prefill_compute@card",), folds="run")
    shared = leave_out(runs, ("coef_prefill_compute",), folds="run")
    assert len(per_card["errors_pct"]) == 4 * len(SCORED)
    assert per_card["median_abs_error_pct"] < 0.5 < shared["median_abs_error_pct"]
    keys, rounds = select_keys(runs, ("coef_prefill_compute", "coef_prefill_compute@card"), folds="run")
    assert keys == ("coef_prefill_compute@card",)
    assert rounds[1]["took"] == "coef_prefill_compute@card" and len(rounds) == 2  # the shared one is not tried after
    assert math.isfinite(rounds[0]["held_out_median_abs_error_pct"])


def test_a_profile_of_one_card_holds_plain_names(tmp_path, capsys):
    """lab calibrate --summaries with NAME@card on one card's runs: the profile's coefficient
    is NAME (what hardware=PROFILE.toml takes), at the value that generated the runs."""
    runs = [run_on(H100, s, {"coef_decode_weights": 1.25}) for s in ("decode", "mixed")]
    path = tmp_path / "runs.toml"
    path.write_text(_runs_toml(runs))
    out = tmp_path / "p.toml"
    assert cli_run(str(path), str(out), True, "coef_decode_weights@card", 0) == 0
    assert json.loads(capsys.readouterr().out)["fit_keys"] == ["coef_decode_weights@h100-sxm"]
    prof = load_profile(out)
    assert not any("@" in k for k in prof.coefficients)
    assert abs(prof.coefficients["coef_decode_weights"] - 1.25) / 1.25 < 0.02


def test_a_shared_key_whose_default_is_the_cards_own_is_fitted_per_card():
    """A key with one default on each card but not the same on both (a per-card default, as
    step_defaults.CARD_DECODE_READ gives) cannot be one shared value: it is fitted per card;
    one the same everywhere stays shared; a key given per card stays as given."""
    def replay(card, w):
        return SimpleNamespace(card=card, defaults={"coef_decode_weights": w, "coef_seq_s": 15e-6})

    replays = [replay(H100, 1.15), replay(A100, 1.0), replay(H100, 1.15)]
    assert checked_keys(("coef_decode_weights", "coef_seq_s"), replays) == (
        "coef_decode_weights@h100-sxm", "coef_decode_weights@a100-80gb", "coef_seq_s")
    assert checked_keys(("coef_seq_s@card",), replays) == ("coef_seq_s@h100-sxm", "coef_seq_s@a100-80gb")
    # Two defaults on one card: not the card's own, left shared (calibrate_summaries then keeps it, saying why).
    assert checked_keys(("coef_decode_weights",), replays + [replay(H100, 1.0)]) == ("coef_decode_weights",)


def test_each_run_replays_its_own_cards_defaults():
    """Runs on two cards whose defaults differ (step_defaults' per-card decode reads), each
    'measured' at its own defaults: a calibration fitting nothing, and one fitting a key
    both share, replays every run at its own card's defaults (0 error before; the
    first run's defaults would move the other card's runs)."""
    runs = [run_on(A100, "decode"), run_on(H100, "decode")]
    replays, _ = replays_of(runs)
    assert replays[0].defaults != replays[1].defaults  # else this checks nothing
    for keys in ((), ("coef_prefill_compute",)):
        cal = calibrate_summaries(runs, fit_keys=keys, scan=False)
        for t in cal.per_run:
            for m, f in t["figures"].items():
                assert f["error_before_pct"] == 0.0, (t["run"], m)
