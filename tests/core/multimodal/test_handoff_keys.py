"""The book's three handoffs as `lab simulate serving` deployments (§3.3.1, 图 3-16):
ship the image (image_link_gb_s=: the files cross, the instance encodes), ship EC
(epd_encoders= ec_link_gb_s=), ship KV (pools=1P1D kv_link=). What crosses each link is
the Vision panel's figure for the same request; times by hand."""
import pytest

from core import catalog
from core.registry import ParamError, get
from core.serving.headless import serving_report
from core.serving.multimodal import images as im

BOOK_CARD = "rtx-pro-6000-blackwell"
FILE = 800_000  # the book's 0.8 MB screenshot
ENCODE_640 = im.figures(640, 640).encode_flops / (catalog.hardware(BOOK_CARD).figure("bf16_dense_flops") * 0.4)


def _trace(tmp_path, rows, name="visual.csv"):
    path = tmp_path / name
    path.write_text("arrival_s,input_tokens,output_tokens,images\n" + "".join(rows))
    return str(path)


def test_each_handoff_moves_the_vision_panels_bytes(tmp_path):
    """One visual question: 400 text tokens after one 640x640 screenshot of 0.8 MB."""
    trace = _trace(tmp_path, [f"0,400,16,a:640x640:{FILE}\n"])
    calc = get("vision.request")
    book = calc.compute(**calc.resolve({"heights": "640", "widths": "640", "file_bytes": str(FILE)}))
    assert (book["raw_bytes"], book["ec_bytes"], book["input_kv_bytes"]) == (FILE, 8_192_000, 112.5 * 2**20)
    image, _ = serving_report({"trace": trace, "image_link_gb_s": "1"})
    ec, _ = serving_report({"trace": trace, "epd_encoders": "1", "ec_link_gb_s": "1"})
    kv, _ = serving_report({"trace": trace, "pools": "1P1D", "kv_link": "1"})
    assert image["images"]["image_bytes_moved"] == book["raw_bytes"]
    assert ec["images"]["ec_bytes_moved"] == book["ec_bytes"]
    assert kv["disaggregation"]["transfer"]["bytes_total"] == book["input_kv_bytes"]  # 800 tokens x 144 KiB


def test_ship_the_image_delays_the_request_by_its_link_time(tmp_path):
    """Two requests ready together share the link one after another: the first lands after
    file / bandwidth + latency, the second a file later; each then runs as it would have."""
    trace = _trace(tmp_path, [f"0,100,8,a:640x640:{FILE}\n", f"0,100,8,b:640x640:{FILE}\n"])
    landed = _trace(tmp_path, [f"0.0064100,100,8,a:640x640:{FILE}\n", f"0.0128100,100,8,b:640x640:{FILE}\n"], "landed.csv")
    shipped, (r, _) = serving_report({"trace": trace, "image_link_gb_s": "0.125", "image_link_latency_s": "10us"})
    b = shipped["images"]
    one = FILE / 0.125e9 + 10e-6  # 6.41 ms
    assert (b["image_bytes_moved"], b["mode"]) == (2 * FILE, "in_instance")
    assert b["image_link_p50_ms"] == pytest.approx(one * 1e3, rel=1e-12)
    assert b["image_link_p95_ms"] == pytest.approx((one + FILE / 0.125e9) * 1e3, rel=1e-12)
    assert r.arrival_s.tolist() == [0.0, 0.0]  # latencies count from the arrival at the system
    # The engine saw them arrive when they landed: as a trace arriving then, with no link
    # (the loader starts a trace at its first arrival: that one lands at `one`).
    _, (there, _) = serving_report({"trace": landed})
    assert there.arrival_s == pytest.approx([0.0, FILE / 0.125e9], abs=1e-15)
    assert r.first_token_s == pytest.approx(there.first_token_s + one, abs=1e-9)
    assert r.first_token_s[0] - one > ENCODE_640  # after landing: its encode, then its prefill
    assert shipped["images"]["engine_encoder_ms"] == pytest.approx(2 * ENCODE_640 * 1e3, rel=1e-12)  # it encodes


def test_ship_the_image_through_pools_and_its_refusals(tmp_path):
    trace = _trace(tmp_path, [f"0,100,8,a:640x640:{FILE}\n"])
    report, (r, _) = serving_report({"trace": trace, "pools": "1P1D", "image_link_gb_s": "0.125"})
    assert report["images"]["pool"] == "prefill" and report["images"]["image_bytes_moved"] == FILE
    assert r.arrival_s.tolist() == [0.0] and r.first_token_s[0] > FILE / 0.125e9 + ENCODE_640
    with pytest.raises(ParamError) as err:
        serving_report({"image_share": "0.5", "image_link_gb_s": "1", "epd_encoders": "1"})
    assert err.value.param == "image_link_gb_s"
    sizeless = _trace(tmp_path, ["0,100,8,a:640x640\n"], "sizeless.csv")
    with pytest.raises(ParamError, match="no file size") as err:
        serving_report({"trace": sizeless, "image_link_gb_s": "1"})
    assert err.value.param == "image_link_gb_s"
