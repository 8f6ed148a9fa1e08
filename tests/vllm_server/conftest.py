"""Real-server tests (marker vllm_server): against vLLM servers that .ci/run's stage
"real vLLM server (issue 13)" starts with scripts/vllm_cpu/serve.sh and names in
    LAB_VLLM_URL            the main server (a large KV pool)
    LAB_VLLM_LOG            its log (the per-step records)
    LAB_VLLM_SMALL_KV_URL   a second server with a pool of 32 blocks (preemptions)
They are left out of a run unless -m names the marker (the main suite never starts a
server); selected without those variables they fail, never skip. The fixture-reading tests
here (test_fixtures*.py, test_steps*.py) are not marked and run in the main suite."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(config, items):
    if "vllm_server" in (config.option.markexpr or ""):
        return
    chosen, left = [], []
    for item in items:
        (left if item.get_closest_marker("vllm_server") else chosen).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = chosen


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: these tests need a real vLLM server; .ci/run's stage "
                    "'real vLLM server (issue 13)' starts one (scripts/vllm_cpu/serve.sh) and sets it")
    return value


@pytest.fixture(scope="session")
def server_url() -> str:
    return _env("LAB_VLLM_URL")


@pytest.fixture(scope="session")
def server_log() -> Path:
    return Path(_env("LAB_VLLM_LOG"))


@pytest.fixture(scope="session")
def small_kv_url() -> str:
    return _env("LAB_VLLM_SMALL_KV_URL")


def observe(url: str, out: Path, *keys: str, timeout: float = 300) -> dict:
    """`lab observe URL KEYS --out OUT` as a user runs it; its result.json."""
    cmd = [sys.executable, "-m", "lab", "observe", url, *keys, "--out", str(out)]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(cmd)} -> {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return json.loads((out / "result.json").read_text())


@pytest.fixture
def run_observe(tmp_path):
    count = iter(range(1000))

    def run(url: str, *keys: str, timeout: float = 300) -> dict:
        return observe(url, tmp_path / f"run{next(count)}", *keys, timeout=timeout)

    return run
