"""`lab sweep --engine ray` on a real local Ray cluster (started by the ray_cluster fixture
with `ray start --head` on a free port, stopped after): the same rows as the local pool
(bit for bit, wall_s aside), the trace put into the object store once, a worker killed by
pid mid-sweep still yields every row exactly once, cancel keeps what finished; a wrong
address is refused with a message naming --address (no hang), and without ray installed
--engine ray says how to install it."""
import json
import math
import socket
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # ray_fixtures next to this file, as tests/audio does

from ray_fixtures import kill_when_marked, ray_cluster, stall_once  # noqa: F401 (a fixture)

from core.cancel import CancelToken
from core.registry import ParamError
from core.sweep.executors import InProcess, make_executor
from core.sweep.run import parse_sweep, payload, run_sweep, sweep_kind
from lab.cli import main

SMALL = ["durations_s=20", "rates_per_s=3", "shares_long_input=0.5"]
GRID = SMALL + ["max_num_seqs=16,64", "token_budget=2048,8192", "slo_ttft_ms=5000"]


def rows_by_key(out: Path) -> dict:
    lines = (out / "points.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    assert len({r["key"] for r in rows}) == len(rows)  # no point twice
    return {r["key"]: r["row"] for r in rows}


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and type(a) is type(b)


def assert_same_rows(got: dict, want: dict, ignore=("wall_s",)):
    assert sorted(got) == sorted(want)
    for key in want:
        a = {k: v for k, v in got[key].items() if k not in ignore}
        b = {k: v for k, v in want[key].items() if k not in ignore}
        assert sorted(a) == sorted(b), key
        for column in b:
            assert same(a[column], b[column]), (key, column, a[column], b[column])


def sweep_cli(capsys, args, out, *engine):
    code = main(["sweep", "serving", *args, "--out", str(out), "--json", *engine])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_ray_rows_equal_local_pool_rows(ray_cluster, tmp_path, capsys):
    on_ray = sweep_cli(capsys, GRID, tmp_path / "ray", "--engine", "ray", "--address", ray_cluster)
    local = sweep_cli(capsys, GRID, tmp_path / "local", "--engine", "local", "--workers", "2")
    assert on_ray["points"] == local["points"]
    assert (on_ray["points"]["done"], on_ray["points"]["computed"]) == (4, 4)
    assert_same_rows(rows_by_key(tmp_path / "ray"), rows_by_key(tmp_path / "local"))
    assert on_ray["pareto"] == local["pareto"]
    # Resume on Ray: the finished points are reused, only the new one runs.
    again = sweep_cli(capsys, SMALL + ["max_num_seqs=16,64,128", "token_budget=2048,8192", "slo_ttft_ms=5000"],
                      tmp_path / "ray", "--engine", "ray", "--address", ray_cluster)
    assert (again["points"]["reused"], again["points"]["computed"]) == (4, 2)


def test_a_trace_goes_to_the_object_store_once(ray_cluster, tmp_path, monkeypatch):
    import ray

    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n"
                     + "".join(f"{i * 0.37:.2f},{300 + 17 * i},{40 + i % 9}\n" for i in range(80)))
    spec = parse_sweep("serving", {"trace": str(trace), "time_scale": "1,2,4", "max_num_seqs": "8,32"})
    executor = make_executor("ray", 2, ray_cluster)
    puts = []
    real_put = ray.put
    monkeypatch.setattr(ray, "put", lambda value, **kw: puts.append(type(value).__name__) or real_put(value, **kw))
    try:
        on_ray, here = {}, {}
        run_sweep(spec, None, executor, on_row=lambda r: on_ray.setdefault(r["point"], r))
    finally:
        executor.close()
    run_sweep(spec, None, InProcess(), on_row=lambda r: here.setdefault(r["point"], r))
    assert puts == ["Workload"]  # six points, one put
    assert len(on_ray) == 6
    assert_same_rows(on_ray, here)


def test_a_worker_killed_mid_sweep_yields_every_row_once(ray_cluster, tmp_path):
    import functools

    import ray_fixtures
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(ray_fixtures)  # the workers cannot import this test folder
    spec = parse_sweep("serving", {"max_num_seqs": "16,32,64", "token_budget": "2048,8192"})
    kind = sweep_kind("serving")
    tasks = [(p.key, payload(spec, p)) for p in spec.points]
    victim = tasks[1][0]
    marker = str(tmp_path / "victim.pid")
    evaluate = functools.partial(stall_once, marker, victim, kind.evaluate)
    killer = kill_when_marked(marker)
    executor = make_executor("ray", 2, ray_cluster)
    try:
        seen = [(key, row) for key, row in executor.run(evaluate, None, tasks)]
    finally:
        executor.close()
    killer.join()
    assert killer.killed is not None  # the victim's first attempt was killed mid-point
    keys = [key for key, _ in seen]
    assert sorted(keys) == sorted(k for k, _ in tasks)  # every point, once
    rows = dict(seen)
    assert rows[victim]["worker_pid"] != killer.killed  # computed again by another worker
    here = dict(InProcess().run(kind.evaluate, None, tasks))
    assert_same_rows(rows, here, ignore=("wall_s", "worker_pid"))


