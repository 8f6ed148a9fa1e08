"""A deployment: a model on its cards, checked once at the edge.

    plan(spec, card, tp=4, quantization="fp8", ...) -> Deployment

The model's weights and KV cache split as vLLM splits them (core/serving/deployment_memory:
KV heads across TP ranks, replicated when kv_heads < tp; layers across PP stages; experts
across EP ranks) in the weights' and cache's dtypes (core/serving/deployment_dtypes). The
KV pool per card = gpu_memory_utilization × the card's memory − its weights − the
activation reserve, unless kv_pool_bytes is given; the engine's blocks follow from it. A
model that does not fit is refused (ParamError) naming the card, the memory it needs and
what would fit: the smallest tp, or a smaller dtype.

What the engine sees (replay_values): one TP rank's column through every PP stage, as
serving.replay's plain numbers: weights read per step and KV bytes per token summed over
the stages (a step passes through them in turn), the FLOPs of one rank, the peak of the
dtype the matrix work runs at, and a KV pool of blocks · block_size · that KV per token,
the blocks being the fewest any stage's pool holds (vLLM's scheduler takes the minimum).
The communication terms' figures (tp, pp, ep, layers, hidden size, activation bytes per
token, the link) and the MoE reads (moe: a function of the batch's tokens) are attributes
for the step-time model (core/serving/step_basis.py's from_deployment); nothing here times
a step.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.hardware_config import HardwareSpec
from core.model_config import ModelSpec
from core.model_config.architecture import GroupedAttention
from core.model_config.counting import attention_flops_per_pair_per_layer
from core.registry import ParamError
from core.serving import deployment_memory as mem
from core.serving.deployment_dtypes import (
    KV_CACHE_DTYPES,
    QUANTIZATION_CHOICES,
    QUANTIZATIONS,
    UNQUANTIZED_BYTES,
    compute_peak,
    weights_dtype,
)
from core.serving.deployment_moe import MoeReads, routing_shares
from core.serving.step_defaults import CARD_COMPUTE_EFFICIENCY

DEFAULT_GPU_MEMORY_UTILIZATION = 0.9  # vLLM's default
TRY_TP = (1, 2, 4, 8, 16)  # the sizes a refusal tries (a node holds 8; 16 spans two)
TRY_DTYPES = ("fp8", "nvfp4", "awq")


@dataclass(frozen=True)
class Deployment:
    model: str
    card: str
    tp: int
    pp: int
    ep: int
    dp: int  # replicas: engines of this deployment behind a router
    quantization: str
    bytes_per_weight: float
    kv_cache_dtype: str
    kv_dtype_bytes: float
    gpu_memory_utilization: float
    card_memory_bytes: float  # what gpu_memory_utilization multiplies
    weights_bytes_per_card: float  # the most loaded card's
    kv_heads_per_rank: int | None  # None for MLA (its latent cache is whole on every rank)
    kv_bytes_per_token_per_card: float  # the most loaded stage's
    reserve_bytes: float  # activation peak + non-torch (deployment_memory)
    kv_pool_bytes_per_card: float
    pool_from: str  # "memory" (gpu_memory_utilization), or "given"
    num_blocks: int
    block_size: int
    stage_layers: tuple[int, ...]
    # The engine's plain numbers (one TP rank through every stage):
    weights_read_per_step_bytes: float
    kv_bytes_per_token: float
    engine_kv_pool_bytes: float
    matrix_flops_per_token: float
    lm_head_flops_per_row: float
    attention_flops_per_pair: float
    compute_dtype: str
    peak_flops: float
    # For the communication terms (core/serving/step_basis.py):
    num_layers: int
    hidden_size: int
    activation_bytes_per_token: float  # one token's hidden state in BF16
    link_kind: str | None
    link_bandwidth_bytes_per_s: float | None
    link_latency_s: float | None
    experts: int  # routed experts per MoE layer (0: dense)
    top_k: int
    moe: MoeReads | None
    # The card's achieved share of its datasheet peak, relative to the book's card
    # (step_defaults.CARD_COMPUTE_EFFICIENCY; 1 for a card it does not name).
    compute_efficiency: float = 1.0

    @property
    def cards(self) -> int:
        """Cards of one instance (tp · pp); dp instances use dp times as many."""
        return self.tp * self.pp

    def replay_values(self) -> dict[str, float]:
        """serving.replay's values this deployment sets (plain numbers)."""
        return {"weights_bytes": self.weights_read_per_step_bytes, "kv_bytes_per_token": self.kv_bytes_per_token,
                "matrix_flops_per_token": self.matrix_flops_per_token,
                "lm_head_flops_per_row": self.lm_head_flops_per_row,
                "attention_flops_per_pair": self.attention_flops_per_pair, "peak_flops": self.peak_flops}

    def report(self) -> dict:
        """The deployment as `lab simulate serving --json` names it."""
        out = {"model": self.model, "card": self.card, "tp": self.tp, "pp": self.pp, "ep": self.ep, "dp": self.dp,
               "cards_per_instance": self.cards, "quantization": self.quantization,
               "bytes_per_weight": self.bytes_per_weight, "kv_cache_dtype": self.kv_cache_dtype,
               "gpu_memory_utilization": self.gpu_memory_utilization, "card_memory_bytes": self.card_memory_bytes,
               "weights_bytes_per_card": self.weights_bytes_per_card, "reserve_bytes_per_card": self.reserve_bytes,
               "kv_heads_per_rank": self.kv_heads_per_rank,
               "kv_bytes_per_token_per_card": self.kv_bytes_per_token_per_card,
               "kv_pool_bytes_per_card": self.kv_pool_bytes_per_card, "kv_pool_from": self.pool_from,
               "kv_pool_blocks": self.num_blocks, "stage_layers": list(self.stage_layers),
               "compute_dtype": self.compute_dtype, "peak_flops": self.peak_flops,
               "compute_efficiency": self.compute_efficiency}
        if self.moe is not None:
            out["experts"], out["top_k"], out["experts_per_card"] = self.experts, self.top_k, self.moe.experts_per_card
        return out


