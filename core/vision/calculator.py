"""§3.3.1 (图 3-15/3-16, 练习 3-5): the vision calculators. One image's tokens, EC and KV
(vision.tokens), a whole visual question's volumes (vision.request), the bytes at each
handoff point (vision.handoff), the vision tower's FLOPs (vision.encode_flops) and the
exercise's 640 vs 1280 (vision.compare). What they count from: core.vision.layout (resize,
patch grid, volumes), core.vision.images (image lists) and core.vision.encoder (FLOPs).
"""
from __future__ import annotations

from core.model_config.as_catalog import model_or_config
from core.registry import BookRef, BookValue, Calculator, Output, Param
from core.vision.encoder import encode_flops_breakdown, vision_models
from core.vision.images import BOOK_FILE_BYTES, expand_images
from core.vision.layout import (
    DTYPE_BYTES,
    FEATURE_COPIES,
    FEATURE_WIDTH,
    KV_BYTES_PER_TOKEN,
    MAX_PIXELS,
    MAX_SIDE,
    MERGE,
    MIN_PIXELS,
    PATCH,
    RESIZE_MODES,
    VISION_MODEL,
    check_aspect,
    check_layout_params,
    layout,
    volumes,
)

# Read from here by core/serving (MAX_ASPECT) and the Vision panel's image column (the pixel
# limit's range) until they import the topic modules (S_request.md).
from core.vision.layout import MAX_ASPECT as MAX_ASPECT
from core.vision.pixel_limit import PIXEL_LIMIT_MAX_MP as PIXEL_LIMIT_MAX_MP
from core.vision.pixel_limit import PIXEL_LIMIT_MIN_MP as PIXEL_LIMIT_MIN_MP

QUESTION_POSITIONS = ("after", "before")


# --------------------------------------------------------------------------------------
# vision.tokens
# --------------------------------------------------------------------------------------

def tokens(height, width, patch, merge, feature_width, feature_copies, kv_bytes_per_token, dtype_bytes,
           resize, min_pixels, max_pixels) -> dict:
    lay = layout(height, width, patch, merge, resize, min_pixels, max_pixels)
    out = {
        "model_height": lay.model_height,
        "model_width": lay.model_width,
        "grid_h": lay.grid_h,
        "grid_w": lay.grid_w,
        "token_grid_h": lay.token_grid_h,
        "token_grid_w": lay.token_grid_w,
        "patches": lay.patches,
        "visual_tokens": lay.visual_tokens,
        "ec_feature_width": feature_width * feature_copies,
    }
    out.update(volumes(lay.visual_tokens, feature_width, feature_copies, dtype_bytes, kv_bytes_per_token))
    return out


def _check_tokens(values: dict) -> None:
    check_layout_params(values)
    check_aspect(("height", "width"), values["height"], values["width"], values)


def _model_params() -> tuple[Param, ...]:
    """The model constants shared by every vision calculator (Qwen3-VL-4B defaults)."""
    return (
        Param("patch", "px", PATCH, "p: patch side (Qwen3-VL: 16×16)", 1, 1024, kind="int", label="patch"),
        Param("merge", "patches", MERGE, "r: patches merged per side into one token (2×2)", 1, 64, kind="int", label="merge"),
        Param("feature_width", "features", FEATURE_WIDTH, "width of one visual token's features (2,560)", 1, 1_000_000, kind="int"),
        Param("feature_copies", "copies", FEATURE_COPIES, "DeepStack: final + 3 intermediate layers = 4 copies", 1, 64, kind="int"),
        Param("kv_bytes_per_token", "bytes", KV_BYTES_PER_TOKEN, "language KV per token (Qwen3-4B: 144 KiB)", 0, 1e9, kind="int"),
        Param("dtype_bytes", "bytes", DTYPE_BYTES, "bytes per feature (BF16: 2)", 1, 8, kind="int"),
        Param("resize", "", "fit", "fit: round to multiples of p·r within the pixel bounds (Qwen dynamic resolution); "
              "keep: pad to the next multiple", kind="choice", choices=RESIZE_MODES),
        Param("min_pixels", "px", MIN_PIXELS, "smallest image area after resize (Qwen3-VL: 65,536)", 1, 1e12, kind="int"),
        Param("max_pixels", "px", MAX_PIXELS, "largest image area after resize (Qwen3-VL: 16,777,216)", 1, 1e12, kind="int"),
    )


