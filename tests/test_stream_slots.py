"""The stream slots of a process (docs/push.md, "Limits"): a slot comes back however a stream ends
(HEAD, a client gone before the first byte, one that never reads, the response dropped), exactly
once; and one client can hold only its share: so many per client address (the address the rate
limits count, X-Forwarded-For only through trusted proxies) and per seat token."""
from __future__ import annotations

import gc
import socket
import struct
import time
from urllib.parse import urlparse

import pytest
import requests

from application.push import SlotRefused, StreamSlots
from tests.conftest import LiveServer, make_app
from tests.test_push_stream import API, new_game


def slots_of(app) -> StreamSlots:
    return app.extensions["tablepost.stream_slots"]


def wait_free(app, seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while slots_of(app).in_use():
        assert time.monotonic() < deadline, f"{slots_of(app).in_use()} stream slots were never given back"
        time.sleep(0.05)


def raw_request(url: str, path: str, method: str = "GET", headers: str = "") -> socket.socket:
    """A connection that has sent one request and read nothing."""
    u = urlparse(url)
    sock = socket.create_connection((u.hostname, u.port), timeout=10)
    sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: {u.netloc}\r\n{headers}\r\n".encode())
    return sock


def reset(sock: socket.socket) -> None:
    """Close with a TCP reset (no FIN handshake): the client is simply gone."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.fixture()
def served(redis_server):
    app = make_app(redis_server.url, STREAM_LISTENERS=2, STREAM_PER_ADDRESS=0, STREAM_SECONDS=30,
                   STREAM_KEEPALIVE=0.2)
    with LiveServer(app) as live:
        yield live, app, new_game(live.url)


def test_head_requests_give_their_slot_back(served):
    """HEAD gets the stream's headers and no body: the body's generator never starts, so only the
    server's close() of the response frees the slot (before: 2 HEADs took every slot for good)."""
    live, app, game = served
    for _ in range(6):
        r = requests.head(f"{live.url}{API}/{game['id']}/stream", timeout=10)
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/event-stream")
        wait_free(app)
    with requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=10) as r:
        assert r.status_code == 200
    wait_free(app)


def test_a_client_gone_before_the_first_byte_gives_its_slot_back(served):
    live, app, game = served
    for _ in range(4):
        reset(raw_request(live.url, f"{API}/{game['id']}/stream"))
    wait_free(app)
    for _ in range(4):  # HEAD and gone
        reset(raw_request(live.url, f"{API}/{game['id']}/stream", method="HEAD"))
    # the server may take up a reset request only after wait_free looked (on a busy machine): a
    # stream opens once those have given their slots back too, within a few seconds
    deadline = time.monotonic() + 10
    while True:
        wait_free(app)
        with requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=10) as r:
            if r.status_code == 200 or time.monotonic() > deadline:
                break
        time.sleep(0.1)
    assert r.status_code == 200


def test_a_client_that_never_reads_holds_its_slot_only_for_the_stream_lifetime(redis_server):
    app = make_app(redis_server.url, STREAM_LISTENERS=2, STREAM_SECONDS=0.8, STREAM_KEEPALIVE=0.2)
    with LiveServer(app) as live:
        game = new_game(live.url)
        socks = [raw_request(live.url, f"{API}/{game['id']}/stream") for _ in range(2)]
        deadline = time.monotonic() + 5
        while slots_of(app).in_use() < 2:  # both streams started
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert requests.get(f"{live.url}{API}/{game['id']}/stream", timeout=10).status_code == 503
        wait_free(app)
        for s in socks:
            s.close()


def test_a_response_dropped_unserved_gives_its_slot_back(redis_server):
    """A response no server ever sees (an after-request hook failed: the client gets a 500) frees
    its slot once it is dropped."""
    app = make_app(redis_server.url, STREAM_LISTENERS=1, TESTING=False)  # a failure is a 500, not raised here
    app.logger.disabled = True  # a captured log record would keep the failure's traceback (and the response)

    @app.after_request
    def fail(resp):
        if resp.mimetype == "text/event-stream":
            raise RuntimeError("a hook failed")
        return resp
    gid = app.extensions["tablepost.service"].create_game([{"name": "A"}, {"name": "B"}], {},
                                                        game="tiletum")["id"]
    for _ in range(3):
        assert app.test_client().get(f"{API}/{gid}/stream").status_code == 500
        gc.collect()
        assert slots_of(app).in_use() == 0


