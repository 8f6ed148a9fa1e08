"""The basis step-time model's default coefficients (core/serving/step_basis.py), each with
where it comes from. None is fitted to the held-out runs issue 12 is judged on (the lab
is not shown them); issue 13 fits them to a user's own measurements.

Data sets used, and for what:
- the book's run (Qwen3-8B on one RTX PRO 6000, vLLM 0.23; core/serving/step_cost.py):
  the card's bandwidth_efficiency (0.85) and prefill_mfu (0.5) stay serving.replay's, and
  the per-step overhead's 2 ms at 64 sequences is split below into a fixed part, a part
  per sequence and a part per layer that together give it back at that batch;
- sglang PR #2904 (github.com/sgl-project/sglang/pull/2904, "optimize custom allreduce
  kernel", H100, tp 2/4/8, 512 B to 1 MiB): the all-reduce latency at small messages;
- NCCL all_reduce_perf bus bandwidth at large messages, about 80% of a link's per-direction
  bandwidth on NVLink (nccl-tests' busbw definition: the ring's 2(n−1)/n factor divided
  out): the bandwidth multiplier of every collective;
- vLLM's CUDA-graph capture sizes (V1 default: batches up to 512 tokens run as graphs) and
  NVIDIA's CUDA Graphs post (developer.nvidia.com/blog/cuda-graphs: a few µs of launch per
  kernel when launched one by one, mostly gone when replayed as a graph): the launch term.
- the per-sequence part against two public profiles: vLLM issue #6801 (V0, 2024: sampling,
  input preparation, output processing and the scheduler "can be 20ms" at batch 200, an
  upper bound of 100 µs a sequence that V1's persistent batch cut) and simllm PR #204
  (github.com/openfabric-systems/simllm/pull/204: vLLM 0.27.1's scheduler alone, 12.7 µs a
  running request at its cap); 15 µs lies at the V1 end.
- the compute line's card efficiency (CARD_COMPUTE_EFFICIENCY) against the FIT half of the
  public runs (tests/data/public_runs, split written before any replay; bench/
  fidelity_public.py). With one prefill_mfu (the book card's 0.5) for every card, vLLM
  0.11's prefill-bound runs of Qwen3-14B (GPUStack performance lab, gpustack/gpustack
  47277d79, docs/performance-lab/qwen3-14b/{a100,h100}.md, 500 x 2,000-token prompts at
  once) came out 8% too slow on an A100 and 50% too fast on an H100: the prompts' matrix
  work ran at about 182 TFLOP/s on the A100 (58% of its 312 datasheet) but 325 TFLOP/s on
  the H100 (33% of 989). Hopper's datasheet peak is a boost-clock figure its 700 W cap
  does not sustain under dense GEMM, and its BF16 kernels in vLLM reach less of it than
  Ampere's reach of theirs; so the achieved peak is a property of the card and the dtype,
  not one fraction. Grid over the fit half's scored figures (median |error|): Ampere BF16
  1.12 (6%), Hopper BF16 0.66 (9%), Hopper FP8 1.1 (TensorRT-LLM's perf overview, H100
  columns, 6%). H200 and H800 take Hopper's values (the H100's compute die; no fit run).
  Hopper BF16 refitted to 0.74 with the decode reads below (the two move together: a
  burst's time is its prompts' and its decode steps').
- the decode memory line's per-card multipliers (CARD_DECODE_READ) against the same FIT
  half. vLLM 0.11 on an H100 streams a one-sequence decode of Qwen3-8B (16.4 GB of
  weights, little KV: GPUStack's qwen3-8b/h100-latency.md, ShareGPT at 1, 2 and 8 in
  flight) in 7.28 ms a token, ~74% of the 3.35 TB/s datasheet, where the book card's 0.85
  gives 12% less time; the same server's decode-only steps with a full KV pool (Qwen3-14B's
  bursts, their median ITL: 29.5 GB of weights and ~45 GB of paged KV in 43.5-46 ms) reach
  only ~52% overall, so the KV half of the read runs at about 0.4 of peak: decode
  attention reads 16-token pages per (sequence, KV head), a shorter, scattered stream than
  the weights' GEMV. Grid over the fit half's scored figures and those three median ITLs
  (weights 1-1.2, KV 1-2.6, Hopper BF16 compute 0.66-0.78): weights 1.15, KV 2.1, compute
  0.74 (median |error| 7.55% -> 3.16%, before the chat front end's refit in frontend.py).
  On the A100 the fit half holds no decode-only step (its 2,048-token budget mixes a chunk
  into nearly every step) and barely tells: KV 2.1 gives 3.05% against 3.16% at 1 (2.19%
  against 2.52% after that refit); taken as the same kernels', weights left at 1. Not
  applied to FP8 (TensorRT-LLM's runs, its own kernels: fitted without it). What these
  leave: Qwen3-32B's decode-only steps on an H100 measure ~43 ms where they give ~33.
Known limits of these defaults: one-shot all-reduces of 256 KiB-1 MiB (decode batches of a
few hundred rows) measured 2-3× slower than the affine model gives (sglang's table, tp=2);
the request term is an order of magnitude, not a measurement.
"""
from __future__ import annotations

