"""§3.4 training: the three matrix products of a linear layer, the state that stays
resident (例题 3-3), the item-by-item FLOPs beside 6ND (图 3-23), packing, and what one
update reads and supervises (练习 3-6).

Counting conventions: core/training/model.py (and shared/data/README.md).
"""
from __future__ import annotations

import math

import numpy as np

from core import catalog
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.training.model import TRAINING_PASSES, causal_pairs, dense_model_keys, memory_hardware_keys, shape

MAX_TOKENS = 10_000_000
QWEN3_8B_PARAMETERS = 8_190_735_360

# --------------------------------------------------------------------------------------
# train.linear: Y = XW, X (m x k), W (k x n)


def linear(m: int, k: int, n: int, weight_frozen: bool = False, input_grad_needed: bool = True) -> dict:
    # Each product holds m·k·n multiply-adds = 2mkn FLOPs:
    #   forward   Y = X W              (m x k)(k x n)
    #   dL/dX = dL/dY W^T              (m x n)(n x k)  -> shape of X
    #   dL/dW = X^T dL/dY              (k x m)(m x n)  -> shape of W
    one = 2 * m * k * n
    grad_input = one if input_grad_needed else 0
    grad_weight = 0 if weight_frozen else one
    return {
        "forward_flops": one,
        "grad_input_flops": grad_input,
        "grad_weight_flops": grad_weight,
        "total_flops": one + grad_input + grad_weight,
        "grad_input_shape_rows": m, "grad_input_shape_cols": k,
        "grad_weight_shape_rows": k, "grad_weight_shape_cols": n,
    }


LINEAR = Calculator(
    name="train.linear",
    title="线性层 Y = XW:三次矩阵乘,运算量一样 · three matmuls of a linear layer",
    ref=BookRef("3.4.1", "线性层 · 练习 3-6"),
    params=(
        Param("m", "rows", 8192, "m: rows of X (tokens)", 1, 1e9, kind="int", illustrative=True),
        Param("k", "", 4096, "k: columns of X = rows of W (input width)", 1, 1e7, kind="int", illustrative=True),
        Param("n", "", 4096, "n: columns of W (output width)", 1, 1e7, kind="int", illustrative=True),
        Param("weight_frozen", "", False, "frozen weight: no weight gradient to compute", kind="bool"),
        Param("input_grad_needed", "", True, "an earlier layer still needs gradients: the input gradient is computed", kind="bool"),
    ),
    outputs=(
        Output("forward_flops", "FLOPs", "Y = XW", "2·m·k·n"),
        Output("grad_input_flops", "FLOPs", "∂L/∂X = ∂L/∂Y · Wᵀ (shape of X: m x k)", "2·m·n·k"),
        Output("grad_weight_flops", "FLOPs", "∂L/∂W = Xᵀ · ∂L/∂Y (shape of W: k x n); needs the saved X", "2·k·m·n"),
        Output("total_flops", "FLOPs", "all three", "6·m·k·n"),
        Output("grad_input_shape_rows", "", "rows of ∂L/∂X"),
        Output("grad_input_shape_cols", "", "columns of ∂L/∂X"),
        Output("grad_weight_shape_rows", "", "rows of ∂L/∂W"),
        Output("grad_weight_shape_cols", "", "columns of ∂L/∂W"),
    ),
    compute=linear,
    note="形状为示意",
    book=(
        BookValue("total_flops", 6 * 8192 * 4096 * 4096, "合计 6mkn", derived=True),
        BookValue("grad_weight_flops", 2 * 8192 * 4096 * 4096, "三次都含 m·k·n 个乘加", derived=True),
        BookValue("total_flops", 4 * 8192 * 4096 * 4096, "冻结某个权重可省其权重梯度",
                  params={"weight_frozen": True}, derived=True),
    ),
)

# --------------------------------------------------------------------------------------
# train.state: 例题 3-3

_STATE_KINDS = ("weight", "grad", "master", "adam_m", "adam_v")


