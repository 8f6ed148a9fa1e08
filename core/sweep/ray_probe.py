"""Is a Ray head answering at this address? Checked before ray.init, which on an address
where nothing (or something else) listens keeps retrying for minutes: measured here with
ray 2.60, ray.init("127.0.0.1:<closed port>") was still waiting after 2 minutes.

The check, all under one deadline (a few seconds):
1. the address parses (HOST:PORT, [IPv6]:PORT, ray://HOST:PORT, or auto);
2. a TCP connection opens (refused / unroutable / no such host end here);
3. for a GCS address: one gRPC call a Ray head answers, NodeInfoGcsService/GetClusterId,
   spoken by hand over HTTP/2 (ray's wheel does not ship grpcio): a reply with data means
   a Ray GCS, and so does UNAUTHENTICATED (a head with Ray's token auth: accepted when
   RAY_AUTH_MODE=token, else refused saying so); an HTTP/1 server (the dashboard's port), a gRPC server without that service
   (the Ray Client port: UNIMPLEMENTED) or silence is refused with what was seen.
No ray import here: this runs before ray.init, in a daemon thread (a name lookup cannot
be interrupted, so the thread is abandoned on timeout rather than waited for).
"""
from __future__ import annotations

import os
import re
import socket
import struct
import threading
import time

from core.registry import ParamError

VALID = ("HOST:PORT of a running Ray head (the GCS address `ray start --head` prints; port 6379 "
         "by default), auto (the cluster this machine belongs to), or ray://HOST:PORT (Ray Client)")
_ADDRESS = re.compile(r"^(?:(?P<scheme>ray)://)?(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9._-]+)):(?P<port>\d{1,5})$")
GCS_METHOD = b"/ray.rpc.NodeInfoGcsService/GetClusterId"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4


def parse_address(address: str) -> tuple[str, str, int] | None:
    """(scheme "" or "ray", host, port), or None for "auto"; ParamError if malformed."""
    text = address.strip()
    if text == "auto":
        return None
    match = _ADDRESS.match(text)
    port = int(match["port"]) if match else 0
    if not match or not 1 <= port <= 65535:
        raise ParamError("--address", f"got {address!r}; valid: {VALID}")
    return match["scheme"] or "", match["v6"] or match["host"], port


TOKEN = "token"  # what _probe returns for a head that wants Ray's auth token


def check_address(address: str, timeout_s: float = 8.0) -> None:
    """Return if a Ray head answers at address within timeout_s, else ParamError("--address").
    A head with Ray's token auth is refused too unless RAY_AUTH_MODE=token (Ray's switch; the
    token then comes from ~/.ray/auth_token, RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH): without
    it ray.init fails only after its own 30 s of retries."""
    parsed = parse_address(address)
    if parsed is None:
        return  # auto: ray.init reads this machine's own cluster file (and fails fast without one)
    scheme, host, port = parsed
    outcome: list[str | None] = []
    thread = threading.Thread(target=lambda: outcome.append(_probe(scheme, host, port, timeout_s)),
                              name="ray-address-probe", daemon=True)
    thread.start()
    thread.join(timeout_s + 0.5)
    reason = outcome[0] if outcome else f"no answer within {timeout_s:g} s"
    if reason == TOKEN:
        if os.environ.get("RAY_AUTH_MODE", "").lower() == "token":
            return
        raise ParamError("--address", f"the Ray head at {address} wants Ray's auth token; valid: RAY_AUTH_MODE=token "
                                      "with the cluster's token in ~/.ray/auth_token or RAY_AUTH_TOKEN")
    if reason is not None:
        raise ParamError("--address", f"no Ray head at {address} ({reason}); valid: {VALID}")


