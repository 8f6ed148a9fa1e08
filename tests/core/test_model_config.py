"""model.config: real config.json files (tests/data/model_configs, sources in its README)
against published parameter counts, Qwen3-8B exactly against the catalog, and refusals."""
import json
import math
import os
from pathlib import Path

import pytest

from core import catalog
from core.model_config import load_model_config, model_spec, replay_params
from core.model_config.as_catalog import model_or_config
from core.model_config.reading import MAX_CONFIG_BYTES, shown_path
from core.registry import ParamError, get
from core.serving.step_cost import StepCost
from core.training.model import shape

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "model_configs"


def spec(name, dtype_bytes=2):
    return load_model_config(str(CONFIGS / name), dtype_bytes)


def test_qwen3_8b_config_json_reproduces_the_catalog_exactly():
    s = spec("qwen3-8b.json")
    derived = catalog.model("qwen3-8b").derived
    assert s.parameters == derived["parameters"] == 8_190_735_360
    assert s.kv_bytes_per_token == derived["kv_bytes_per_token"] == 144 * 1024
    assert s.weights_read_per_step_bytes == derived["weights_read_per_decode_step_bytes"]
    assert s.matrix_weights == derived["matrix_weights_excluding_embedding_and_lm_head"]
    assert s.active_parameters == s.parameters  # dense
    assert s.weights_bytes == 2 * 8_190_735_360


def test_replay_params_of_the_file_and_of_the_catalog_key_are_step_costs_defaults():
    cost = StepCost()
    expected = {"weights_bytes": cost.weights_bytes, "kv_bytes_per_token": cost.kv_bytes_per_token,
                "matrix_flops_per_token": cost.matrix_flops_per_token,
                "lm_head_flops_per_row": cost.lm_head_flops_per_row,
                "attention_flops_per_pair": cost.attention_flops_per_pair}
    assert replay_params("qwen3-8b") == expected
    assert replay_params(str(CONFIGS / "qwen3-8b.json")) == expected
    # Hand count: 4 · 32 heads · 128 · 36 layers; 2 · 4096 · 151936.
    assert expected["attention_flops_per_pair"] == 4 * 32 * 128 * 36
    assert expected["lm_head_flops_per_row"] == 2 * 4096 * 151936


@pytest.mark.parametrize("name, parameters", [
    ("llama-2-7b.json", 6_738_415_616),  # the count transformers prints for Llama-2-7b-hf
    ("llama-3.1-8b.json", 8_030_261_248),  # "8.03B"
    ("llama-3.2-3b.json", 3_212_749_824),  # tied embeddings: the head is not counted twice
    ("mistral-7b-v0.1.json", 7_241_732_096),  # "7.24B"
    ("qwen2.5-7b.json", 7_615_616_512),  # "7.61B", q/k/v biases included
])
def test_dense_families_match_their_published_counts(name, parameters):
    s = spec(name)
    assert s.parameters == parameters
    assert s.active_parameters == parameters


def test_llama_3_1_8b_by_hand():
    s = spec("llama-3.1-8b.json")
    layer = 4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336
    assert s.linear_flops_per_token == 2 * 32 * layer
    assert s.kv_bytes_per_token == 2 * 8 * 128 * 32 * 2  # 128 KiB
    assert s.weights_read_per_step_bytes == (8_030_261_248 - 128256 * 4096) * 2


def test_tied_head_still_costs_its_flops_on_logit_rows():
    s = spec("llama-3.2-3b.json")
    assert s.architecture.tie_word_embeddings
    assert s.lm_head_flops_per_row == 2 * 3072 * 128256


def test_mistral_sliding_window_is_noted_and_kv_counted_in_full():
    s = spec("mistral-7b-v0.1.json")
    assert s.architecture.sliding_window == 4096
    assert any("sliding_window 4,096" in n for n in s.notes)
    assert s.kv_bytes_per_token == 2 * 8 * 128 * 32 * 2


