"""The load generator's client: one asyncio event loop, aiohttp.

aiohttp because it is `vllm bench serve`'s own client (the same connection pool and
keep-alive handling, so a run measures what vllm bench would) and it is asyncio-native:
a streamed body is read line by line as it arrives, timestamped on the loop, with no
thread per request.

Timing follows vllm bench (vllm/benchmarks/lib/endpoint_request_func.py): a request's
start is taken just before its POST, its TTFT when the first chunk with choices arrives,
one ITL per later chunk, its latency at the last chunk. Requests are sent on schedule:
one dispatcher sleeps to each request's absolute send time (lateness does not add up)
and hands the request to a task of its own; it never waits on a reply. A request is due
at its time or, under a concurrency limit, when a slot frees (the finishing request
stamps the slot), whichever is later; the client's lag is its actual start less that.
"""
from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import aiohttp

NO_TOKENS = "the stream ended with no tokens"


@dataclass
class Outcome:
    """One request as it went; times in s from the run's start (perf_counter)."""

    index: int
    scheduled_s: float
    due_s: float = math.nan
    start_s: float = math.nan
    ttft_s: float = 0.0  # 0 when no token came (vllm bench's convention)
    itl_s: list = field(default_factory=list)
    chunk_tokens: list = field(default_factory=list)  # tokens each chunk carried (per-chunk usage), else empty
    latency_s: float = 0.0
    prompt_tokens: int | None = None  # the server's usage counts
    completion_tokens: int | None = None
    text: str = ""
    error: str = ""
    end_s: float = math.nan  # when the reply ended (well or not)
    done: bool = False  # finished (well or with an error); False: cut short by Ctrl+C

    @property
    def success(self) -> bool:
        return self.done and not self.error

    @property
    def lag_s(self) -> float:
        return self.start_s - self.due_s


def payload(chat: bool, model: str, prompt: str, max_tokens: int, chunk_usage: bool = True) -> dict:
    """The request body: streamed, the output length forced (ignore_eos, max_tokens), usage
    asked for; chunk_usage: in every chunk too (vLLM's continuous_usage_stats), so a chunk
    that carries several tokens (the server coalesces them when the stream falls behind)
    is known to."""
    options = {"include_usage": True} | ({"continuous_usage_stats": True} if chunk_usage else {})
    body: dict = {"model": model, "stream": True, "ignore_eos": True, "temperature": 0.0, "stream_options": options}
    if chat:
        body["messages"] = [{"role": "user", "content": prompt}]
        body["max_completion_tokens"] = int(max_tokens)
    else:
        body["prompt"] = prompt
        body["max_tokens"] = int(max_tokens)
    return body


def _chunk_text(chat: bool, choice: dict) -> str | None:
    """A choice's text; None for the chat stream's role announcement (no token in it)."""
    if not chat:
        return choice.get("text") or ""
    delta = choice.get("delta") or {}
    content = delta.get("content")
    if not content and "role" in delta and not choice.get("finish_reason"):
        return None
    return content or ""


class _Tally:
    """A stream's chunks as they come: TTFT, ITLs, text, usage (Outcome's fields)."""

    def __init__(self, out: Outcome, chat: bool, st: float):
        self.out, self.chat, self.st = out, chat, st
        self.first: float | None = None
        self.last = st
        self.parts: list[str] = []
        self.counted = 0  # completion tokens the per-chunk usage has reported so far

    def event(self, obj, ts: float) -> None:
        out = self.out
        if not isinstance(obj, dict):
            return
        if obj.get("error") and not obj.get("choices"):
            err = obj["error"]
            out.error = str(err.get("message", err) if isinstance(err, dict) else err)[:300]
        choices = obj.get("choices")
        usage = obj.get("usage")
        if choices:
            text = _chunk_text(self.chat, choices[0])
            if text is not None:
                if self.first is None:
                    self.first = ts
                    out.ttft_s = ts - self.st
                else:
                    out.itl_s.append(ts - self.last)
                self.last = ts
                self.parts.append(text)
                if isinstance(usage, dict) and isinstance(usage.get("completion_tokens"), int):
                    out.chunk_tokens.append(usage["completion_tokens"] - self.counted)
        if isinstance(usage, dict):
            out.prompt_tokens = usage.get("prompt_tokens", out.prompt_tokens)
            out.completion_tokens = usage.get("completion_tokens", out.completion_tokens)
            if isinstance(out.completion_tokens, int):
                self.counted = out.completion_tokens

    def close(self) -> None:
        out = self.out
        out.text = "".join(self.parts)
        if self.first is None:
            out.error = out.error or NO_TOKENS
        else:
            out.latency_s = self.last - self.st