def _probe(scheme: str, host: str, port: int, timeout_s: float) -> str | None:
    """None if the head answered, else why not."""
    deadline = time.monotonic() + timeout_s
    try:
        sock = socket.create_connection((host, port), timeout=max(0.1, min(3.0, timeout_s / 2)))
    except socket.gaierror as err:
        return f"unknown host {host!r}: {err.strerror or err}"
    except TimeoutError:
        return "the connection timed out"
    except OSError as err:
        return err.strerror or str(err)
    with sock:
        if scheme == "ray":
            return None  # Ray Client speaks its own protocol: ray.init checks it
        try:
            return _gcs_answers(sock, host, port, deadline)
        except TimeoutError:
            return f"connected, but no gRPC answer within {timeout_s:g} s"
        except OSError as err:
            return f"connected, then {err.strerror or err}"


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def _hpack_int(value: int, prefix_bits: int, first: int) -> bytes:
    top = (1 << prefix_bits) - 1
    if value < top:
        return bytes([first | value])
    out, value = [first | top], value - top
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    return bytes(out + [value])


def _hpack_str(text: bytes) -> bytes:
    return _hpack_int(len(text), 7, 0) + text  # no Huffman coding


def _request_headers(authority: bytes) -> bytes:
    """HPACK: :method POST, :scheme http (static table), then literals without indexing."""
    return (b"\x83\x86" + _hpack_int(4, 4, 0) + _hpack_str(GCS_METHOD)  # :path
            + _hpack_int(1, 4, 0) + _hpack_str(authority)  # :authority
            + _hpack_int(31, 4, 0) + _hpack_str(b"application/grpc")  # content-type
            + b"\x00" + _hpack_str(b"te") + _hpack_str(b"trailers"))


def _grpc_status(block: bytes) -> int | None:
    """grpc-status from a header block, where it is a plain literal (gRPC's C core, which
    Ray's GCS uses, writes the trailers without Huffman coding); None if not found."""
    at = block.find(b"grpc-status")
    if at < 0 or at + 12 > len(block):
        return None
    size = block[at + 11] & 0x7F
    value = block[at + 12:at + 12 + size]
    return int(value) if value.isdigit() else None


def _read_exact(sock: socket.socket, n: int, deadline: float) -> bytes:
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError()
        sock.settimeout(left)
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionResetError("the server closed the connection")
        data += chunk
    return data


def _gcs_answers(sock: socket.socket, host: str, port: int, deadline: float) -> str | None:
    authority = f"{host}:{port}".encode()
    sock.sendall(PREFACE + _frame(SETTINGS, 0, 0)
                 + _frame(HEADERS, END_HEADERS, 1, _request_headers(authority))
                 + _frame(DATA, END_STREAM, 1, b"\x00\x00\x00\x00\x00"))  # an empty GetClusterIdRequest
    first = True
    while True:
        head = _read_exact(sock, 9, deadline)
        length, kind, flags = int.from_bytes(head[:3], "big"), head[3], head[4]
        stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
        if first and (kind != SETTINGS or stream != 0):  # every HTTP/2 server opens with SETTINGS
            return "connected, but it does not speak gRPC (HTTP/2): the dashboard's port or another service?"
        first = False
        if length > 1 << 20:
            return "connected, but the answer is not a Ray head's"
        payload = _read_exact(sock, length, deadline)
        if kind == SETTINGS and not flags & ACK:
            sock.sendall(_frame(SETTINGS, ACK, 0))
        elif kind == PING and not flags & ACK:
            sock.sendall(_frame(PING, ACK, 0, payload))
        elif kind == DATA and stream == 1 and length >= 5:
            return None  # a GetClusterId reply: a Ray GCS
        elif kind == HEADERS and stream == 1 and flags & END_STREAM:  # an error, no reply
            status = _grpc_status(payload)
            if status == 16:  # UNAUTHENTICATED: a Ray head with token auth
                return TOKEN
            return (f"connected, but the gRPC server there is not a Ray head's GCS (grpc-status {status}; "
                    "the Ray Client port? then use ray://HOST:PORT)")
        elif kind in (RST_STREAM, GOAWAY):
            return "connected, but the server refused the Ray call"