def test_qwen2_sliding_window_off_is_not_noted():
    assert spec("qwen2.5-7b.json").notes == ()


def test_qwen3_30b_a3b_total_and_active():
    s = spec("qwen3-30b-a3b.json")
    assert s.parameters == 30_532_122_624  # "30.5B"
    assert s.active_parameters == 3_353_032_704  # "3.3B activated"
    expert = 3 * 2048 * 768
    attention = 2048 * 4096 * 2 + 2048 * 512 * 2
    assert s.linear_flops_per_token == 2 * 48 * (attention + 2048 * 128 + 8 * expert)  # router + 8 experts
    assert s.kv_bytes_per_token == 2 * 4 * 128 * 48 * 2
    # Decode reads every expert: a batch of sequences touches most of them.
    assert s.weights_read_per_step_bytes == (s.parameters - 151936 * 2048) * 2


def test_deepseek_v3_671b_total_37b_active_and_mla_kv():
    s = spec("deepseek-v3.json")
    assert s.parameters == pytest.approx(671e9, rel=1e-3)
    assert 37e9 < s.active_parameters < 38e9
    # DeepSeek's README_WEIGHTS: 36.6B activated, counting the output head but not the embedding.
    assert (s.active_parameters - s.embedding_parameters) / 1e9 == pytest.approx(36.6, abs=0.05)
    assert s.kv_bytes_per_token == (512 + 64) * 61 * 2
    assert s.attention_flops_per_pair == 61 * (2 * 128 * (128 + 64) + 2 * 128 * 128)
    assert s.architecture.sparse_layers == 58  # first_k_dense_replace = 3


def test_qwen3_moe_mlp_only_layers_and_sparse_step(tmp_path):
    data = json.loads((CONFIGS / "qwen3-30b-a3b.json").read_text())
    data.update(mlp_only_layers=[0, 1], decoder_sparse_step=2)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    s = load_model_config(str(path))
    # Layers i with (i + 1) % 2 == 0 are sparse (24 of 48); 0 and 1 listed: 1 is odd-indexed → 23.
    assert s.architecture.sparse_layers == 23
    base = spec("qwen3-30b-a3b.json")
    moe = 2048 * 128 + 128 * 3 * 2048 * 768  # router + experts
    dense = 3 * 2048 * 6144
    assert base.parameters - s.parameters == 25 * (moe - dense)


def test_multimodal_config_is_read_through_its_text_config():
    s = spec("qwen3-vl-4b-instruct.json")
    assert s.family == "qwen3"
    assert s.kv_bytes_per_token == catalog.model("qwen3-4b")["kv_bytes_per_token"]
    assert s.architecture.tie_word_embeddings


def test_dtype_bytes_scales_bytes_not_flops():
    fp8, bf16 = spec("qwen3-8b.json", 1), spec("qwen3-8b.json", 2)
    assert fp8.weights_bytes * 2 == bf16.weights_bytes
    assert fp8.kv_bytes_per_token * 2 == bf16.kv_bytes_per_token
    assert fp8.linear_flops_per_token == bf16.linear_flops_per_token


def test_calculator_defaults_are_the_catalog_model_and_verify():
    calc = get("model.config")
    out = calc.run()
    assert out["kv_bytes_per_token"] == 147456
    assert out["weights_read_per_step_bytes"] == 15_136_811_008
    assert all(book.matches(out[book.output]) for book in calc.book)
    out = calc.run({"config": str(CONFIGS / "deepseek-v3.json"), "dtype_bytes": "1"})
    assert out["weights_bytes"] == spec("deepseek-v3.json", 1).parameters


