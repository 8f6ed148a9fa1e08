"""What `lab observe` asks the server before and around a run: is it there (an answer
within the connect timeout, else a clear error), which model it serves (GET /v1/models:
the first, unless --model names one), its version (GET /version, vLLM's), and its
Prometheus /metrics (prom.py reads them). URLs: the base (http://host:port, a trailing
/v1 taken off) plus each path.
"""
from __future__ import annotations

import asyncio
import urllib.parse

import aiohttp

from core.registry import ParamError


def base_url(url: str) -> str:
    """The server's base URL; anything but http(s)://host[:port][/path] is refused naming url."""
    text = str(url).strip()
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParamError("url", f"got {text!r}; valid: an http:// or https:// URL of the server "
                         "(http://127.0.0.1:8000)")
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[:-3]
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


async def _get(session, url: str):
    async with session.get(url) as resp:
        text = await resp.text(errors="replace")
        return resp.status, text


async def probe(base: str, model: str | None, timeout_s: float, headers: dict) -> tuple[str, dict]:
    """(model, server info); ParamError('url') when nothing answers within timeout_s."""
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    info: dict = {"url": base}
    async with aiohttp.ClientSession(timeout=timeout, headers=headers, trust_env=True) as session:
        try:
            status, text = await _get(session, base + "/v1/models")
        except asyncio.TimeoutError:
            raise ParamError("url", f"{base} did not answer within {timeout_s:g} s; valid: a running server") from None
        except (aiohttp.ClientError, OSError) as exc:
            raise ParamError("url", f"cannot reach {base} ({type(exc).__name__}: {exc}); valid: a running "
                             "server") from None
        models = _models(text) if status == 200 else None
        info["models"] = models if models is not None else f"GET /v1/models: HTTP {status}"
        if model is None:
            if not models:
                raise ParamError("model", f"GET {base}/v1/models gave no model (HTTP {status}); valid: --model NAME")
            model = models[0]["id"]
        try:
            status, text = await _get(session, base + "/version")
            if status == 200:
                info["version"] = _json(text).get("version") if isinstance(_json(text), dict) else text[:100]
        except (asyncio.TimeoutError, aiohttp.ClientError, OSError):
            pass  # a server without /version: said by its absence
    return model, info


def _json(text: str):
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None


def _models(text: str) -> list | None:
    obj = _json(text)
    data = obj.get("data") if isinstance(obj, dict) else None
    if not isinstance(data, list):
        return None
    keep = ("id", "root", "max_model_len", "owned_by")
    return [{k: m[k] for k in keep if k in m} for m in data if isinstance(m, dict) and "id" in m]


async def scrape(session, base: str) -> str | None:
    """/metrics' text, or None where the server has none (or did not answer in time)."""
    try:
        status, text = await _get(session, base + "/metrics")
    except (asyncio.TimeoutError, aiohttp.ClientError, OSError):
        return None
    return text if status == 200 else None