def test_a_slot_is_given_back_exactly_once():
    slots = StreamSlots(2, {"address": 2})
    a = slots.take(address="x")
    for _ in range(3):
        a.release()
    assert slots.in_use() == 0
    slots.take(address="x")
    slots.take(address="y")
    with pytest.raises(SlotRefused) as e:
        slots.take(address="z")
    assert e.value.reason == "process"


def test_one_address_holds_at_most_its_share(redis_server):
    app = make_app(redis_server.url, STREAM_LISTENERS=10, STREAM_PER_ADDRESS=2, STREAM_SECONDS=30,
                   STREAM_KEEPALIVE=0.2)
    with LiveServer(app) as live:
        game = new_game(live.url)
        url = f"{live.url}{API}/{game['id']}/stream"
        # junk tokens prove no seat: they count against the address too
        held = [requests.get(url, stream=True, timeout=10, headers={"Authorization": f"Bearer junk{i}"})
                for i in range(2)]
        assert [r.status_code for r in held] == [200, 200]
        r = requests.get(url, timeout=10, headers={"Authorization": "Bearer junk9"})
        assert r.status_code == 429 and r.headers["Content-Type"] == "application/problem+json"
        assert r.json()["code"] == "too-many-streams" and int(r.headers["Retry-After"]) > 0
        # X-Forwarded-For from a client (no trusted proxy) is no other address
        r = requests.get(url, timeout=10, headers={"X-Forwarded-For": "198.51.100.7"})
        assert r.status_code == 429
        held.pop().close()
        wait = time.monotonic() + 5
        while True:  # the closed stream's slot is free at its next keep-alive
            with requests.get(url, stream=True, timeout=10) as r:
                if r.status_code == 200:
                    break
            assert time.monotonic() < wait, "the closed stream's slot never came back"
            time.sleep(0.1)
        for r in held:
            r.close()


def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_share(redis_server):
    app = make_app(redis_server.url, STREAM_LISTENERS=10, STREAM_PER_ADDRESS=1, TRUSTED_PROXIES=1,
                   STREAM_SECONDS=30, STREAM_KEEPALIVE=0.2)
    with LiveServer(app) as live:
        game = new_game(live.url)
        url = f"{live.url}{API}/{game['id']}/stream"
        a = requests.get(url, stream=True, timeout=10, headers={"X-Forwarded-For": "198.51.100.7"})
        b = requests.get(url, stream=True, timeout=10, headers={"X-Forwarded-For": "198.51.100.8"})
        assert a.status_code == b.status_code == 200
        again = requests.get(url, timeout=10, headers={"X-Forwarded-For": "198.51.100.7"})
        assert again.status_code == 429 and again.json()["code"] == "too-many-streams"
        a.close()
        b.close()


def test_one_seat_token_holds_at_most_its_share(redis_server):
    app = make_app(redis_server.url, STREAM_LISTENERS=10, STREAM_PER_ADDRESS=0, STREAM_PER_SEAT=1,
                   STREAM_SECONDS=30, STREAM_KEEPALIVE=0.2)
    with LiveServer(app) as live:
        game = new_game(live.url)
        url = f"{live.url}{API}/{game['id']}/stream"

        def seat(i):
            return {"Authorization": f"Bearer {game['tokens'][i]}"}
        first = requests.get(url, stream=True, timeout=10, headers=seat(0))
        assert first.status_code == 200
        r = requests.get(url, timeout=10, headers=seat(0))
        assert r.status_code == 429 and r.json()["code"] == "too-many-streams" and r.headers["Retry-After"]
        others = [requests.get(url, stream=True, timeout=10, headers=seat(1)),
                  requests.get(url, stream=True, timeout=10)]
        assert [o.status_code for o in others] == [200, 200], \
            "another seat, and anonymous streams, have shares of their own"
        for o in [first, *others]:
            o.close()


def test_the_process_cap_still_holds(redis_server):
    app = make_app(redis_server.url, STREAM_LISTENERS=1, STREAM_SECONDS=30, STREAM_KEEPALIVE=0.2)
    with LiveServer(app) as live:
        game = new_game(live.url)
        url = f"{live.url}{API}/{game['id']}/stream"
        with requests.get(url, stream=True, timeout=10) as a:
            assert a.status_code == 200
            r = requests.get(url, timeout=10, headers={"X-Forwarded-For": "198.51.100.9"})
            assert r.status_code == 503 and r.json()["code"] == "too-many-listeners"