# The share of a card's datasheet dense peak its compute work reaches, relative to the book's
# card (RTX PRO 6000 Blackwell, where prefill_mfu 0.5 was measured: 1 by definition; a card or
# dtype not named here, e.g. a user's TOML, gets 1). Fitted on the FIT half of the public runs
# only, one value per chip family and dtype; the module's note says how.
AMPERE = ("a100-80gb", "a100-40gb")
HOPPER = ("h100-sxm", "h100-pcie", "h200", "h800")
# (card, the dtype the matrix work runs at) -> efficiency
CARD_COMPUTE_EFFICIENCY: dict[tuple[str, str], float] = {
    **{(c, "bf16"): 1.12 for c in AMPERE},
    **{(c, "bf16"): 0.74 for c in HOPPER},
    **{(c, "fp8"): 1.1 for c in HOPPER},
}

# (card, the dtype the matrix work runs at) -> the card's own defaults of the decode memory
# line's multipliers (DEFAULTS' 1 elsewhere; a key given wins). Fitted on the FIT half of
# the public runs only; the module's note says how.
CARD_DECODE_READ: dict[tuple[str, str], dict[str, float]] = {
    **{(c, "bf16"): {"coef_decode_weights": 1.15, "coef_decode_kv": 2.1} for c in HOPPER},
    **{(c, "bf16"): {"coef_decode_kv": 2.1} for c in AMPERE},
}

CUDA_GRAPH_MAX_TOKENS = 512  # vLLM V1's largest captured batch by default
EAGER_LAUNCH_FACTOR = 3.0  # a step beyond the graphs launches its kernels one by one

DEFAULTS: dict[str, float] = {
    # Multipliers on the roofline's four lines (1: the card's efficiencies as they are).
    "coef_decode_weights": 1.0,
    "coef_decode_kv": 1.0,
    "coef_prefill_compute": 1.0,
    "coef_attention": 1.0,
    # R½ = this × the card's ridge in rows. Hopper/Blackwell GEMM tiles are 128 rows: a
    # chunk pays about half a tile more, 64 rows ≈ 0.22 × an H100's BF16 ridge (295 rows).
    "coef_gemm_ramp": 0.22,
    # Collectives' bandwidth time over the link's figure: 1 / 0.8 (NCCL busbw, above).
    "coef_tp_comm": 1.25,
    # All-reduce latency over hops × the link's latency: sglang #2904's 3.7-7.8 µs at
    # 512 B-32 KiB for tp 2-8 over 2 switch hops × 3 µs (the catalog's NVLink latency).
    "coef_tp_latency": 0.8,
    "coef_pp_comm": 1.25,
    "coef_ep_comm": 1.25,
    # Per step: fixed + per sequence + per layer = the book's 2 ms at 64 sequences and
    # Qwen3-8B's 36 layers (0.9 ms + 64 × 15 µs + 36 × 4 µs).
    "coef_step_s": 0.9e-3,
    "coef_seq_s": 15e-6,
    "coef_layer_s": 4e-6,
    # Per request completing its prompt: the engine core's request object and its first
    # output's processing (an order of magnitude).
    "coef_request_s": 100e-6,
    # One-off costs of a step (core/serving/engine/one_off.py): after the engine waited for
    # work, and at a token count it never ran before. About 0 on a GPU (CUDA graphs are
    # captured at start); a CPU server's are fitted from its step log (docs/vllm_cpu.md).
    "coef_wake_s": 0.0,
    "coef_shape_s": 0.0,
}

HELP = {
    "coef_decode_weights": "multiplier on the weights' read time (decode weights term)",
    "coef_decode_kv": "multiplier on the KV cache's read/write time (decode KV term)",
    "coef_prefill_compute": "multiplier on the matrix FLOPs' time at prefill_mfu of the dtype's peak",
    "coef_attention": "multiplier on the attention FLOPs' time (prefill KV/attention term)",
    "coef_gemm_ramp": "GEMM half-efficiency rows as a share of the card's ridge point (short chunks run slower)",
    "coef_tp_comm": "multiplier on the TP all-reduces' ring bandwidth time 2(tp-1)/tp · bytes / link",
    "coef_tp_latency": "multiplier on the TP all-reduces' hops × link latency",
    "coef_pp_comm": "multiplier on the PP stage hand-offs' time (bytes / link + latency)",
    "coef_ep_comm": "multiplier on the EP dispatch/combine all-to-all time (MoE with ep > tp)",
    "coef_step_s": "fixed time per engine step outside the kernels (scheduler, input preparation, sampling)",
    "coef_seq_s": "time per running sequence per step (the part of the overhead that grows with the batch)",
    "coef_layer_s": "launch time per layer per step inside CUDA graphs (x3 beyond 512 tokens: eager)",
    "coef_request_s": "engine-side time per request completing its prompt (ingestion, first output)",
    "coef_wake_s": "extra time of a step the engine starts after waiting for work (cold caches, a sleeping worker)",
    "coef_shape_s": ("extra time of a step whose token count the engine runs for the first time "
                     "(a kernel built for a new shape: oneDNN on CPU)"),
}


def for_card(card: str, dtype: str) -> dict[str, float]:
    """DEFAULTS with the card's own values (CARD_DECODE_READ) for a deployment on `card`
    whose matrix work runs at `dtype`."""
    return {**DEFAULTS, **CARD_DECODE_READ.get((card, dtype), {})}
