"""`lab sweep` as a command refuses pandas (pyarrow's first array would import it only to ask
whether the values are pandas objects, in the serial end of every sweep), writes the same
results.parquet as a sweep called from Python, and leaves pandas alone for Python callers."""
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from lab.cli import main
from lab.cli.sweep import _NoPandas

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["sweep", "serving", "durations_s=20", "rates_per_s=3", "shares_long_input=0.5", "max_num_seqs=4,8"]


def _table(folder: Path):
    table = pq.read_table(folder / "results.parquet")
    return table.drop_columns(["wall_s"]).to_pylist()  # the one column that differs run to run


def test_the_command_imports_no_pandas_and_writes_the_same_parquet(tmp_path, capsys):
    command = tmp_path / "command"
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "lab", *ARGS, "--out", str(command),
                           "--workers", "1", "--json"], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "pyarrow.parquet" in imported  # the results were written through pyarrow ...
    # ... which did not load pandas (a refused import is listed too, as "pandas" alone)
    assert not any(name.startswith("pandas.") for name in imported)
    called = tmp_path / "called"
    assert main([*ARGS, "--out", str(called), "--workers", "1", "--json"]) == 0
    capsys.readouterr()
    rows = _table(command)
    assert len(rows) == 2 and rows == _table(called)


def test_a_sweep_called_from_python_leaves_pandas_importable(tmp_path, capsys):
    assert main([*ARGS, "--out", str(tmp_path / "s"), "--workers", "1", "--json"]) == 0
    capsys.readouterr()
    assert not any(isinstance(finder, _NoPandas) for finder in sys.meta_path)
