"""`lab observe URL [trace=FILE | dataset keys] [--max-concurrency N | request_rate=R] --out DIR`:
measure a real OpenAI-compatible server (issue 13; core/observe/).

Exit codes: 0 the run finished (failed requests are counted in the result, not an
exit), 2 bad input or a server that cannot be reached (within --connect-timeout), 130
Ctrl+C (what finished is written first).
"""
from __future__ import annotations

import asyncio
import math
import os
import sys

from core.registry import ParamError
from core.serving import aliases
from lab.cli import config_file
from lab.cli.parser import parameter_values

EXIT_INTERRUPTED = 130
ENDPOINTS = ("/v1/completions", "/v1/chat/completions")
EPILOG = """workload (key=value; the same keys as `lab simulate serving`, drawn by the same code):
  dataset=random|fixed|sharegpt_like|trace_lengths random_input_len= random_output_len=
  random_range_ratio= random_prefix_len= num_prompts= request_rate= burstiness= seed=
  or trace=FILE [time_scale= window=START:END limit= format=]
prompts: prompt_words=FILE|w1,w2,... (default: the CPU server's w0 w1 ... words, one token
  each) prompt_special_tokens=K (tokens the server adds to each prompt, e.g. a BOS: 1)
  prompt_seed=N (the texts' seed; default fresh each run, so no run hits the last one's cache)
output: DIR/result.json (vllm bench serve --save-result --save-detailed keys + lab_observe)
  and DIR/requests.csv
keys also as --key value, with dashes (--num-prompts 10) or vllm bench's names (--dataset-path);
  --config FILE.toml|.yaml|.json gives them from a file (the command line wins) and DIR/config.toml
  gets the keys of the run, --max-concurrency, --endpoint and --model too (endpoint= and model= as keys)
exit codes: 0 done, 2 bad input or unreachable server, 130 interrupted (Ctrl+C)"""


def add_parser(sub, formatter, keys: bool = True) -> None:
    p = sub.add_parser("observe", help="measure a real OpenAI-compatible server (issue 13)", formatter_class=formatter,
                       allow_abbrev=False,
                       usage="lab observe URL [trace=FILE | dataset keys ...] [--max-concurrency N | request_rate=R] "
                             "--out DIR", epilog=EPILOG)
    p.add_argument("url", nargs="?", metavar="URL", help="the server's base URL: http://127.0.0.1:8000")
    p.add_argument("--base-url", dest="base_url", metavar="URL", default=None,
                   help="the same as URL, as vllm bench serve's --base-url names it")
    p.add_argument("--out", metavar="DIR", help="where result.json and requests.csv go")
    p.add_argument("--model", default=None, help="the model to ask for; default: the first of GET /v1/models")
    p.add_argument("--endpoint", default=None, choices=ENDPOINTS, help="the API (default /v1/completions)")
    p.add_argument("--max-concurrency", dest="max_concurrency_flag", type=int, default=None, metavar="N",
                   help="at most N requests in flight (vllm bench's --max-concurrency); also max_concurrency=N")
    p.add_argument("--connect-timeout", type=float, default=10.0, metavar="S",
                   help="seconds the server has to answer before the run (default 10)")
    p.add_argument("--request-timeout", type=float, default=6 * 3600.0, metavar="S",
                   help="seconds one request may take before it counts as failed (default 6 h, vllm bench's)")
    p.add_argument("--chunk-usage", choices=("on", "off"), default="on",
                   help="ask for usage in every streamed chunk (stream_options.continuous_usage_stats: vLLM, SGLang), "
                        "so a chunk carrying several tokens is known; off for servers that refuse it (default on)")
    p.add_argument("--metrics-interval", type=float, default=1.0, metavar="S",
                   help="seconds between /metrics polls during the run (the gauges' peaks; default 1)")
    if keys:
        _add_keys(p)


# The workload's keys as options too (argparse then takes each one's value, so a --key
# before the URL is not mistaken for it); what keys mean: the epilog.
OWN_HELP = {"trace": "a trace file to send at its own arrivals", "seed": "the workload's seed",
            "time_scale": "a trace's speed (2: twice as fast)", "window": "a trace's START:END seconds",
            "limit": "a trace's first N requests", "format": "a trace's format", "prompt_words": "FILE|w1,w2,...",
            "prompt_special_tokens": "tokens the server adds to each prompt", "prompt_seed": "the texts' seed"}


