"""A full disk under every command that writes results: `lab sweep` says so and exits 2
(points kept for the rerun), `lab simulate serving --out` (also --format aiperf) and `lab
simulate voice --out` exit 2 and leave no file half-written (all of a run's files or none;
an older run's files there stay as they were). The disk is a real full filesystem: a
64 KiB tmpfs mounted for the test, nearly filled (skipped, saying why, where mount is
denied). Each command runs under the corpus's bound (tests/hostile/bounds.py)."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.hostile.bounds import run_cli

ROOM_BYTES = 24 * 1024  # left free: the smaller files fit, a result file of a real run does not


@pytest.fixture
def full_disk(tmp_path):
    mount = tmp_path / "full"
    mount.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command here: a full filesystem cannot be made")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"mount of a 64 KiB tmpfs denied ({done.stderr.strip() or done.returncode}): needs root")
    try:
        free = shutil.disk_usage(mount).free
        (mount / "filler").write_bytes(b"\0" * max(free - ROOM_BYTES, 0))
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.exists() else {}


SIMULATIONS = {
    "serving --out": ("simulate serving durations_s=100 rates_per_s=10 shares_long_input=0.5 --out {out}"),
    "serving --format aiperf --out": ("simulate serving durations_s=100 rates_per_s=10 shares_long_input=0.5 "
                                      "--format aiperf --out {out}"),
    "voice --out": "simulate voice turns=1000 --out {out}",
}


@pytest.mark.parametrize("name", SIMULATIONS)
def test_a_failed_out_leaves_nothing_half_written(full_disk, name):
    out = full_disk / "run"
    ran = run_cli(SIMULATIONS[name].format(out=out).split())
    assert ran.within_bounds() is None, ran.within_bounds()
    assert ran.rc == 2 and "Traceback" not in ran.err, ran.err
    assert "--out:" in ran.err and "No space left" in ran.err, ran.err
    assert not out.exists(), sorted(p.name for p in out.iterdir())  # no file, and the folder it made is gone
    assert not [p for p in full_disk.iterdir() if p.name.endswith(".part")]


@pytest.mark.parametrize("name", SIMULATIONS)
def test_an_older_run_stays_whole(full_disk, name):
    out = full_disk / "run"
    out.mkdir()
    (out / "summary.json").write_text('{"older": true}\n', encoding="utf-8")
    before = _files(out)
    ran = run_cli(SIMULATIONS[name].format(out=out).split())
    assert ran.rc == 2 and "No space left" in ran.err, ran.err
    assert _files(out) == before


def test_a_sweep_on_a_full_disk_says_so(full_disk):
    out = full_disk / "sweep"
    ran = run_cli(["sweep", "serving", "durations_s=20", "shares_long_input=0.5", "rates_per_s=1;2;3;4;5;6;7;8",
                   "seeds=0-7", "--workers", "1", "--out", str(out)], limit_s=120)
    assert ran.rc == 2 and "Traceback" not in ran.err, ran.err
    assert "--out:" in ran.err and "No space left" in ran.err and "resumes" in ran.err, ran.err
    assert not (out / "results.csv").exists() and not (out / "summary.json").exists()
    # Room again (the filesystem grown in place): the rerun resumes from the points kept and finishes.
    subprocess.run(["mount", "-o", "remount,size=16m", str(full_disk)], check=True, capture_output=True)
    again = run_cli(["sweep", "serving", "durations_s=20", "shares_long_input=0.5", "rates_per_s=1;2;3;4;5;6;7;8",
                     "seeds=0-7", "--workers", "1", "--out", str(out)], limit_s=120)
    assert again.rc == 0, again.err
    assert (out / "results.csv").read_text(encoding="utf-8").count("\n") == 65  # 8 rates x 8 seeds, and a header
