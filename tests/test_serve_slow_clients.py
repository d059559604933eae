"""Slow clients cost nothing, and the server layer answers problem+json (issue 39), against the
server `make run` starts (`tablepost serve`, its gunicorn configuration api/gunicorn_conf.py): 200
connections that trickle their headers or bodies a byte at a time do not delay a plain GET beyond
1 s; a URL too long (414), headers too large (431) and a request line or header gunicorn cannot
read (400) are answered application/problem+json with a stable code, without echoing the request.
The trickling clients are bounded (200 connections, a few seconds, loopback only) and stop by
themselves."""
from __future__ import annotations

import json
import selectors
import socket
import threading
import time

import pytest
import requests

from tests.servers import Serve

CLIENTS = 200
BODY = b'{"seats": [{"name": "A"}, {"name": "B"}]}'.ljust(100)


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    env = {"TABLEPOST_CREATE_LIMIT": "100000/hour", "TABLEPOST_RATE_LIMIT": "100000"}
    with Serve(tmp_path_factory.mktemp("serve"), "--no-workers", env=env) as s:
        yield s


def trickle(port: int, seconds: float, interval: float = 0.5) -> dict:
    """CLIENTS connections (half trickling headers, half bodies, a byte each ``interval``) for
    ``seconds``; one the server closes is opened again at once. Returns counts."""
    def opening(i):
        if i % 2:
            return (b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100\r\n\r\n", BODY)
        return b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\n", b"X-Slow: " + b"a" * 1000 + b"\r\n\r\n"

    def open_(i):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        head, rest = opening(i)
        s.sendall(head)
        s.setblocking(False)
        return [s, rest, i]

    conns = [open_(i) for i in range(CLIENTS)]
    sel = selectors.DefaultSelector()
    for c in conns:
        sel.register(c[0], selectors.EVENT_READ, c)
    counts = {"sent": 0, "reopened": 0}
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            tick = time.monotonic()
            for c in conns:
                if c[1]:
                    try:
                        c[0].send(c[1][:1])
                        c[1] = c[1][1:]
                        counts["sent"] += 1
                    except OSError:
                        pass
            while time.monotonic() - tick < interval:
                for key, _ in sel.select(timeout=0.05):
                    c = key.data
                    try:
                        data = c[0].recv(65536)
                    except OSError:
                        data = b""
                    if not data:
                        sel.unregister(c[0])
                        c[0].close()
                        c[:] = open_(c[2])
                        sel.register(c[0], selectors.EVENT_READ, c)
                        counts["reopened"] += 1
    finally:
        for c in conns:
            c[0].close()
        sel.close()
    return counts


def test_two_hundred_trickling_clients_do_not_delay_a_plain_get(serve):
    gid = requests.post(serve.url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]},
                        timeout=30).json()["id"]
    out: dict = {}
    t = threading.Thread(target=lambda: out.update(trickle(serve.port, seconds=10)), daemon=True)
    t.start()
    time.sleep(2)                    # every connection open and trickling
    times, failures = [], []
    with requests.Session() as s:
        while t.is_alive() and len(times) < 60:
            t0 = time.perf_counter()
            try:
                rv = s.get(f"{serve.url}/api/v1/games/{gid}", timeout=10)
                assert rv.status_code == 200, rv.text
            except requests.RequestException as e:
                failures.append(repr(e))
            times.append(time.perf_counter() - t0)
            time.sleep(0.05)
    t.join(30)
    assert not t.is_alive()
    assert not failures, failures[:3]
    assert len(times) >= 20, times
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    assert p99 < 1.0, f"a plain GET took {p99:.2f} s (p99) behind {CLIENTS} trickling clients"
    assert out["sent"] > CLIENTS * 5, out     # they did trickle all along
    log = serve.output()
    assert "Traceback" not in log, log[log.index("Traceback") - 500:][:3000]
    assert "MonkeyPatchWarning" not in log, log[log.index("MonkeyPatchWarning") - 500:][:3000]


def raw(port: int, request: bytes) -> tuple[str, dict, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        s.sendall(request)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return lines[0], headers, body


GET = b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\n"


@pytest.mark.parametrize("request_bytes, status, code", [
    (b"GET /api/v1/games?q=" + b"a" * 4500 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri-too-long"),
    (GET + b"".join(b"X-H%d: a\r\n" % i for i in range(150)) + b"\r\n", 431, "headers-too-large"),
    (GET + b"X-Big: " + b"a" * 9000 + b"\r\n\r\n", 431, "headers-too-large"),
    (b"NOT A REQUEST LINE AT ALL\r\n\r\n", 400, "bad-request"),
    (b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n", 400, "bad-request"),
], ids=["uri-too-long", "too-many-headers", "header-too-large", "bad-request-line", "bad-header-name"])
def test_the_server_layers_refusals_are_problem_json(serve, request_bytes, status, code):
    line, headers, body = raw(serve.port, request_bytes)
    assert line.startswith(f"HTTP/1.1 {status} "), line
    assert headers["content-type"] == "application/problem+json", headers
    problem = json.loads(body)
    assert (problem["status"], problem["code"]) == (status, code), problem
    assert problem["title"] and problem["detail"] and problem["type"].endswith(code)
    assert b"aaaa" not in body and b"NOT A REQUEST" not in body and b"<html" not in body.lower()
