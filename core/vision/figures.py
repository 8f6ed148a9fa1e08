"""What each figure of the Vision & multimodal panel draws (§3.3.1-3.3.2), computed from
the panel's state (core.vision.state): the request table, the volume bars, where the
question sits, the handoff points, 练习 3-5 and the image-generation curve. The panel only
draws these; `lab snapshot vision` renders the same.

Each function takes a card's checked inputs and its result (what the card computed), so
nothing is parsed or computed twice.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from core.model_config.as_catalog import model_or_config
from core.units import format_bytes, format_count, format_flops
from core.vision import image_gen
from core.vision.calculator import QUESTION_POSITIONS
from core.vision.images import expand_images
from core.vision.layout import TokenLayout, layout

LOG_FLOOR = 3  # volume bars start at 1 kB (10^3 B)
VOLUME_KINDS = (("file", "压缩文件 file", "wait"), ("ec", "编码结果 EC", "ec"), ("kv", "语言 KV", "state"))
QUESTION_KINDS = {"prefix": "wait", "image": "ec", "question": "decode"}  # colour keys of widgets.kit.theme
SWEEP_SIDES = np.arange(256, 4096 + 1, 64)
TABLE_HEADER = ("", "原尺寸 → 模型尺寸", "patch", "视觉 token", "文件 file", "EC", "KV")


def mib(value: float) -> str:
    """EC and KV in binary units, as the book writes them (7.8125 MiB)."""
    return format_bytes(value, "iec", digits=6)


def file_size(value: float) -> str:
    """Compressed files in SI units, as the book writes them (0.8 MB)."""
    return format_bytes(value, "si", digits=4)


def request_layouts(inputs: Mapping[str, Any]) -> list[TokenLayout]:
    """Each image's layout under the request's model constants and resize policy."""
    return [layout(h, w, inputs["patch"], inputs["merge"], inputs["resize"], inputs["min_pixels"],
                      inputs["max_pixels"])
            for h, w, _ in expand_images(inputs["heights"], inputs["widths"], inputs["file_bytes"])]


def request_table(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """Rows of the volumes table: each image, the text, then the whole request (bold)."""
    rows: list[tuple[str, ...]] = []
    for i, lay in enumerate(request_layouts(inputs)):
        rows.append((f"图 {i + 1}", f"{lay.width}×{lay.height} → {lay.model_width}×{lay.model_height}",
                     format_count(lay.patches), format_count(result["per_image_tokens"][i]),
                     file_size(result["per_image_raw_bytes"][i]), mib(result["per_image_ec_bytes"][i]),
                     mib(result["per_image_kv_bytes"][i])))
    text = inputs["text_tokens"] + inputs["prefix_tokens"]
    rows.append(("文本 text", "—", "—", format_count(text), "—", "—", mib(result["text_kv_bytes"])))
    rows.append(("整个请求", f"{result['images']} 张图 + {format_count(text)} 文本 token", "—",
                 format_count(result["input_tokens"]), file_size(result["raw_bytes"]), mib(result["ec_bytes"]),
                 mib(result["input_kv_bytes"])))
    return rows


def volume_bars(result: Mapping[str, Any]) -> dict[str, Any]:
    """Bar groups on a log scale: each image (file, EC, its visual KV), then the whole
    request; bar positions, heights above the floor, value labels and the axis ranges."""
    n = result["images"] + 1
    labels = [f"图 {i + 1}" for i in range(n - 1)] + ["整个请求"]
    values = {"file": list(result["per_image_raw_bytes"]) + [result["raw_bytes"]],
              "ec": list(result["per_image_ec_bytes"]) + [result["ec_bytes"]],
              "kv": list(result["per_image_kv_bytes"]) + [result["input_kv_bytes"]]}
    centers = np.arange(n) * 4.0
    bars, texts = {}, []
    for k, (key, _, _) in enumerate(VOLUME_KINDS):
        v = np.asarray(values[key], dtype=float)
        logs = np.log10(np.maximum(v, 1.0))
        xs = centers + (k - 1)
        bars[key] = {"x": xs, "height": np.maximum(logs - LOG_FLOOR, 0.0), "y0": np.full(n, float(LOG_FLOOR))}
        for x, value, top in zip(xs, v, np.maximum(logs, LOG_FLOOR)):
            label = (file_size(value) if key == "file" else mib(value)) if value > 0 else "0"
            texts.append((float(x), float(top), label))
    top = max(math.log10(max(max(values["kv"]), 1.0)) + 1.5, LOG_FLOOR + 1)  # room for the legend
    return {"labels": labels, "values": values, "ticks": list(zip(centers.tolist(), labels)), "bars": bars,
            "texts": texts, "show_text": n <= 6, "x_range": (-2.0, float(centers[-1]) + 2),
            "y_range": (float(LOG_FLOOR), top)}


def question_layouts(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, list[tuple[str, int, int]]]:
    """Token order for both places of the question: (kind, start, end) segments."""
    prefix, text = inputs["prefix_tokens"], inputs["text_tokens"]
    out = {}
    for where in QUESTION_POSITIONS:
        segs, pos = [], 0
        if prefix:
            segs.append(("prefix", pos, pos + prefix))
            pos += prefix
        if where == "before":
            segs.append(("question", pos, pos + text))
            pos += text
        for tokens in result["per_image_tokens"]:
            segs.append(("image", pos, pos + tokens))
            pos += tokens
        if where == "after":
            segs.append(("question", pos, pos + text))
        out[where] = segs
    return out


def question_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """Both prompt orders as rows of segments (after at y=1, before at y=0), the chosen one
    opaque; a stale box from the question to the end (a new question invalidates its own KV
    and everything after it, causal attention); each row's kept/recomputed KV."""
    layouts = question_layouts(inputs, result)
    chosen = inputs["question"]
    kv = inputs["kv_bytes_per_token"]
    segments: list[dict[str, Any]] = []
    stale: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for row, where in ((1, "after"), (0, "before")):
        segs = layouts[where]
        alpha = 235 if where == chosen else 110
        first_question = next((s[1] for s in segs if s[0] == "question"), segs[-1][2] if segs else 0)
        end = segs[-1][2] if segs else 0
        for kind, a, b in segs:
            segments.append({"kind": kind, "x0": a, "x1": b, "y0": row - 0.3, "y1": row + 0.3, "alpha": alpha})
        stale.append({"x0": first_question, "x1": end, "y0": row - 0.38, "y1": row + 0.38})
        stale_tokens = end - first_question
        name = "问题在后 after" if where == "after" else "问题在前 before"
        rows.append({"row": row, "where": where, "label_pos": (0.0, row + 0.55),
                     "label": f"{name}: 换问题后保留 {mib((end - stale_tokens) * kv)},重算 {mib(stale_tokens * kv)}"})
    total = max((s["x1"] for s in segments), default=0) or 1
    return {"layouts": layouts, "chosen": chosen, "segments": segments, "stale": stale, "rows": rows,
            "x_range": (0, total), "reusable_kv": mib(result["reusable_kv_bytes"]),
            "recomputed_kv": mib(result["recomputed_kv_bytes"]), "reusable_ec": mib(result["reusable_ec_bytes"])}


