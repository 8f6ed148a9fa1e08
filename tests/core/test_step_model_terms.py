"""The basis step-time model's terms by hand arithmetic: the TP all-reduce that vanishes at
tp=1, a tp=2 step of a constructed batch, and the roofline it contains bit for bit."""
import numpy as np
import pytest

from core.hardware_config import load_hardware
from core.model_config import model_spec
from core.serving import replay as rp
from core.serving.deployment import plan
from core.serving.engine import EngineConfig, replay
from core.serving.step_basis import BasisCost, from_deployment
from core.serving.step_cost import StepCost
from core.serving.step_defaults import DEFAULTS

pricing = pytest.importorskip("core.serving.engine.pricing")
from core.serving.engine.pricing_basis import basis_step_time  # noqa: E402
from core.serving.engine.step_model import coefficients  # noqa: E402


def _values(d, **over):
    """serving.replay's values a deployment sets, with the card's and the book's knobs."""
    card = load_hardware("h100-sxm")
    v = dict(d.replay_values(), bandwidth_bytes_per_s=card.bandwidth_bytes_per_s, bandwidth_efficiency=0.85,
             prefill_mfu=0.5)
    v.update(over)
    return v


def _llama8b(tp):
    return plan(model_spec("llama-3.1-8b"), load_hardware("h100-sxm"), tp=tp)


# The constructed batch: decodes at contexts 100, 200, 300 and a 64-token prompt prefilled
# whole in this step (it completes: one new request, one more logit row).
ROWS, LOGITS, SEQS, NEW = 3 + 64, 4, 4, 1
KV = (101 + 201 + 301) + 64
PAIRS = (101 + 201 + 301) + 64 * 65 / 2


def _compiled(cost, rows, logits, kv, pairs, seqs, new):
    return basis_step_time(coefficients(cost), float(rows), float(logits), float(kv), float(pairs), float(seqs),
                           float(new))


def test_the_all_reduce_vanishes_at_tp_1():
    d = _llama8b(1)
    loud = from_deployment(d, _values(d), {"coef_tp_comm": 50.0, "coef_tp_latency": 50.0})
    quiet = from_deployment(d, _values(d), {"coef_tp_comm": 0.0, "coef_tp_latency": 0.0})
    assert loud.all_reduces == 0 and loud.tp_s_per_row == 0.0 and loud.tp_latency_s == 0.0
    for cost in (loud, quiet):
        assert cost.step_time(ROWS, LOGITS, KV, PAIRS, SEQS, NEW) == quiet.step_time(ROWS, LOGITS, KV, PAIRS, SEQS, NEW)
    assert _compiled(loud, ROWS, LOGITS, KV, PAIRS, SEQS, NEW) == _compiled(quiet, ROWS, LOGITS, KV, PAIRS, SEQS, NEW)
    tp2 = _llama8b(2)
    assert from_deployment(tp2, _values(tp2)).all_reduces == 2 * 32  # two a layer from tp=2 on