def _add_keys(p) -> None:
    import argparse

    from core.observe import schedule
    from core.serving import bench_keys
    from lab.cli.args import PARAM

    group = p.add_argument_group("workload keys (key=value or --key value)")
    for name in ("dataset", *bench_keys.DATASET_KEYS, *schedule.OWN_KEYS, "prompt_seed"):
        if name == "max_concurrency":  # an option of its own above
            continue
        spellings = dict.fromkeys([f"--{name.replace('_', '-')}", f"--{name}", *aliases.aliases_of(name)])
        text = OWN_HELP.get(name) or next((q.help for q in bench_keys.PARAMS if q.name == name), bench_keys.LENGTHS_HELP)
        group.add_argument(*spellings, dest=PARAM + name, metavar="V", default=argparse.SUPPRESS, help=text)


class Progress:
    """Requests finished, on stderr: a tqdm bar on a terminal, else a line each tenth."""

    def __init__(self, total: int):
        self.total, self.done, self.failed, self.bar = total, 0, 0, None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, file=sys.stderr, unit="req")

    def __call__(self, outcome) -> None:
        self.done += 1
        self.failed += 0 if outcome.success else 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.done == self.total or self.done * 10 // self.total != (self.done - 1) * 10 // self.total:
            print(f"lab observe: {self.done}/{self.total} requests finished ({self.failed} failed)", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _settings(args, values: dict):
    from core.observe import runner, schedule
    from core.observe.prompts import words_from
    from core.serving import bench_keys

    values = aliases.canonical_values(values)  # vllm bench's spellings too: --num-prompts 10 (core/serving/aliases.py)
    valid = ("dataset", *bench_keys.DATASET_KEYS, *schedule.OWN_KEYS, "prompt_seed")
    for key in values:  # a misspelt key first ("did you mean"): its value may have taken the URL's place
        if key not in (*valid, "endpoint", "model"):
            raise aliases.unknown_key(key, valid, f"unknown key; valid: {', '.join(valid)}")
    url = _url(args)
    runner.server.base_url(url)  # a URL that is not http(s) is refused before any work
    if not args.out:
        raise ParamError("out", "missing; valid: --out DIR (result.json and requests.csv go there)")
    if args.max_concurrency_flag is not None:
        if "max_concurrency" in values and "max_concurrency" not in config_file.file_keys():
            raise ParamError("max_concurrency", "given twice; valid: --max-concurrency N or max_concurrency=N")
        values["max_concurrency"] = str(args.max_concurrency_flag)  # the command line wins over a file
        config_file.record("max_concurrency", values["max_concurrency"])
    endpoint, model = _option_key(values, "endpoint", args.endpoint), _option_key(values, "model", args.model)
    if endpoint not in (None, *ENDPOINTS):
        raise ParamError("endpoint", f"got {endpoint!r}; valid: one of {', '.join(ENDPOINTS)}")
    for name, v in (("connect-timeout", args.connect_timeout), ("request-timeout", args.request_timeout),
                    ("metrics-interval", args.metrics_interval)):
        if not (math.isfinite(v) and v > 0):
            raise ParamError(name, f"got {v:g}; valid: seconds > 0")
    words = words_from(values.pop("prompt_words", None))
    special = values.pop("prompt_special_tokens", "0")
    try:
        special_n = int(special)
    except ValueError:
        special_n = -1
    if special_n < 0:
        raise ParamError("prompt_special_tokens", f"got {special!r}; valid: a whole number >= 0")
    prompt_seed = values.pop("prompt_seed", None)
    if prompt_seed is not None:
        if not prompt_seed.strip().isdigit():
            raise ParamError("prompt_seed", f"got {prompt_seed!r}; valid: a whole number >= 0")
        prompt_seed = int(prompt_seed)
    keys = dict(values)
    plan = schedule.plan(values)
    try:  # made once the input is good: a folder that cannot be is refused before the run, not after it
        os.makedirs(args.out, exist_ok=True)
    except OSError as exc:
        raise ParamError("out", f"{args.out}: {exc.strerror or exc}; valid: a folder that can be written") from None
    return runner.Settings(url=url, out_dir=args.out, plan=plan, words=words,
                           endpoint=endpoint or ENDPOINTS[0], model=model, special_tokens=special_n, connect_timeout_s=args.connect_timeout,
                           request_timeout_s=args.request_timeout, metrics_interval_s=args.metrics_interval,
                           headers=runner.headers_from_env(), chunk_usage=args.chunk_usage == "on",
                           prompt_seed=prompt_seed, keys=keys)


def _url(args) -> str:
    """URL, or vllm bench serve's --base-url URL."""
    if args.url and args.base_url and args.url != args.base_url:
        raise ParamError("url", f"given twice ({args.url} and --base-url {args.base_url}); valid: one of them")
    url = args.url or args.base_url
    if not url:
        raise ParamError("url", "missing; valid: lab observe http://HOST:PORT ... --out DIR (or --base-url URL)")
    return url


def _option_key(values: dict, name: str, option: str | None) -> str | None:
    """--endpoint / --model, or the same as a key (endpoint=, a --config file's): config.toml
    keeps it, so a rerun from it asks the same API for the same model."""
    from_keys = values.pop(name, None)
    value = from_keys if option is None else option  # the option on the command line wins
    if value is not None:
        config_file.record(name, value)
    return value


def summary(res: dict) -> str:
    """vllm bench's table, the client's lag and the server's counters."""
    lab = res["lab_observe"]
    lag = lab["client_lag"]
    rows = [("Successful requests", f"{res['completed']}"), ("Failed requests", f"{res['failed']}"),
            ("Benchmark duration (s)", f"{res['duration']:.2f}"),
            ("Total input tokens", f"{res['total_input_tokens']}"),
            ("Total generated tokens", f"{res['total_output_tokens']}"),
            ("Request throughput (req/s)", f"{res['request_throughput']:.2f}"),
            ("Output token throughput (tok/s)", f"{res['output_throughput']:.2f}")]
    for name in ("ttft", "tpot", "itl", "e2el"):
        rows += [(f"Median {name.upper()} (ms)", f"{res[f'median_{name}_ms']:.2f}"),
                 (f"P99 {name.upper()} (ms)", f"{res[f'p99_{name}_ms']:.2f}")]
    if lag.get("sent"):
        rows.append(("Client lag median/p99/max (ms)",
                     f"{lag['median_ms']:.2f} / {lag['p99_ms']:.2f} / {lag['max_ms']:.2f}"))
    m = lab["metrics"]
    if m.get("present"):
        for k, v in m["delta"].items():
            rows.append((k.replace("vllm:", "") + " (delta)", f"{v:g}"))
        if "prefix_cache_hit_rate" in m:
            rows.append(("prefix cache hit rate", f"{m['prefix_cache_hit_rate']:.3f}"))
    else:
        rows.append(("server /metrics", "absent"))
    return "\n".join(f"{k + ':':<40} {v}" for k, v in rows)


def run(args, extras) -> int:
    from core.observe import runner

    s = _settings(args, parameter_values(args, extras))
    progress = Progress(len(s.plan))
    try:
        res, paths = asyncio.run(runner.observe_async(s, on_done=progress))
    except KeyboardInterrupt:
        print("lab observe: interrupted (Ctrl+C) before the run began; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        progress.close()
    print(summary(res))
    print(f"wrote {paths[0]} and {paths[1]}")
    lab = res["lab_observe"]
    if res["failed"]:
        errors = [e for e in res["errors"] if e]
        print(f"lab observe: {res['failed']} of {res['num_prompts']} requests failed ({len(set(errors))} distinct "
              f"errors; see errors in result.json); the first: {errors[0]}", file=sys.stderr)
    if lab["interrupted"]:
        print(f"lab observe: interrupted (Ctrl+C): kept the {res['num_prompts']} finished requests; "
              f"{lab['unfinished']} in flight and {lab['not_sent']} not sent were left out", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0

