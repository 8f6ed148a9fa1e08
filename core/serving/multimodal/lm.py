"""The language model behind the vision tower, and image requests as the engine takes them.

Qwen3-VL-4B's language model is Qwen3-4B (the catalog's qwen3-4b: 36 layers, 8 KV heads
of 128, BF16: 144 KiB of KV per token, the Vision panel's figure). Its step cost is the
engine's roofline (core/serving/step_cost.py) with the Qwen3-4B shape of its config.json
(hidden 2560, intermediate 9728, 32 query heads, vocabulary 151,936, tied embeddings) on a
catalog card.

with_images: each image's visual tokens join the request's prompt (its input_tokens) and
the encoder plan becomes the workload's encoder work (Workload.encoder: the engine adds a
request's encoder seconds to the step that admits it, within the per-step encoder budget
EngineConfig.max_num_encoder_input_tokens: vLLM V1's encoder in the same instance).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from core import catalog
from core.serving import session_arrivals
from core.serving import workload as wl
from core.serving.engine import EngineConfig
from core.serving.multimodal.encoder import EncoderPlan
from core.serving.multimodal.images import ImageTable
from core.serving.step_cost import StepCost
from core.units import GiB
from core.vision.calculator import KV_BYTES_PER_TOKEN

LM_CARD = "h100-sxm"
_LAYERS, _HIDDEN, _INTER, _HEADS, _KV_HEADS, _HEAD_DIM, _VOCAB = 36, 2560, 9728, 32, 8, 128, 151_936
_PER_LAYER = _HIDDEN * _HEADS * _HEAD_DIM * 2 + _HIDDEN * _KV_HEADS * _HEAD_DIM * 2 + 3 * _HIDDEN * _INTER
_MATRIX = _LAYERS * _PER_LAYER
_LM_HEAD = _HIDDEN * _VOCAB  # tied with the input embedding: read once per step


def qwen3_vl_4b_cost(card: str = LM_CARD) -> StepCost:
    hw = catalog.hardware(card)
    return StepCost(weights_bytes=float(2 * (_MATRIX + _LM_HEAD)), kv_bytes_per_token=float(KV_BYTES_PER_TOKEN),
                    matrix_flops_per_token=2.0 * _MATRIX, lm_head_flops_per_row=2.0 * _LM_HEAD,
                    attention_flops_per_pair=4.0 * _HEADS * _HEAD_DIM * _LAYERS,
                    bandwidth_bytes_per_s=hw.figure("bandwidth_bytes_per_s"), peak_flops=hw.figure("bf16_dense_flops"))


def engine_config(card: str = LM_CARD, kv_pool_bytes: float = 40 * GiB, max_num_seqs: int = 64,
                  token_budget: int = 8192, encoder_budget: int | None = None) -> EngineConfig:
    """The LM engine of one card. encoder_budget: vLLM's max_num_encoder_input_tokens (None:
    its default, the token budget)."""
    return EngineConfig(max_num_seqs=max_num_seqs, kv_pool_bytes=kv_pool_bytes, token_budget=token_budget,
                        cost=qwen3_vl_4b_cost(card),
                        max_num_encoder_input_tokens=token_budget if encoder_budget is None else encoder_budget)


def with_images(work: wl.Workload, images: ImageTable, encoder: EncoderPlan | None = None) -> wl.Workload:
    """The workload whose prompts carry their images' visual tokens; with an encoder plan,
    its encoder work too (None: the encoder ran elsewhere, EPD: the EC arrives with it)."""
    if images.requests != len(work):
        raise ValueError(f"{images.requests} image rows for {len(work)} requests")
    visual = images.per_request("visual_tokens").astype(np.int64)
    if work.sessions is not None:
        sessions, tokens = _sessions(work, visual)
        out = dataclasses.replace(work, input_tokens=tokens, sessions=sessions)
    else:
        tokens = (work.input_tokens + visual).astype(np.int64)
        out = dataclasses.replace(work, input_tokens=tokens, prefix=_extended(work.prefix, work.input_tokens, tokens))
    if encoder is None or not encoder.seconds.any():
        return out
    return dataclasses.replace(out, encoder=wl.EncoderWork(seconds=encoder.seconds.astype(float),
                                                           tokens=encoder.tokens.astype(np.int64)))


def _sessions(work: wl.Workload, visual: np.ndarray) -> tuple[wl.Sessions, np.ndarray]:
    """Multi-turn sessions whose turns carry images: a turn's images are its new tokens
    (they join new_input_tokens), and the history a later turn keeps holds them too (its
    shared prefix grows by the visual tokens of the turn before, at most that turn's
    prompt + output). Stated: earlier turns' images are not encoded again (their KV is
    in the history; vLLM would re-encode one whose KV the prefix cache lost)."""
    s = work.sessions
    assert s is not None
    prev, _ = session_arrivals.links(s, np.arange(len(work)))
    new = s.new_input_tokens + visual
    shared = s.shared_prefix_tokens.copy()
    prompt = work.input_tokens.copy()
    for i in session_arrivals.turn_order(s, np.arange(len(work))).tolist():
        p = int(prev[i])
        if p >= 0:
            grown = int(prompt[p]) - int(work.input_tokens[p])  # visual tokens the previous prompt gained
            shared[i] = min(int(s.shared_prefix_tokens[i]) + grown, int(prompt[p]) + int(work.output_tokens[p]))
        prompt[i] = shared[i] + new[i]
    return dataclasses.replace(s, new_input_tokens=new, shared_prefix_tokens=shared), prompt.astype(np.int64)


def _extended(prefix: wl.PrefixBlocks | None, text: np.ndarray, tokens: np.ndarray) -> wl.PrefixBlocks | None:
    """A trace's hash ids (Mooncake's) for prompts that grew by their visual tokens, placed
    after the text: the text's full blocks keep their ids; the rest (a partial last block
    now holding image tokens too, and the image's blocks) get ids of their own, so the
    prefix cache never reuses image KV across requests (stated: vLLM would, for the same
    image at the same position; the encoder cache still saves its encoder work)."""
    if prefix is None or np.array_equal(text, tokens):
        return prefix
    bt = prefix.block_tokens
    fresh = int(prefix.ids.max(initial=-1)) + 1
    ids, offsets = [], [0]
    for i in range(text.size):
        keep = min(int(text[i]) // bt, int(prefix.offsets[i + 1] - prefix.offsets[i]))
        need = -(-int(tokens[i]) // bt)
        ids.append(prefix.ids[prefix.offsets[i]:prefix.offsets[i] + keep])
        ids.append(np.arange(fresh, fresh + need - keep, dtype=np.int64))
        fresh += need - keep
        offsets.append(offsets[-1] + need)
    return wl.PrefixBlocks(ids=np.concatenate(ids).astype(np.int64), offsets=np.array(offsets, dtype=np.int64),
                           block_tokens=bt)
