"""A step-time model of basis terms: each a physical cost with one coefficient a
calibration can fit (issue 13), the roofline of step_cost.py at its core.

One engine step of R rows (tokens processed), of which `logits` produce a token, touching
kv KV tokens and pairs query-key pairs, over `seqs` sequences of which `new` complete
their prompt in it, on one TP rank's column through its PP stages (the deployment's
per-card figures, core/serving/deployment.py):

    t = overhead_s + max(memory, compute) + seqs·coef_seq_s + new·coef_request_s
        + layers·coef_layer_s·(1, or EAGER_LAUNCH_FACTOR above the CUDA-graph sizes)
        + tp_comm + pp_comm + ep_comm

    memory  = (coef_decode_weights·W(x) + coef_decode_kv·kv_bytes·kv/m) / (BW·bandwidth_efficiency)
    compute = (coef_prefill_compute·MF·(x + R½) + LM·logits/m + coef_attention·ATT·pairs/m)
              / (peak·prefill_mfu)

- Matrix efficiency by length: a GEMM of x rows runs at prefill_mfu · x / (x + R½) of the
  dtype's peak (short chunks are launch- and tile-bound), R½ = coef_gemm_ramp · the card's
  ridge point in rows (peak / bandwidth · bytes per weight / 2: a faster-computing card
  needs longer chunks). Below the ridge the memory line is the larger one anyway.
- MoE: W(x) = dense + expected distinct experts of the x tokens (MoeReads; uniform top-k
  or a measured skew); FLOPs by the active experts (the deployment's MF).
- TP (zero at tp = 1): per layer two all-reduces of x rows' activations (after attention
  and after the MLP), each coef_tp_comm · 2(tp−1)/tp · bytes / link bandwidth +
  coef_tp_latency · hops · link latency; hops = 2(tp−1) on a ring link (PCIe), 2 on a
  switched one (NVLink/NVSwitch, Infinity Fabric: reduce-scatter and all-gather, each one
  hop through the switch).
- PP: vLLM V1 keeps pp micro-batches in flight (its engine core's batch queue of pp
  scheduled batches, step_with_batch_queue); a continuous-batching step here is one cycle
  in which every running sequence gets its token. With m = min(seqs, pp) micro-batches of
  x = R/m rows, the cycle lasts pp stage-times of one micro-batch plus (pp−1) hand-offs:
  the column's weights per micro-batch pass, its KV and FLOPs divided by m (the bubble:
  fewer sequences than stages leave stages idle), hand-offs coef_pp_comm · (x rows'
  activations / link bandwidth + latency). With pp = 1, m = 1 and x = R.
- EP (zero when ep = tp: vLLM then all-reduces the expert outputs as TP does): per MoE
  layer a dispatch and a combine all-to-all of each token's top_k activations to the
  ranks outside its TP group, coef_ep_comm · (bytes / link bandwidth + latency).

In a run of lockstep decodes (n sequences, rows = logits = n, kv = pairs = C + n·j at step
j) every term but the memory and compute lines is constant, and those are lines in j:
decode_time sums them in closed form, exactly as the roofline's.

With every added coefficient 0 (multipliers 1, R½ = 0), tp = pp = ep = 1 and no MoE, the
model is StepCost's roofline bit for bit (the same operations in the same order).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.serving.deployment_moe import MoeReads, expected_distinct_experts
from core.serving.step_cost import StepCost, _sum_of_max
from core.serving.step_defaults import CUDA_GRAPH_MAX_TOKENS, EAGER_LAUNCH_FACTOR, for_card

SWITCHED_LINKS = ("nvlink", "nvswitch", "infinity-fabric", "xgmi")


@dataclass(frozen=True)
class BasisCost(StepCost):
    """StepCost's roofline figures (weights_bytes: what a step reads with every expert; the
    per-step fixed overhead_s) plus the deployment's constants and the coefficients."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    layers: int = 36
    activation_bytes_per_token: float = 8192.0
    link_bandwidth_bytes_per_s: float = 64e9
    link_latency_s: float = 5e-6
    link_switched: bool = False
    gemm_ridge_rows: float = 0.0  # the card's ridge in rows (0: no ramp)
    moe: MoeReads | None = None
    ep_remote_fraction: float = 0.0  # share of a token's experts outside its TP group
    coef_decode_weights: float = 1.0
    coef_decode_kv: float = 1.0
    coef_prefill_compute: float = 1.0
    coef_attention: float = 1.0
    coef_gemm_ramp: float = 0.0
    coef_tp_comm: float = 0.0
    coef_tp_latency: float = 0.0
    coef_pp_comm: float = 0.0
    coef_ep_comm: float = 0.0
    coef_layer_s: float = 0.0
    coef_seq_s: float = 0.0
    coef_request_s: float = 0.0
    # one-off costs of a step, priced by the compiled loop from what came before it
    # (core/serving/engine/one_off.py): after a wait for work, and at a first token count
    coef_wake_s: float = 0.0
    coef_shape_s: float = 0.0

    # -- the per-row figures the kernels take -------------------------------------------
    @property
    def ramp_rows(self) -> float:
        return self.coef_gemm_ramp * self.gemm_ridge_rows

    @property
    def all_reduces(self) -> int:
        return 0 if self.tp <= 1 else 2 * self.layers

    @property
    def tp_s_per_row(self) -> float:
        """One all-reduce's bandwidth time per row of activations."""
        if self.tp <= 1:
            return 0.0
        ring = 2.0 * (self.tp - 1) / self.tp
        return self.coef_tp_comm * ring * self.activation_bytes_per_token / self.link_bandwidth_bytes_per_s

    @property
    def tp_latency_s(self) -> float:
        """One all-reduce's latency: hops through the link."""
        if self.tp <= 1:
            return 0.0
        hops = 2.0 if self.link_switched else 2.0 * (self.tp - 1)
        return self.coef_tp_latency * hops * self.link_latency_s

    @property
    def pp_s_per_row(self) -> float:
        return self.coef_pp_comm * (self.pp - 1) * self.activation_bytes_per_token / self.link_bandwidth_bytes_per_s

    @property
    def pp_latency_s(self) -> float:
        return self.coef_pp_comm * (self.pp - 1) * self.link_latency_s

    @property
    def ep_s_per_row(self) -> float:
        """Dispatch + combine bandwidth time per row over the MoE layers."""
        if self.moe is None or self.ep_remote_fraction <= 0:
            return 0.0
        per_layer = 2.0 * self.moe.top_k * self.ep_remote_fraction * self.activation_bytes_per_token
        return self.coef_ep_comm * self.moe.moe_layers * per_layer / self.link_bandwidth_bytes_per_s

    @property
    def ep_latency_s(self) -> float:
        if self.moe is None or self.ep_remote_fraction <= 0:
            return 0.0
        return self.coef_ep_comm * self.moe.moe_layers * 2.0 * self.link_latency_s

    def micro_batches(self, seqs):
        """m = min(seqs, pp) (at least 1): the micro-batches in flight."""
        return np.maximum(np.minimum(seqs, self.pp), 1) if self.pp > 1 else 1.0

    def weights_read(self, tokens):
        """Bytes one micro-batch pass reads: every weight, or dense + distinct experts."""
        moe = self.moe
        if moe is None:
            return self.weights_bytes
        if np.ndim(tokens):
            return np.array([self.weights_read(float(t)) for t in np.ravel(tokens)]).reshape(np.shape(tokens))
        per_expert = moe.moe_layers * moe.expert_bytes * moe.experts_per_card / moe.experts
        if moe.shares is not None:
            distinct = sum(1.0 - (1.0 - p) ** float(tokens) for p in moe.shares)
        else:
            distinct = expected_distinct_experts(moe.experts, moe.top_k, float(tokens))
        return moe.dense_bytes + per_expert * distinct if tokens > 0 else moe.dense_bytes

    def constant_terms(self, rows, seqs, x):
        """Every term outside the roofline's max but the fixed overhead and the requests'."""
        layer = self.coef_layer_s * self.layers * np.where(rows > CUDA_GRAPH_MAX_TOKENS, EAGER_LAUNCH_FACTOR, 1.0)
        tp = self.all_reduces * (self.tp_s_per_row * x + self.tp_latency_s)
        pp = self.pp_s_per_row * x + self.pp_latency_s
        ep = self.ep_s_per_row * x + self.ep_latency_s
        return seqs * self.coef_seq_s + layer + tp + pp + ep

    # -- StepCost's interface ------------------------------------------------------------
    def step_time(self, rows: float, logit_rows: float, kv_tokens: float, pairs: float,
                  seqs: float | None = None, new: float = 0.0) -> float:
        """One step (seqs: sequences in it, default logit_rows; new: prompts completing)."""
        seqs = logit_rows if seqs is None else seqs
        m = self.micro_batches(seqs)
        x = rows / m
        memory = (self.coef_decode_weights * self.weights_read(x)
                  + self.coef_decode_kv * (self.kv_bytes_per_token * kv_tokens) / m) * self.seconds_per_byte
        compute = (self.coef_prefill_compute * (self.matrix_flops_per_token * (x + self.ramp_rows))
                   + self.lm_head_flops_per_row * logit_rows / m
                   + self.coef_attention * (self.attention_flops_per_pair * pairs) / m) * self.seconds_per_flop
        t = self.overhead_s + (memory if memory > compute else compute)
        return float(t + self.constant_terms(rows, seqs, x) + new * self.coef_request_s)

    def decode_lines(self, n, context_sum):
        """(a_mem, b_mem, a_cmp, b_cmp) of n lockstep decodes from contexts summing to C:
        step j lasts overhead_s + max(a_mem + b_mem·j, a_cmp + b_cmp·j), the n-dependent
        constant terms folded into both a's (n may be an array: vllm_metrics reads runs)."""
        spb, spf = self.seconds_per_byte, self.seconds_per_flop
        m = self.micro_batches(n)
        x = n / m
        k = self.constant_terms(n, n, x)
        a_mem = (self.coef_decode_weights * self.weights_read(x)
                 + self.coef_decode_kv * self.kv_bytes_per_token * context_sum / m) * spb + k
        b_mem = self.coef_decode_kv * self.kv_bytes_per_token * x * spb
        cpf_mf = self.coef_prefill_compute * self.matrix_flops_per_token
        a_cmp = ((cpf_mf + self.lm_head_flops_per_row) * x + cpf_mf * self.ramp_rows
                 + self.coef_attention * self.attention_flops_per_pair * context_sum / m) * spf + k
        b_cmp = self.coef_attention * self.attention_flops_per_pair * x * spf
        return a_mem, b_mem, a_cmp, b_cmp

    def decode_time(self, n: int, context_sum: float, k: int) -> float:
        if k <= 0:
            return 0.0
        a1, b1, a2, b2 = self.decode_lines(n, context_sum)
        return self.overhead_s * k + _sum_of_max(float(a1), float(b1), float(a2), float(b2), k)

    def coefficients(self) -> dict[str, float]:
        """The fitted values by name (issue 13's profile writes these)."""
        return {name: float(getattr(self, name)) for name in COEFFICIENTS}


