"""The Cardinalbot's API client (retries with backoff on 5xx/429 and connection errors, never on
4xx) and its polling loop (`python -m cardinalbot`) against a real server on loopback."""
from __future__ import annotations

import http.server
import json
import threading

import pytest

from seats.client import ApiClient, ApiError, RateLimited


class Script(http.server.BaseHTTPRequestHandler):
    """Answers each request with the next (status, body, headers) of the server's script."""

    def do_GET(self):
        self.server.hits += 1
        status, body, headers = self.server.script.pop(0) if self.server.script else (200, {"ok": True}, {})
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture()
def scripted():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Script)
    server.script, server.hits = [], 0
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield server
    server.shutdown()


def client_for(server, **kw):
    return ApiClient(f"http://127.0.0.1:{server.server_port}", "t", backoff=0.01, **kw)


def test_retries_5xx_then_succeeds(scripted):
    scripted.script = [(503, {"code": "unavailable"}, {}), (502, {"code": "bad-gateway"}, {}),
                       (200, {"id": "g", "version": 3}, {})]
    assert client_for(scripted).summary("g") == {"id": "g", "version": 3}
    assert scripted.hits == 3


def test_429_raises_at_once_with_retry_after_and_never_sleeps(scripted, monkeypatch):
    import time
    slept = []
    monkeypatch.setattr(time, "sleep", lambda s: slept.append(s))
    scripted.script = [(429, {"code": "rate-limited"}, {"Retry-After": "42"}), (200, {"id": "g"}, {})]
    with pytest.raises(RateLimited) as e:
        client_for(scripted).summary("g")
    assert e.value.status == 429 and e.value.retry_after == 42.0
    assert scripted.hits == 1 and slept == []


def test_never_retries_4xx(scripted):
    scripted.script = [(409, {"code": "version-conflict", "current_version": 7}, {})]
    with pytest.raises(ApiError) as e:
        client_for(scripted).summary("g")
    assert e.value.status == 409 and e.value.code == "version-conflict"
    assert scripted.hits == 1


def test_gives_up_after_the_retries(scripted):
    scripted.script = [(500, {"code": "internal-error"}, {})] * 5
    with pytest.raises(ApiError) as e:
        client_for(scripted, retries=2).summary("g")
    assert e.value.status == 500 and scripted.hits == 3


def test_connection_errors_are_retried_then_raised():
    import requests
    from api.redis_server import free_port
    c = ApiClient(f"http://127.0.0.1:{free_port()}", "t", retries=1, backoff=0.01, timeout=0.5)
    with pytest.raises(requests.ConnectionError):
        c.summary("g")


def test_polling_loop_plays_the_due_turns(redis_server):
    """`python -m cardinalbot --once` (no Celery at all): it lists the due turns with the bot
    credential and plays them through the public API."""
    from cardinalbot.__main__ import main
    from tests.conftest import LiveServer, make_app
    app = make_app(redis_server.url, BOT_TOKEN="poll-bot", SEND_TASK=False)
    with LiveServer(app) as live:
        created = app.test_client().post("/api/v1/games", json={
            "seats": [{"name": "Ada"}, {"name": "Bot", "kind": "cardinalbot"}],
            "options": {"solo": {"level": "priest"}, "seed": "poll"}}).json
        assert app.test_client().get(f"/api/v1/games/{created['id']}").json["to_act"] == [0]
        assert main(["--api", live.url, "--token", "poll-bot", "--once"]) == 0
        summary = app.test_client().get(f"/api/v1/games/{created['id']}").json
        assert summary["to_act"] == [1] and summary["version"] > 1, "the bot played its first turn"
        assert main(["--api", live.url, "--token", "wrong", "--once"]) == 1