_HEIGHT = Param("height", "px", 640, "image height in pixels (图 3-15: 640)", 1, MAX_SIDE, kind="int", label="H")
_WIDTH = Param("width", "px", 640, "image width in pixels (图 3-15: 640)", 1, MAX_SIDE, kind="int", label="W")

MIB = 1024 ** 2

TOKENS = Calculator(
    name="vision.tokens",
    title="像素 → 块 → 视觉 token → 三种数据 · one image's tokens, EC and KV",
    ref=BookRef("3.3.1", "图 3-15/3-16"),
    params=(_HEIGHT, _WIDTH) + _model_params(),
    outputs=(
        Output("model_height", "px", "image height the encoder sees after the resize policy", "round(H / (p·r))·p·r, area within bounds"),
        Output("model_width", "px", "image width the encoder sees after the resize policy", "round(W / (p·r))·p·r, area within bounds"),
        Output("grid_h", "patches", "patch rows", "H' / p"),
        Output("grid_w", "patches", "patch columns", "W' / p"),
        Output("token_grid_h", "tokens", "merged-token rows", "H' / (p·r)"),
        Output("token_grid_w", "tokens", "merged-token columns", "W' / (p·r)"),
        Output("patches", "patches", "p×p pixel blocks the encoder embeds", "H'·W' / p²"),
        Output("visual_tokens", "tokens", "tokens the language model receives for this image", "n_v = H'·W' / (p²·r²)"),
        Output("ec_feature_width", "features", "feature width of one EC row with DeepStack", "feature_width · feature_copies"),
        Output("ec_single_bytes", "bytes", "encoder output, one copy (final layer only)", "n_v · feature_width · dtype_bytes"),
        Output("ec_bytes", "bytes", "full encoder cache EC: all DeepStack copies; reusable across requests for the same image",
               "n_v · feature_width · feature_copies · dtype_bytes"),
        Output("kv_bytes", "bytes", "language KV of the visual tokens; lives with the request", "n_v · kv_bytes_per_token"),
    ),
    compute=tokens,
    check=_check_tokens,
    book=(
        BookValue("patches", 1600, "1,600 个 patch"),
        BookValue("visual_tokens", 400, "400 个视觉 token"),
        BookValue("ec_feature_width", 10240, "[400, 10240]"),
        BookValue("ec_single_bytes", 2_048_000, "400×2560×2 = 2,048,000 B ≈ 1.95 MiB"),
        BookValue("ec_bytes", 8_192_000, "8,192,000 B = 7.8125 MiB"),
        BookValue("kv_bytes", 56.25 * MIB, "56.25 MiB"),
        # 练习 3-5: the same image at 1280×1280.
        BookValue("patches", 6400, "练习 3-5: 1280×1280 → 6,400 patch", params={"height": 1280, "width": 1280}, derived=True),
        BookValue("visual_tokens", 1600, "练习 3-5: 1,600 个视觉 token (×4)", params={"height": 1280, "width": 1280}, derived=True),
        BookValue("ec_bytes", 31.25 * MIB, "练习 3-5: EC 31.25 MiB (×4)", params={"height": 1280, "width": 1280}, derived=True),
        BookValue("kv_bytes", 225 * MIB, "练习 3-5: 视觉 KV 225 MiB (×4)", params={"height": 1280, "width": 1280}, derived=True),
    ),
)


# --------------------------------------------------------------------------------------
def _check_images(values: dict) -> None:
    check_layout_params(values)
    images = expand_images(values["heights"], values["widths"], values.get("file_bytes"))
    for h, w, _ in images:
        check_aspect(("heights", "widths"), h, w, values)


