"""Routers: which of N replicas a request goes to, decided at its arrival from what the
replicas' engines show at that moment (core.serving.replicas drives them).

The rules (ROUTERS):
  round_robin        the k-th routed request goes to replica k mod N; looks at nothing.
  least_outstanding  fewest requests submitted and not finished (queued + running).
  least_kv           fewest KV blocks in use; ties: fewer outstanding.
  prefix_aware       the replica whose prefix cache holds the longest run of the request's
                     full prompt blocks (Engine.cached_prefix_blocks); when no replica holds
                     any, or several hold the same longest run, the least outstanding of
                     those (the policy of llm-d's prefix-cache scorer, load as the fallback).
Every remaining tie goes to the first tied replica after the one picked last (in circular
order), so equal replicas take turns instead of replica 0 getting every request of a
quiet period. All rules are deterministic. No Qt here.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.registry import ParamError

ROUTERS = ("round_robin", "least_outstanding", "least_kv", "prefix_aware")
ROUTER_NOTES = {
    "round_robin": "in turn, looking at nothing",
    "least_outstanding": "fewest requests queued or running",
    "least_kv": "fewest KV blocks in use (ties: fewest outstanding)",
    "prefix_aware": "longest cached prefix of the prompt; none or a tie: fewest outstanding",
}


class Router:
    """pick(r, engines) -> the replica index for engine-order request r."""

    name = ""

    def __init__(self, replicas: int):
        self.replicas = int(replicas)
        self.last = -1  # the replica picked last (ties rotate from the one after it)

    def pick(self, r: int, engines: Sequence) -> int:
        raise NotImplementedError

    def _first_after_last(self, candidates: list[int]) -> int:
        """Among candidate indices, the first after `last` in circular order."""
        n, last = self.replicas, self.last
        choice = min(candidates, key=lambda i: (i - last - 1) % n)
        self.last = choice
        return choice

    def _best(self, indices: list[int], score: Callable[[int], Any]) -> int:
        """The lowest score among indices, ties rotating."""
        scores = [score(i) for i in indices]
        low = min(scores)
        return self._first_after_last([i for i, s in zip(indices, scores) if s == low])


class RoundRobin(Router):
    name = "round_robin"

    def pick(self, r: int, engines: Sequence) -> int:
        self.last = (self.last + 1) % self.replicas
        return self.last


class LeastOutstanding(Router):
    name = "least_outstanding"

    def pick(self, r: int, engines: Sequence) -> int:
        return self._best(list(range(self.replicas)), lambda i: engines[i].outstanding())


class LeastKV(Router):
    name = "least_kv"

    def pick(self, r: int, engines: Sequence) -> int:
        return self._best(list(range(self.replicas)),
                          lambda i: (engines[i].kv_used_blocks(), engines[i].outstanding()))


class PrefixAware(Router):
    name = "prefix_aware"

    def pick(self, r: int, engines: Sequence) -> int:
        cached = [engines[i].cached_prefix_blocks(r) for i in range(self.replicas)]
        longest = max(cached)
        holders = [i for i, c in enumerate(cached) if c == longest]  # all of them when none holds any
        return self._best(holders, lambda i: engines[i].outstanding())


_CLASSES = {cls.name: cls for cls in (RoundRobin, LeastOutstanding, LeastKV, PrefixAware)}


def make_router(name: str, replicas: int) -> Router:
    if name not in _CLASSES:
        raise ParamError("router", f"got {name!r}; valid: {', '.join(ROUTERS)}")
    return _CLASSES[name](replicas)
