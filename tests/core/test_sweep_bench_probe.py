"""bench/bench_sweep_probe.py times LocalPool's phases by wrapping its methods: if a rename
in core/sweep/executors.py left a wrapper unused, bench_sweep_workers' figures would be
silently wrong. One small `lab sweep` through the probe: every phase is timed, each worker's
CPU is read, and the phases fit inside main()'s wall."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PHASES = ("startup", "pre", "warm_up", "pool_start", "points", "post")


def test_the_probe_times_every_phase_of_a_two_worker_sweep(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_sweep_probe.py"), "sweep", "serving",
                           "max_num_seqs=16,32,48,64", "--out", str(tmp_path / "out"), "--workers", "2", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["points"]["computed"] == 4
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    assert probe["start_method"] == "fork"
    assert len(probe["workers_cpu_s"]) == 2 and all(cpu >= 0 for cpu in probe["workers_cpu_s"])
    phases = probe["phases"]
    assert set(phases) == set(PHASES)
    assert phases["warm_up"]["cpu"] > 0 and phases["points"]["wall"] > 0 and phases["post"]["wall"] > 0
    timed = sum(phases[name]["wall"] for name in PHASES if name != "startup")
    assert 0 < timed <= probe["main_s"] + 1e-6
    assert probe["payload_bytes"] > 0
