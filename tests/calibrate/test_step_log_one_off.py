"""The step log's one-off costs (core/calibrate/step_log.py): which logged steps the engine
started after waiting for work (`woke`), which ran a token count for the first time
(`first_size`, with the sizes a `# load-lab: sizes run before:` line lists), and their
price when the step-time model has coef_wake_s / coef_shape_s (nothing added without)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from core.calibrate.step_log import WAKE_GAP_MS, StepLog
from core.observe.steps import lab_cost
from core.serving.step_basis import BasisCost
from tests.calibrate.test_calibrate_step_log import synthetic_run

LINE = ("(APIServer pid=1) INFO 12-01 19:35:{s:06.3f} [loggers.py:199] Engine 000: Iteration({i}): "
        "{cr} context requests, {ct} context tokens, {gr} generation requests, {gr} generation tokens, "
        "iteration elapsed time: {t:.2f} ms, CPU KV cache usage: 1.0%")
POOL = "(EngineCore pid=2) INFO 12-01 19:35:00.000 [kv_cache_utils.py:1] CPU KV cache size: 32,768 tokens"
# (context requests, context tokens, generation requests, elapsed ms, ms between the step's
# line and the line before, past its elapsed time): back to back is ~1 ms, a wait is 50.
STEPS = [(1, 100, 0, 10.0, None),  # the log's first step: the engine had nothing to do
         (0, 0, 1, 2.0, 1.0),
         (1, 100, 0, 9.0, 50.0),  # prompts only, after a wait
         (1, 80, 1, 8.0, 50.0),  # a wait before it, but it decodes: it ran right after the step before
         (1, 50, 0, 6.0, 1.0),  # prompts only, back to back (the last request had just finished)
         (0, 0, 2, 2.5, 1.0),
         (0, 0, 1, 2.0, WAKE_GAP_MS - 1.0)]
WOKE = [True, False, True, False, False, False, False]


def write(path, header: str = "") -> str:
    lines = [header] if header else []
    lines.append(POOL)
    clock = 10.0
    for i, (cr, ct, gr, t, gap) in enumerate(STEPS):
        clock += (gap or 0.0) / 1e3 + t / 1e3
        lines.append(LINE.format(s=clock, i=40 + i, cr=cr, ct=ct, gr=gr, t=t))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_woke_is_a_step_of_prompts_only_after_a_wait(tmp_path):
    log = StepLog(write(tmp_path / "steps.log"))
    assert log.woke.tolist() == WOKE


def test_a_clock_of_whole_seconds_tells_no_wait(tmp_path):
    path = write(tmp_path / "steps.log")
    text = path_text = open(path).read()
    import re

    text = re.sub(r"19:35:(\d\d)\.\d{3}", r"19:35:\1", path_text)  # vLLM's own format
    open(path, "w").write(text)
    assert StepLog(path).woke.tolist() == [True] + [False] * (len(STEPS) - 1)


def test_first_size_counts_the_log_and_the_sizes_run_before_it(tmp_path):
    # rows (prompt + decode tokens): 100, 1, 100, 81, 50, 2, 1
    assert StepLog(write(tmp_path / "a.log")).first_size.tolist() == [True, True, False, True, True, True, False]
    header = "# load-lab: sizes run before: 1,2, 50"
    assert StepLog(write(tmp_path / "b.log", header)).first_size.tolist() == \
        [True, False, False, True, False, False, False]


ONE_OFF_FIELDS = ("coef_wake_s", "coef_shape_s")
LANDED = ONE_OFF_FIELDS[0] in BasisCost.__dataclass_fields__
# The step-time model with the two fields: BasisCost once the engine prices them, before that
# a BasisCost with them added (the step log prices them by name either way).
WithOneOff = BasisCost if LANDED else dataclasses.make_dataclass(
    "WithOneOff", [(k, float, 0.0) for k in ONE_OFF_FIELDS], bases=(BasisCost,), frozen=True)


def _fields(cost, **changes) -> dict:
    """cost's BasisCost fields but the one-off ones, with changes."""
    return dict({f.name: getattr(cost, f.name) for f in dataclasses.fields(BasisCost)
                 if f.name not in ONE_OFF_FIELDS}, **changes)


