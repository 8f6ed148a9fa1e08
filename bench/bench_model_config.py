"""model.config: reading and counting a config.json (DeepSeek-V3, the largest family), the
calculator through the registry, and the hard refusals (a 1 MB file of nesting, a 1 MB
object of 50k keys, /dev/zero). Every figure is ms, median/min/max over REPEATS runs.
Prints one JSON object. Not a test.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchstats import stats  # noqa: E402

REPEATS = 20
CONFIGS = ROOT / "tests" / "data" / "model_configs"
TARGET_MS = 30.0  # a GUI edit computes on the GUI thread


def timed(fn) -> list[float]:
    runs = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        try:
            fn()
        except Exception:  # noqa: BLE001 - refusals are what is timed
            pass
        runs.append(time.perf_counter() - start)
    return runs


def main() -> None:
    from core.model_config import load_model_config
    from core.model_config.reading import MAX_CONFIG_BYTES
    from core.registry import get

    calc = get("model.config")
    deepseek = str(CONFIGS / "deepseek-v3.json")
    with tempfile.TemporaryDirectory() as tmp:
        nested = os.path.join(tmp, "nested.json")
        Path(nested).write_text("[" * (MAX_CONFIG_BYTES - 1))
        keys = os.path.join(tmp, "keys.json")
        body = ",".join(f'"k{i}":{i}' for i in range(50_000))
        Path(keys).write_text("{" + body[: MAX_CONFIG_BYTES - 20] + ',"z":0}')
        out = {
            "load_deepseek_v3_ms": stats(timed(lambda: load_model_config(deepseek)), 1e3, target=TARGET_MS),
            "calc_model_config_ms": stats(timed(lambda: calc.run({"config": deepseek})), 1e3, target=TARGET_MS),
            "refuse_1mb_nesting_ms": stats(timed(lambda: load_model_config(nested)), 1e3, target=TARGET_MS),
            "refuse_1mb_of_keys_ms": stats(timed(lambda: load_model_config(keys)), 1e3, target=TARGET_MS),
            "refuse_dev_zero_ms": stats(timed(lambda: load_model_config("/dev/zero")), 1e3, target=TARGET_MS),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
