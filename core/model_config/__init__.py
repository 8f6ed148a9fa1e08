"""Your own model: a Hugging Face config.json (or a catalog model) counted the way the
chapter counts Qwen3-8B. Public API:

- load_model_config(path, dtype_bytes=2) -> ModelSpec
- model_spec(key_or_path, dtype_bytes=2, param="model") -> ModelSpec (catalog key, path, or a Hugging
  Face id such as Qwen/Qwen3-8B read from the local Hugging Face cache: hf_cache.py)
- replay_params(key_or_path, dtype_bytes=2) -> serving.replay / StepCost model values
- config_model_keys(): catalog models with the whole decoder shape and the Hugging Face
  configs shipped in core/data/model_configs (the named choices; shipped_config_path)
- the calculator model.config (CALCULATORS)

Families, fields and counting rules: core/model_config/architecture.py and counting.py.
"""
from __future__ import annotations

import dataclasses
import os
from functools import cache
from importlib import resources

from core import catalog
from core.model_config import hf_cache
from core.model_config.architecture import FAMILIES, VALID, Architecture, GroupedAttention, architecture
from core.model_config.counting import ModelSpec, count
from core.model_config.reading import Fields, config_file, display_name, parse_json_object, read_small_file, shown_path
from core.registry import ParamError

__all__ = ["ModelSpec", "Architecture", "FAMILIES", "load_model_config", "model_spec", "replay_params",
           "config_model_keys", "CALCULATORS"]

# Catalog entries the counting can take: the dense decoder shape, in the catalog's names.
_CATALOG_SHAPE = ("hidden_size", "num_layers", "num_attention_heads", "num_kv_heads", "head_dim",
                  "intermediate_size", "vocab_size")
MAX_DTYPE_BYTES = 8


def load_model_config(path: str, dtype_bytes: float = 2, *, param: str = "config") -> ModelSpec:
    """The ModelSpec of a Hugging Face config.json, or ParamError(param, ...) naming the
    file and the field: a missing or bad field, an unknown model_type, a file that is not a
    small regular JSON file."""
    _check_dtype(dtype_bytes)
    path = config_file(path, param)
    text, _ = read_small_file(path, param, "a Hugging Face config.json")
    where = shown_path(path)
    data = parse_json_object(text, where, param, VALID)
    arch = architecture(Fields(data, where, param, VALID), display_name(path, data))
    return count(arch, dtype_bytes, source=str(path))


def config_model_keys() -> tuple[str, ...]:
    """Catalog models the counting can take (the whole dense decoder shape), then the
    shipped configs the catalog does not already name."""
    named = tuple(k for k in catalog.model_keys() if all(catalog.model(k).get(f) is not None for f in _CATALOG_SHAPE))
    return named + tuple(k for k in shipped_model_keys() if k not in named)


@cache
def shipped_model_keys() -> tuple[str, ...]:
    """Models people deploy, as their public Hugging Face config.json shipped with the lab
    (core/data/model_configs/KEY.json; its README names each file's source)."""
    folder = resources.files("core").joinpath("data/model_configs")
    return tuple(sorted(e.name[:-5] for e in folder.iterdir() if e.name.endswith(".json")))


def shipped_config_path(key: str) -> str:
    """The shipped config.json of a key of shipped_model_keys()."""
    return str(resources.files("core").joinpath(f"data/model_configs/{key}.json"))


def model_spec(key_or_path: str, dtype_bytes: float = 2, *, param: str = "model") -> ModelSpec:
    """A catalog model by key, else a config.json by path."""
    key = str(key_or_path)
    if key in catalog.model_keys():
        return _catalog_spec(key, dtype_bytes, param)
    if key in shipped_model_keys():
        return load_model_config(shipped_config_path(key), dtype_bytes, param=param)
    if hf_cache.looks_like_hub_id(key):  # 'Qwen/Qwen3-8B': the local Hugging Face cache's config.json
        return dataclasses.replace(load_model_config(hf_cache.resolve(key, param), dtype_bytes, param=param), name=key)
    if looks_like_a_key(key):  # 'qwen3-8x': a mistyped catalog key more likely than a file
        raise ParamError(param, f"{key!r}: no catalog model or file of that name; valid: one of "
                         f"{', '.join(config_model_keys())}, or a Hugging Face config.json's path")
    return load_model_config(key, dtype_bytes, param=param)


def looks_like_a_key(text: str) -> bool:
    """A bare name (no folder, no file suffix) that is not a file here."""
    return not any(c in text for c in "/\\.") and not os.path.exists(text)


def replay_params(model_key_or_path: str, dtype_bytes: float = 2, *, param: str = "model") -> dict[str, float]:
    """serving.replay's model values (weights_bytes read per step, kv_bytes_per_token and
    StepCost's matrix_flops_per_token, lm_head_flops_per_row, attention_flops_per_pair).
    For qwen3-8b they equal StepCost's defaults exactly."""
    return model_spec(model_key_or_path, dtype_bytes, param=param).replay_params()


def _catalog_spec(key: str, dtype_bytes: float, param: str) -> ModelSpec:
    _check_dtype(dtype_bytes)
    m = catalog.model(key)
    missing = [f for f in _CATALOG_SHAPE if m.get(f) is None]
    if missing:
        usable = ", ".join(config_model_keys())
        raise ParamError(param, f"{key}: the catalog entry lacks {', '.join(missing)}; valid: {usable} "
                         f"or a config.json path")
    attention = GroupedAttention(int(m["num_attention_heads"]), int(m["num_kv_heads"]), int(m["head_dim"]),
                                 qk_norm=bool(m.get("qk_norm", False)))
    arch = Architecture(name=key, family="catalog", hidden_size=int(m["hidden_size"]), num_layers=int(m["num_layers"]),
                        vocab_size=int(m["vocab_size"]), tie_word_embeddings=bool(m.get("tie_word_embeddings", False)),
                        attention=attention, intermediate_size=int(m["intermediate_size"]))
    return count(arch, dtype_bytes, source=m.source)


def _check_dtype(dtype_bytes: float) -> None:
    if isinstance(dtype_bytes, bool) or not isinstance(dtype_bytes, (int, float)) or not 0 < dtype_bytes <= MAX_DTYPE_BYTES:
        raise ParamError("dtype_bytes", f"got {dtype_bytes!r}; valid: (0, {MAX_DTYPE_BYTES}] bytes per value")


from core.model_config.calculator import CALCULATORS  # noqa: E402  (uses the functions above)
