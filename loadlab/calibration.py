"""loadlab.calibrate: `lab calibrate` from Python: fit the step-time model to measured runs."""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from loadlab import _keys


@dataclass
class Calibration:
    """summary: the dict `lab calibrate --json` prints (coefficients, bootstrap bands, fit
    error per run before and after, leave-one-run-out errors); coefficients: the fitted
    values; converged; fit: the core object (core.calibrate.fit.Calibration)."""

    summary: dict
    fit: Any = field(repr=False)

    @property
    def coefficients(self) -> dict:
        return dict(self.fit.coefficients)

    @property
    def converged(self) -> bool:
        return bool(self.fit.converged)

    def save(self, path: str | os.PathLike) -> str:
        """The profile (TOML) that hardware=/profile= take in simulate_serving and sweep."""
        from core.calibrate.profile import save_profile
        from core.registry import ParamError

        path = os.fspath(path)
        if not path.lower().endswith(".toml"):
            raise ParamError("out", f"got {path!r}; valid: a path ending in .toml")
        if not self.converged:
            raise ParamError("out", f"the fit did not converge ({self.fit.message}); valid: a converged fit")
        save_profile(self.fit.profile, path)
        self.summary["profile"] = path
        return path


def calibrate(results: str | os.PathLike | Sequence[str | os.PathLike] = (), *,
              fit_keys: Sequence[str] | None = None, bootstrap: int | None = None, seed: int | None = None,
              steps: Sequence[str | os.PathLike] = (), config: str | os.PathLike | None = None,
              **params: Any) -> Calibration:
    """Fit the basis step-time model to measured runs: `lab calibrate` with keywords.

    results: vllm bench serve --save-result --save-detailed JSON files, or lab observe's
    result.json; params: model= and hardware= (required) and any `lab simulate serving`
    key (a key given stays fixed); fit_keys: the coefficients to fit (default the CLI's);
    bootstrap refits for the bands (0: none) with seed; steps: vLLM server logs with
    iteration details. Errors: loadlab.ParamError, as the CLI. save(path) writes the profile.
    config: a --config file, e.g. the P.config.toml `lab calibrate --out P.toml` writes (its
    runs=, steps=, fit_keys=, bootstrap=, bootstrap_seed= where the arguments leave them out),
    so calibrate(config="P.config.toml") refits that profile.

    Example, a replay written as vllm bench serve saves a run, its step time refitted::

        >>> import json, os, tempfile, loadlab
        >>> from core.calibrate.synthetic import bench_result
        >>> keys = dict(model="qwen3-8b", hardware="h100-sxm")
        >>> run = loadlab.simulate_serving(**keys, coef_step_s=0.0015, dataset="random", num_prompts=40,
        ...                                random_input_len=512, random_output_len=64, request_rate="inf",
        ...                                max_concurrency=8)
        >>> path = os.path.join(tempfile.mkdtemp(), "run.json")
        >>> with open(path, "w") as f:
        ...     _ = f.write(json.dumps(bench_result(run.result, run.workload, model_id="qwen3-8b", max_concurrency=8)))
        >>> cal = loadlab.calibrate(path, **keys, fit_keys=["coef_step_s"], bootstrap=0)
        >>> cal.converged, round(cal.coefficients["coef_step_s"], 4)
        (True, 0.0015)
    """
    from core.calibrate.fit import DEFAULT_BOOTSTRAP
    from core.calibrate.fit import calibrate as fit
    from lab.cli import calibrate_config
    from lab.cli.calibrate import _whole, as_json

    paths = [os.fspath(results)] if isinstance(results, (str, os.PathLike)) else [os.fspath(p) for p in results]
    raw = _keys.with_config(config, _keys.as_text(params))
    paths, logs, seed_text = calibrate_config.take(raw, paths, [os.fspath(s) for s in steps],
                                                   None if seed is None else str(seed))
    file_fit, file_bootstrap = raw.pop("fit_keys", None), raw.pop("bootstrap", None)  # the arguments win
    keys = list(fit_keys) if fit_keys is not None else None if file_fit is None else file_fit.split(",")
    cal = fit(paths, raw, fit_keys=keys,
              bootstrap=_whole("bootstrap", file_bootstrap if bootstrap is None else bootstrap, DEFAULT_BOOTSTRAP, 1000),
              seed=_whole("seed", seed_text, 0, 2**31 - 1), steps=logs)
    return Calibration(as_json(cal, None), cal)
