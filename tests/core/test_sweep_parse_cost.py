"""What resolving a sweep's points costs (issue 14: a 64-point sweep spent 2 s of CPU in
parse_sweep and 30 ms a point in the workers, because every core.registry.get() re-read
every core source file to find the calculator's module). The registry scans once per
calculator name; a sweep's points then read no source file, however many there are."""
import core.registry as reg
from core.sweep.executors import InProcess
from core.sweep.run import parse_sweep, run_sweep

GRID_64 = {"max_num_seqs": "16:64:16", "token_budget": "2048:8192:2048", "kv_pool_bytes": "16GiB,24GiB,32GiB,40GiB"}


def _counting_opens(monkeypatch) -> list[str]:
    opened: list[str] = []
    real = open

    def counting(path, *args, **kwargs):
        opened.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(reg, "open", counting, raising=False)  # the registry's own reads of core's sources
    return opened


def test_a_64_point_sweep_reads_no_source_file_once_its_calculators_are_known(monkeypatch):
    opened = _counting_opens(monkeypatch)
    small = parse_sweep("serving", {"max_num_seqs": "16,32"})
    run_sweep(small, None, InProcess())  # the evaluator's calculators too
    del opened[:]
    spec = parse_sweep("serving", GRID_64)
    assert len(spec.points) == 64
    rows = []
    run_sweep(spec, None, InProcess(), on_row=rows.append)
    assert len(rows) == 64 and all(r.get("error") is None for r in rows)
    assert opened == []


def test_get_still_finds_the_registry_s_object_after_a_sweep(monkeypatch):
    parse_sweep("serving", {"max_num_seqs": "16,32"})
    whole = reg.registry()
    monkeypatch.setattr(reg, "_REGISTRY", None)  # as in a fresh `lab calc NAME`
    assert reg.get("serving.replay") is whole.get("serving.replay")
