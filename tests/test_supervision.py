"""The service watches its own parts (issue 12): `tablepost serve` starts again a worker, the
listener or the seats worker that died (kill -9), and /health reports each part, answering
503 while one is down. Real processes, real Redis, a real SMTP listener."""
from __future__ import annotations

import os
import signal
import time

import pytest
import requests

from api.parts import CACHE_SECONDS
from api.redis_server import free_port
from tests.conftest import make_app
from tests.servers import Serve, wait_for


def children(pid: int) -> dict[int, str]:
    """The child processes of ``pid``: pid -> command line."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    out[int(entry)] = f.read().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
    return out


def child_running(pid: int, needle: str) -> int | None:
    return next((p for p, cmd in children(pid).items() if needle in cmd), None)


def health(url):
    try:
        r = requests.get(url + "/health", timeout=10)
        return r.status_code, r.json()
    except requests.RequestException:
        return None, None


# --- /health ------------------------------------------------------------------------------------

def test_health_is_503_naming_the_part_that_is_down(redis_server, redis_client):
    from aiosmtpd.controller import Controller

    from mail.outbox import SMTP_FAILING
    redis_client.delete(SMTP_FAILING)  # an outage another test left: not this test's subject
    closed = free_port()
    app = make_app(redis_server.url, HEALTH_WORKERS=["nosuchworker"], HEALTH_MAILIN=f"127.0.0.1:{closed}")
    r = app.test_client().get("/health")
    assert r.status_code == 503 and r.json["code"] == "part-down"
    assert r.json["parts"] == {"worker:nosuchworker": "down", "mailin": "down"}

    class Sink:
        async def handle_DATA(self, server, session, envelope):
            return "250 OK"
    port = free_port()
    smtp = Controller(Sink(), hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        app = make_app(redis_server.url, HEALTH_MAILIN=f"127.0.0.1:{port}")
        r = app.test_client().get("/health")
        assert r.status_code == 200 and r.json == {"status": "ok", "redis": "ok", "smtp": "ok",
                                                   "parts": {"mailin": "ok"}}
    finally:
        smtp.stop()


# --- kill -9 under `tablepost serve` --------------------------------------------------------------

@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    s = Serve(tmp_path_factory.mktemp("supervised"), "--workers", "1", "--mailin-port", str(free_port()),
              env={"TABLEPOST_RATE_LIMIT": "0"}, boot_seconds=120).start()
    yield s
    s.stop()


@pytest.mark.parametrize("needle, part, name", [
    ("workers.mailin_main", "mailin", "the inbound SMTP listener"),
    ("seats.worker", "worker:seats", "the seats worker"),
    ("workers.app worker -Q email", "worker:email", "the service worker"),
    ("workers.app worker -Q sweeps", "worker:sweeps", "the sweeps worker"),
    ("workers.app worker -Q hints", "worker:hints", "the hints worker"),
    ("workers.app worker -Q reviews", "worker:reviews", "the reviews worker"),
])
def test_a_killed_part_is_started_again_and_health_says_so(serve, needle, part, name):
    status, body = wait_for(lambda: (lambda h: h if h[0] == 200 else None)(health(serve.url)), 120,
                            "a healthy service")
    assert body["parts"][part] == "ok"
    victim = child_running(serve.proc.pid, needle)
    assert victim, f"no {needle} process under tablepost serve"
    killed_at = time.monotonic()
    os.kill(victim, signal.SIGKILL)
    # it comes back as a new process, and /health is 200 again with the part ok
    new = wait_for(
        lambda: (lambda p: p if p and p != victim else None)(child_running(serve.proc.pid, needle)),
               60, f"{name} to be started again")
    restarted = time.monotonic() - killed_at
    time.sleep(CACHE_SECONDS + 0.5)  # past any answer /health cached before the kill
    wait_for(lambda: (lambda h: h[0] == 200 and h[1]["parts"][part] == "ok")(health(serve.url)), 120,
             f"{part} healthy")
    print(f"{name}: restarted {restarted:.1f} s after kill -9 (pid {victim} -> {new}), "
          f"healthy by {time.monotonic() - killed_at:.1f} s")
    assert f"{name} exited" in serve.output() and "restarting it in" in serve.output()


def test_the_bot_plays_after_its_worker_was_killed(serve):
    wait_for(lambda: health(serve.url)[0] == 200, 120, "a healthy service")
    victim = child_running(serve.proc.pid, "seats.worker")
    os.kill(victim, signal.SIGKILL)
    g = requests.post(serve.url + "/api/v1/games", timeout=10, json={
        "seats": [{"name": "Cardinal", "kind": "cardinalbot"}, {"name": "Ada"}],
        "options": {"solo": {"level": "priest"}}}).json()
    # the turn was due while no bot worker ran: the restarted worker (or the due-turn sweep) plays it
    wait_for(lambda: requests.get(f"{serve.url}/api/v1/games/{g['id']}", timeout=10).json()["to_act"] == [1],
         120, "the Cardinalbot's turn to be played")


def test_a_part_down_is_503(serve):
    """While a part is down (here: stopped, not yet restarted) /health answers 503 naming it."""
    wait_for(lambda: health(serve.url)[0] == 200, 120, "a healthy service")
    victim = child_running(serve.proc.pid, "workers.mailin_main")
    os.kill(victim, signal.SIGSTOP)  # alive but not answering: the supervisor cannot see it
    try:
        status, body = wait_for(lambda: (lambda h: h if h[0] == 503 else None)(health(serve.url)), 30,
                                "a 503")
        assert body["code"] == "part-down" and body["parts"]["mailin"] == "down"
    finally:
        os.kill(victim, signal.SIGCONT)
    wait_for(lambda: health(serve.url)[0] == 200, 60, "health to come back")
