"""A config.json as a catalog.Model: the catalog's own field names, so the calculators that
read catalog entries (training, vision) take a user's file the same way."""
from __future__ import annotations

import os
from typing import Any

from core import catalog
from core.catalog import Model
from core.model_config import load_model_config
from core.model_config.architecture import GroupedAttention, LatentAttention
from core.model_config.reading import Fields, config_file, display_name, parse_json_object, read_small_file, shown_path
from core.registry import ParamError

# vision_config fields of a Qwen3-VL config.json (the catalog's qwen3-vl-4b-vision entry).
VISION_FIELDS = ("depth", "hidden_size", "num_heads", "intermediate_size", "patch_size", "temporal_patch_size",
                 "spatial_merge_size", "in_channels", "out_hidden_size")
VISION_VALID = "a Qwen3-VL config.json with a vision_config (" + ", ".join(VISION_FIELDS) + ", deepstack_visual_indexes)"


# What each family calls its routed experts in config.json (refusals quote the file's name).
_EXPERTS_FIELD = {"qwen3_moe": "num_experts", "mixtral": "num_local_experts", "deepseek_v3": "n_routed_experts",
                  "deepseek_v2": "n_routed_experts"}


def model_or_config(key_or_path: str, *, part: str = "language", param: str = "model") -> Model:
    """A catalog model by key, else a Hugging Face config.json by path, as a Model with the
    catalog's field names (ParamError(param) names the file and the field it refuses).
    part: 'language' (the decoder), 'vision' (a multimodal config's vision_config) or 'dit'
    (a diffusers Qwen-Image transformer)."""
    key = str(key_or_path)
    if key in catalog.model_keys():
        return catalog.model(key)
    return config_as_model(key, part, param)


def config_as_model(path: str, part: str, param: str) -> Model:
    if part == "vision":
        return _vision(path, param)
    if part == "dit":
        return _dit(path, param)
    spec = load_model_config(path, param=param)
    arch = spec.architecture
    shape = {"family": arch.family, "hidden_size": arch.hidden_size, "num_layers": arch.num_layers,
             "vocab_size": arch.vocab_size, "tie_word_embeddings": arch.tie_word_embeddings,
             "num_attention_heads": arch.attention.heads, "dtype_bytes": spec.dtype_bytes}
    a = arch.attention
    if isinstance(a, GroupedAttention):
        shape.update(num_kv_heads=a.kv_heads, head_dim=a.head_dim, qk_norm=a.qk_norm,
                     qkv_bias=a.qkv_bias, o_bias=a.o_bias)
    elif isinstance(a, LatentAttention):
        shape.update(kv_lora_rank=a.kv_lora_rank, q_lora_rank=a.q_lora_rank, qk_nope_head_dim=a.qk_nope_head_dim,
                     qk_rope_head_dim=a.qk_rope_head_dim, v_head_dim=a.v_head_dim)
    if arch.intermediate_size:
        shape["intermediate_size"] = arch.intermediate_size
    if arch.mlp_bias:
        shape["mlp_bias"] = True
    if arch.experts is not None:
        shape.update(num_experts=arch.experts.count, experts_field=_EXPERTS_FIELD[arch.family], routed_experts_per_token=arch.experts.per_token,
                     moe_intermediate_size=arch.experts.intermediate_size, sparse_layers=arch.sparse_layers)
    derived = {"parameters": spec.parameters, "active_parameters": spec.active_parameters,
               "kv_bytes_per_token": spec.kv_bytes_per_token,
               "weights_read_per_decode_step_bytes": spec.weights_read_per_step_bytes,
               "matrix_weights_excluding_embedding_and_lm_head": spec.matrix_weights}
    return Model(key=spec.name, source=str(path), shape=shape, derived=derived)