@pytest.fixture(scope="module")
def cost():
    return lab_cost({"model": "tiny-llama-cpu", "hardware": "core/data/hardware/cpu-2core.toml"})


def test_one_off_costs_are_priced_only_where_the_model_has_them(tmp_path, cost):
    log = StepLog(write(tmp_path / "steps.log", "# load-lab: sizes run before: 1,2,50"))
    plain = log.predicted_ms(BasisCost(**_fields(cost)))
    if not LANDED:  # a model without the fields prices none
        assert np.array_equal(log.predicted_ms(cost), plain)
    assert np.array_equal(log.predicted_ms(WithOneOff(**_fields(cost))), plain)  # coefficients 0: bit for bit
    both = log.predicted_ms(WithOneOff(**_fields(cost), coef_wake_s=3e-3, coef_shape_s=2e-3))
    # woke: steps 0 and 2; first size: steps 0 and 3 (100 and 81 tokens)
    assert both - plain == pytest.approx([5.0, 0.0, 3.0, 2.0, 0.0, 0.0, 0.0], abs=1e-9)


def test_the_step_by_step_path_adds_them_too(tmp_path, cost):
    """A model priced step by step (here: pp = 2) gets the same one-off times added."""
    log = StepLog(write(tmp_path / "steps.log"))
    plain = log.predicted_ms(BasisCost(**_fields(cost, pp=2)))
    both = log.predicted_ms(WithOneOff(**_fields(cost, pp=2), coef_wake_s=1e-3, coef_shape_s=4e-3))
    assert both - plain == pytest.approx([5.0, 4.0, 1.0, 4.0, 4.0, 4.0, 0.0], abs=1e-9)


# -- stage one fits them (core/calibrate/fit.py) once the step-time model has them ------------
BASE = {"model": "qwen3-8b", "hardware": "h100-sxm"}
TRUTH = {"coef_step_s": 2e-3, "coef_seq_s": 6e-5, "coef_prefill_compute": 1.5}
ONE_OFF = {"coef_wake_s": 3e-3, "coef_shape_s": 2e-3}


def timed_log(path, cost, rng, n=150, waits=True) -> str:
    """Steps of random prompts and decodes; before half of the prompt-only steps the engine
    waited 50 ms (else 1 ms between steps; waits=False: never, and the log opens with a
    decode step); each step timed by cost exactly (to the ns)."""
    plan = []
    for i in range(n):
        cr = 0 if i == 0 and not waits else int(rng.integers(0, 3))
        gr = int(rng.integers(0 if cr else 1, 24)) if rng.random() < 0.6 or not cr else 0
        wait = 50.0 if waits and gr == 0 and rng.random() < 0.5 else 1.0
        plan.append((cr, int(cr * rng.integers(64, 160)), gr, wait))

    def write(elapsed):
        lines, clock = [POOL.replace("32,768", "65,536")], 3600.0
        for i, ((cr, ct, gr, gap), t) in enumerate(zip(plan, elapsed)):
            clock += (gap + t) / 1e3
            h, rest = divmod(clock, 3600)
            m, s = divmod(rest, 60)
            lines.append(LINE.replace("19:35:{s:06.3f}", f"{int(h):02d}:{int(m):02d}:{s:010.7f}")
                         .replace("{t:.2f}", f"{t:.6f}").format(i=i, cr=cr, ct=ct, gr=gr))
        path.write_text("\n".join(lines) + "\n")
        return StepLog(str(path))

    times = write([1.0] * n).predicted_ms(cost)
    log = write(times)
    assert log.woke.tolist() == [p[2] == 0 and (i == 0 or p[3] > 1) for i, p in enumerate(plan)]
    return str(path)