def plan(spec: ModelSpec, card: HardwareSpec, *, tp: int = 1, pp: int = 1, ep: int = 1, dp: int = 1,
         quantization: str = "bf16", kv_cache_dtype: str = "auto",
         gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION, kv_pool_bytes: float | None = None,
         token_budget: int = 8192, max_num_seqs: int = 64, block_size: int = 16,
         expert_loads=None) -> Deployment:
    """The deployment, or ParamError naming the field (tp, pp, ep, quantization,
    kv_pool_bytes) when it cannot run; the caller checks each value's own range."""
    arch = spec.architecture
    _check_split(arch, tp, pp, ep, dp)
    if quantization not in QUANTIZATION_CHOICES:
        raise ParamError("quantization", f"got {quantization!r}; valid: one of {', '.join(QUANTIZATION_CHOICES)}")
    if kv_cache_dtype not in KV_CACHE_DTYPES:
        raise ParamError("kv_cache_dtype", f"got {kv_cache_dtype!r}; valid: one of {', '.join(KV_CACHE_DTYPES)}")
    d = _build(spec, card, tp, pp, ep, dp, quantization, kv_cache_dtype, gpu_memory_utilization, kv_pool_bytes,
               token_budget, max_num_seqs, block_size, expert_loads)
    memory = d.card_memory_bytes
    budget = memory * gpu_memory_utilization
    budget_text = f"gpu_memory_utilization {gpu_memory_utilization:g} × {memory / 1e9:,.1f} GB = {budget / 1e9:,.1f} GB"
    if kv_pool_bytes is not None:  # a pool given in bytes stands for the utilization (vLLM kv_cache_memory_bytes)
        budget, budget_text = memory, f"the card's {memory / 1e9:,.1f} GB"
    block = d.block_size * d.kv_bytes_per_token_per_card
    if d.weights_bytes_per_card + d.reserve_bytes + block > budget:
        raise ParamError("tp", _does_not_fit(d, spec, card, budget, budget_text, locals()))
    if kv_pool_bytes is not None and d.weights_bytes_per_card + d.reserve_bytes + kv_pool_bytes > budget:
        raise ParamError("kv_pool_bytes", _does_not_fit(d, spec, card, budget, budget_text, locals(), pool=kv_pool_bytes))
    return d