def _image_params(heights: str, widths: str, file_bytes: str) -> tuple[Param, ...]:
    return (
        Param("heights", "px", heights, "height of each image, comma list (one entry per image)", 1, MAX_SIDE,
              kind="floats", max_items=256, label="H per image"),
        Param("widths", "px", widths, "width of each image; one value applies to all", 1, MAX_SIDE,
              kind="floats", max_items=256, label="W per image"),
        Param("file_bytes", "bytes", file_bytes, "compressed file size of each image; one value applies to all "
              "(the book's screenshot: 0.8 MB)", 0, 1e12, kind="floats", max_items=256),
    )


def request_figures(heights, widths, file_bytes, text_tokens, prefix_tokens, question, patch, merge, feature_width,
                    feature_copies, kv_bytes_per_token, dtype_bytes, resize, min_pixels, max_pixels) -> dict:
    """Whole-request volumes: per image, summed, and what survives a new question."""
    images = expand_images(heights, widths, file_bytes)
    per_tokens, per_ec, per_kv, per_raw = [], [], [], []
    for h, w, fb in images:
        lay = layout(h, w, patch, merge, resize, min_pixels, max_pixels)
        vol = volumes(lay.visual_tokens, feature_width, feature_copies, dtype_bytes, kv_bytes_per_token)
        per_tokens.append(lay.visual_tokens)
        per_ec.append(vol["ec_bytes"])
        per_kv.append(vol["kv_bytes"])
        per_raw.append(fb)
    visual = sum(per_tokens)
    input_tokens = prefix_tokens + visual + text_tokens
    # Causal attention: a token's KV depends on everything before it. Only the part of the
    # prompt ahead of the question keeps its KV when the question alone changes.
    reusable_tokens = prefix_tokens + (visual if question == "after" else 0)
    return {
        "images": len(images),
        "visual_tokens": visual,
        "input_tokens": input_tokens,
        "raw_bytes": sum(per_raw),
        "ec_bytes": sum(per_ec),
        "input_kv_bytes": input_tokens * kv_bytes_per_token,
        "text_kv_bytes": (prefix_tokens + text_tokens) * kv_bytes_per_token,
        "reusable_tokens": reusable_tokens,
        "reusable_kv_bytes": reusable_tokens * kv_bytes_per_token,
        "recomputed_kv_bytes": (input_tokens - reusable_tokens) * kv_bytes_per_token,
        # The EC depends on the image alone: it survives any change of the text.
        "reusable_ec_bytes": sum(per_ec),
        "per_image_tokens": per_tokens,
        "per_image_raw_bytes": per_raw,
        "per_image_ec_bytes": per_ec,
        "per_image_kv_bytes": per_kv,
    }