@pytest.fixture()
def landed(monkeypatch):
    """The fit as it is once step_defaults and BasisCost have the two keys: before they do,
    the step logs' model gets them through a BasisCost with the two fields (the engine's
    replays never see them: they carry none)."""
    import core.calibrate.fit as fit
    from core.calibrate.replayer import RunReplay

    if not LANDED:
        monkeypatch.setattr(fit, "one_off_keys", lambda: fit.ONE_OFF_KEYS)
        plain = RunReplay.cost

        def cost(self, coefs):
            base = plain(self, coefs)
            extra = {k: float(coefs.get(k, 0.0)) for k in fit.ONE_OFF_KEYS}
            if not any(extra.values()):
                return base
            return WithOneOff(**_fields(base), **extra)

        predict = RunReplay.predict
        monkeypatch.setattr(RunReplay, "cost", cost)
        monkeypatch.setattr(RunReplay, "predict", lambda self, coefs: predict(
            self, {k: v for k, v in coefs.items() if k not in fit.ONE_OFF_KEYS}))
    return fit


@pytest.fixture(scope="module")
def run_path(tmp_path_factory):
    return synthetic_run(tmp_path_factory.mktemp("one_off"))


def _replay(run_path):
    from core.calibrate.replayer import RunReplay
    from core.calibrate.runs import load_runs

    return RunReplay(load_runs([run_path])[0], BASE)


def test_stage_one_recovers_the_one_off_costs_of_a_log(tmp_path, run_path, landed):
    log = timed_log(tmp_path / "s.log", _replay(run_path).cost(dict(TRUTH, **ONE_OFF)), np.random.default_rng(3))
    cal = landed.calibrate([run_path], BASE, bootstrap=0, steps=[log])
    assert cal.converged, cal.message
    assert set(ONE_OFF) <= set(cal.from_steps)
    engine = cal.steps[0]["engine_coefficients"]
    for key, value in dict(TRUTH, **ONE_OFF).items():
        assert engine[key] == pytest.approx(value, rel=0.02), key
    assert cal.steps[0]["engine"]["all"]["median_abs_step_error"] < 0.01
    # The first-size cost is the logs' (their server's), not replayed: the profile keeps 0.
    assert cal.log_only == {"coef_shape_s": pytest.approx(ONE_OFF["coef_shape_s"], rel=0.02)}
    assert cal.profile.fit["step_logs_only"] == cal.log_only
    if LANDED:  # the profile carries the wake cost (its coefficients are step_defaults' keys)
        assert cal.coefficients["coef_wake_s"] == pytest.approx(ONE_OFF["coef_wake_s"], rel=0.02)
        assert cal.coefficients["coef_shape_s"] == 0.0


def test_a_log_without_waits_leaves_the_wake_cost_at_its_default(tmp_path, run_path, landed):
    cost = _replay(run_path).cost(dict(TRUTH, coef_shape_s=ONE_OFF["coef_shape_s"]))
    log = timed_log(tmp_path / "s.log", cost, np.random.default_rng(4), waits=False)
    cal = landed.calibrate([run_path], BASE, bootstrap=2, steps=[log])
    assert cal.converged, cal.message
    assert "coef_wake_s" not in cal.from_steps and "not identified" in cal.frozen["coef_wake_s"]
    engine = cal.steps[0]["engine_coefficients"]
    assert engine["coef_shape_s"] == pytest.approx(ONE_OFF["coef_shape_s"], rel=0.02)
    # its band is shown; the coefficient sets that simulate's bands replay do not carry it
    assert "coef_shape_s" in cal.bands and len(cal.samples) == 2
    assert not any("coef_shape_s" in sample for sample in cal.samples)
    if LANDED:
        assert cal.coefficients["coef_wake_s"] == 0.0 == cal.coefficients["coef_shape_s"]