def _write(tmp_path, data, name="config.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def _refusal(path, param="config"):
    with pytest.raises(ParamError) as err:
        get("model.config").run({"config": path})
    assert err.value.param == param
    return err.value.message


def test_missing_hidden_size_is_refused_naming_file_and_field(tmp_path):
    data = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    del data["hidden_size"]
    path = _write(tmp_path, data)
    message = _refusal(path)
    assert message.startswith(f"{shown_path(path)}: missing field hidden_size; valid: a Hugging Face config.json of llama")


@pytest.mark.parametrize("change, field", [
    ({"model_type": "gpt2"}, "field model_type: 'gpt2' is not a family"),
    ({"num_hidden_layers": "32"}, "field num_hidden_layers: got '32'"),
    ({"num_hidden_layers": 0}, "field num_hidden_layers: got 0"),
    ({"num_attention_heads": True}, "field num_attention_heads: got True"),
    ({"num_key_value_heads": 5}, "field num_key_value_heads: 5 does not divide"),
    ({"vocab_size": 10 ** 30}, "field vocab_size: got"),
    ({"tie_word_embeddings": "no"}, "field tie_word_embeddings: got 'no'"),
    ({"intermediate_size": None}, "missing field intermediate_size"),
])
def test_bad_fields_are_refused_by_name(tmp_path, change, field):
    data = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    data.update(change)
    assert field in _refusal(_write(tmp_path, data))


@pytest.mark.parametrize("change, field", [
    ({"num_experts_per_tok": 300}, "field num_experts_per_tok: 300 is more than the 256 experts"),
    ({"kv_lora_rank": None}, "missing field kv_lora_rank"),
    ({"first_k_dense_replace": 62}, "field first_k_dense_replace: got 62"),
])
def test_bad_deepseek_fields_are_refused_by_name(tmp_path, change, field):
    data = json.loads((CONFIGS / "deepseek-v3.json").read_text())
    data.update(change)
    assert field in _refusal(_write(tmp_path, data))


def test_missing_model_type_and_not_an_object(tmp_path):
    assert "missing field model_type" in _refusal(_write(tmp_path, {"hidden_size": 8}))
    assert "the top level is a list" in _refusal(_write(tmp_path, "[1, 2]"))
    assert "not valid JSON (line 1" in _refusal(_write(tmp_path, '{"hidden_size": 8'))
    assert "not a config" in _refusal(_write(tmp_path, '{"hidden_size": NaN}'))
    assert "not a config" in _refusal(_write(tmp_path, "[" * 100_000))


def test_untrusted_files_are_refused_quickly(tmp_path):
    assert "not a regular file" in _refusal("/dev/zero")
    assert "a folder without config.json" in _refusal(str(tmp_path))
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert "not a regular file" in _refusal(str(fifo))  # opened without blocking
    big = tmp_path / "big.json"
    big.write_text(" " * (MAX_CONFIG_BYTES + 1))
    assert f"valid: a Hugging Face config.json of at most {MAX_CONFIG_BYTES:,} bytes" in _refusal(str(big))
    binary = tmp_path / "weights.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8 text (byte 0)" in _refusal(str(binary))
    assert "cannot open (No such file" in _refusal(str(tmp_path / "none.json"))


def test_dtype_bytes_range():
    with pytest.raises(ParamError) as err:
        get("model.config").run({"dtype_bytes": "0"})
    assert err.value.param == "dtype_bytes"
    assert model_spec("qwen3-8b", 0.5).weights_bytes == 8_190_735_360 * 0.5


def test_catalog_model_without_a_shape_is_refused_naming_its_fields():
    with pytest.raises(ParamError) as err:
        replay_params("qwen3-4b")
    assert err.value.param == "model"
    assert "qwen3-4b: the catalog entry lacks hidden_size" in err.value.message


def test_training_counts_take_a_dense_config_and_refuse_moe_naming_the_field():
    assert shape(str(CONFIGS / "qwen3-8b.json")).parameters == shape("qwen3-8b").parameters
    assert shape(str(CONFIGS / "qwen2.5-7b.json")).parameters == 7_615_616_512  # biases kept
    flops = get("train.flops")
    book = flops.run()
    same = flops.run({"model": str(CONFIGS / "qwen3-8b.json")})
    assert math.isclose(same["total_flops"], book["total_flops"], rel_tol=0, abs_tol=0)
    with pytest.raises(ParamError) as err:
        flops.run({"model": str(CONFIGS / "qwen3-30b-a3b.json")})
    assert err.value.param == "model" and "field num_experts:" in err.value.message


def test_vision_calculators_read_a_qwen3_vl_vision_config():
    enc = get("vision.encode_flops")
    book = enc.run()["encode_flops"]
    assert enc.run({"model": str(CONFIGS / "qwen3-vl-4b-instruct.json")})["encode_flops"] == book
    with pytest.raises(ParamError) as err:
        enc.run({"model": str(CONFIGS / "qwen3-8b.json")})
    assert err.value.param == "model" and "missing field vision_config" in err.value.message
    compare = get("vision.compare").run({"model": str(CONFIGS / "qwen3-vl-4b-instruct.json")})
    assert compare["encode_flops_ratio"] == get("vision.compare").run()["encode_flops_ratio"]


def test_image_diffusion_reads_a_diffusers_qwen_image_folder(tmp_path):
    transformer = CONFIGS / "qwen-image" / "transformer" / "config.json"
    calc = get("image.diffusion")
    assert calc.run({"model": str(transformer)})["flops"] == calc.run()["flops"]  # the book's 7.830e15
    m = model_or_config(str(transformer), part="dit")
    assert (m.key, m["vae_scale"], m["mlp_size"]) == ("qwen-image", 8, 12288)
    # Without its vae/config.json the VAE's downscale is unknown: refused, naming that file.
    lone = tmp_path / "transformer" / "config.json"
    lone.parent.mkdir()
    lone.write_text(transformer.read_text())
    with pytest.raises(ParamError) as err:
        calc.run({"model": str(lone)})
    assert err.value.param == "model" and "vae/config.json" in err.value.message
    with pytest.raises(ParamError) as err:
        calc.run({"model": str(CONFIGS / "qwen3-8b.json")})
    assert "field _class_name: got None" in err.value.message


def test_mixtral_8x7b_total_and_active():
    s = spec("mixtral-8x7b.json")
    expert = 3 * 4096 * 14336
    attention = 2 * 4096 * 4096 + 2 * 4096 * 1024
    per_layer_small = 4096 * 8 + 2 * 4096  # router, two norms
    embeddings = 2 * 32000 * 4096 + 4096  # untied (the default) + final norm
    assert s.parameters == 32 * (attention + 8 * expert + per_layer_small) + embeddings == 46_702_792_704
    assert s.active_parameters == 32 * (attention + 2 * expert + per_layer_small) + embeddings == 12_879_925_248


def test_a_mistyped_model_key_lists_the_catalog(tmp_path, monkeypatch):
    from core.model_config import model_spec

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParamError) as err:
        model_spec("qwen3-8x")
    assert err.value.param == "model"
    assert "'qwen3-8x': no catalog model or file of that name; valid: one of qwen3-8b, llama-2-13b, llama-2-70b" in err.value.message
    with pytest.raises(ParamError, match="cannot open"):  # a path stays a path
        model_spec("qwen3-8x.json")


def test_a_models_folder_stands_for_its_config_json(tmp_path):
    # As the Hub downloads a model: a folder holding config.json (and weights, tokenizer...).
    folder = tmp_path / "Qwen3-8B"
    folder.mkdir()
    (folder / "config.json").write_text((CONFIGS / "qwen3-8b.json").read_text())
    assert get("model.config").run({"config": str(folder)}) == get("model.config").run(
        {"config": str(CONFIGS / "qwen3-8b.json")})
    assert get("train.step").run({"model": str(folder)}) == get("train.step").run({"model": "qwen3-8b"})
    # a diffusers pipeline's folder: its transformer/config.json (the vae beside it)
    calc = get("image.diffusion")
    assert calc.run({"model": str(CONFIGS / "qwen-image")})["flops"] == calc.run()["flops"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "empty': a folder without config.json; valid: a Hugging Face config.json, or the model's folder" \
        in _refusal(str(empty))
