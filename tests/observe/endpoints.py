"""Small OpenAI-compatible endpoints for lab observe's tests, served by aiohttp in a thread
of the test process: one that answers (a word is a token: prompt_tokens counts the prompt's
words plus `special`; it streams exactly max_tokens chunks), and the bad ones the issue
names: HTTP 500s (for the requests listed, or all), streams with no tokens, a server that
never answers. Not a model of vLLM: its timing is a fixed delay per token."""
from __future__ import annotations

import asyncio
import json
import threading

from aiohttp import web


class Endpoint:
    def __init__(self, mode: str = "ok", token_delay_s: float = 0.0, fail: set | None = None, special: int = 0,
                 metrics: bool = True, per_chunk: int = 1):
        self.mode, self.token_delay_s, self.fail, self.special = mode, token_delay_s, fail, special
        self.per_chunk = per_chunk  # tokens a chunk carries (a server coalescing a stream that fell behind)
        self.metrics = metrics
        self.seen: list[dict] = []  # every completion body, in arrival order
        self.counts = {"requests": 0, "prompt": 0, "generation": 0, "running": 0}
        self.hang = asyncio.Event()  # never set: hanging handlers wait on it
        self.loop: asyncio.AbstractEventLoop | None = None
        self.port = 0

    # --- handlers -------------------------------------------------------
    async def models(self, request):
        if self.mode == "hang_all":
            await self.hang.wait()
        return web.json_response({"object": "list", "data": [{"id": "tiny-test", "max_model_len": 4096}]})

    async def version(self, request):
        return web.json_response({"version": "endpoints-test"})

    async def prom(self, request):
        if not self.metrics:
            raise web.HTTPNotFound()
        c = self.counts
        text = ("# HELP vllm:num_preemptions_total preemptions\n# TYPE vllm:num_preemptions_total counter\n"
                f'vllm:num_preemptions_total{{engine="0",model_name="tiny-test"}} {c["requests"] // 2}\n'
                f'vllm:prompt_tokens_total{{engine="0",model_name="tiny-test"}} {c["prompt"]}\n'
                f'vllm:generation_tokens_total{{engine="0",model_name="tiny-test"}} {c["generation"]}\n'
                f'vllm:num_requests_running{{engine="0",model_name="tiny-test"}} {c["running"]}\n'
                'vllm:num_requests_waiting{engine="0",model_name="tiny-test"} 0\n'
                'vllm:cache_config_info{block_size="32",enable_prefix_caching="True",num_gpu_blocks="64"} 1.0\n')
        return web.Response(text=text, content_type="text/plain")

    async def complete(self, request):
        body = await request.json()
        self.seen.append(body)
        number = len(self.seen)  # 1-based, in arrival order
        chat = "messages" in body
        if self.mode == "hang":
            await self.hang.wait()
        if self.mode == "http500" and (self.fail is None or number in self.fail):
            return web.json_response({"error": {"message": "boom"}}, status=500)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        prompt = body["messages"][0]["content"] if chat else body["prompt"]
        n_in = len(prompt.split()) + self.special
        n_out = 0 if self.mode == "empty" else int(body.get("max_completion_tokens" if chat else "max_tokens"))
        self.counts["running"] += 1
        self.counts["max_running"] = max(self.counts.get("max_running", 0), self.counts["running"])
        try:
            if chat and n_out:
                await self._send(resp, {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
            every = (body.get("stream_options") or {}).get("continuous_usage_stats")
            for k in range(0, n_out, self.per_chunk):
                if self.token_delay_s:
                    await asyncio.sleep(self.token_delay_s)
                upto = min(k + self.per_chunk, n_out)
                text = "".join(f" t{j}" for j in range(k, upto))
                choice = {"index": 0, "delta": {"content": text}} if chat else {"index": 0, "text": text}
                choice["finish_reason"] = "length" if upto == n_out else None
                usage = {"prompt_tokens": n_in, "completion_tokens": upto} if every else None
                await self._send(resp, {"choices": [choice], "usage": usage})
            usage = {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out}
            if n_out:
                await self._send(resp, {"choices": [], "usage": usage})
            await resp.write(b"data: [DONE]\n\n")
        finally:
            self.counts["running"] -= 1
        self.counts["requests"] += 1
        self.counts["prompt"] += n_in
        self.counts["generation"] += n_out
        return resp

    @staticmethod
    async def _send(resp, obj):
        await resp.write(b"data: " + json.dumps(obj).encode() + b"\n\n")

    # --- serving ----------------------------------------------------------
    def __enter__(self):
        ready = threading.Event()

        def serve():
            self.loop = asyncio.new_event_loop()
            app = web.Application()
            app.router.add_get("/v1/models", self.models)
            app.router.add_get("/version", self.version)
            app.router.add_get("/metrics", self.prom)
            app.router.add_post("/v1/completions", self.complete)
            app.router.add_post("/v1/chat/completions", self.complete)
            self.runner = web.AppRunner(app, shutdown_timeout=0.1)
            self.loop.run_until_complete(self.runner.setup())
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            self.loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()
            self.loop.run_until_complete(self.runner.cleanup())
            self.loop.close()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        ready.wait(10)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


if __name__ == "__main__":  # a process of its own (lag_bench.py): prints its URL, serves until killed
    import sys
    import time

    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    with Endpoint(token_delay_s=delay) as ep:
        print(ep.url, flush=True)
        while True:
            time.sleep(3600)
