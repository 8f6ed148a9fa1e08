"""A model that does not fit is refused with the figures and what would fit; lab simulate
serving names the deployment it ran."""
import json

import pytest

from core.hardware_config import load_hardware
from core.model_config import model_spec
from core.registry import ParamError
from core.serving.deployment import plan
from lab.cli import main


def test_a_70b_model_on_one_80gb_card_is_refused_with_what_would_fit():
    with pytest.raises(ParamError) as err:
        plan(model_spec("llama-3.1-70b"), load_hardware("h100-sxm"))
    text = err.value.message
    assert err.value.param == "tp"
    assert "does not fit on h100-sxm" in text and "141.1 GB of weights per card" in text
    assert "0.9 × 85.1 GB = 76.6 GB" in text
    assert "tp=2 (KV pool" in text and "tp=4 (KV pool" in text and "quantization=fp8 at tp=1" in text


def test_lab_simulate_serving_names_the_deployment(capsys):
    assert main(["simulate", "serving", "model=llama-3.1-70b", "hardware=h100-sxm", "tp=4",
                 "durations_s=20", "rates_per_s=2", "shares_long_input=0.5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    d = report["deployment"]
    assert (d["model"], d["card"], d["tp"], d["cards_per_instance"]) == ("llama-3.1-70b", "h100-sxm", 4, 4)
    assert d["weights_bytes_per_card"] == plan(model_spec("llama-3.1-70b"), load_hardware("h100-sxm"), tp=4,
                                               token_budget=8192).weights_bytes_per_card
    assert d["kv_pool_from"] == "memory" and d["kv_pool_blocks"] == report["kv_pool_blocks"] > 0
    assert report["cards_per_replica"] == 4 and report["cost_per_hour"] == pytest.approx(4 * 2.99)


def test_a_misspelt_key_gets_did_you_mean(capsys):
    assert main(["simulate", "serving", "tpp=4"]) == 2
    assert "tpp: did you mean tp=?" in capsys.readouterr().err
    assert main(["simulate", "serving", "quantisation=fp8"]) == 2
    assert "did you mean quantization=?" in capsys.readouterr().err