REQUEST = Calculator(
    name="vision.request",
    title="一次视觉问答的 EC 与输入 KV · images + text, question before or after",
    ref=BookRef("3.3.1", "图 3-16"),
    params=_image_params("640,640,640,640", "640", str(BOOK_FILE_BYTES)) + (
        Param("text_tokens", "tokens", 400, "text tokens of the question (book: 400)", 0, 10_000_000, kind="int"),
        Param("prefix_tokens", "tokens", 0, "tokens before everything (system prompt, earlier turns); always reusable",
              0, 10_000_000, kind="int"),
        Param("question", "", "after", "where the question sits: after the images (their KV survives a new question) "
              "or before them (a new question changes their KV)", kind="choice", choices=QUESTION_POSITIONS),
    ) + _model_params(),
    outputs=(
        Output("images", "images", "images in the request", "len(heights)"),
        Output("visual_tokens", "tokens", "visual tokens of all images", "Σ n_v"),
        Output("input_tokens", "tokens", "tokens the language prefill processes", "prefix + Σ n_v + text"),
        Output("raw_bytes", "bytes", "compressed files sent", "Σ file bytes"),
        Output("ec_bytes", "bytes", "encoder cache of all images", "Σ n_v · feature_width · feature_copies · dtype_bytes"),
        Output("input_kv_bytes", "bytes", "language KV after prefill of the whole input", "(prefix + Σ n_v + text) · kv_bytes_per_token"),
        Output("text_kv_bytes", "bytes", "language KV of the text (prefix and question)",
               "(prefix + text) · kv_bytes_per_token"),
        Output("reusable_tokens", "tokens", "tokens whose KV survives when only the question changes",
               "prefix + Σ n_v if the question is after the images, else prefix"),
        Output("reusable_kv_bytes", "bytes", "KV kept when only the question changes (causal attention)",
               "reusable_tokens · kv_bytes_per_token"),
        Output("recomputed_kv_bytes", "bytes", "KV that a new question forces the prefill to rebuild",
               "input_kv_bytes − reusable_kv_bytes"),
        Output("reusable_ec_bytes", "bytes", "EC kept when only the question changes: all of it (image-only)", "ec_bytes"),
        Output("per_image_tokens", "tokens", "visual tokens of each image", "n_v(i)", kind="series"),
        Output("per_image_raw_bytes", "bytes", "file bytes of each image", "file(i)", kind="series"),
        Output("per_image_ec_bytes", "bytes", "EC of each image", "EC(i)", kind="series"),
        Output("per_image_kv_bytes", "bytes", "visual KV of each image", "n_v(i) · kv_bytes_per_token", kind="series"),
    ),
    compute=request_figures,
    check=_check_images,
    book=(
        BookValue("visual_tokens", 1600, "四张图 × 400", derived=True),
        BookValue("ec_bytes", 31.25 * MIB, "四张图 + 400 文本 token: EC 31.25 MiB"),
        BookValue("input_kv_bytes", 281.25 * MIB, "输入 KV 281.25 MiB"),
        BookValue("reusable_kv_bytes", 225 * MIB, "问题放在之后:视觉 KV 不变 (1,600 × 144 KiB)", derived=True),
        BookValue("reusable_kv_bytes", 0, "问题放在之前:换问题就会改变视觉 token 的 KV",
                  params={"question": "before"}, derived=True, abs_tol=0.5),
    ),
)


def handoff(heights, widths, file_bytes, text_tokens, patch, merge, feature_width, feature_copies,
            kv_bytes_per_token, dtype_bytes, resize, min_pixels, max_pixels) -> dict:
    """Bytes at each of the three handoff points of E → P → D for the current request."""
    fig = request_figures(heights, widths, file_bytes, text_tokens, 0, "after", patch, merge, feature_width,
                          feature_copies, kv_bytes_per_token, dtype_bytes, resize, min_pixels, max_pixels)
    raw, ec, kv = fig["raw_bytes"], fig["ec_bytes"], fig["input_kv_bytes"]
    return {
        "raw_bytes": raw,
        "ec_bytes": ec,
        "kv_bytes": kv,
        "visual_tokens": fig["visual_tokens"],
        "ec_over_raw": ec / raw if raw > 0 else None,
        "kv_over_ec": kv / ec if ec > 0 else None,
    }


HANDOFF = Calculator(
    name="vision.handoff",
    title="三个交接位置 · raw image, EC, KV: bytes at each handoff point",
    ref=BookRef("3.3.1", "图 3-16"),
    params=_image_params("640", "640", str(BOOK_FILE_BYTES)) + (
        Param("text_tokens", "tokens", 0, "text tokens prefilled with the images (they join the KV, not the EC)",
              0, 10_000_000, kind="int"),
    ) + _model_params(),
    outputs=(
        Output("raw_bytes", "bytes", "handoff before E: the receiver still runs the vision encoder", "Σ file bytes"),
        Output("ec_bytes", "bytes", "handoff after E: the receiver starts at the language prefill",
               "Σ n_v · feature_width · feature_copies · dtype_bytes"),
        Output("kv_bytes", "bytes", "handoff after P: the finished language context, ready to decode",
               "(Σ n_v + text) · kv_bytes_per_token"),
        Output("visual_tokens", "tokens", "visual tokens of all images", "Σ n_v"),
        Output("ec_over_raw", "ratio", "how much bigger the EC is than the file", "ec_bytes / raw_bytes"),
        Output("kv_over_ec", "ratio", "how much bigger the KV is than the EC", "kv_bytes / ec_bytes"),
    ),
    compute=handoff,
    check=_check_images,
    book=(
        BookValue("raw_bytes", BOOK_FILE_BYTES, "压缩截图 0.8 MB (给定输入)"),
        BookValue("ec_bytes", 8_192_000, "完整编码结果 EC 7.8125 MiB"),
        BookValue("kv_bytes", 56.25 * MIB, "视觉 token 的语言 KV 56.25 MiB"),
    ),
)


