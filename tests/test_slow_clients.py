"""The API under real gunicorn, configured as the Docker image and `tablepost serve` run it
(api/gunicorn_conf.py), with 4 threads and a client timeout of 0.5 s: clients that stall in the
middle of their request (a body cut short, headers never finished) cannot stall the service;
a stream's slot comes back after HEAD; and the access log never holds a secret from a URL."""
from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from api.redis_server import free_port

ROOT = Path(__file__).resolve().parents[1]
THREADS = 4
SECRETS = ("tok-SECRET-1", "key-SECRET-2", "sig-SECRET-3", "ref-SECRET-4", "auth-SECRET-5")


@pytest.fixture(scope="module")
def gunicorn(redis_server, tmp_path_factory):
    port = free_port()
    log_path = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    env = dict(os.environ, REDIS_URL=redis_server.url, TABLEPOST_RATE_LIMIT="0",
               TABLEPOST_CLIENT_TIMEOUT="0.5",
               TABLEPOST_STREAM_LISTENERS="1", TABLEPOST_STREAM_KEEPALIVE="0.5", PYTHONUNBUFFERED="1")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "python:api.gunicorn_conf",
                                 "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", str(THREADS),
                                 "api:create_app()"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(url + "/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()[-3000:]
            time.sleep(0.2)
        yield url, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=15)


def new_game(url: str) -> str:
    r = requests.post(url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_clients_that_stall_mid_request_do_not_stall_the_service(gunicorn):
    url, log_path = gunicorn
    gid = new_game(url)
    body = b'{"seats": [{"name": "A"}, {"name": "B"}], "options": {}, "game": "tiletum"}'.ljust(100)
    slow_bodies, slow_headers = [], []
    for _ in range(THREADS + 2):  # more than the threads: each sends 10 of its 100 body bytes
        s = connect(url)
        s.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n" + body[:10])
        slow_bodies.append(s)
    for _ in range(2):  # and some that never finish their headers
        s = connect(url)
        s.sendall(b"GET /api/v1/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        slow_headers.append(s)
    t0 = time.monotonic()
    r = requests.get(f"{url}/api/v1/games/{gid}", timeout=10)
    took = time.monotonic() - t0
    assert r.status_code == 200 and r.json()["id"] == gid
    assert took < 8, f"an ordinary request waited {took:.1f} s behind the stalled clients"
    for s in slow_bodies:  # each was told, and nothing was created
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
        head, _, payload = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 ") and b"application/problem+json" in head, answer
        assert b'"code": "request-timeout"' in payload or b'"code":"request-timeout"' in payload
        s.close()
    for s in slow_headers:  # closed: the thread did not wait for the rest
        assert s.recv(4096) == b""
        s.close()
    log = log_path.read_text()
    assert "the client stalled for 0.5 s" in log and "Traceback" not in log, log[-3000:]


def test_head_on_a_stream_gives_its_slot_back(gunicorn):
    """gunicorn never iterates the body of a HEAD answer: the slot still comes back (1 slot here).
    It comes back when the server closes the response, which may be just after the client has the
    answer: a stream asked for at once may be refused for that moment (503), never for long."""
    url, _ = gunicorn
    gid = new_game(url)
    for _ in range(3):
        assert requests.head(f"{url}/api/v1/games/{gid}/stream", timeout=10).status_code == 200
    deadline = time.monotonic() + 10
    while True:
        with requests.get(f"{url}/api/v1/games/{gid}/stream", stream=True, timeout=10) as r:
            if r.status_code == 200 or time.monotonic() > deadline:
                assert r.status_code == 200, "the HEAD requests kept the only slot"
                break
        time.sleep(0.2)


def test_the_access_log_never_holds_a_secret(gunicorn):
    url, log_path = gunicorn
    gid = new_game(url)
    requests.get(f"{url}/api/v1/games/{gid}/events?token={SECRETS[0]}", timeout=10)
    requests.get(f"{url}/api/v1/games/{gid}/events?after=0&dashboard%5Fkey={SECRETS[1]}", timeout=10)
    requests.get(f"{url}/api/v1/email/move?g={gid}&sig={SECRETS[2]}", timeout=10,
                 headers={"Referer": f"{url}/me?key={SECRETS[3]}", "Authorization": f"Bearer {SECRETS[4]}"})
    requests.get(f"{url}/api/v1/games/{gid}/events?after=1", timeout=10)
    deadline = time.monotonic() + 10
    while "/events?after=1 " not in log_path.read_text():
        assert time.monotonic() < deadline, "the access log has no line for the last request"
        time.sleep(0.1)
    text = log_path.read_text()
    assert not [s for s in SECRETS if s in text], text[-2000:]
    assert f'"GET /api/v1/games/{gid}/events?[redacted] HTTP/1.1" ' in text
    assert '"GET /api/v1/email/move?[redacted] HTTP/1.1" ' in text


class Stalled(io.RawIOBase):
    """A request body whose read times out, as a socket with the worker's timeout does."""

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:  # the test client rewinds the body before the app reads it
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return 0

    def readinto(self, b) -> int:
        raise TimeoutError("timed out")


@pytest.mark.parametrize("environ", [{"CONTENT_LENGTH": "100"},
                                     {"CONTENT_LENGTH": "", "HTTP_TRANSFER_ENCODING": "chunked"}],
                         ids=["content-length", "chunked"])
def test_a_body_read_that_times_out_is_a_408_problem(client, environ):
    r = client.post("/api/v1/games", input_stream=Stalled(), content_type="application/json",
                    environ_overrides=environ)
    assert r.status_code == 408 and r.mimetype == "application/problem+json", r.data
    assert r.get_json()["code"] == "request-timeout"


def test_a_body_cut_short_without_a_timeout_stays_a_400(client):
    r = client.post("/api/v1/games", input_stream=io.BytesIO(b'{"seats": '), content_type="application/json",
                    environ_overrides={"CONTENT_LENGTH": "100"})
    assert r.status_code == 400 and r.get_json()["code"] != "request-timeout"
