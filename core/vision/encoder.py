"""§3.3.1 (图 3-15): the matrix work of one image through a Qwen3-VL style vision tower."""
from __future__ import annotations

from core import catalog
from core.model_config.as_catalog import model_or_config
from core.vision.layout import TokenLayout


def vision_models() -> tuple[str, ...]:
    return tuple(k for k in catalog.model_keys() if k.endswith("-vision"))


def encode_flops_breakdown(model_key: str, lay: TokenLayout) -> dict:
    """Matrix FLOPs of one image through a Qwen3-VL style vision tower (2 per multiply-add).

    Counted: the patch embedding (a Conv3d over temporal_patch_size frames, i.e. a matrix on
    each patch), per block the QKV/out projections and the fc1/fc2 MLP on every patch, full
    bidirectional attention among the image's patches (QKᵀ and PV), and every merger
    (final + DeepStack): fc1 (h·r² → h·r²) and fc2 (h·r² → out width) on each merged token.
    Norms, activations and position embeddings are left out (not matrix work).
    """
    m = model_or_config(model_key, part="vision")
    h = m["hidden_size"]
    depth = m["depth"]
    inner = m["intermediate_size"]
    n = lay.patches
    t = lay.visual_tokens
    patch_in = m["in_channels"] * m["temporal_patch_size"] * lay.patch * lay.patch
    merged_in = h * lay.merge * lay.merge
    mergers = 1 + len(m["deepstack_visual_indexes"])
    patch_embed = 2 * n * patch_in * h
    block_linear = depth * 2 * n * (4 * h * h + 2 * h * inner)
    attention = depth * 4 * n * n * h
    merger = mergers * 2 * t * (merged_in * merged_in + merged_in * m["out_hidden_size"])
    return {
        "patch_embed_flops": patch_embed,
        "block_linear_flops": block_linear,
        "attention_flops": attention,
        "merger_flops": merger,
        "encode_flops": patch_embed + block_linear + attention + merger,
    }
