"""lab observe against the bad endpoints the issue names: HTTP 500s and streams with no
tokens are counted per request (never a crash), a server that hangs fails its requests
at the request timeout, an unreachable or silent server is refused before the run, a URL
that is not http(s) is refused naming the field, and Ctrl+C keeps what finished."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from endpoints import Endpoint

from core.observe.client import NO_TOKENS
from core.serving import traces
from lab.cli import main

ROOT = Path(__file__).resolve().parents[2]
FEW = ["dataset=fixed", "num_prompts=5", "random_input_len=8", "random_output_len=3"]


def observe(url, out, *words):
    return main(["observe", url, "--out", str(out), *words])


def test_http_500s_are_counted_per_request(tmp_path):
    with Endpoint(mode="http500", fail={2, 4}) as ep:
        rc = observe(ep.url, tmp_path, *FEW, "max_concurrency=1")  # one at a time: arrival order = request order
    res = json.loads((tmp_path / "result.json").read_text())
    assert rc == 0 and res["completed"] == 3 and res["failed"] == 2
    assert [bool(e) for e in res["errors"]] == [False, True, False, True, False]
    assert res["errors"][1].startswith("HTTP 500") and "boom" in res["errors"][1]
    assert res["output_lens"] == [3, 0, 3, 0, 3] and res["ttfts"][1] == 0.0
    work = traces.load_trace(tmp_path / "result.json")  # the loader leaves the failed ones out, counted
    assert len(work.input_tokens) == 3 and work.meta["dropped"] == {"failed requests": 2}


def test_streams_with_no_tokens_are_failures(tmp_path, capsys):
    with Endpoint(mode="empty") as ep:
        rc = observe(ep.url, tmp_path, *FEW)
    res = json.loads((tmp_path / "result.json").read_text())
    assert rc == 0 and res["completed"] == 0 and res["failed"] == 5
    assert res["errors"] == [NO_TOKENS] * 5
    got = capsys.readouterr()
    assert "Failed requests:                         5" in got.out
    assert f"5 of 5 requests failed (1 distinct errors; see errors in result.json); the first: {NO_TOKENS}" in got.err


def test_a_hanging_server_fails_requests_at_the_timeout(tmp_path):
    with Endpoint(mode="hang") as ep:
        t = time.monotonic()
        rc = observe(ep.url, tmp_path, *FEW, "--request-timeout", "0.5")
        took = time.monotonic() - t
    res = json.loads((tmp_path / "result.json").read_text())
    assert rc == 0 and res["failed"] == 5 and took < 5
    assert all(e.startswith("no complete reply within the request timeout") for e in res["errors"])


def test_a_silent_server_is_refused_within_the_connect_timeout(tmp_path, capsys):
    with Endpoint(mode="hang_all") as ep:
        t = time.monotonic()
        rc = observe(ep.url, tmp_path, *FEW, "--connect-timeout", "1")
        took = time.monotonic() - t
    err = capsys.readouterr().err
    assert rc == 2 and took < 5 and "url:" in err and "did not answer within 1 s" in err
    assert not (tmp_path / "result.json").exists()


def test_an_unreachable_url_is_a_clear_error(tmp_path, capsys):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = time.monotonic()
    rc = observe(f"http://127.0.0.1:{port}", tmp_path, *FEW)
    assert rc == 2 and time.monotonic() - t < 10
    assert f"cannot reach http://127.0.0.1:{port}" in capsys.readouterr().err


def test_a_url_that_is_not_http_is_refused(tmp_path, capsys):
    assert observe("ftp://127.0.0.1:21", tmp_path / "o", *FEW) == 2
    assert "url: got 'ftp://127.0.0.1:21'; valid: an http:// or https:// URL" in capsys.readouterr().err
    assert observe("http://127.0.0.1:1", tmp_path / "o", "num_prompts=0") == 2
    assert "num_prompts" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # bad input leaves no folder behind
    assert main(["observe", "http://127.0.0.1:1", *FEW]) == 2
    assert "out: missing" in capsys.readouterr().err


def test_ctrl_c_keeps_what_finished(tmp_path):
    with Endpoint(token_delay_s=0.02) as ep:
        cmd = [sys.executable, "-m", "lab", "observe", ep.url, "--out", str(tmp_path), "dataset=fixed",
               "num_prompts=40", "random_input_len=8", "random_output_len=10", "request_rate=8", "burstiness=inf"]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        deadline = time.monotonic() + 60
        while ep.counts["requests"] < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)  # polling a condition: three replies done
        assert ep.counts["requests"] >= 3, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    res = json.loads((tmp_path / "result.json").read_text())
    lab = res["lab_observe"]
    assert lab["interrupted"] and 3 <= res["num_prompts"] < 40
    assert res["completed"] == res["num_prompts"] and res["output_lens"] == [10] * res["num_prompts"]
    assert res["num_prompts"] + lab["unfinished"] + lab["not_sent"] == 40
    assert "interrupted (Ctrl+C)" in err


def test_an_out_that_is_a_file_is_refused_before_the_run(tmp_path, capsys):
    f = tmp_path / "taken"
    f.write_text("")
    with Endpoint() as ep:
        assert observe(ep.url, f, *FEW) == 2
        assert ep.seen == []  # nothing was sent
    assert "out:" in capsys.readouterr().err
