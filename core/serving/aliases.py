"""One table of the other names our keys go by: vLLM's engine flags and `vllm bench serve`'s
where the meaning is ours (max_num_batched_tokens is token_budget), read by the CLI parser
(lab/cli/parser.py: every command's key=value, --key value and --key=value), hence by
simulate, sweep, observe and calibrate alike, and by config files (lab/cli/config_file.py).

A key is spelt with dashes or underscores (--max-num-seqs is max_num_seqs). vLLM's names
that are ours already once the dashes are underscores (max_num_seqs, block_size,
gpu_memory_utilization, kv_cache_dtype, num_prompts, request_rate, max_concurrency,
random_input_len, ...) need no row here. vllm bench's --goodput ttft:MS tpot:MS e2el:MS (one
option, several words; goodput= in a file or from Python) is our slo_*_ms keys. The one "did
you mean" of a misspelt key is here too: it looks over the names and these aliases. No Qt,
no numpy.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from core.registry import ParamError

# alias -> our name (underscored; the CLI also takes it with dashes).
ALIASES: dict[str, str] = {
    "max_num_batched_tokens": "token_budget",  # vllm serve --max-num-batched-tokens
    "tensor_parallel_size": "tp",  # vllm serve --tensor-parallel-size / -tp
    "pipeline_parallel_size": "pp",  # vllm serve --pipeline-parallel-size / -pp
    "data_parallel_size": "replicas",  # vllm serve --data-parallel-size / -dp: engines side by side
    "dataset_name": "dataset",  # vllm bench serve --dataset-name
    "dataset_path": "trace",  # vllm bench serve --dataset-path
}
# vLLM's one-dash short options -> our name.
SHORT: dict[str, str] = {"-tp": "tp", "-pp": "pp", "-dp": "replicas", "-q": "quantization"}
# vLLM's on/off flags (no value) -> (our name, the value they set).
FLAGS: dict[str, tuple[str, str]] = {
    "enable_prefix_caching": ("prefix_caching", "true"),
    "no_enable_prefix_caching": ("prefix_caching", "false"),
}

# vllm bench serve's --goodput KEY:MS ... (one option, several SLOs) -> our slo_*_ms keys.
GOODPUT: dict[str, str] = {"ttft": "slo_ttft_ms", "tpot": "slo_tpot_ms", "e2el": "slo_e2el_ms"}
GOODPUT_PAIR = re.compile(r"^(ttft|tpot|e2el):\S+$")


def goodput(text: str) -> dict[str, str]:
    """'ttft:2000 tpot:50' (spaces or commas, ms as vllm bench serve's --goodput) ->
    {'slo_ttft_ms': '2000', 'slo_tpot_ms': '50'}."""
    out: dict[str, str] = {}
    for pair in str(text).replace(",", " ").split():
        name, sep, value = pair.partition(":")
        if not sep or name not in GOODPUT or not value:
            raise ParamError("goodput", f"got {pair!r}; valid: KEY:MS pairs with KEY one of ttft, tpot, e2el "
                                        "(vllm bench serve --goodput ttft:2000 tpot:50)")
        out[GOODPUT[name]] = value
    if not out:
        raise ParamError("goodput", "got nothing; valid: ttft:MS, tpot:MS, e2el:MS (vllm bench serve --goodput)")
    return out


def expand_goodput(values: dict[str, str], names: Iterable[str] | None = None) -> dict[str, str]:
    """values with a goodput= key (vllm bench's) as the slo_*_ms keys it sets, in its place;
    only where the command has those keys (names None: any)."""
    if "goodput" not in values or names is not None and GOODPUT["ttft"] not in set(names):
        return values
    out: dict[str, str] = {}
    for key, value in values.items():
        out.update(goodput(value) if key == "goodput" else {key: value})
    return out


def underscored(key: str) -> str:
    """'--max-num-seqs' -> 'max_num_seqs' (the leading dashes off, inner dashes as underscores)."""
    return str(key).strip().lstrip("-").replace("-", "_")


def canonical(key: str, names: Iterable[str] | None = None) -> str:
    """Our name for a key spelt any accepted way. With names (the command's keys), an alias
    maps only where its target is one of them, and a name of the command's own wins over
    an alias of the same spelling."""
    word = str(key).strip()
    if word in SHORT:
        return SHORT[word]
    name = underscored(word)
    known = None if names is None else set(names)
    if known is not None and name in known:
        return name
    target = ALIASES.get(name)
    if target is not None and (known is None or target in known):
        return target
    return name


def flag(key: str, names: Iterable[str] | None = None) -> tuple[str, str] | None:
    """(name, value) when key is one of vLLM's value-less flags (--enable-prefix-caching)."""
    hit = FLAGS.get(underscored(key)) if str(key).startswith("--") else None
    if hit is None or (names is not None and hit[0] not in set(names)):
        return None
    return hit


def aliases_of(name: str) -> list[str]:
    """The other spellings of name as options, for --help: ['--max-num-batched-tokens']."""
    longs = [f"--{a.replace('_', '-')}" for a, n in ALIASES.items() if n == name]
    shorts = [s for s, n in SHORT.items() if n == name]
    return shorts + longs


def flag_options(name: str) -> list[tuple[str, str]]:
    """[('--enable-prefix-caching', 'true'), ...] for name, for --help."""
    return [(f"--{a.replace('_', '-')}", value) for a, (n, value) in FLAGS.items() if n == name]


def suggestion(key: str, names: Iterable[str]) -> str | None:
    """The closest of names and their aliases to a misspelt key, as the name to write
    ('token_budget' for 'max_num_batched_token'), or None when nothing is close."""
    known = sorted(set(names))
    spelt = underscored(key)
    pool = {n: n for n in known}
    for alias, target in list(ALIASES.items()) + [(a, t[0]) for a, t in FLAGS.items()]:
        if target in pool and alias not in pool:
            pool[alias] = target
    if GOODPUT["ttft"] in pool:
        pool["goodput"] = "goodput"  # vllm bench's, read as the slo_*_ms keys
    close = difflib.get_close_matches(spelt, sorted(pool), n=1)
    if not close:
        return None
    hit = close[0]
    return hit if pool[hit] == hit else f"{pool[hit]} (vLLM's {hit})"


def did_you_mean(key: str, names: Iterable[str]) -> str:
    """'did you mean max_num_seqs=? ' or '' (the prefix of an unknown key's message)."""
    close = suggestion(key, names)
    if close is None:
        return ""
    name, _, note = close.partition(" ")
    return f"did you mean {name}=? {note + ' ' if note else ''}"


def unknown_key(key: str, names: Iterable[str], rest: str) -> ParamError:
    """The one refusal of a key no command knows: did you mean, then the command's words."""
    return ParamError(key, did_you_mean(key, names) + rest)


def canonical_values(values: dict, names: Iterable[str] | None = None) -> dict:
    """values with every key as our name (later spellings of one key win, as on a command line)."""
    out: dict = {}
    for key, value in values.items():
        out[canonical(key, names)] = value
    return out