def state(parameters: int, weight_bytes: float, grad_bytes: float, master_bytes: float,
          adam_m_bytes: float, adam_v_bytes: float, cards: int, card: str) -> dict:
    per_param = weight_bytes + grad_bytes + master_bytes + adam_m_bytes + adam_v_bytes
    total = parameters * per_param
    # Even sharding: the largest shard holds ceil(N / cards) parameters' state.
    per_card_params = math.ceil(parameters / cards)
    capacity = catalog.hardware(card).figure("memory_bytes")
    per_card = per_card_params * per_param
    return {
        "bytes_per_param": per_param,
        "total_bytes": total,
        "per_card_bytes": per_card,
        "ratio_to_bf16_weights": per_param / 2.0,
        "weight_bytes_total": parameters * weight_bytes,
        "grad_bytes_total": parameters * grad_bytes,
        "master_bytes_total": parameters * master_bytes,
        "adam_bytes_total": parameters * (adam_m_bytes + adam_v_bytes),
        "grad_saving_vs_fp32_bytes": parameters * (4.0 - grad_bytes),
        "card_memory_bytes": capacity,
        "fits_per_card": 1 if per_card <= capacity else 0,
        "min_cards_for_state": math.ceil(total / capacity),
    }


def _check_state(values: dict) -> None:
    if values["cards"] > values["parameters"]:
        raise ParamError("cards", f"got {values['cards']}; valid: 1 .. parameters ({values['parameters']:,}), "
                         "each card needs at least one parameter's state")


def _bytes_param(name: str, default: float, text: str) -> Param:
    return Param(name, "bytes", default, text, 0, 64)


STATE = Calculator(
    byte_system="si",  # the book counts training state in GB
    name="train.state",
    title="还没算激活,状态就超出一张卡 · resident training state",
    ref=BookRef("3.4.1", "例题 3-3 · 练习 3-6"),
    params=(
        Param("parameters", "params", QWEN3_8B_PARAMETERS, "N: parameters trained (Qwen3-8B: 8,190,735,360)", 1, 1e14, kind="int", label="N"),
        _bytes_param("weight_bytes", 2, "BF16 weights used by forward and backward (per parameter)"),
        _bytes_param("grad_bytes", 4, "FP32 gradients used to compute the update (BF16: 2)"),
        _bytes_param("master_bytes", 4, "FP32 master weights for a precise update"),
        _bytes_param("adam_m_bytes", 4, "Adam first moment (moving mean of gradients), FP32"),
        _bytes_param("adam_v_bytes", 4, "Adam second moment (moving mean of squared gradients), FP32"),
        Param("cards", "cards", 1, "cards the state is split evenly over (a rough picture; chapter 10 does it properly)", 1, 1e6, kind="int"),
        Param("card", "", "rtx-pro-6000-blackwell", "card whose memory the state is compared with",
              kind="choice", choices=memory_hardware_keys()),
    ),
    outputs=(
        Output("bytes_per_param", "bytes", "state bytes per parameter", "2 + 4 + 4 + 4 + 4"),
        Output("total_bytes", "bytes", "resident state, before any activation", "N · bytes_per_param"),
        Output("per_card_bytes", "bytes", "largest shard when split evenly", "⌈N / cards⌉ · bytes_per_param"),
        Output("ratio_to_bf16_weights", "x", "compared with inference's BF16 weights", "bytes_per_param / 2"),
        Output("weight_bytes_total", "bytes", "BF16 weights", "2N"),
        Output("grad_bytes_total", "bytes", "gradients", "grad_bytes · N"),
        Output("master_bytes_total", "bytes", "FP32 master weights", "4N"),
        Output("adam_bytes_total", "bytes", "Adam m and v", "8N"),
        Output("grad_saving_vs_fp32_bytes", "bytes", "saved against FP32 gradients", "(4 − grad_bytes) · N"),
        Output("card_memory_bytes", "bytes", "memory of the chosen card"),
        Output("fits_per_card", "bool", "yes when each card's shard fits its memory (activations not counted)"),
        Output("min_cards_for_state", "cards", "cards needed to hold the state alone", "⌈total / card memory⌉"),
    ),
    compute=state,
    check=_check_state,
    book=(
        BookValue("bytes_per_param", 18, "2+4+4+4+4 = 18 字节"),
        BookValue("ratio_to_bf16_weights", 9, "是推理 BF16 权重的 9 倍"),
        BookValue("total_bytes", 147_433_236_480, "8,190,735,360 × 18 ≈ 147.4 GB", derived=True),
        BookValue("fits_per_card", 0, "状态就超出一张卡 (96 GB)", derived=True),
        BookValue("grad_saving_vs_fp32_bytes", 16_381_470_720, "练习 3-6:梯度改为 BF16 省 2 字节/参数",
                  params={"grad_bytes": 2}, derived=True),
        BookValue("total_bytes", 131_051_765_760, "练习 3-6:BF16 梯度后 16 字节/参数",
                  params={"grad_bytes": 2}, derived=True),
    ),
)

