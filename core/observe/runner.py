"""One `lab observe` run: check the server, scrape /metrics, send the plan (client.py),
poll the gauges while it runs, scrape again, build and write the result (result.py).
Ctrl+C (SIGINT) stops sending, cancels what is in flight and writes what finished."""
from __future__ import annotations

import asyncio
import os
import secrets
import signal
from dataclasses import dataclass, field

import aiohttp

from core.observe import client, prom, result, server
from core.observe.prompts import Prompts
from core.observe.schedule import Plan

PREBUILD_WORDS = 20_000_000  # about 120 MB of prompt text held at once


@dataclass
class Settings:
    url: str
    out_dir: str
    plan: Plan
    words: tuple
    endpoint: str = "/v1/completions"
    model: str | None = None
    special_tokens: int = 0
    connect_timeout_s: float = 10.0
    request_timeout_s: float = 6 * 3600
    metrics_interval_s: float = 1.0
    headers: dict = field(default_factory=dict)
    chunk_usage: bool = True  # ask for usage in every chunk (vLLM's continuous_usage_stats)
    prompt_seed: int | None = None  # the texts' seed; None: fresh each run (see prompts.py)
    keys: dict = field(default_factory=dict)  # the workload's key=value words as given (the run can be drawn again)

    @property
    def chat(self) -> bool:
        return "chat" in self.endpoint


def headers_from_env() -> dict:
    """vllm bench's: OPENAI_API_KEY, when set, as a bearer token."""
    key = os.environ.get("OPENAI_API_KEY")
    return {"Authorization": f"Bearer {key}"} if key else {}


async def _poll(base: str, every_s: float, peaks: dict, done: asyncio.Event) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5.0)) as session:
        while not done.is_set():
            try:
                await asyncio.wait_for(done.wait(), every_s)
            except asyncio.TimeoutError:
                text = await server.scrape(session, base)
                if text is not None:
                    prom.peak(peaks, prom.parse(text))


async def _metrics(base: str) -> dict | None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5.0)) as session:
        text = await server.scrape(session, base)
    return prom.parse(text) if text is not None else None


class _Bodies:
    """The request bodies: all made before the run when their words fit PREBUILD_WORDS (no
    text is made while sending), else each when the dispatcher reaches it (in order), so a
    run of a million long prompts does not hold them all; then the client's lag includes
    making a text whenever the schedule has no room for it."""

    def __init__(self, texts: Prompts, make):
        self.texts, self.make = texts, make
        n = len(texts.input_tokens)
        self.made = [make(i, texts.prompt(i)) for i in range(n)] if texts.total_words() <= PREBUILD_WORDS else None
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict:
        return self.made[i] if self.made is not None else self.make(i, self.texts.prompt(i))


async def _measure(s: Settings, base: str, bodies, stop: asyncio.Event, on_done):
    """(the run, the metrics block): /metrics, the run with the gauges polled, /metrics again."""
    before = await _metrics(base)
    finished = asyncio.Event()
    peaks: dict = {}
    poller = asyncio.ensure_future(_poll(base, s.metrics_interval_s, peaks, finished)) if before else None
    try:
        run = await client.run_schedule(base + s.endpoint, s.chat, bodies, s.plan.send_s, s.plan.max_concurrency,
                                        headers=s.headers, request_timeout_s=s.request_timeout_s, on_done=on_done,
                                        stop=stop)
    finally:
        finished.set()
        if poller is not None:
            await asyncio.gather(poller, return_exceptions=True)
    after = await _metrics(base) if before else None
    return run, prom.summary(before, after, peaks or None)


async def observe_async(s: Settings, on_done=None, sigint: bool = True):
    """(result dict, written paths); ParamError for a URL or server that cannot be used.
    sigint: Ctrl+C from the first /metrics scrape to the written result stops the run
    and keeps what finished (before that, Python's KeyboardInterrupt: nothing was sent)."""
    base = server.base_url(s.url)
    model, info = await server.probe(base, s.model, s.connect_timeout_s, s.headers)
    plan = s.plan
    text_seed = s.prompt_seed if s.prompt_seed is not None else secrets.randbits(32)
    texts = Prompts(plan.input_tokens, plan.prefix_tokens, s.words, s.special_tokens, text_seed, plan.blocks)
    bodies = _Bodies(texts, lambda i, text: client.payload(s.chat, model, text, int(plan.output_tokens[i]),
                                                            s.chunk_usage))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    if sigint:
        loop.add_signal_handler(signal.SIGINT, stop.set)
    try:
        run, metrics = await _measure(s, base, bodies, stop, on_done)
        settings = {"url": s.url, "endpoint": s.endpoint, "prompt_words": f"{len(s.words)} words ({s.words[0]} ...)",
                    "prompt_special_tokens": s.special_tokens, "prompt_seed": text_seed,
                    "request_timeout_s": s.request_timeout_s, "chunk_usage": s.chunk_usage,
                    "metrics_interval_s": s.metrics_interval_s, "keys": dict(s.keys), "workload": plan.meta}
        res = result.build(run, plan, model=model, endpoint=s.endpoint, chat=s.chat, metrics=metrics, server=info,
                           tokenizer_id=model, settings=settings)
        return res, result.write(res, s.out_dir)
    finally:
        if sigint:
            loop.remove_signal_handler(signal.SIGINT)
