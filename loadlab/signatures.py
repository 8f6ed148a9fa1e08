"""The signatures of loadlab's keyword functions: every key of the CLI command as a
keyword-only parameter with the CLI's default and a Python type, so help(), Jupyter's
completion (it reads inspect.signature) and IDEs that inspect live objects list them.
The function still takes **params: vLLM's names (max_num_batched_tokens=) and the CLI's
text ("12GiB") go where the keys are.

Built once, on the first use of the function (loadlab/__init__.py: a module __getattr__):
the keys come from the registry and core.serving.simulate_keys, whose imports
`import loadlab` alone does not pay.
"""
from __future__ import annotations

import inspect
from functools import lru_cache
from typing import Any, Literal

# A Param's kind -> the Python type its value takes (the CLI's text is taken too).
KINDS: dict[str, Any] = {"int": int, "float": float, "bool": bool, "choice": str, "floats": list[float]}


def _default(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@lru_cache(maxsize=1)
def serving_keys() -> tuple[inspect.Parameter, ...]:
    """lab simulate serving's keys: serving.replay's parameters, then simulate_keys' (trace,
    model, hardware and the other text keys default to None: left out)."""
    from core.registry import get
    from core.serving import simulate_keys

    out: dict[str, inspect.Parameter] = {}
    for p in (*get("serving.replay").params, *simulate_keys.extra_params()):
        kind = Literal[tuple(p.choices)] if p.kind == "choice" and p.choices else KINDS.get(p.kind, Any)
        kind = kind | None if p.default is None else kind  # None: the key left out
        out.setdefault(p.name, inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY,
                                                 default=_default(p.default), annotation=kind))
    for name in ("trace", *simulate_keys.TEXT_KEYS):
        out.setdefault(name, inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                               annotation=str | None))
    return tuple(out.values())


def keyed(fn, alternatives: bool = False):
    """fn with a __signature__: its own parameters, then every serving key not among them,
    then **params. alternatives: a sweep's key takes a list of values too."""
    sig = inspect.signature(fn)
    mine = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    rest = [p for p in sig.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    taken = {p.name for p in mine}
    keys = [p.replace(annotation=p.annotation | list | str) if alternatives else p
            for p in serving_keys() if p.name not in taken]
    fn.__signature__ = sig.replace(parameters=[*mine, *keys, *rest])
    return fn