# --------------------------------------------------------------------------------------
# train.flops: 图 3-23


def training_flops(model: str, batch: int, seq_len: int, recompute: bool) -> dict:
    s = shape(model)
    rows = batch * seq_len
    pairs = batch * causal_pairs(seq_len)
    matrix_fwd = s.matrix_forward_flops(rows)
    attention_fwd = s.attention_forward_flops(pairs)
    lm_head_fwd = s.lm_head_forward_flops(rows)  # training: logits on every row
    # Recomputation re-runs the layers' forward during backward (not the lm_head).
    recompute_flops = (matrix_fwd + attention_fwd) if recompute else 0.0
    matrix = TRAINING_PASSES * matrix_fwd
    attention = TRAINING_PASSES * attention_fwd
    lm_head = TRAINING_PASSES * lm_head_fwd
    total = matrix + attention + lm_head + recompute_flops
    six_nd = 6.0 * s.parameters * rows
    return {
        "parameters": s.parameters,
        "tokens": rows,
        "matrix_flops": matrix,
        "attention_flops": attention,
        "lm_head_flops": lm_head,
        "recompute_flops": recompute_flops,
        "total_flops": total,
        "six_nd_flops": six_nd,
        "ratio_vs_6nd": total / six_nd,
        # 6ND charges every parameter 6 FLOPs per token; the embedding is a lookup.
        "embedding_overcount_flops": 6.0 * s.embedding_weights * rows,
        # Norm weights are also in N but do no matrix product: a tiny over-count.
        "norm_overcount_flops": 6.0 * (s.parameters - s.matrix_weights - s.embedding_weights
                                       - (0 if s.tie_word_embeddings else s.lm_head_weights)) * rows,
        "attention_share": attention / total,
    }


FLOPS = Calculator(
    name="train.flops",
    title="从 6ND 粗算到逐项核算 · item-by-item training FLOPs",
    ref=BookRef("3.4.3", "图 3-23"),
    params=(
        Param("model", "", "qwen3-8b", "model shape from the catalog, or a dense decoder's config.json path", kind="path", choices=dense_model_keys()),
        Param("batch", "sequences", 1, "B: sequences per step", 1, 1e6, kind="int", label="B"),
        Param("seq_len", "tokens", 8192, "P: tokens per sequence", 1, MAX_TOKENS, kind="int", label="P"),
        Param("recompute", "", False, "recompute activations: the layers' forward runs again in backward", kind="bool"),
    ),
    outputs=(
        Output("matrix_flops", "FLOPs", "layer projections and FFN, forward + backward", "3 · 2 · W_layers · B·P"),
        Output("attention_flops", "FLOPs", "QKᵀ and PV: no parameter behind them; 6ND misses this",
               "3 · 4·heads·head_dim · layers · B·P(P+1)/2"),
        Output("lm_head_flops", "FLOPs", "vocabulary projection on every row", "3 · 2 · V·d · B·P"),
        Output("recompute_flops", "FLOPs", "forward done again when activations are recomputed", "matrix/3 + attention/3"),
        Output("total_flops", "FLOPs", "item by item", "matrix + attention + lm_head + recompute"),
        Output("six_nd_flops", "FLOPs", "the rough estimate", "6 · N · B·P"),
        Output("ratio_vs_6nd", "x", "item-by-item total over 6ND", "total / 6ND"),
        Output("embedding_overcount_flops", "FLOPs", "what 6ND charges the embedding table, a lookup", "6 · V·d · B·P"),
        Output("norm_overcount_flops", "FLOPs", "what 6ND charges the norm weights"),
        Output("attention_share", "ratio", "attention's share of the total"),
        Output("parameters", "params", "N"),
        Output("tokens", "tokens", "D = B · P"),
    ),
    compute=training_flops,
    book=(
        BookValue("attention_flops", 59_380_875_657_216, "前反向却贡献 59.381 TFLOPs", rel_tol=1e-5),
        BookValue("ratio_vs_6nd", 1.0715, "逐项总量比 6ND 高约 7.15%", rel_tol=5e-5),
        BookValue("parameters", QWEN3_8B_PARAMETERS, "8,190,735,360 参数"),
    ),
)

# --------------------------------------------------------------------------------------
# train.packing: two (or more) documents in one sequence


