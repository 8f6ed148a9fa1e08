"""hardware=: a card's TOML (or a catalog card) → the replay's bandwidth, peak and memory."""
import pytest

from core import catalog
from core.hardware_config import HardwareSpec, card_replay_values, hardware_replay_params, load_hardware
from core.model_config.reading import shown_path
from core.registry import ParamError
from core.units import GiB

H200 = """
name = "H200 SXM"
memory_gib = 141
bandwidth_tb_s = 4.8
source = "vendor datasheet"
[peak_tflops]
bf16 = 989.4
fp8 = 1978.9
"""


def _file(tmp_path, text, name="card.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_card_file_in_its_units(tmp_path):
    card = load_hardware(_file(tmp_path, H200))
    assert card.name == "H200 SXM"
    assert card.memory_bytes == 141 * GiB
    assert card.bandwidth_bytes_per_s == 4.8e12
    assert card.peak_flops == {"bf16": 989.4e12, "fp8": 1978.9e12}
    assert hardware_replay_params(_file(tmp_path, H200), "fp8") == {
        "bandwidth_bytes_per_s": 4.8e12, "peak_flops": 1978.9e12, "memory_bytes": 141.0 * GiB}


def test_other_units_and_the_default_name(tmp_path):
    text = "memory_gb = 80\nbandwidth_bytes_per_s = 3.35e12\n[peak_flops]\nbf16 = 989.4e12\n"
    card = load_hardware(_file(tmp_path, text, "h100.toml"))
    assert (card.name, card.memory_bytes, card.bandwidth_bytes_per_s) == ("h100", 80e9, 3.35e12)


def test_catalog_cards_give_the_replay_defaults():
    card = catalog.hardware("rtx-pro-6000-blackwell")
    assert hardware_replay_params("rtx-pro-6000-blackwell") == {
        "bandwidth_bytes_per_s": card.bandwidth_bytes_per_s, "peak_flops": card.bf16_dense_flops,
        "memory_bytes": card.memory_bytes}


def test_a_card_without_bandwidth_is_refused_naming_it():
    # Every catalog card now has memory and bandwidth (h800 had neither): a card without them
    # is refused naming the missing figures and the usable catalog cards.
    bare = HardwareSpec("h800", None, None, {"bf16": 989.4e12})
    with pytest.raises(ParamError) as err:
        card_replay_values(bare)
    assert err.value.param == "hardware"
    assert "h800: no memory_bytes, bandwidth_bytes_per_s; valid: a100-40gb, a100-80gb, b200, h100-pcie" in err.value.message
    with pytest.raises(ParamError) as err:
        hardware_replay_params("a100-80gb", "fp8")  # Ampere has no FP8 peak
    assert "no peak_flops.fp8; valid: b200, h100-pcie, h100-sxm, h200, h800, l40s, mi300x" in err.value.message


def test_catalog_cards_carry_their_link_and_peaks():
    card = load_hardware("h100-sxm")
    assert (card.link_kind, card.link_bandwidth_bytes_per_s) == ("nvlink", 450e9)
    assert card.peak_flops == {"bf16": 989.4e12, "fp8": 1978.9e12}
    assert card.usable_memory_bytes == pytest.approx(79.22 * GiB)
    assert load_hardware("b200").peak_flops["fp4"] == 9e15
    assert load_hardware("l40s").link_kind == "pcie"
    assert load_hardware("mi300x").link_kind == "infinity-fabric"


def test_a_toml_card_gives_its_link(tmp_path):
    card = load_hardware(_file(tmp_path, 'link_kind = "nvlink"\nlink_bandwidth_gb_s = 450\nlink_latency_us = 3\n' + H200))
    assert (card.link_kind, card.link_bandwidth_bytes_per_s, card.link_latency_s) == ("nvlink", 450e9, pytest.approx(3e-6))
    assert card.peak_flops == {"bf16": 989.4e12, "fp8": 1978.9e12}
    with pytest.raises(ParamError, match="field link_kind: 'nvlinc'"):
        load_hardware(_file(tmp_path, 'link_kind = "nvlinc"\n' + H200, "bad.toml"))
    with pytest.raises(ParamError, match="field link_latency_ms: unknown key"):
        load_hardware(_file(tmp_path, 'link_latency_ms = 3\n' + H200, "bad2.toml"))


@pytest.mark.parametrize("text, message", [
    ("bandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 1\n", "missing field memory_bytes or memory_gb or memory_gib"),
    ("memory_gib = 1\nmemory_gb = 1\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 1\n", "field memory_gib: given with memory_gb"),
    ("memory_gib = 141\nbandwith_tb_s = 4.8\n[peak_tflops]\nbf16 = 1\n", "field bandwith_tb_s: unknown key"),
    ("memory_gib = 141\nbandwidth_tb_s = 4.8\n", "missing field peak_tflops"),
    ("memory_gib = 141\nbandwidth_tb_s = -1\n[peak_tflops]\nbf16 = 1\n", "field bandwidth_tb_s: got -1"),
    ("memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 'fast'\n", "field peak_tflops.bf16: got 'fast'"),
    ("memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = nan\n", "field peak_tflops.bf16: got nan"),
    ("memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\nbf16 = 0\n", "field peak_tflops.bf16: got 0"),
    ("memory_gib = 141\nbandwidth_tb_s = 4.8\n[peak_tflops]\n", "field peak_tflops: 0 entries"),
    ("memory_gib = [1\n", "not valid TOML"),
])
def test_bad_cards_are_refused_naming_the_field(tmp_path, text, message):
    path = _file(tmp_path, text)
    with pytest.raises(ParamError) as err:
        load_hardware(path)
    assert err.value.param == "hardware"
    assert err.value.message.startswith(shown_path(path) + ": ")  # a long path shortened, as quoted
    assert message in err.value.message


def test_a_dtype_the_card_lacks_is_refused(tmp_path):
    with pytest.raises(ParamError) as err:
        hardware_replay_params(_file(tmp_path, H200), "fp4")
    assert "no peak_flops.fp4" in err.value.message


def test_untrusted_files(tmp_path):
    for path, message in (("/dev/zero", "not a regular file"), (str(tmp_path), "not a regular file"),
                          (str(tmp_path / "none.toml"), "cannot open")):
        with pytest.raises(ParamError) as err:
            load_hardware(path)
        assert message in err.value.message
    big = tmp_path / "big.toml"
    big.write_text("#" * 2_000_000)
    with pytest.raises(ParamError, match="2,000,000 bytes"):
        load_hardware(str(big))


def test_a_mistyped_card_key_lists_the_catalog(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParamError) as err:
        load_hardware("h100")
    assert err.value.param == "hardware"
    assert "'h100': no catalog card or file of that name (did you mean h100-pcie or h100-sxm?); valid: one of a100-40gb, a100-80gb, " \
           "b200, h100-pcie, h100-sxm" in err.value.message
    (tmp_path / "h100").write_text(H200)  # a file of that name is read
    assert load_hardware("h100").memory_bytes == pytest.approx(141 * 2**30)