def test_tp2_step_equals_the_hand_computed_time():
    d = _llama8b(2)
    cost = from_deployment(d, _values(d))
    bw, peak = 3.35e12, 989.4e12  # H100 SXM: HBM3, dense BF16
    # one TP rank of Llama-3.1-8B: its half of every matrix, the lm_head's half, 4 of 8 KV heads
    W, KVB = d.weights_read_per_step_bytes, d.kv_bytes_per_token
    MF, LM, ATT = d.matrix_flops_per_token, d.lm_head_flops_per_row, d.attention_flops_per_pair
    assert KVB == 32 * 2 * 4 * 128 * 2  # layers · (K, V) · heads per rank · head_dim · BF16
    assert ATT == 4 * (32 // 2) * 128 * 32  # 4 · heads per rank · head_dim · layers
    # the decode reads at the card's own multipliers (step_defaults.CARD_DECODE_READ, Hopper
    # BF16: the weights' stream 1.15, the paged KV's 2.1 of the book card's time)
    memory = (1.15 * W + 2.1 * KVB * KV) / (bw * 0.85)
    ridge = peak / bw  # rows at which BF16 weights (2 bytes, 2 FLOPs a row) turn compute-bound
    # the compute line runs at the card's achieved peak: Hopper BF16 reaches 0.74 of what the
    # book's card reaches of its datasheet figure (step_defaults.CARD_COMPUTE_EFFICIENCY)
    assert d.compute_efficiency == 0.74
    compute = (MF * (ROWS + 0.22 * ridge) + LM * LOGITS + ATT * PAIRS) / (peak * 0.74 * 0.5)
    act = 4096 * 2  # one token's hidden state in BF16
    all_reduce = 1.25 * (2 * 1 / 2) * ROWS * act / 450e9 + 0.8 * 2 * 3e-6  # ring over NVLink, 2 switch hops
    comm = 2 * 32 * all_reduce
    overhead = 0.9e-3 + SEQS * 15e-6 + 32 * 4e-6 + NEW * 100e-6
    hand = overhead + max(memory, compute) + comm
    assert cost.step_time(ROWS, LOGITS, KV, PAIRS, SEQS, NEW) == pytest.approx(hand, rel=1e-12)
    assert _compiled(cost, ROWS, LOGITS, KV, PAIRS, SEQS, NEW) == cost.step_time(ROWS, LOGITS, KV, PAIRS, SEQS, NEW)
    # beyond the CUDA graphs' 512 tokens the launches are eager (3x)
    big = cost.step_time(1000, 1, 1000, 1000 * 1001 / 2, 1, 1)
    assert big - _no_launch(cost).step_time(1000, 1, 1000, 1000 * 1001 / 2, 1, 1) == pytest.approx(3 * 32 * 4e-6)


def _no_launch(cost):
    from dataclasses import replace
    return replace(cost, coef_layer_s=0.0)


def _roofline_only(s: StepCost) -> BasisCost:
    fields = {k: getattr(s, k) for k in StepCost.__dataclass_fields__}
    return BasisCost(**fields)  # multipliers 1, every added term 0, tp = pp = ep = 1, no MoE


@pytest.mark.parametrize("seed", range(3))
def test_the_roofline_terms_alone_are_step_cost_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    s = StepCost(bandwidth_efficiency=float(rng.uniform(0.5, 1)), prefill_mfu=float(rng.uniform(0.3, 0.9)),
                 overhead_s=float(rng.uniform(0, 5e-3)))
    b = _roofline_only(s)
    c_roof, c_basis = coefficients(s), coefficients(b)
    for _ in range(200):
        rows = int(rng.integers(1, 9000))
        logits = int(rng.integers(1, rows + 1))
        kv = float(rng.integers(rows, 500_000))
        pairs = float(rng.integers(rows, 50_000_000))
        want = s.step_time(rows, logits, kv, pairs)
        assert b.step_time(rows, logits, kv, pairs) == want
        assert pricing.step_time(c_roof, rows, logits, kv, pairs) == want
        assert basis_step_time(c_basis, float(rows), float(logits), kv, pairs, float(logits), 0.0) == want
        n, C, k = int(rng.integers(1, 300)), float(rng.integers(0, 2_000_000)), int(rng.integers(1, 5000))
        want = s.decode_time(n, C, k)
        assert b.decode_time(n, C, k) == want
        assert pricing.decode_time(c_roof, n, C, k) == want
        assert pricing.decode_time(c_basis, n, C, k) == want


def test_the_books_replay_through_the_basis_kind_with_roofline_terms_is_the_roofline():
    values = rp.REPLAY.resolve()
    config = rp.config_from(values)
    work = rp.workload_from(values)
    a = replay(work, config)
    b = replay(work, EngineConfig(**{**config.__dict__, "cost": _roofline_only(config.cost)}))
    for name in ("first_token_s", "finish_s", "first_schedule_s", "preemptions"):
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True), name
    assert a.engine_steps == b.engine_steps


