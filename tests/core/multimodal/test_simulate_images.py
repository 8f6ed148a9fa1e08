"""`lab simulate serving` with image keys (core/serving/multimodal/report.py through headless)."""
import pytest

from core import catalog
from core.registry import ParamError
from core.serving.headless import serving_report
from core.serving.multimodal import images as im
from lab.cli.simulate import report_text

BOOK_CARD = "rtx-pro-6000-blackwell"


def test_image_share_with_an_encoder_cache():
    report, (result, work) = serving_report({"image_share": "0.5", "image_size": "1280x1280", "image_ids": "4",
                                             "encoder_cache_size": "8192"})
    b = report["images"]
    assert report["requests"] == 480 and b["image_requests"] == 240
    assert b["visual_tokens_total"] == 240 * 1600
    # Four ids of 1,600 tokens each fit the 8,192-token cache: each encodes once.
    assert (b["encoder_cache_misses"], b["encoder_cache_hits"]) == (4, 236)
    one = im.figures(1280, 1280).encode_flops / (catalog.hardware(BOOK_CARD).figure("bf16_dense_flops") * 0.4)
    assert b["encoder_added_ms"] == pytest.approx(4 * one * 1e3, rel=1e-12)
    assert b["ec_bytes"] == 4 * 31.25 * 2**20
    # The visual tokens are in the prompts the engine saw.
    assert int(work.input_tokens.sum()) == int(result.input_tokens.sum())
    assert "encoder cache 8,192 tokens: 236 hits, 4 encoded" in report_text(report)


def test_epd_reports_ec_moved_and_counts_latency_from_arrival():
    report, (result, work) = serving_report({"image_share": "1", "epd_encoders": "2", "ec_link_gb_s": "10"})
    b = report["images"]
    assert b["mode"] == "epd" and b["ec_bytes_moved"] == 480 * 8_192_000
    assert (result.arrival_s == work.arrival_s).all()
    # Every request's image is encoded (no cache) and its EC crosses the link before its prefill.
    encode = im.figures(640, 640).encode_flops / (catalog.hardware(BOOK_CARD).figure("bf16_dense_flops") * 0.4)
    assert result.ttft_s.min() >= encode + 8_192_000 / 10e9 + 10e-6
    # The book's arrivals never queue at two encoders: each stage adds exactly its own time.
    assert b["encoder_p95_ms"] == pytest.approx(encode * 1e3, rel=1e-9)
    assert b["ec_link_p95_ms"] == pytest.approx((8_192_000 / 10e9 + 10e-6) * 1e3, rel=1e-9)
    # One unit per JSON (lab/cli/report_units.py): the images block's times are in ms.
    assert not [k for k in b if k.endswith("_s") and k not in ("ec_link_latency_s", "ec_link_gb_s")]  # echoed keys


def test_no_image_refused():
    with pytest.raises(ParamError, match="image_share"):
        serving_report({"encoder_cache_size": "100"})
    with pytest.raises(ParamError, match="image_size"):
        serving_report({"image_share": "0.5", "image_size": "big"})


def test_a_client_limit_with_images_is_refused_not_ignored():
    # The image run replays the engine alone: a limit it would drop is refused, naming it.
    with pytest.raises(ParamError, match="not with images yet") as err:
        serving_report({"image_share": "0.5", "max_concurrency": "4"})
    assert err.value.param == "max_concurrency"


def test_a_hugging_face_config_with_a_vision_config_sets_the_figures(tmp_path):
    """vision_model= a config.json whose tower differs from the catalog's (Qwen3-VL-8B's:
    out_hidden_size 4096, three DeepStack mergers): 640x640 is still 40x40 patches of 16
    merged 2x2 = 400 tokens, but its EC is 400 x 4096 x (1 + 3) x 2 bytes = 13,107,200."""
    import json

    from core.registry import get

    config = {"model_type": "qwen3_vl", "vision_config": {
        "depth": 27, "hidden_size": 1152, "num_heads": 16, "intermediate_size": 4304, "patch_size": 16,
        "temporal_patch_size": 2, "spatial_merge_size": 2, "in_channels": 3, "out_hidden_size": 4096,
        "deepstack_visual_indexes": [8, 16, 24]}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    report, (result, work) = serving_report({"image_share": "0.25", "encoder_cache_size": "0",
                                             "vision_model": str(path)})
    b = report["images"]
    assert b["image_requests"] == 120 and b["visual_tokens_total"] == 120 * 400
    assert b["ec_bytes"] == 120 * 400 * 4096 * 4 * 2 == 120 * 13_107_200
    flops = get("vision.encode_flops").compute(model=str(path), height=640, width=640, resize="fit",
                                               min_pixels=65_536, max_pixels=16_777_216)["encode_flops"]
    assert flops > im.figures(640, 640).encode_flops  # a larger tower than the catalog's 4B one
    rate = catalog.hardware(BOOK_CARD).figure("bf16_dense_flops") * 0.4
    assert b["encoder_added_ms"] == pytest.approx(120 * flops / rate * 1e3, rel=1e-12)
    assert b["vision_model"] == str(path)