# --------------------------------------------------------------------------------------
def encode_flops(model, height, width, resize, min_pixels, max_pixels) -> dict:
    m = model_or_config(model, part="vision")
    lay = layout(height, width, m["patch_size"], m["spatial_merge_size"], resize, min_pixels, max_pixels)
    out = encode_flops_breakdown(model, lay)
    out.update({"patches": lay.patches, "visual_tokens": lay.visual_tokens,
                "model_height": lay.model_height, "model_width": lay.model_width})
    out["attention_share"] = out["attention_flops"] / out["encode_flops"]
    return out


def _check_encode(values: dict) -> None:
    m = model_or_config(values["model"], part="vision")
    check_layout_params({**values, "patch": m["patch_size"], "merge": m["spatial_merge_size"]})
    check_aspect(("height", "width"), values["height"], values["width"], values)


ENCODE_FLOPS = Calculator(
    name="vision.encode_flops",
    title="视觉编码运算量 · vision tower FLOPs for one image",
    ref=BookRef("3.3.1", "图 3-15"),
    params=(
        Param("model", "", VISION_MODEL, "vision tower from the catalog (Qwen3-VL-4B: depth 24, hidden 1024), or a "
              "Qwen3-VL config.json path (its vision_config)", kind="path", choices=vision_models() or (VISION_MODEL,)),
        _HEIGHT, _WIDTH,
    ) + tuple(p for p in _model_params() if p.name in ("resize", "min_pixels", "max_pixels")),
    outputs=(
        Output("encode_flops", "FLOPs", "matrix FLOPs of one image through the vision tower (about 1.310e12 at 640×640)",
               "patch embed + blocks + attention + mergers"),
        Output("patch_embed_flops", "FLOPs", "Conv3d patch embedding as a matrix per patch", "2·N·(C·T·p²)·h"),
        Output("block_linear_flops", "FLOPs", "QKV, out projection and MLP of every block", "depth · 2·N·(4h² + 2h·inner)"),
        Output("attention_flops", "FLOPs", "full bidirectional attention among the patches: grows with N²", "depth · 4·N²·h"),
        Output("merger_flops", "FLOPs", "final + DeepStack mergers on the merged tokens", "copies · 2·n_v·(hr²·hr² + hr²·out)"),
        Output("attention_share", "ratio", "fraction of the work in attention (rises with image size)", "attention / total"),
        Output("patches", "patches", "patches N after resize", "H'·W' / p²"),
        Output("visual_tokens", "tokens", "visual tokens", "N / r²"),
        Output("model_height", "px", "height the encoder sees", "resize policy"),
        Output("model_width", "px", "width the encoder sees", "resize policy"),
    ),
    compute=encode_flops,
    check=_check_encode,
    book=(
        BookValue("encode_flops", 1.310e12, "约 1.310 TFLOPs", rel_tol=0.0005 / 1.310),
        # 练习 3-5 asks for 1280×1280: 4× the patches, 16× the attention pairs.
        BookValue("encode_flops", 8.261e12, "练习 3-5: 1280×1280 ≈ 8.261 TFLOPs (×6.3, not ×4)",
                  rel_tol=0.0005 / 8.261, params={"height": 1280, "width": 1280}, derived=True),
    ),
)