def test_explicit_fit_keys_and_runs_alone_fit_no_one_off_cost(tmp_path, run_path, landed):
    log = timed_log(tmp_path / "s.log", _replay(run_path).cost(dict(TRUTH, **ONE_OFF)), np.random.default_rng(5))
    cal = landed.calibrate([run_path], BASE, fit_keys=tuple(TRUTH), bootstrap=0, steps=[log])
    assert not set(ONE_OFF) & set(cal.from_steps + cal.fit_keys)
    cal = landed.calibrate([run_path], BASE, bootstrap=0)
    assert not set(ONE_OFF) & set(cal.fit_keys)


def test_lab_fidelity_prices_a_step_log_with_the_profiles_log_only_costs(tmp_path, run_path, landed):
    """`lab fidelity ... steps.log profile=P.toml`: the step log priced as the logs' fit priced
    it (the first-size cost of fit.step_logs_only added, the cadence of fit.step_logs_cadence,
    which the log's elapsed time leaves out, taken off), the runs replayed without either."""
    from core.calibrate.fidelity_steps import steps_fidelity, with_log_only
    from core.observe.steps import lab_cost
    from core.serving.profile import save_profile

    log = timed_log(tmp_path / "s.log", _replay(run_path).cost(dict(TRUTH, **ONE_OFF)), np.random.default_rng(6))
    cal = landed.calibrate([run_path], BASE, bootstrap=0, steps=[log])
    profile = tmp_path / "p.toml"
    save_profile(cal.profile, profile)
    keys = {"profile": str(profile)}
    replayed = lab_cost(keys)
    priced = with_log_only(replayed, keys)
    steps = StepLog(log)
    extra = steps.predicted_ms(priced) - steps.predicted_ms(replayed)
    cadence = cal.profile.fit["step_logs_cadence"]
    assert cadence["coef_step_s"] == pytest.approx(1e-3, rel=1e-3)  # timed_log: 1 ms between steps back to back
    # taken off down to 0 at most (here the runs, made with the defaults, set coef_step_s under it)
    off = (min(replayed.overhead_s, cadence["coef_step_s"])
           + min(replayed.coef_seq_s, cadence["coef_seq_s"]) * steps.inputs.seqs) * 1e3
    assert extra == pytest.approx(np.where(steps.first_size, cal.log_only["coef_shape_s"] * 1e3, 0.0) - off, abs=1e-9)
    explicit = dict(keys, coef_shape_s="0", **{k: "0.001" for k in cadence})
    assert with_log_only(replayed, explicit) is replayed  # an explicit key wins
    assert with_log_only(replayed, {"model": "qwen3-8b"}) is replayed  # no profile: nothing to add
    (with_it,) = steps_fidelity([log], keys)
    (without,) = steps_fidelity([log], dict(keys, coef_shape_s="0"))
    assert with_it["kinds"]["all"]["median_abs_step_error"] < without["kinds"]["all"]["median_abs_step_error"]


def test_cut_steps_sh_writes_the_sizes_run_before_and_the_runs_steps(tmp_path):
    """scripts/vllm_cpu/cut_steps.sh (end_to_end.sh's cut of the medium run) read back."""
    import subprocess
    from pathlib import Path

    server = tmp_path / "server.log"
    lines = Path(write(tmp_path / "steps.log")).read_text().splitlines()
    before, run = [lines[0], *lines[1:3], "(APIServer pid=1) INFO other line"], lines[3:]
    server.write_text("\n".join(before) + "\n" + "\n".join(run) + "\n")
    start = len(("\n".join(before) + "\n").encode())
    script = Path(__file__).resolve().parents[2] / "scripts" / "vllm_cpu" / "cut_steps.sh"
    out = subprocess.run(["bash", str(script), str(server), str(start)], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    # the first two steps' sizes (100 and 1 rows), then the pool line, then the run's steps
    assert out[0] == "# load-lab: sizes run before: 1,100" and out[1] == POOL and out[2:] == run[:]
    cut = tmp_path / "run_steps.log"
    cut.write_text("\n".join(out) + "\n")
    log = StepLog(str(cut))
    # rows 100, 81, 50, 2, 1: 100 and 1 were run before
    assert len(log) == len(STEPS) - 2 and log.first_size.tolist() == [False, True, True, True, False]
