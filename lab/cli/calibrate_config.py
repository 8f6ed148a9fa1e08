"""lab calibrate's keys written beside its profile and read back from --config: --out
P.toml also writes P.config.toml with the runs and server logs it fitted (absolute paths),
the fit's settings (fit_keys, bootstrap, bootstrap_seed) and the replay keys it was given,
so `lab calibrate --config P.config.toml --out P2.toml` refits exactly (P2.toml is P.toml).

runs= and steps= are comma lists of files; run files on the command line take the place of
a file's runs= (and --steps of its steps=), and --seed of its bootstrap_seed=, as every
command line wins over its --config file.
"""
from __future__ import annotations

import os
from pathlib import Path

from core.atomic_file import write_atomic
from lab.cli import config_file

RUNS, STEPS, SEED = "runs", "steps", "bootstrap_seed"


def _files(text: str | None) -> list[str]:
    return [p for p in (text or "").split(",") if p.strip()]


def take(keys: dict, paths: list[str], steps: list[str], seed: str | None) -> tuple[list[str], list[str], str | None]:
    """The runs, logs and bootstrap seed to fit, from the command line or else from keys
    (a --config file's runs=, steps=, bootstrap_seed=, taken out of keys)."""
    runs, logs, file_seed = keys.pop(RUNS, None), keys.pop(STEPS, None), keys.pop(SEED, None)
    return (paths or _files(runs)), (steps or _files(logs)), (file_seed if seed is None else seed)


def path_beside(profile: str) -> Path:
    """P.toml -> P.config.toml."""
    p = Path(profile)
    return p.with_name(p.name[: -len(".toml")] + ".config.toml")


def write_beside(profile: str, paths: list[str], steps: list[str], keys: dict, fit_keys: str | None,
                 bootstrap: int, seed: int) -> Path:
    values = {RUNS: ",".join(os.path.abspath(p) for p in paths)}
    if steps:
        values[STEPS] = ",".join(os.path.abspath(p) for p in steps)
    values.update(keys)
    if fit_keys is not None:
        values["fit_keys"] = fit_keys
    values.update({"bootstrap": str(bootstrap), SEED: str(seed)})
    target = path_beside(profile)
    text = config_file.dumps(values, "lab calibrate", about=f"the keys of the profile {Path(profile).name}",
                             rerun=f"lab calibrate --config {target.name} --out PROFILE.toml")
    write_atomic(target, text.encode("utf-8"))
    return target
