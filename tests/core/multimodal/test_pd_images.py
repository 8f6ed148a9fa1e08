"""E -> P -> D: image requests through prefill/decode pools (core/serving/multimodal/pd.py).
The images were silently dropped by a P/D run before; now the visual tokens are in the
prompts the prefill pool computes and in the KV that crosses to the decode pool, by hand."""
import csv
import json

import numpy as np
import pytest

from core import catalog
from core.serving.headless import serving_report
from core.serving.multimodal import images as im
from lab.cli import main
from lab.cli.simulate import report_text

BOOK_CARD = "rtx-pro-6000-blackwell"
KV = 147_456  # the book's Qwen3-8B: 36 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes
LINK = 50e9  # rdma-400g, the default kv_link
LATENCY = 5e-6
ENCODE_640 = im.figures(640, 640).encode_flops / (catalog.hardware(BOOK_CARD).figure("bf16_dense_flops") * 0.4)


def _trace(tmp_path):
    # Three requests far apart: two of one 640x640 image id, one of text only.
    path = tmp_path / "img.csv"
    path.write_text("arrival_s,input_tokens,output_tokens,images\n0,100,20,a:640x640\n5,100,20,a:640x640\n"
                    "10,50,10,\n")
    return str(path)


def test_an_images_trace_through_1p1d_ships_the_visual_tokens_kv(tmp_path):
    trace = _trace(tmp_path)
    report, (result, work) = serving_report({"trace": trace, "pools": "1P1D"})
    assert result.input_tokens.tolist() == [100 + 400, 100 + 400, 50]  # 640x640 -> 400 visual tokens
    assert report["total_input_tokens"] == 1050
    d = report["disaggregation"]
    assert d["transfer"]["bytes_total"] == 1050 * KV
    cols = result.extras["request_columns"]
    assert cols["kv_transfer_bytes"].tolist() == [500 * KV, 500 * KV, 50 * KV]
    assert cols["kv_transfer_s"] == pytest.approx([500 * KV / LINK + LATENCY] * 2 + [50 * KV / LINK + LATENCY],
                                                  rel=1e-12)
    b = report["images"]
    assert (b["mode"], b["pool"], b["images"], b["encoder_cache_hits"], b["encoder_cache_misses"]) == \
           ("in_instance", "prefill", 2, 1, 1)
    # The prefill engine paid one image's encoder seconds (the second request hit the cache).
    assert b["engine_encoder_ms"] == pytest.approx(ENCODE_640 * 1e3, rel=1e-12)
    assert b["encoder_added_ms"] == pytest.approx(ENCODE_640 * 1e3, rel=1e-12)
    assert "encoder in the prefill instance" in report_text(report)


def test_isolated_image_requests_have_the_single_pools_ttft(tmp_path):
    """Far apart, a request's prefill (and the encoder before it) is the same step in the
    prefill instance as in one instance: the first token lands at the same time."""
    trace = _trace(tmp_path)
    pd, (r_pd, _) = serving_report({"trace": trace, "pools": "1P1D"})
    one, (r_one, _) = serving_report({"trace": trace})
    assert np.array_equal(r_pd.first_token_s, r_one.first_token_s)
    assert pd["images"]["encoder_added_ms"] == one["images"]["encoder_added_ms"]
    # request 0 encodes, request 1 hits: its first token comes sooner by the encoder time
    ttft = r_pd.first_token_s - r_pd.arrival_s
    assert ttft[0] - ttft[1] == pytest.approx(ENCODE_640, rel=1e-9)


def test_image_share_with_pools_is_no_longer_dropped():
    small = {"durations_s": "20,20", "rates_per_s": "2,2"}
    text, (r_text, _) = serving_report({**small, "pools": "1P2D"})
    report, (result, _) = serving_report({**small, "pools": "1P2D", "image_share": "0.5"})
    assert report["images"]["image_requests"] == 40
    assert report["total_input_tokens"] == text["total_input_tokens"] + 40 * 400
    assert report["disaggregation"]["transfer"]["bytes_total"] == (text["total_input_tokens"] + 40 * 400) * KV


def test_epd_in_front_of_the_prefill_pool(tmp_path):
    """One encoder card and a 10 GB/s EC link: request 0's EC lands at the prefill pool after
    its encode and the 8,192,000-byte transfer; TTFT counts from the arrival at the system."""
    trace = _trace(tmp_path)
    report, (result, work) = serving_report({"trace": trace, "pools": "1P1D", "epd_encoders": "1",
                                             "ec_link_gb_s": "10", "ec_link_latency_s": "0.001"})
    b = report["images"]
    assert b["mode"] == "epd" and b["ec_bytes_moved"] == 8_192_000  # the hit moves no EC
    assert result.arrival_s.tolist() == [0.0, 5.0, 10.0]  # the system's arrivals
    landed = ENCODE_640 + 8_192_000 / 10e9 + 0.001
    assert b["ec_wait_p95_ms"] == pytest.approx(landed * 1e3, rel=1e-9)
    # The prefill pool's own TTFT counts from the EC's landing; the run's from the arrival.
    pool_ttft_ms = report["disaggregation"]["prefill"]["ttft_ms"]["max"]
    assert (result.first_token_s[0] - 0.0) * 1e3 == pytest.approx(landed * 1e3 + pool_ttft_ms, rel=1e-9)
    assert report["disaggregation"]["waits"]["prefill_queue_ms"]["max"] == 0.0  # nothing queues at the engine
    assert "EC over 10 GB/s to the prefill pool" in report_text(report)


