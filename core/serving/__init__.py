"""§3.1.3 serving: request mixes, the bandwidth bound of decode, the backlog of 例题 3-1 /
练习 3-2, and a continuous-batching replay with a KV pool and preemption.

The package imports none of its modules itself: `from core.serving import aliases` (every
`lab` command's) loads neither numpy nor the engine. Each calculator module declares its
own CALCULATORS, which the registry finds; the package's CALCULATORS gathers them on use."""
from __future__ import annotations

import importlib

GATHERED = ("mix", "decode_rate", "backlog", "replay")


def __getattr__(name: str):
    if name in GATHERED:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "CALCULATORS":
        return tuple(calc for module in GATHERED for calc in importlib.import_module(f"{__name__}.{module}").CALCULATORS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
