"""A calibration profile (core/serving/profile.py, re-exported by core/calibrate/profile.py):
written and read back exactly; hardware=P.toml and profile=P.toml set the card, the model
and the coefficients in lab simulate serving, explicit keys win; a bad profile is refused
naming the field."""
from __future__ import annotations

import pytest

from core.calibrate.profile import Profile, card_table, is_profile, load_profile, save_profile
from core.hardware_config import load_hardware
from core.registry import ParamError
from core.serving.headless import serving_report

BASE = {"dataset": "random", "num_prompts": "40", "request_rate": "10", "random_input_len": "512"}
FITTED = {"coef_step_s": 0.002, "coef_seq_s": 2.5e-05, "prefill_mfu": 0.4, "coef_decode_kv": 1.1}


def profile(hardware="h100-sxm", **kw) -> Profile:
    card = card_table(load_hardware(hardware))
    return Profile(model="qwen3-8b", hardware=hardware, card=card, engine="vLLM 0.32.0+cpu",
                   settings={"server": {"block_size": 32}}, coefficients=dict(FITTED),
                   samples=[{"coef_step_s": 0.0019}, {"coef_step_s": 0.0021}],
                   runs=[{"file": "a.json", "sha256": "0" * 64, "requests": 40, "fit_error_pct": 1.5}],
                   fit={"fit_keys": ["coef_step_s"], "converged": True}, **kw)


def test_round_trip_is_exact(tmp_path):
    path = tmp_path / "p.toml"
    p = profile()
    p.coefficients["coef_seq_s"] = 1 / 3  # a float that needs all its digits
    save_profile(p, path)
    q = load_profile(path)
    assert q.coefficients == p.coefficients and q.samples == p.samples
    assert (q.model, q.hardware, q.engine) == ("qwen3-8b", "h100-sxm", "vLLM 0.32.0+cpu")
    assert q.card == p.card and q.settings == p.settings and q.runs == p.runs and q.fit == p.fit
    assert is_profile(path)


def test_a_card_toml_is_not_a_profile(tmp_path):
    card = tmp_path / "card.toml"
    card.write_text('memory_gib = 8\nbandwidth_gb_s = 20\n[peak_tflops]\nbf16 = 1\n')
    assert not is_profile(card) and not is_profile(None) and not is_profile(tmp_path / "absent.toml")


def test_hardware_and_profile_keys_equal_the_explicit_keys(tmp_path):
    path = tmp_path / "p.toml"
    save_profile(profile(), path)
    explicit = {k: repr(v) for k, v in FITTED.items()}
    a, _ = serving_report(dict(BASE, model="qwen3-8b", hardware="h100-sxm", **explicit))
    b, _ = serving_report(dict(BASE, hardware=str(path)))  # the profile's model too
    c, _ = serving_report(dict(BASE, profile=str(path)))
    for key in ("median_ttft_ms", "median_tpot_ms", "p90_e2el_ms", "engine_steps"):
        assert a[key] == b[key] == c[key], key
    assert b["step_model"]["overhead_s"] == 0.002 and b["step_model"]["prefill_mfu"] == 0.4


def test_explicit_keys_win_over_the_profile(tmp_path):
    path = tmp_path / "p.toml"
    save_profile(profile(), path)
    a, _ = serving_report(dict(BASE, profile=str(path), coef_step_s="0.001"))
    explicit = dict({k: repr(v) for k, v in FITTED.items()}, coef_step_s="0.001")
    b, _ = serving_report(dict(BASE, model="qwen3-8b", hardware="h100-sxm", **explicit))
    assert a["median_tpot_ms"] == b["median_tpot_ms"] and a["step_model"]["overhead_s"] == 0.001
    # profile= with another card: that card, the profile's coefficients
    c, _ = serving_report(dict(BASE, profile=str(path), hardware="h200"))
    d, _ = serving_report(dict(BASE, model="qwen3-8b", hardware="h200", **{k: repr(v) for k, v in FITTED.items()}))
    assert c["median_tpot_ms"] == d["median_tpot_ms"]


def test_a_card_from_a_file_is_kept_in_the_profile(tmp_path):
    card = tmp_path / "cpu.toml"
    card.write_text('name = "CPU"\nmemory_gib = 48\nbandwidth_gb_s = 20\n[peak_tflops]\nbf16 = 0.5\nfp32 = 0.25\n')
    path = tmp_path / "p.toml"
    save_profile(profile(hardware=str(card)), path)
    card.unlink()  # the profile carries the card's figures itself
    a, _ = serving_report(dict(BASE, hardware=str(path)))
    card.write_text('name = "CPU"\nmemory_gib = 48\nbandwidth_gb_s = 20\n[peak_tflops]\nbf16 = 0.5\nfp32 = 0.25\n')
    b, _ = serving_report(dict(BASE, model="qwen3-8b", hardware=str(card), **{k: repr(v) for k, v in FITTED.items()}))
    assert a["median_ttft_ms"] == b["median_ttft_ms"] and a["kv_pool_blocks"] == b["kv_pool_blocks"]


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace("coef_step_s = 0.002", "coef_stp_s = 0.002"), "did you mean coef_step_s"),
    (lambda t: t.replace("coef_step_s = 0.002", "coef_step_s = -1.0"), "coef_step_s: got -1.0"),
    (lambda t: t.replace('format = "load-lab-profile"', 'format = "x"'), "format is 'x'"),
    (lambda t: t.replace("bandwidth_bytes_per_s = ", "bandwidth_bytes = "), "[card]"),
])
def test_a_bad_profile_is_refused_naming_the_field(tmp_path, edit, words):
    path = tmp_path / "p.toml"
    save_profile(profile(hardware=str(_card(tmp_path))), path)
    path.write_text(edit(path.read_text()))
    with pytest.raises(ParamError) as err:
        load_profile(path)
    assert words in err.value.message
    with pytest.raises(ParamError) as err:
        serving_report(dict(BASE, profile=str(path)))
    assert err.value.param == "profile"


def _card(tmp_path):
    card = tmp_path / "card.toml"
    card.write_text('memory_gib = 16\nbandwidth_gb_s = 20\n[peak_tflops]\nbf16 = 0.5\n')
    return card


def test_the_front_end_keys_are_skipped_with_frontend_off(tmp_path):
    path = tmp_path / "p.toml"
    p = profile()
    p.coefficients["frontend_output_token_us"] = 500.0
    save_profile(p, path)
    on, _ = serving_report(dict(BASE, profile=str(path)))
    assert on["client"]["frontend"]["output_token_us"] == 500.0
    off, _ = serving_report(dict(BASE, profile=str(path), frontend="off"))  # refused if the keys were applied
    assert off["client"]["frontend"] == "off (the engine alone)"