def test_cancel_stops_and_keeps_the_finished_points(ray_cluster, tmp_path):
    spec = parse_sweep("serving", dict(dict(a.split("=") for a in SMALL), max_num_seqs="8,16,32,64,128,256"))
    token = CancelToken()
    done = []

    def on_row(row):
        done.append(row["point"])
        token.cancel()

    executor = make_executor("ray", 1, ray_cluster)
    try:
        summary = run_sweep(spec, str(tmp_path), executor, on_row=on_row, cancel=token)
    finally:
        executor.close()
    assert summary["cancelled"] is True
    assert summary["points"]["done"] == len(done) < 6
    assert sorted(rows_by_key(tmp_path)) == sorted(done)
    executor = make_executor("ray", 2, ray_cluster)
    try:
        rest = run_sweep(spec, str(tmp_path), executor)
    finally:
        executor.close()
    assert (rest["points"]["reused"], rest["points"]["done"]) == (len(done), 6)


def test_an_evaluation_error_is_raised_not_retried(ray_cluster):
    executor = make_executor("ray", 1, ray_cluster)
    try:
        with pytest.raises(ParamError, match="max_num_seqs"):
            list(executor.run(_refuse, None, [("a", {})]))
    finally:
        executor.close()


def _refuse(shared, item):
    raise ParamError("max_num_seqs", "refused in the worker; valid: anything else")


# -- addresses where no Ray head answers: refused, never a hang (no cluster needed) ---------

def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once it is closed


def test_an_unreachable_address_is_refused_by_the_cli(capsys, tmp_path):
    pytest.importorskip("ray", reason="ray is not installed: pip install '.[cluster]' (CI installs it)")
    address = f"127.0.0.1:{closed_port()}"
    out = tmp_path / "sweep"
    code = main(["sweep", "serving", "max_num_seqs=16", "--out", str(out), "--engine", "ray", "--address", address])
    err = capsys.readouterr().err
    assert code == 2
    assert "--address" in err and address in err and "Connection refused" in err
    assert not out.exists()  # refused before anything was written


class Listener:
    """A TCP server on a free port that either says nothing or answers like HTTP/1."""

    def __init__(self, reply: bytes | None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.conns = []
        threading.Thread(target=self.serve, args=(reply,), daemon=True).start()

    def serve(self, reply):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        self.conns.append(conn)
        if reply is not None:
            conn.recv(4096)
            conn.sendall(reply)
            conn.close()

    def close(self):
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.mark.parametrize("reply, seen", [(None, "no gRPC answer within 1 s"),
                                         (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "does not speak gRPC")])
def test_an_address_where_something_else_listens_is_refused(reply, seen):
    from core.sweep.ray_probe import check_address

    listener = Listener(reply)
    try:
        with pytest.raises(ParamError, match="--address") as err:
            check_address(listener.address, timeout_s=1.0)
    finally:
        listener.close()
    assert seen in str(err.value)


def grpc_error_reply(status: int, message: bytes) -> bytes:
    """What a gRPC server (C core, as Ray's GCS) answers a call it refuses: SETTINGS, then
    trailers only (the header block as Ray 2.60's GCS wrote it, captured from a token-auth head)."""
    from core.sweep.ray_probe import END_HEADERS, END_STREAM, HEADERS, SETTINGS, _frame

    code = str(status).encode()
    block = (b"\x88@\x0ccontent-type\x10application/grpc\x00\x0bgrpc-status" + bytes([len(code)]) + code
             + b"\x00\x0cgrpc-message" + bytes([len(message)]) + message)
    return _frame(SETTINGS, 0, 0) + _frame(HEADERS, END_HEADERS | END_STREAM, 1, block)


def test_a_grpc_server_without_the_gcs_service_is_refused_and_a_token_auth_head_needs_its_mode(monkeypatch):
    from core.sweep.ray_probe import check_address

    unimplemented = Listener(grpc_error_reply(12, b"Method not found!"))
    try:
        with pytest.raises(ParamError, match="grpc-status 12"):
            check_address(unimplemented.address, timeout_s=2.0)
    finally:
        unimplemented.close()
    for mode in ("disabled", "token"):
        monkeypatch.setenv("RAY_AUTH_MODE", mode)
        token_auth = Listener(grpc_error_reply(16, b"InvalidAuthToken: Authentication token is missing or incorrect"))
        try:
            if mode == "token":
                check_address(token_auth.address, timeout_s=2.0)  # a Ray head; ray.init brings the token
            else:
                with pytest.raises(ParamError, match="RAY_AUTH_MODE=token"):
                    check_address(token_auth.address, timeout_s=2.0)
        finally:
            token_auth.close()


@pytest.mark.parametrize("address", ["head", "head:0", "head:70000", "http://head:6379", "head:6379:1"])
def test_a_malformed_address_names_the_valid_forms(address):
    from core.sweep.ray_probe import check_address

    with pytest.raises(ParamError, match="valid: HOST:PORT of a running Ray head"):
        check_address(address)


def test_without_ray_the_engine_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(ParamError) as err:
        make_executor("ray", None, None)
    assert err.value.param == "--engine"
    assert "pip install '.[cluster]'" in str(err.value)


def test_the_worker_count_is_checked():
    pytest.importorskip("ray", reason="ray is not installed: pip install '.[cluster]' (CI installs it)")
    with pytest.raises(ParamError, match="--workers"):
        make_executor("ray", 0, "127.0.0.1:1")