async def _stream(resp, out: Outcome, chat: bool, st: float) -> None:
    """Read the SSE body as the bytes come (iter_any: one wake-up per read, not per line,
    which keeps the loop free to send on time); every event in one read is stamped with
    that read's time, when its bytes came off the socket."""
    tally = _Tally(out, chat, st)
    rest = b""
    done = False
    async for data in resp.content.iter_any():
        ts = time.perf_counter()
        lines = (rest + data).split(b"\n")
        rest = lines.pop()  # an unfinished line waits for the next read
        for raw in lines:
            line = raw.strip()
            if not line.startswith(b"data:"):
                continue  # blank separators, SSE comments, event names
            payload = line[5:].strip()
            if payload == b"[DONE]":
                done = True
                break
            tally.event(json.loads(payload), ts)
        if done:
            break
    tally.close()


async def send_one(session, url: str, chat: bool, body: dict, out: Outcome, t0: float, headers: dict) -> None:
    """POST one request and record it in out; every failure is out.error, never raised
    (only cancellation, Ctrl+C's, passes through)."""
    st = time.perf_counter()
    out.start_s = st - t0
    try:
        async with session.post(url, json=body, headers=headers) as resp:
            if resp.status != 200:
                text = (await resp.text(errors="replace"))[:300]
                out.error = f"HTTP {resp.status} {resp.reason or ''}: {text}".strip()
            else:
                await _stream(resp, out, chat, st)
    except asyncio.TimeoutError:
        out.error = f"no complete reply within the request timeout ({time.perf_counter() - st:.1f} s)"
    except (aiohttp.ClientError, OSError, EOFError, ValueError) as exc:  # a broken connection, stream or body
        out.error = f"{type(exc).__name__}: {exc}"[:300]
    out.end_s = time.perf_counter() - t0
    out.done = True


@dataclass
class Run:
    """What run_schedule measured: the outcomes in request order, the run's duration (its
    start to the last finish) and whether Ctrl+C cut it short."""

    outcomes: list
    duration_s: float
    interrupted: bool = False
    not_sent: int = 0


async def run_schedule(url: str, chat: bool, bodies: Sequence, send_s, limit: int | None, *, headers=None,
                       request_timeout_s: float = 6 * 3600, on_done=None, stop: asyncio.Event | None = None,
                       lead_s: float = 0.05) -> Run:
    """Send bodies[i] at send_s[i] seconds after the start (lead_s from now; bodies are
    read in order, once each, by the one dispatcher), at most
    `limit` in flight; on_done(outcome) after each finish; stop set: no more sends, the
    ones in flight are cancelled (Ctrl+C), what finished is kept."""
    n = len(bodies)
    outs = [Outcome(i, float(send_s[i])) for i in range(n)]
    stop = stop or asyncio.Event()
    slots: asyncio.Queue = asyncio.Queue()
    for _ in range(limit or 0):
        slots.put_nowait(-math.inf)
    connector = aiohttp.TCPConnector(limit=limit or 0, ttl_dns_cache=300, keepalive_timeout=60,
                                     enable_cleanup_closed=True)
    timeout = aiohttp.ClientTimeout(total=request_timeout_s)
    live: set[asyncio.Task] = set()  # the requests in flight
    idle = asyncio.Event()  # every request sent and none in flight
    t0 = time.perf_counter() + lead_s
    sent = 0
    sender: asyncio.Future | None = None

    def finished(task: asyncio.Task) -> None:
        live.discard(task)
        if not live and sender is not None and sender.done():
            idle.set()

    async def one(i: int, body: dict) -> None:
        try:
            await send_one(session, url, chat, body, outs[i], t0, headers or {})
        finally:
            if limit:
                slots.put_nowait(time.perf_counter())  # the slot's free time: the next one is due then
        if on_done is not None:
            on_done(outs[i])

    async def dispatch() -> None:
        nonlocal sent
        for i in range(n):
            body = bodies[i]  # a lazy body is made here, before its time while the schedule has room
            target = t0 + outs[i].scheduled_s
            delay = target - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            freed = await slots.get() if limit else -math.inf
            outs[i].due_s = outs[i].scheduled_s if freed <= target else freed - t0
            task = asyncio.ensure_future(one(i, body))
            live.add(task)
            task.add_done_callback(finished)
            sent += 1
        if not live:
            idle.set()

    async with aiohttp.ClientSession(connector=connector, timeout=timeout, trust_env=True) as session:
        sender = asyncio.ensure_future(dispatch())
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(idle.wait())]
        await asyncio.wait([sender, *waits], return_when=asyncio.FIRST_COMPLETED)
        if sender.done() and not stop.is_set():
            sender.result()  # a fault in the dispatcher itself is raised, not taken for the end
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        interrupted = stop.is_set()
        rest = [sender, *waits, *live]
        for t in rest:
            t.cancel()
        await asyncio.gather(*rest, return_exceptions=True)
    duration = max((o.end_s for o in outs if o.done), default=0.0)  # from the schedule's start, as vllm bench
    return Run(outs, max(duration, 0.0), interrupted, n - sent)