def _vision(path: str, param: str) -> Model:
    path = config_file(path, param)
    text, _ = read_small_file(path, param, VISION_VALID)
    where = shown_path(path)
    data = parse_json_object(text, where, param, VISION_VALID)
    top = Fields(data, where, param, VISION_VALID)
    vision = top.child("vision_config")
    if vision is None:
        raise top.missing("vision_config")
    shape: dict[str, Any] = {name: vision.whole(name, 1, 1 << 20) for name in VISION_FIELDS}
    if not vision.has("deepstack_visual_indexes"):
        raise vision.missing("deepstack_visual_indexes")  # DeepStack decides the mergers counted
    shape["deepstack_visual_indexes"] = list(vision.whole_list("deepstack_visual_indexes", 0, shape["depth"] - 1, 1024))
    if shape["hidden_size"] % shape["num_heads"]:
        raise vision.refuse("num_heads", f"{shape['num_heads']} does not divide hidden_size {shape['hidden_size']}",
                            "a divisor of hidden_size")
    return Model(key=display_name(path, data), source=str(path), shape=shape, derived={})


def refuse_unless_dense(m: Model, param: str) -> None:
    """The training counts take a dense decoder with grouped attention: name what is not."""
    for name in ("num_experts", "kv_lora_rank"):
        if m.get(name) is not None:
            name = m.get("experts_field", name) if name == "num_experts" else name
            raise ParamError(param, f"{m.source}: field {name}: the training counts take a dense decoder "
                             f"(no experts, no latent attention); valid: a dense llama, mistral, qwen2 or qwen3 config")


# A diffusers Qwen-Image folder: transformer/config.json, and the VAE's downscale beside it.
DIT_CLASS = "QwenImageTransformer2DModel"
DIT_VALID = ("the transformer/config.json of a diffusers Qwen-Image folder (" + DIT_CLASS
             + "; its vae/config.json beside it gives the VAE downscale)")
DIT_FIELDS = {"num_layers": "num_layers", "num_attention_heads": "num_heads", "attention_head_dim": "head_dim",
              "joint_attention_dim": "text_input_width", "in_channels": "in_channels",
              "out_channels": "out_channels", "patch_size": "patch_size"}
FFN_MULT = 4  # diffusers FeedForward's default: the MLP is 4 × the hidden width


def _dit(path: str, param: str) -> Model:
    path = config_file(path, param, ("config.json", os.path.join("transformer", "config.json")))  # the pipeline's folder too
    text, _ = read_small_file(path, param, DIT_VALID)
    where = shown_path(path)
    data = parse_json_object(text, where, param, DIT_VALID)
    f = Fields(data, where, param, DIT_VALID)
    if f.text("_class_name") != DIT_CLASS:
        raise f.refuse("_class_name", f"got {data.get('_class_name')!r}", f"{DIT_CLASS} (the counting follows its blocks)")
    shape = {ours: f.whole(theirs, 1, 1 << 20) for theirs, ours in DIT_FIELDS.items()}
    shape["hidden_size"] = shape["num_heads"] * shape["head_dim"]
    shape["mlp_size"] = FFN_MULT * shape["hidden_size"]
    shape["vae_scale"] = _vae_scale(path, param)
    folder = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path))))  # .../Qwen-Image/transformer/
    return Model(key=folder or display_name(path, data), source=str(path), shape=shape, derived={})


def _vae_scale(transformer_config: str, param: str) -> int:
    """2 ** len(temperal_downsample) of ../vae/config.json (the pipeline's vae_scale_factor)."""
    vae = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(transformer_config))), "vae", "config.json")
    valid = "a vae/config.json beside the transformer folder, with temperal_downsample"
    text, _ = read_small_file(vae, param, valid)
    where = shown_path(vae)
    f = Fields(parse_json_object(text, where, param, valid), where, param, valid)
    stages = f.data.get("temperal_downsample")
    if not isinstance(stages, list) or not 1 <= len(stages) <= 8:
        raise f.missing("temperal_downsample") if stages is None else f.refuse(
            "temperal_downsample", f"{len(stages) if isinstance(stages, list) else type(stages).__name__}", "a list of 1 to 8 stages")
    return 2 ** len(stages)
