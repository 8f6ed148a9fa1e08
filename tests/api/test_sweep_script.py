"""loadlab.sweep(workers=1) runs its points in the calling process: a plain script with no
`if __name__ == "__main__":` guard works (worker processes started by forkserver or spawn
import the script's __main__ again, and multiprocessing refuses that), and its points are
the CLI's (lab sweep --workers 1 runs them in a worker process)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq

from lab.cli import main

SCRIPT = textwrap.dedent("""
    import json, loadlab
    sw = loadlab.sweep(durations_s=10, rates_per_s=2, shares_long_input=0.5, max_num_seqs=[4, 8], seeds=[0, 1],
                       workers=1)
    print(json.dumps([[r["param.max_num_seqs"], r["seed"], r["p99_ttft_ms"], r["completed"]] for r in sw.rows]))
""")


def test_a_script_without_a_main_guard_sweeps_and_matches_the_cli(tmp_path, capsys):
    script = tmp_path / "plain.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    assert main(["sweep", "serving", "durations_s=10", "rates_per_s=2", "shares_long_input=0.5", "max_num_seqs=4,8",
                 "seeds=0,1", "--workers", "1", "--json", "--out", str(tmp_path / "cli")]) == 0
    capsys.readouterr()
    cli = pq.read_table(tmp_path / "cli" / "results.parquet").to_pylist()
    assert sorted(rows) == sorted([r["param.max_num_seqs"], r["seed"], r["p99_ttft_ms"], r["completed"]] for r in cli)
    assert len(rows) == 4 and {r[0] for r in rows} == {4, 8}
