"""The Serving panel's image run: replay A's workload with the image fields' images, and the
same keys without them, both through core.serving.headless.serving_report (the CLI's own:
the panel shows `lab simulate serving`'s numbers; the run without images has frontend=off,
as the image run). No Qt here (it runs on the job runner).

    raw = images_raw(base, image_inputs)   # base: pools_run.replay_raw (+ trace_raw)
    fig = run_images(raw)                  # ImagesFigure, or ImagesRefused(field, message)
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from core.registry import ParamError
from core.serving.headless import serving_report
from core.serving.images_card import image_keys
from core.serving.multimodal.keys import MM_KEYS


class ImagesRefused(NamedTuple):
    """Bad keys (not a bug): the field the run names and its message."""

    field: str
    message: str


def ttft_ms(report: Mapping[str, Any]) -> tuple[float, float]:
    """(TTFT p50, p95) in ms from a serving_report (its median in ms, its p95 in s)."""
    return float(report["median_ttft_ms"]), float(report["ttft_p95_s"]) * 1e3


@dataclass
class ImagesFigure:
    raw: dict  # the image run's keys
    report: dict  # its serving_report (the CLI's --json)
    text_report: dict  # the same keys without the image ones

    @property
    def block(self) -> dict:
        return self.report["images"]

    def command(self) -> str:
        return "lab simulate serving " + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in self.raw.items())


def images_raw(base: Mapping[str, str], inputs: Mapping[str, Any]) -> dict[str, str]:
    """The text keys of the panel's image run; {} when image_share is 0 (no run)."""
    images = image_keys(inputs)
    return {**base, **images} if images else {}


def text_raw(raw: Mapping[str, str]) -> dict[str, str]:
    """raw without its image keys: the run without images. With the front end off, as the
    image run has it (core/serving/multimodal/report.py replays the engine alone; a
    deployment would turn it on for the text run only): the two differ by the images."""
    return {**{k: v for k, v in raw.items() if k not in MM_KEYS}, "frontend": "off"}


def run_images(raw: dict[str, str]) -> ImagesFigure | ImagesRefused:
    """Both runs (on the job runner)."""
    try:
        report, _ = serving_report(dict(raw))
        text, _ = serving_report(text_raw(raw))
    except ParamError as err:
        return ImagesRefused(err.param, err.message)
    return ImagesFigure(raw=dict(raw), report=report, text_report=text)