def test_out_files_carry_the_visual_tokens(tmp_path, capsys):
    trace = _trace(tmp_path)
    out = tmp_path / "run"
    assert main(["simulate", "serving", f"trace={trace}", "pools=1P1D", "--out", str(out)]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader((out / "requests.csv").open()))
    assert [int(r["input_tokens"]) for r in rows] == [500, 500, 50]
    assert [float(r["kv_transfer_bytes"]) for r in rows] == [500 * KV, 500 * KV, 50 * KV]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["images"]["images"] == 2 and summary["disaggregation"]["pools"] == "1P1D"


def test_cheapest_pools_searches_with_the_images():
    small = {"durations_s": "20,20", "rates_per_s": "2,2", "slo_ttft_ms": "3000"}
    found, _ = serving_report({**small, "pools": "cheapest:2x2", "image_share": "0.5"})
    assert found["pools_search"]["found"] == found["disaggregation"]["pools"]
    assert found["images"]["image_requests"] == 40
    text, _ = serving_report({**small, "pools": found["disaggregation"]["pools"]})
    assert found["total_input_tokens"] == text["total_input_tokens"] + 40 * 400


def test_seeds_with_images_and_pools_refused():
    from core.registry import ParamError
    with pytest.raises(ParamError) as err:
        serving_report({"pools": "1P1D", "image_share": "0.5", "seeds": "1,2"})
    assert err.value.param == "seeds"


def test_epd_encoder_cards_are_in_the_cost():
    """Two encoder cards in front: the run pays for them (priced as the card they feed)."""
    small = {"durations_s": "20,20", "rates_per_s": "2,2", "image_share": "0.5", "epd_encoders": "2"}
    one, _ = serving_report(small)
    p = one["price_per_card_hour"]
    assert one["cost_per_hour"] == pytest.approx(3 * p, rel=1e-12)  # the instance and two encoders
    assert one["images"]["encoder_cost_per_hour"] == pytest.approx(2 * p, rel=1e-12)
    per_million = 3 * p * one["duration"] / 3600 / (one["total_output_tokens"] / 1e6)
    assert one["cost_per_million_output_tokens"] == pytest.approx(per_million, rel=1e-9)
    pd, _ = serving_report({**small, "pools": "1P1D"})
    d = pd["disaggregation"]
    assert pd["cards"] == d["cards"] == 4 and pd["images"]["encoder_cards"] == 2
    assert pd["cost_per_hour"] == d["cost_per_hour"] == pytest.approx(4 * p, rel=1e-12)
    per_million = 4 * p * pd["duration"] / 3600 / (pd["total_output_tokens"] / 1e6)
    assert pd["cost_per_million_output_tokens"] == pytest.approx(per_million, rel=1e-9)
    assert "2 EPD encoder card(s)" in report_text(pd)


def test_layerwise_overlaps_the_language_prefill_not_the_encoder(tmp_path):
    """KV exists layer by layer only once the LM's prefill runs: the encoder's seconds in the
    same step hide none of the transfer. A lone 500-token prompt over 1 GB/s, 36 layers:
    exposed = max(wire / 36, wire - (TTFT - encoder) x 35 / 36) + latency."""
    path = tmp_path / "one.csv"
    path.write_text("arrival_s,input_tokens,output_tokens,images\n0,100,20,a:640x640\n")
    report, (result, _) = serving_report({"trace": str(path), "pools": "1P1D", "kv_link": "1",
                                          "kv_transfer": "layerwise"})
    wire = 500 * KV / 1e9
    lm_prefill = float(result.first_token_s[0]) - ENCODE_640  # the step: the encoder, then the prompt
    exposed = max(wire / 36, wire - lm_prefill * 35 / 36)
    got = result.extras["request_columns"]["kv_transfer_s"][0]
    latency = report["disaggregation"]["kv_link"]["latency_ms"] / 1e3
    assert got == pytest.approx(exposed + latency, rel=1e-12)
    assert got > max(wire / 36, wire - float(result.first_token_s[0]) * 35 / 36) + latency  # not hidden behind it


def test_sweep_over_xpyd_with_images(tmp_path, capsys):
    """lab sweep serving's points over prefill x decode carry the images: each point's
    prompts are the text ones plus 40 x 400 visual tokens."""
    small = {"durations_s": "20,20", "rates_per_s": "2,2"}
    text, _ = serving_report(small)
    out = tmp_path / "sweep"
    assert main(["sweep", "serving", "prefill_replicas=1,2", "decode_replicas=1", "image_share=0.5",
                 *(f"{k}={v}" for k, v in small.items()), "--out", str(out)]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert len(rows) == 2
    assert {int(r["total_input_tokens"]) for r in rows} == {text["total_input_tokens"] + 40 * 400}
    assert {int(r["cards"]) for r in rows} == {2, 3}
