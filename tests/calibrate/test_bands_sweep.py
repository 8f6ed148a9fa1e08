"""Bands through the commands: `lab simulate serving profile=P.toml` (text and --json),
`lab sweep serving` (a column per metric and end, P(meets the SLOs) per point) and the
capacity search at P >= confidence, each checked against the replays themselves."""
from __future__ import annotations

import json

import pytest

from core.calibrate.bands import banded_report
from core.serving.profile import Profile, save_profile
from lab.cli import main

# coef_step_s of five sets: with TPOT <= 30 ms at 2 requests/s, three meet it (>= 90% of
# requests), at 4/s none (11% at most); tests/calibrate/test_bands.py says why 30 and why the
# profile holds the decode reads at 1.
STEPS = (0.5e-3, 1e-3, 2e-3, 4e-3, 8e-3)
KEYS = ["rates_per_s=2,2", "slo_tpot_ms=30"]


@pytest.fixture
def profile(tmp_path):
    path = tmp_path / "p.toml"
    coefficients = {"coef_step_s": 2e-3, "coef_decode_weights": 1.0, "coef_decode_kv": 1.0}
    save_profile(Profile(model="qwen3-8b", hardware="h100-sxm", card={}, coefficients=coefficients,
                         samples=[{"coef_step_s": c} for c in STEPS]), path)
    return str(path)


def _json(capsys, args):
    code = main(args)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_simulate_with_a_profile_reports_bands_and_a_probability(profile, capsys):
    report = _json(capsys, ["simulate", "serving", f"profile={profile}", *KEYS, "--json"])
    assert report["band_samples"] == 5 and report["meets_slo_probability"] == pytest.approx(3 / 5)
    assert set(report["bands"]["median_ttft_ms"]) == {"p5", "p50", "p95"}
    # p50 of five is the third: the set equal to the profile's own point estimate (2 ms).
    assert report["bands"]["median_tpot_ms"]["p50"] == report["median_tpot_ms"]
    # hardware=P.toml names the same profile: the same bands.
    same = _json(capsys, ["simulate", "serving", f"hardware={profile}", *KEYS, "--json"])
    assert same["bands"] == report["bands"]
    assert main(["simulate", "serving", f"profile={profile}", *KEYS]) == 0
    text = capsys.readouterr().out
    assert "uncertainty over 5 coefficient sets" in text
    assert "probability 0.60 (3 of 5 coefficient sets)" in text


def test_a_sweep_point_has_band_columns_and_the_probability(profile, capsys, tmp_path):
    _json(capsys, ["sweep", "serving", f"profile={profile}", "rates_per_s=2,2;4,4", "slo_tpot_ms=30",
                   "band_samples=4", "--out", str(tmp_path / "sw"), "--json", "--workers", "1"])
    rows = [json.loads(line)["row"] for line in (tmp_path / "sw" / "points.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        rates = ",".join(str(r) for r in json.loads(row["param.rates_per_s"]))
        direct, _ = banded_report({"profile": profile, "rates_per_s": rates, "slo_tpot_ms": "30", "band_samples": "4"})
        assert row["meets_slo_probability"] == direct["meets_slo_probability"]
        for end in ("p5", "p50", "p95"):
            assert row[f"band.median_tpot_ms.{end}"] == direct["bands"]["median_tpot_ms"][end]
        assert row["band_samples"] == 4 and len(row["param.profile_sha256"]) == 64
    assert [r["meets_slo_probability"] for r in rows] == [0.75, 0.0]  # 3 of the first 4 sets at 2/s; none at 4/s


def test_the_capacity_search_passes_a_rate_at_p_meets_at_least_confidence(profile, capsys, tmp_path):
    _json(capsys, ["sweep", "serving", f"profile={profile}", *KEYS, "band_samples=5", "search=max_rate",
                   "confidence=0.6", "tolerance=0.05", "--out", str(tmp_path / "cap"), "--json", "--workers", "1"])
    (row,) = [json.loads(line)["row"] for line in (tmp_path / "cap" / "points.jsonl").read_text().splitlines()]
    assert row["search.confidence"] == 0.6 and row["search.meets_slo_probability"] >= 0.6
    found, upper = row["search.max_rate_multiplier"], row["search.upper_multiplier"]
    assert upper is not None and (upper - found) / found <= 0.05

    def prob(m):
        raw = {"profile": profile, "rates_per_s": f"{2 * m!r},{2 * m!r}", "slo_tpot_ms": "30", "band_samples": "5"}
        return banded_report(raw)[0]["meets_slo_probability"]

    assert prob(found) >= 0.6 > prob(upper)  # the bracket's ends, replayed again
    assert prob(1.0) == pytest.approx(0.6)  # the setting's own rate just passes: 3 of 5