def packing(model: str, seq_len: int, doc_lengths: tuple) -> dict:
    s = shape(model)
    lengths = [int(x) for x in doc_lengths]
    pairs = sum(causal_pairs(x) for x in lengths)
    single = causal_pairs(seq_len)
    # Projections and FFN see the same rows however the sequence is cut.
    layer = s.layer_forward_flops(seq_len, pairs)
    layer_single = s.layer_forward_flops(seq_len, single)
    even = [seq_len // len(lengths) + (1 if i < seq_len % len(lengths) else 0) for i in range(len(lengths))]
    layer_even = s.layer_forward_flops(seq_len, sum(causal_pairs(x) for x in even))
    return {
        "causal_pairs": pairs,
        "pairs_single_document": single,
        "pairs_ratio": pairs / single,
        "layer_forward_flops": layer,
        "layer_forward_flops_single_document": layer_single,
        "layer_work_ratio": layer / layer_single,
        "layer_work_vs_even_split": layer / layer_even,
        "attention_share_of_layer": s.flops_per_pair_per_layer * pairs / layer,
    }


def _check_packing(values: dict) -> None:
    lengths, total = values["doc_lengths"], values["seq_len"]
    if any(not float(x).is_integer() for x in lengths):
        raise ParamError("doc_lengths", f"got {', '.join(f'{x:g}' for x in lengths)}; valid: whole numbers of tokens")
    if sum(lengths) != total:
        raise ParamError("doc_lengths", f"sum to {sum(lengths):g}, not the sequence length {total}; "
                         f"valid: lengths >= 1 that sum to seq_len")


PACKING = Calculator(
    name="train.packing",
    title="同样 8192 个 token,切法不同,注意力工作不同 · packing",
    ref=BookRef("3.4.2", "packing"),
    params=(
        Param("model", "", "qwen3-8b", "model shape from the catalog or a dense decoder's config.json path (one layer is counted)", kind="path", choices=dense_model_keys()),
        Param("seq_len", "tokens", 8192, "tokens in the packed sequence", 1, MAX_TOKENS, kind="int"),
        Param("doc_lengths", "tokens", (4096.0, 4096.0), "lengths of the independent documents, summing to seq_len",
              1, MAX_TOKENS, kind="floats", min_items=1, max_items=4096, illustrative=True),
    ),
    outputs=(
        Output("causal_pairs", "pairs", "valid query-key pairs with documents kept apart", "Σ L(L+1)/2"),
        Output("pairs_single_document", "pairs", "pairs if the sequence were one document", "P(P+1)/2"),
        Output("pairs_ratio", "ratio", "pairs against one document"),
        Output("layer_forward_flops", "FLOPs", "one layer, forward", "2·W_layer·P + 4·heads·head_dim·Σ L(L+1)/2"),
        Output("layer_forward_flops_single_document", "FLOPs", "one layer, one document"),
        Output("layer_work_ratio", "ratio", "one layer's work against one document of the same length"),
        Output("layer_work_vs_even_split", "ratio", "against the same number of equal documents"),
        Output("attention_share_of_layer", "ratio", "attention's part of the layer's work"),
    ),
    compute=packing,
    check=_check_packing,
    book=(
        BookValue("pairs_single_document", 33_558_528, "一份 8192 文档:8192·8193/2", derived=True),
        BookValue("causal_pairs", 16_781_312, "两份 4096:2 · 4096·4097/2", derived=True),
    ),
)

# --------------------------------------------------------------------------------------
# train.update: 练习 3-6


def update(model: str, micro_batches: int, sequences_per_micro_batch: int, seq_len: int,
           supervised_tokens_per_sequence: int) -> dict:
    s = shape(model)
    inputs = micro_batches * sequences_per_micro_batch * seq_len
    supervised = micro_batches * sequences_per_micro_batch * supervised_tokens_per_sequence
    # Training runs the vocabulary projection forward and twice backward.
    head_all = TRAINING_PASSES * s.lm_head_forward_flops(inputs)
    head_supervised = TRAINING_PASSES * s.lm_head_forward_flops(supervised)
    step_all = training_flops(model, micro_batches * sequences_per_micro_batch, seq_len, False)["total_flops"]
    return {
        "input_tokens_per_update": inputs,
        "supervised_tokens_per_update": supervised,
        "sequences_per_update": micro_batches * sequences_per_micro_batch,
        "lm_head_flops_all_rows": head_all,
        "lm_head_flops_supervised_rows": head_supervised,
        "lm_head_flops_saved": head_all - head_supervised,
        "step_flops_label_masking": step_all,
        "step_flops_skip_projection": step_all - (head_all - head_supervised),
        "saved_share_of_step": (head_all - head_supervised) / step_all,
    }


def _check_update(values: dict) -> None:
    if values["supervised_tokens_per_sequence"] > values["seq_len"]:
        raise ParamError("supervised_tokens_per_sequence",
                         f"got {values['supervised_tokens_per_sequence']}; valid: 0 .. seq_len ({values['seq_len']})")


UPDATE = Calculator(
    name="train.update",
    title="一次更新读多少、监督多少 · tokens read and supervised per update",
    ref=BookRef("3.4.2", "练习 3-6"),
    params=(
        Param("model", "", "qwen3-8b", "model shape from the catalog, or a dense decoder's config.json path", kind="path", choices=dense_model_keys()),
        Param("micro_batches", "", 8, "a: micro-batches accumulated before one update", 1, 1e6, kind="int", label="a"),
        Param("sequences_per_micro_batch", "sequences", 2, "Bμ: sequences per micro-batch", 1, 1e6, kind="int", label="Bμ"),
        Param("seq_len", "tokens", 4096, "P: input tokens per sequence", 1, MAX_TOKENS, kind="int", label="P"),
        Param("supervised_tokens_per_sequence", "tokens", 1024, "P_label: tokens per sequence that enter the loss", 0, MAX_TOKENS, kind="int", label="P_label"),
    ),
    outputs=(
        Output("input_tokens_per_update", "tokens", "tokens read by one update", "a · Bμ · P"),
        Output("supervised_tokens_per_update", "tokens", "the loss's normaliser", "a · Bμ · P_label"),
        Output("sequences_per_update", "sequences", "update batch", "a · Bμ"),
        Output("lm_head_flops_all_rows", "FLOPs", "label masking only: the vocabulary projection still runs on every row", "6 · V·d · a·Bμ·P"),
        Output("lm_head_flops_supervised_rows", "FLOPs", "projecting only supervised rows", "6 · V·d · a·Bμ·P_label"),
        Output("lm_head_flops_saved", "FLOPs", "saved by skipping the projection of unsupervised rows"),
        Output("step_flops_label_masking", "FLOPs", "whole update, masking labels only (item by item)"),
        Output("step_flops_skip_projection", "FLOPs", "whole update, projecting supervised rows only"),
        Output("saved_share_of_step", "ratio", "saving as a share of the update"),
    ),
    compute=update,
    check=_check_update,
    book=(
        BookValue("input_tokens_per_update", 65_536, "2 条 × 4096 × 8 个 micro-batch", derived=True),
        BookValue("supervised_tokens_per_update", 16_384, "2 条 × 1024 × 8", derived=True),
        BookValue("lm_head_flops_all_rows", 6 * 151936 * 4096 * 65_536, "只屏蔽损失:65,536 行都做词表投影", derived=True),
        BookValue("lm_head_flops_supervised_rows", 6 * 151936 * 4096 * 16_384, "只对 16,384 个监督 token 做投影", derived=True),
    ),
)

CALCULATORS = (LINEAR, STATE, FLOPS, PACKING, UPDATE)


# --------------------------------------------------------------------------------------
# Arrays for the panel's packing figure


def packing_curve(model: str, seq_len: int, points: int = 257) -> dict:
    """Two documents, the first of length x = 1 .. seq_len-1: pairs and layer work vs x."""
    s = shape(model)
    x = np.unique(np.linspace(1, max(seq_len - 1, 1), points).round().astype(np.int64))
    y = seq_len - x
    pairs = x * (x + 1) / 2 + y * (y + 1) / 2
    single = seq_len * (seq_len + 1) / 2
    layer = 2.0 * s.layer_matrix_weights * seq_len + s.flops_per_pair_per_layer * pairs
    layer_single = 2.0 * s.layer_matrix_weights * seq_len + s.flops_per_pair_per_layer * single
    return {"first_length": x, "pairs_ratio": pairs / single, "layer_work_ratio": layer / layer_single}


def packing_mask(doc_lengths, seq_len: int, pixels: int = 256):
    """The causal mask of a packed sequence, downsampled: 1 where a query may see a key.

    Rows are queries, columns keys; each document is a lower triangle on the diagonal.
    """
    n = min(pixels, seq_len)
    centres = (np.arange(n) + 0.5) * seq_len / n
    bounds = np.cumsum([0] + [int(v) for v in doc_lengths])
    doc = np.searchsorted(bounds, centres, side="right") - 1
    q, k = np.meshgrid(centres, centres, indexing="ij")
    same = doc[:, None] == doc[None, :]
    return (same & (k <= q)).astype(np.float32)