def _check_split(arch, tp: int, pp: int, ep: int, dp: int) -> None:
    a = arch.attention
    valid = [t for t in TRY_TP if _tp_divides(a, t)]
    if not _tp_divides(a, tp):
        kv = f", {a.kv_heads} KV heads" if isinstance(a, GroupedAttention) else ""
        raise ParamError("tp", f"got {tp}: {arch.name} has {a.heads} attention heads{kv}; valid: tp dividing the "
                         f"heads and dividing or divided by the KV heads (e.g. {', '.join(map(str, valid))})")
    if pp > arch.num_layers:
        raise ParamError("pp", f"got {pp} for {arch.num_layers} layers; valid: at most one stage a layer")
    if ep > 1:
        if arch.experts is None:
            raise ParamError("ep", f"got {ep}: {arch.name} has no experts; valid: ep=1")
        if ep % tp or (tp * dp) % ep or ep > arch.experts.count:
            raise ParamError("ep", f"got {ep} with tp={tp}, {dp} replica(s): vLLM's expert group is the tp · dp "
                             f"ranks; valid: 1, or a multiple of tp dividing tp · replicas = {tp * dp} "
                             f"(at most the {arch.experts.count} experts)")


def _tp_divides(a, tp: int) -> bool:
    if a.heads % tp:
        return False
    return not isinstance(a, GroupedAttention) or a.kv_heads % tp == 0 or tp % a.kv_heads == 0


