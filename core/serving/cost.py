"""What a replay's cards cost: the fleet by the hour and per million output tokens.

  cost_per_hour = replicas × cards_per_replica × price_per_card_hour          (USD/h)
  cost_per_million_output_tokens = cost_per_hour × duration_s / 3600
                                   / output tokens × 1e6                       (USD)

duration_s is the run's, as vllm bench serve times it (first arrival to last finish,
core.serving.vllm_metrics.duration_s): every replica is paid for the whole run, idle or
not; output tokens are those of the requests that finished (a cancelled request's are
not counted). Prices are on-demand list prices per card-hour (core/data/catalog.json,
each with its source and date; a card's TOML may give its own). No Qt here.
"""
from __future__ import annotations

import math

import numpy as np

from core.serving.vllm_metrics import duration_s

SECONDS_PER_HOUR = 3600.0
TOKENS_PER_MILLION = 1e6


def cost_per_hour(replicas: int, cards_per_replica: int, price_per_card_hour: float) -> float:
    return float(replicas) * float(cards_per_replica) * float(price_per_card_hour)


def cost_per_million_output_tokens(per_hour: float, duration_s: float, output_tokens: int) -> float | None:
    """None when nothing was produced (no tokens to share the cost)."""
    if output_tokens <= 0 or not math.isfinite(duration_s):
        return None
    return per_hour * duration_s / SECONDS_PER_HOUR / output_tokens * TOKENS_PER_MILLION


def finished_output_tokens(result) -> int:
    done = np.isfinite(result.finish_s)
    cancelled = getattr(result, "cancelled", None)
    if cancelled is not None:
        done &= ~np.asarray(cancelled, bool)
    return int(np.sum(result.output_tokens[done]))


def cost_report(result, replicas: int, price_per_card_hour: float | None, cards_per_replica: int = 1) -> dict:
    """The cost keys of a `lab simulate serving` report (price None: a card without a
    price; the costs are then None too)."""
    report = {"replicas": int(replicas), "cards_per_replica": int(cards_per_replica),
              "price_per_card_hour": None if price_per_card_hour is None else float(price_per_card_hour)}
    if price_per_card_hour is None:
        report.update(cost_per_hour=None, cost_per_million_output_tokens=None)
        return report
    per_hour = cost_per_hour(replicas, cards_per_replica, price_per_card_hour)
    report["cost_per_hour"] = per_hour
    report["cost_per_million_output_tokens"] = cost_per_million_output_tokens(
        per_hour, duration_s(result), finished_output_tokens(result))
    return report
