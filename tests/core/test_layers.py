"""The house's one-way imports, lab -> widgets -> (vision | audio) -> core, and no import
circles inside a package, as import-linter reads them from every module (the contracts are
in pyproject.toml). test_core_is_pure.py checks the layers at run time."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_layers_contract_is_kept():
    code = ("import sys; from importlinter import cli; "
            "sys.exit(cli.lint_imports(config_filename='pyproject.toml', no_cache=True))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "2 kept, 0 broken" in out.stdout


def test_the_contract_catches_an_upward_import(tmp_path):
    """A core module importing widgets must break the contract (the check can fail)."""
    for package in ("core", "vision", "audio", "widgets", "lab"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "core" / "bad.py").write_text("import widgets\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    code = ("import sys; sys.path.insert(0, '.'); from importlinter import cli; "
            "sys.exit(cli.lint_imports(config_filename='pyproject.toml', no_cache=True))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode != 0 and "1 broken" in out.stdout