def _build(spec, card, tp, pp, ep, dp, quantization, kv_cache_dtype, gmu, kv_pool_bytes, token_budget,
           max_num_seqs, block_size, expert_loads) -> Deployment:
    arch = spec.architecture
    wd = weights_dtype(quantization)
    kv_b = KV_CACHE_DTYPES[kv_cache_dtype]
    s = mem.shard(arch, tp, ep)
    st = mem.stages(arch, s, pp)
    per_stage = [x.weights_bytes(wd.bytes_per_weight, UNQUANTIZED_BYTES) for x in st]
    kv_stage = [x.layers * s.kv_values_per_layer * kv_b for x in st]
    memory = float(card.usable_memory_bytes or 0.0)
    reserve = mem.reserve_bytes(arch, s, token_budget, max_num_seqs, tp)
    pools = [kv_pool_bytes if kv_pool_bytes is not None else gmu * memory - w - reserve for w in per_stage]
    blocks = min(max(0, int(p // (block_size * k))) for p, k in zip(pools, kv_stage))
    kv_column = float(sum(kv_stage))
    worst = max(range(pp), key=lambda i: per_stage[i])
    if pp == 1:
        engine_pool = float(pools[0])
    else:  # the fewest blocks any stage holds, as one column's bytes
        engine_pool = float(blocks * block_size * kv_column)
    peak_dtype, peak = compute_peak(wd, dict(card.peak_flops))
    embedding = sum(x.embedding for x in st) * UNQUANTIZED_BYTES
    h = arch.hidden_size
    moe = None
    if arch.experts is not None:
        moe = _moe_reads(arch, s, st, wd.bytes_per_weight, sum(per_stage) - embedding, expert_loads)
    a = arch.attention
    return Deployment(
        model=spec.name, card=card.name, tp=tp, pp=pp, ep=ep, dp=dp, quantization=wd.name,
        bytes_per_weight=wd.bytes_per_weight, kv_cache_dtype=kv_cache_dtype, kv_dtype_bytes=kv_b,
        gpu_memory_utilization=gmu, card_memory_bytes=memory, weights_bytes_per_card=float(per_stage[worst]),
        kv_heads_per_rank=mem.kv_heads_per_rank(a.kv_heads, tp) if isinstance(a, GroupedAttention) else None,
        kv_bytes_per_token_per_card=float(max(kv_stage)), reserve_bytes=reserve,
        kv_pool_bytes_per_card=float(min(pools)), pool_from="given" if kv_pool_bytes is not None else "memory",
        num_blocks=blocks, block_size=block_size, stage_layers=tuple(x.layers for x in st),
        weights_read_per_step_bytes=float(sum(per_stage) - embedding), kv_bytes_per_token=kv_column,
        engine_kv_pool_bytes=engine_pool,
        matrix_flops_per_token=2.0 * sum(x.active_matrices for x in st),
        lm_head_flops_per_row=2.0 * s.vocab_rows * h,
        attention_flops_per_pair=float(attention_flops_per_pair_per_layer(arch) // tp * arch.num_layers),
        compute_dtype=peak_dtype, peak_flops=peak, num_layers=arch.num_layers, hidden_size=h,
        activation_bytes_per_token=float(h * UNQUANTIZED_BYTES), link_kind=card.link_kind,
        link_bandwidth_bytes_per_s=card.link_bandwidth_bytes_per_s, link_latency_s=card.link_latency_s,
        experts=arch.experts.count if arch.experts else 0, top_k=arch.experts.per_token if arch.experts else 0,
        moe=moe, compute_efficiency=CARD_COMPUTE_EFFICIENCY.get((card.name, peak_dtype), 1.0))


def _moe_reads(arch, s, st, bytes_per_weight: float, read_bytes: float, loads) -> MoeReads:
    e = arch.experts
    sparse = sum(x.layers - x.dense_layers for x in st)
    expert_bytes = s.expert * bytes_per_weight
    dense = read_bytes - sparse * s.experts_per_card * expert_bytes
    shares = None if loads is None else tuple(routing_shares(loads, e.per_token).tolist())
    return MoeReads(e.count, e.per_token, sparse, s.experts_per_card, float(expert_bytes), float(dense), shares)


def _does_not_fit(d: Deployment, spec, card, budget: float, budget_text: str, given: dict, pool=None) -> str:
    need = d.weights_bytes_per_card + d.reserve_bytes + (pool if pool is not None else
                                                         d.block_size * d.kv_bytes_per_token_per_card)
    what = "the KV pool given" if pool is not None else "one KV block"
    head = (f"{d.model} ({d.quantization}, tp={d.tp}, pp={d.pp}) does not fit on {card.name}: "
            f"{d.weights_bytes_per_card / 1e9:,.1f} GB of weights per card + {d.reserve_bytes / 1e9:,.1f} GB "
            f"activation reserve + {what} need {need / 1e9:,.1f} GB, more than {budget_text}")
    return head + "; valid: " + _what_fits(d, spec, card, given)


def _what_fits(d: Deployment, spec, card, given: dict) -> str:
    args = {k: given[k] for k in ("pp", "ep", "dp", "quantization", "kv_cache_dtype", "gpu_memory_utilization",
                                  "token_budget", "max_num_seqs", "block_size")}
    options = []
    for tp in TRY_TP:
        if tp <= d.tp or not _tp_divides(spec.architecture.attention, tp):
            continue
        if args["ep"] > 1 and (args["ep"] % tp or (tp * args["dp"]) % args["ep"]):
            continue
        fit = _fits(spec, card, dict(args, tp=tp))
        if fit is not None:
            options.append(f"tp={tp} (KV pool {fit.kv_pool_bytes_per_card / 1e9:,.1f} GB per card)")
            if len(options) == 2:
                break
    for q in TRY_DTYPES:
        if QUANTIZATIONS[q].bytes_per_weight >= d.bytes_per_weight:
            continue
        fit = _fits(spec, card, dict(args, tp=d.tp, quantization=q))
        if fit is not None:
            options.append(f"quantization={q} at tp={d.tp} (KV pool {fit.kv_pool_bytes_per_card / 1e9:,.1f} GB per card)")
            break
    if not options:
        return f"more cards than tp={TRY_TP[-1]} or a card with more memory"
    return ", ".join(options)


def _fits(spec, card, args: dict) -> Deployment | None:
    d = _build(spec, card, args["tp"], args["pp"], args["ep"], args["dp"], args["quantization"],
               args["kv_cache_dtype"], args["gpu_memory_utilization"], None, args["token_budget"],
               args["max_num_seqs"], args["block_size"], None)
    return d if d.kv_pool_bytes_per_card >= d.block_size * d.kv_bytes_per_token_per_card else None
