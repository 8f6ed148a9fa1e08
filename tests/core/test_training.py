"""train.* calculators: the book's figures, the counting rules, and bad input."""

import pytest

from core.registry import ParamError, get
from core.training.model import causal_pairs, shape
from core.verify import verify_calculator

NAMES = ("train.linear", "train.state", "train.flops", "train.packing", "train.update", "train.activations")


@pytest.mark.parametrize("name", NAMES)
def test_every_book_row_matches(name):
    rows = verify_calculator(get(name))
    assert rows, f"{name} has no book rows"
    bad = [(r.output, r.book_value, r.computed) for r in rows if not r.ok]
    assert not bad


def test_qwen3_8b_parameter_count_from_the_shape():
    s = shape("qwen3-8b")
    assert s.parameters == 8_190_735_360
    assert s.matrix_weights == 6_945_767_424


def test_linear_three_products_equal_and_freezing():
    out = get("train.linear").run({"m": 3, "k": 5, "n": 7})
    assert out["forward_flops"] == out["grad_input_flops"] == out["grad_weight_flops"] == 2 * 3 * 5 * 7
    assert out["total_flops"] == 6 * 3 * 5 * 7
    assert (out["grad_weight_shape_rows"], out["grad_weight_shape_cols"]) == (5, 7)
    assert (out["grad_input_shape_rows"], out["grad_input_shape_cols"]) == (3, 5)
    first = get("train.linear").run({"m": 3, "k": 5, "n": 7, "input_grad_needed": "false", "weight_frozen": "true"})
    assert first["total_flops"] == first["forward_flops"]


def test_state_18_bytes_nine_times_and_sharding():
    out = get("train.state").run()
    assert out["total_bytes"] == 8_190_735_360 * 18
    assert out["total_bytes"] > out["card_memory_bytes"]  # "状态就超出一张卡"
    assert out["min_cards_for_state"] == 2
    two = get("train.state").run({"cards": 2})
    assert two["per_card_bytes"] == pytest.approx(out["total_bytes"] / 2)
    assert two["fits_per_card"] == 1
    three = get("train.state").run({"parameters": 10, "cards": 3})
    assert three["per_card_bytes"] == 4 * 18  # the largest shard holds ceil(10/3) parameters


def test_state_more_cards_than_parameters_names_cards():
    with pytest.raises(ParamError) as err:
        get("train.state").run({"parameters": 4, "cards": 5})
    assert err.value.param == "cards"
    assert "valid" in err.value.message


def test_flops_items_and_recompute():
    out = get("train.flops").run()
    s = shape("qwen3-8b")
    D = 8192
    assert out["matrix_flops"] == 6 * s.matrix_weights * D
    assert out["lm_head_flops"] == 6 * s.lm_head_weights * D
    assert out["total_flops"] == out["matrix_flops"] + out["attention_flops"] + out["lm_head_flops"]
    assert out["six_nd_flops"] == 6 * 8_190_735_360 * D
    # 6ND misses attention but charges the embedding: item by item the two nearly offset.
    gap = out["total_flops"] - out["six_nd_flops"]
    assert gap == pytest.approx(out["attention_flops"] - out["embedding_overcount_flops"] - out["norm_overcount_flops"])
    re = get("train.flops").run({"recompute": "true"})
    assert re["total_flops"] == pytest.approx(out["total_flops"] + (out["matrix_flops"] + out["attention_flops"]) / 3)
    assert re["ratio_vs_6nd"] > out["ratio_vs_6nd"]


def test_flops_attention_grows_with_pairs_not_rows():
    short = get("train.flops").run({"batch": 2, "seq_len": 4096})
    long = get("train.flops").run({"batch": 1, "seq_len": 8192})
    assert short["matrix_flops"] == long["matrix_flops"]
    assert short["attention_flops"] < long["attention_flops"]


def test_packing_pairs_and_layer_work():
    even = get("train.packing").run()
    uneven = get("train.packing").run({"doc_lengths": "6144,2048"})
    single = get("train.packing").run({"doc_lengths": "8192"})
    assert uneven["causal_pairs"] == causal_pairs(6144) + causal_pairs(2048)
    assert even["causal_pairs"] < uneven["causal_pairs"] < single["causal_pairs"]
    assert single["layer_work_ratio"] == 1.0
    assert even["layer_work_ratio"] < uneven["layer_work_ratio"] < 1.0
    # Rows are the same; only attention changes, so the layer changes by less than the pairs do.
    assert 1 - even["layer_work_ratio"] < 1 - even["pairs_ratio"]


@pytest.mark.parametrize("raw", ["4000,4000", "8000,1000"])
def test_packing_lengths_must_sum(raw):
    with pytest.raises(ParamError) as err:
        get("train.packing").run({"doc_lengths": raw})
    assert err.value.param == "doc_lengths"
    assert "8192" in err.value.message


def test_packing_zero_length_document():
    with pytest.raises(ParamError) as err:
        get("train.packing").run({"doc_lengths": "8192,0"})
    assert err.value.param == "doc_lengths"


def test_update_skip_projection_saves_unsupervised_rows():
    out = get("train.update").run()
    assert out["lm_head_flops_saved"] == pytest.approx(6 * 151936 * 4096 * (65_536 - 16_384))
    assert out["step_flops_skip_projection"] < out["step_flops_label_masking"]
    full = get("train.update").run({"supervised_tokens_per_sequence": 4096})
    assert full["lm_head_flops_saved"] == 0


def test_update_supervised_beyond_sequence_names_field():
    with pytest.raises(ParamError) as err:
        get("train.update").run({"supervised_tokens_per_sequence": 5000})
    assert err.value.param == "supervised_tokens_per_sequence"


@pytest.mark.parametrize("calc,field,raw", [
    ("train.flops", "seq_len", 0),
    ("train.flops", "batch", 0),
    ("train.update", "seq_len", 0),
    ("train.update", "micro_batches", 0),
    ("train.activations", "layers", 0),
    ("train.activations", "micro_batches", 0),
    ("train.state", "parameters", 0),
    ("train.linear", "m", -1),
    ("train.flops", "model", "gpt-9"),
])
def test_zero_and_nonsense_name_the_field(calc, field, raw):
    with pytest.raises(ParamError) as err:
        get(calc).run({field: raw})
    assert err.value.param == field
    assert "valid" in err.value.message