def handoff_figure(result: Mapping[str, Any]) -> dict[str, Any]:
    """Bytes at the three handoff points of E → P → D for the request (vision.handoff with
    the request's whole text): the file, the EC and the KV after prefill."""
    values = {"raw": result["raw_bytes"], "ec": result["ec_bytes"], "kv": result["input_kv_bytes"]}
    return {"values": values, "texts": {"raw": file_size(values["raw"]), "ec": mib(values["ec"]),
                                        "kv": mib(values["kv"])}}


def compare_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """练习 3-5: each side's token layout and caption, the growth bars and the (side ratio)² line."""
    m = model_or_config(inputs["model"], part="vision")
    sides = []
    for tag in ("a", "b"):
        side = inputs[f"side_{tag}"]
        sides.append({"side": side, "layout": layout(side, side, m["patch_size"], m["spatial_merge_size"]),
                      "title": f"{side}×{side}: {format_count(result[f'tokens_{tag}'])} 个视觉 token",
                      "detail": f"EC {mib(result[f'ec_bytes_{tag}'])} · KV {mib(result[f'kv_bytes_{tag}'])} · "
                                f"编码 {format_flops(result[f'encode_flops_{tag}'])}"})
    ratios = [result["tokens_ratio"], result["ec_ratio"], result["kv_ratio"], result["encode_flops_ratio"]]
    square = result["side_ratio"] ** 2
    return {"sides": sides, "ratios": ratios, "labels": [(i, r, f"×{r:.3g}") for i, r in enumerate(ratios)],
            "square": square, "y_max": max(ratios + [square]) * 1.18}


def diffusion_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """The FLOPs of square images over SWEEP_SIDES (and the per-pixel straight line), the
    card's own H×W as a point with its label (in the plot's log coordinates)."""
    sweep = image_gen.sweep_sides(inputs["model"], SWEEP_SIDES, inputs["steps"], inputs["cfg"], inputs["text_tokens"])
    side = math.sqrt(inputs["height"] * inputs["width"])
    return {"sides": sweep["sides"], "flops": sweep["flops"], "linear_flops": sweep["linear_flops"],
            "point": (side, result["flops"]), "label_pos": (math.log10(side), math.log10(result["flops"])),
            "label": f"{inputs['width']}×{inputs['height']}: {format_count(result['latent_positions'])} 位置, "
                     f"{format_flops(result['flops'])}",
            "loop": loop_texts(result)}


def loop_texts(result: Mapping[str, Any]) -> dict[str, Any]:
    """The generation loop diagram: steps × branches = forwards, and each branch's DiT."""
    steps, branches = result["dit_forwards"] // result["branches"], result["branches"]
    forward = (f"DiT @ {format_count(result['latent_positions'])} 位置 ({result['latent_height']}×"
               f"{result['latent_width']})\n{format_flops(result['flops_per_forward'])}")
    names = ("条件分支", "负向分支 (CFG)")
    return {"result": dict(result),
            "title": f"↻ {steps} 步 × {branches} 分支 (CFG) = {result['dit_forwards']} 次 DiT 前向",
            "branches": [f"{names[b]}\n{forward}" for b in range(branches)]}


def panel_figures(state) -> dict[str, Any]:
    """Every figure of the panel for a VisionState (what `lab snapshot vision` shows)."""
    req, cmp_, dif = state.card("request"), state.card("compare"), state.card("diffusion")
    out: dict[str, Any] = {}
    if req.result is not None:
        inputs = req.result_inputs
        out.update(table=request_table(inputs, req.result), volumes=volume_bars(req.result),
                   question=question_figure(inputs, req.result), handoff=handoff_figure(req.result))
    if cmp_.result is not None:
        out["compare"] = compare_figure(cmp_.result_inputs, cmp_.result)
    if dif.result is not None:
        out["diffusion"] = diffusion_figure(dif.result_inputs, dif.result)
    return out
