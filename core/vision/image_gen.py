"""§3.3.2: image generation updates the same latents again and again.

Total work = n_s · n_b · F_step(n_v): steps × CFG branches × FLOPs of one DiT forward at
n_v latent positions. Steps scale the work linearly; resolution does not: more positions
mean more rows through every linear layer *and* more position pairs in attention.

Counting (the team's convention that reproduces the book's 7.830e15): 2 FLOPs per weight
per row for every linear layer of the Qwen-Image MMDiT (image and text streams, their
per-sample modulation, input/output projections), joint attention over image + text
positions (QKᵀ and PV, 2·heads·head_dim each per pair). Text encoder and VAE excluded.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core import catalog
from core.model_config.as_catalog import model_or_config
from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError

DIT_MODEL = "qwen-image-dit"
TIMESTEP_CHANNELS = 256  # sinusoidal timestep projection fed to the time embedder


def dit_models() -> tuple[str, ...]:
    return tuple(k for k in catalog.model_keys() if k.endswith("-dit"))


def latent_grid(model_key: str, height: int, width: int) -> tuple[int, int]:
    """Positions per side: pixels / VAE downscale / latent patch."""
    m = model_or_config(model_key, part="dit")
    step = m["vae_scale"] * m["patch_size"]
    return height // step, width // step


def forward_flops(model_key: str, positions: int | np.ndarray, text_tokens: int) -> dict:
    """FLOPs of one DiT forward (one branch of one step); positions may be an array."""
    m = model_or_config(model_key, part="dit")
    d = m["hidden_size"]
    inner = m["mlp_size"]
    width = m["num_heads"] * m["head_dim"]
    layers = m["num_layers"]
    n = np.asarray(positions, dtype=np.float64)
    rows = n + text_tokens
    patch_values = m["patch_size"] ** 2 * m["out_channels"]
    io = 2 * n * m["in_channels"] * d + 2 * text_tokens * m["text_input_width"] * d + 2 * n * d * patch_values
    # Timestep embedder, per-block modulation of both streams and the output norm run on
    # one row per sample, not per position.
    per_sample = 2 * (TIMESTEP_CHANNELS * d + d * d) + layers * 2 * (2 * d * 6 * d) + 2 * d * 2 * d
    linear = layers * 2 * rows * (4 * d * d + 2 * d * inner)
    attention = layers * 4 * rows * rows * width
    total = io + per_sample + linear + attention
    return {"linear_flops": linear + io + per_sample, "attention_flops": attention, "flops_per_forward": total}


def diffusion(model, height, width, steps, cfg, text_tokens) -> dict:
    lh, lw = latent_grid(model, height, width)
    positions = lh * lw
    branches = 2 if cfg else 1
    f = forward_flops(model, positions, text_tokens)
    per_forward = float(f["flops_per_forward"])
    return {
        "latent_height": lh,
        "latent_width": lw,
        "latent_positions": positions,
        "branches": branches,
        "dit_forwards": steps * branches,
        "flops_per_forward": per_forward,
        "flops_per_step": per_forward * branches,
        "flops": per_forward * branches * steps,
        "attention_share": float(f["attention_flops"]) / per_forward,
        "flops_per_position": per_forward / positions,
    }


def sweep_sides(model: str, sides: Sequence[int] | np.ndarray, steps: int, cfg: bool, text_tokens: int,
                reference_side: int = 1024) -> dict:
    """Total FLOPs for square images of each side: the non-linear curve of 3.3.2.

    Also returns the straight line that scaling per pixel from reference_side would
    predict, so the gap is visible (above it attention pulls the curve up; below it the
    fixed text rows make small images cost more per pixel)."""
    side = np.asarray(sides, dtype=np.int64)
    m = model_or_config(model, part="dit")
    step = m["vae_scale"] * m["patch_size"]
    positions = (side // step) ** 2
    branches = 2 if cfg else 1
    flops = forward_flops(model, positions, text_tokens)["flops_per_forward"] * branches * steps
    ref_positions = (reference_side // step) ** 2
    ref = forward_flops(model, ref_positions, text_tokens)["flops_per_forward"] * branches * steps
    linear = ref * positions / ref_positions
    return {"sides": side, "positions": positions, "flops": flops, "linear_flops": linear}


def _check(values: dict) -> None:
    m = model_or_config(values["model"], part="dit")
    step = m["vae_scale"] * m["patch_size"]
    for name in ("height", "width"):
        if values[name] % step:
            raise ParamError(name, f"got {values[name]}; valid: a multiple of {step} "
                             f"(VAE ×{m['vae_scale']} then {m['patch_size']}×{m['patch_size']} latent patches)")


DIFFUSION = Calculator(
    name="image.diffusion",
    title="图像生成:反复更新同一组 latent · steps × CFG × DiT forward",
    ref=BookRef("3.3.2", "Qwen-Image-2512"),
    params=(
        Param("model", "", DIT_MODEL, "DiT from the catalog (Qwen-Image: 60 layers, hidden 3072), or a diffusers "
              "Qwen-Image transformer/config.json path", kind="path", choices=dit_models() or (DIT_MODEL,)),
        Param("height", "px", 1024, "output height (book: 1024)", 16, 16384, kind="int", label="H"),
        Param("width", "px", 1024, "output width (book: 1024)", 16, 16384, kind="int", label="W"),
        Param("steps", "steps", 50, "denoising steps n_s (pipeline default 50)", 1, 10_000, kind="int", label="n_s"),
        Param("cfg", "", True, "classifier-free guidance: 2 forwards per step (conditional + negative)", kind="bool"),
        Param("text_tokens", "tokens", 512, "text tokens per branch (max_sequence_length 512)", 0, 100_000, kind="int"),
    ),
    outputs=(
        Output("latent_height", "positions", "latent rows after VAE ×8 and 2×2 patches", "H / 16"),
        Output("latent_width", "positions", "latent columns", "W / 16"),
        Output("latent_positions", "positions", "image positions every forward updates", "n_v = (H/16)·(W/16)"),
        Output("branches", "branches", "forwards per step", "n_b = 2 with CFG, else 1"),
        Output("dit_forwards", "forwards", "DiT forwards for one image", "n_s · n_b"),
        Output("flops_per_forward", "FLOPs", "one DiT forward at n_v positions + text", "F_step(n_v)"),
        Output("flops_per_step", "FLOPs", "one denoising step", "n_b · F_step(n_v)"),
        Output("flops", "FLOPs", "one image (text encoder and VAE excluded)", "n_s · n_b · F_step(n_v)"),
        Output("attention_share", "ratio", "fraction of a forward spent in attention (rises with resolution)", "attention / F_step"),
        Output("flops_per_position", "FLOPs", "per latent position: not constant, so resolution is not linear", "F_step / n_v"),
    ),
    compute=diffusion,
    check=_check,
    book=(
        BookValue("latent_positions", 4096, "1024² · 4096 个 latent 位置"),
        BookValue("dit_forwards", 100, "默认 100 次 DiT 前向"),
        BookValue("flops", 7.830e15, "约 7.830×10¹⁵ FLOPs", rel_tol=0.0005 / 7.830),
        BookValue("flops", 2 * 7.830e15, "步数加倍运算量加倍 (100 步)", rel_tol=0.0005 / 7.830,
                  params={"steps": 100}, derived=True),
    ),
)

CALCULATORS = (DIFFUSION,)