# --------------------------------------------------------------------------------------
# vision.compare (练习 3-5: 640 vs 1280)
# --------------------------------------------------------------------------------------

def compare(side_a, side_b, model) -> dict:
    m = model_or_config(model, part="vision")
    out: dict[str, float] = {}
    for tag, side in (("a", side_a), ("b", side_b)):
        lay = layout(side, side, m["patch_size"], m["spatial_merge_size"])
        vol = volumes(lay.visual_tokens)
        out[f"tokens_{tag}"] = lay.visual_tokens
        out[f"ec_bytes_{tag}"] = vol["ec_bytes"]
        out[f"kv_bytes_{tag}"] = vol["kv_bytes"]
        out[f"encode_flops_{tag}"] = encode_flops_breakdown(model, lay)["encode_flops"]
    for key in ("tokens", "ec_bytes", "kv_bytes", "encode_flops"):
        out[f"{key.replace('_bytes', '')}_ratio"] = out[f"{key}_b"] / out[f"{key}_a"]
    out["side_ratio"] = side_b / side_a
    return out


COMPARE = Calculator(
    name="vision.compare",
    title="练习 3-5 · 边长 640 → 1280: tokens, EC and KV ×4, encode FLOPs more than ×4",
    ref=BookRef("3.3.1", "练习 3-5"),
    params=(
        Param("side_a", "px", 640, "side of the square image before (book: 640)", 32, 100_000, kind="int"),
        Param("side_b", "px", 1280, "side after (练习 3-5: 1280)", 32, 100_000, kind="int"),
        Param("model", "", VISION_MODEL, "vision tower from the catalog, or a Qwen3-VL config.json path (its "
              "vision_config)", kind="path", choices=vision_models() or (VISION_MODEL,)),
    ),
    outputs=(
        Output("tokens_a", "tokens", "visual tokens at side_a", "side_a² / (p·r)²"),
        Output("tokens_b", "tokens", "visual tokens at side_b", "side_b² / (p·r)²"),
        Output("ec_bytes_a", "bytes", "full EC at side_a"),
        Output("ec_bytes_b", "bytes", "full EC at side_b"),
        Output("kv_bytes_a", "bytes", "visual KV at side_a"),
        Output("kv_bytes_b", "bytes", "visual KV at side_b"),
        Output("encode_flops_a", "FLOPs", "encoder FLOPs at side_a"),
        Output("encode_flops_b", "FLOPs", "encoder FLOPs at side_b"),
        Output("side_ratio", "ratio", "side_b / side_a"),
        Output("tokens_ratio", "ratio", "token growth: the square of the side ratio", "(side_b / side_a)²"),
        Output("ec_ratio", "ratio", "EC growth (width unchanged, tokens ×4)", "tokens ratio"),
        Output("kv_ratio", "ratio", "KV growth", "tokens ratio"),
        Output("encode_flops_ratio", "ratio", "encoder growth: more than the token ratio, attention is N²",
               "encode_flops_b / encode_flops_a"),
    ),
    compute=compare,
    book=(
        BookValue("tokens_a", 400, "640×640: 400 个视觉 token"),
        BookValue("ec_bytes_a", 8_192_000, "7.8125 MiB"),
        BookValue("kv_bytes_a", 56.25 * MIB, "56.25 MiB"),
        BookValue("tokens_ratio", 4, "边长加倍,视觉 token 变四倍"),
        BookValue("ec_ratio", 4, "EC 变四倍"),
        BookValue("kv_ratio", 4, "视觉 KV 变四倍"),
        BookValue("tokens_b", 1600, "练习 3-5: 1280×1280", derived=True),
        BookValue("ec_bytes_b", 31.25 * MIB, "练习 3-5: 31.25 MiB", derived=True),
        BookValue("kv_bytes_b", 225 * MIB, "练习 3-5: 225 MiB", derived=True),
    ),
)

CALCULATORS = (TOKENS, REQUEST, HANDOFF, ENCODE_FLOPS, COMPARE)