# The coefficients a calibration fits, with the card's two efficiencies and the fixed
# per-step overhead that StepCost already had (serving.replay's bandwidth_efficiency and
# prefill_mfu; coef_step_s is the basis model's own overhead_s).
COEFFICIENTS = ("bandwidth_efficiency", "prefill_mfu", "overhead_s") + tuple(
    f for f in BasisCost.__dataclass_fields__ if f.startswith("coef_"))


def ridge_rows(peak_flops: float, bandwidth_bytes_per_s: float, bytes_per_weight: float) -> float:
    """Rows at which a GEMM of the weights stops being memory-bound: 2 FLOPs per weight
    per row against bytes_per_weight bytes read."""
    return peak_flops / bandwidth_bytes_per_s * bytes_per_weight / 2.0


def from_deployment(d, values, coefs: dict[str, float] | None = None) -> BasisCost:
    """The basis model of deployment d with serving.replay's values (the per-card figures,
    bandwidth, peak, bandwidth_efficiency, prefill_mfu; a key the user gave wins over the
    deployment's) and the coefficients (defaults: step_defaults.for_card, DEFAULTS with the
    card's own decode reads, CARD_DECODE_READ). The peak the
    compute line divides by is the card's achieved one, peak × d.compute_efficiency
    (step_defaults.CARD_COMPUTE_EFFICIENCY); the GEMM ridge keeps the datasheet peak."""
    c = for_card(d.card, d.compute_dtype)
    c.update(coefs or {})
    overhead = c.pop("coef_step_s")
    moe = d.moe
    remote = 0.0
    if moe is not None and d.ep > d.tp:
        remote = (d.ep - d.tp) / d.ep
    bw = float(values["bandwidth_bytes_per_s"])
    peak = float(values["peak_flops"])
    link_bw = d.link_bandwidth_bytes_per_s or 0.0
    if link_bw <= 0:
        link_bw = float("inf")
    return BasisCost(
        weights_bytes=float(values["weights_bytes"]), kv_bytes_per_token=float(values["kv_bytes_per_token"]),
        matrix_flops_per_token=float(values["matrix_flops_per_token"]),
        lm_head_flops_per_row=float(values["lm_head_flops_per_row"]),
        attention_flops_per_pair=float(values["attention_flops_per_pair"]),
        bandwidth_bytes_per_s=bw, peak_flops=peak * float(getattr(d, "compute_efficiency", 1.0)),
        bandwidth_efficiency=float(values["bandwidth_efficiency"]),
        prefill_mfu=float(values["prefill_mfu"]), overhead_s=float(overhead),
        tp=d.tp, pp=d.pp, ep=d.ep, layers=d.num_layers, activation_bytes_per_token=d.activation_bytes_per_token,
        link_bandwidth_bytes_per_s=link_bw, link_latency_s=float(d.link_latency_s or 0.0),
        link_switched=str(d.link_kind or "").lower() in SWITCHED_LINKS,
        gemm_ridge_rows=ridge_rows(peak, bw, d.bytes_per_weight), moe=moe, ep_remote_fraction=remote,
        **{k: float(v) for k, v in c.items()})