def test_defaults_are_the_documented_ones():
    d = _llama8b(1)
    cost = from_deployment(d, _values(d))
    assert cost.coefficients() == {"bandwidth_efficiency": 0.85, "prefill_mfu": 0.5, "overhead_s": DEFAULTS["coef_step_s"],
                                   **{k: v for k, v in DEFAULTS.items() if k != "coef_step_s"},
                                   "coef_decode_weights": 1.15, "coef_decode_kv": 2.1}  # an H100's (below)


def test_the_decode_reads_are_the_cards_own_and_a_key_wins():
    """Per card and dtype (step_defaults.CARD_DECODE_READ): the decode memory line's two
    multipliers; a card or dtype not named keeps DEFAULTS' 1; a coefficient given wins; the
    memory line by hand: (weights · cw + KV bytes · ckv) / (bandwidth · efficiency)."""
    spec = model_spec("llama-3.1-8b")
    cases = {("h100-sxm", "bf16"): (1.15, 2.1), ("h200", "bf16"): (1.15, 2.1), ("a100-80gb", "bf16"): (1.0, 2.1),
             ("h100-sxm", "fp8"): (1.0, 1.0), ("rtx-pro-6000-blackwell", "bf16"): (1.0, 1.0)}
    for (card_name, q), (cw, ckv) in cases.items():
        card = load_hardware(card_name)
        d = plan(spec, card, quantization=q)
        v = dict(d.replay_values(), bandwidth_bytes_per_s=card.bandwidth_bytes_per_s, bandwidth_efficiency=0.85,
                 prefill_mfu=0.5)
        cost = from_deployment(d, v)
        assert (cost.coef_decode_weights, cost.coef_decode_kv) == (cw, ckv), card_name
        kv = 5000.0  # one decode row at a 5,000-token context: memory-bound on every card here
        memory = (cw * d.weights_read_per_step_bytes + ckv * d.kv_bytes_per_token * kv) / (
            card.bandwidth_bytes_per_s * 0.85)
        rest = cost.step_time(1, 1, kv, kv, 1, 0) - memory
        plain = from_deployment(d, v, {"coef_decode_weights": 1.0, "coef_decode_kv": 1.0})
        assert plain.coef_decode_weights == plain.coef_decode_kv == 1.0
        flat = (d.weights_read_per_step_bytes + d.kv_bytes_per_token * kv) / (card.bandwidth_bytes_per_s * 0.85)
        assert plain.step_time(1, 1, kv, kv, 1, 0) - flat == pytest.approx(rest, rel=1e-9)


def test_the_compute_line_runs_at_the_cards_achieved_peak():
    """Per card and dtype (step_defaults.CARD_COMPUTE_EFFICIENCY): the compute line's seconds
    per FLOP are 1 / (datasheet peak × efficiency × prefill_mfu); the book's card and a dtype
    the table does not name keep 1; the GEMM ridge keeps the datasheet peak."""
    spec = model_spec("llama-3.1-8b")
    cases = {("h100-sxm", "bf16"): 0.74, ("h100-sxm", "fp8"): 1.1, ("h200", "bf16"): 0.74,
             ("a100-80gb", "bf16"): 1.12, ("a100-40gb", "bf16"): 1.12, ("rtx-pro-6000-blackwell", "bf16"): 1.0,
             ("rtx-pro-6000-blackwell", "fp8"): 1.0}
    for (card_name, q), eff in cases.items():
        card = load_hardware(card_name)
        d = plan(spec, card, quantization=q)
        assert d.compute_efficiency == eff and d.report()["compute_efficiency"] == eff
        v = dict(d.replay_values(), bandwidth_bytes_per_s=card.bandwidth_bytes_per_s, bandwidth_efficiency=0.85,
                 prefill_mfu=0.5)
        cost = from_deployment(d, v)
        assert cost.seconds_per_flop == pytest.approx(1.0 / (d.peak_flops * eff * 0.5), rel=1e-15)
        assert cost.gemm_ridge_rows == pytest.approx(d.peak_flops / card.bandwidth_bytes_per_s * d.bytes_per_weight / 2)
