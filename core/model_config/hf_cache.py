"""A Hugging Face model id (model=Qwen/Qwen3-8B) read from the local Hugging Face cache,
with no network: HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub,
else ~/.cache/huggingface/hub (huggingface_hub's order), where a download keeps
models--ORG--NAME/snapshots/REVISION/config.json and refs/main names the revision.
When it is not there, the refusal says how to fetch the one config.json.
"""
from __future__ import annotations

import os
import re

from core.registry import ParamError

# ORG/NAME as the Hub spells ids: letters, digits, '-', '_', '.'; no '..', no leading '.'.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def looks_like_hub_id(text: str) -> bool:
    """'Qwen/Qwen3-8B': ORG/NAME, not a file here and not a path to a .json."""
    text = str(text)
    return (bool(_ID.fullmatch(text)) and ".." not in text and not text.lower().endswith(".json")
            and not os.path.exists(text))


def hub_cache() -> str:
    """The cache folder huggingface_hub would use here."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.path.expanduser(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HF_HOME"):
        return os.path.join(os.path.expanduser(os.environ["HF_HOME"]), "hub")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "huggingface", "hub")


def cached_config(repo_id: str) -> str | None:
    """The cached config.json of repo_id: refs/main's snapshot, else the newest snapshot
    holding one; None when the cache has none."""
    folder = os.path.join(hub_cache(), "models--" + repo_id.replace("/", "--"))
    snapshots = os.path.join(folder, "snapshots")
    try:
        with open(os.path.join(folder, "refs", "main"), encoding="utf-8") as f:
            revision = f.read(200).strip()
    except (OSError, UnicodeDecodeError):
        revision = ""
    if revision and "/" not in revision and revision not in (".", ".."):
        path = os.path.join(snapshots, revision, "config.json")
        if os.path.isfile(path):
            return path
    try:
        names = os.listdir(snapshots)
    except OSError:
        return None
    found = [os.path.join(snapshots, n, "config.json") for n in names]
    found = [p for p in found if os.path.isfile(p)]
    return max(found, key=lambda p: (os.path.getmtime(p), p)) if found else None


def resolve(repo_id: str, param: str = "model") -> str:
    """repo_id's cached config.json, or ParamError saying where it was looked for and how to get it."""
    path = cached_config(repo_id)
    if path is not None:
        return path
    where = os.path.join(hub_cache(), "models--" + repo_id.replace("/", "--"))
    raise ParamError(param, f"{repo_id!r}: no Hugging Face config.json of it in the local cache ({where}; nothing is "
                            f"downloaded); valid: fetch it once with `huggingface-cli download {repo_id} config.json` "
                            f"(or `hf download {repo_id} config.json`), or save "
                            f"https://huggingface.co/{repo_id}/resolve/main/config.json and give model=PATH")
