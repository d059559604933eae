"""GET /api/v1/games/{id}/stream over real HTTP (docs/push.md): every appended event arrives once,
in order, with id = version; Last-Event-ID resumes exactly; keep-alive comments on a quiet
stream; the bounded lifetime and the per-process cap; nothing hidden ever appears; and the same
through `tablepost serve` (gunicorn)."""
from __future__ import annotations

import json
import random
import threading
import time

import pytest
import requests

from tests.conftest import LiveServer, make_app

API = "/api/v1/games"
SEED = "push-stream-seed-7f3a"


def read_sse(resp, stop=lambda msgs: False):
    """Parse an SSE response into messages ({"id", "event", "data", "comment"}), until the server
    ends it or ``stop(messages)`` says so."""
    msgs, cur = [], {}
    for raw in resp.iter_lines(decode_unicode=True):
        line = raw if raw is not None else ""
        if line == "":
            if cur:
                msgs.append(cur)
                cur = {}
                if stop(msgs):
                    break
            continue
        if line.startswith(":"):
            msgs.append({"comment": line[1:].strip()})
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            cur["data"] = json.loads(value)
        else:
            cur[field] = value
    return msgs


def new_game(base: str, seats: int = 2) -> dict:
    r = requests.post(base + API, json={"game": "tiletum", "seats": [{"name": f"P{i}"} for i in range(seats)],
                                        "options": {"seed": SEED}}, timeout=10)
    assert r.status_code == 201, r.text
    body = r.json()
    return {"id": body["id"], "tokens": [s["token"] for s in body["seats"]]}


def play_moves(base: str, game: dict, n: int, rng: random.Random) -> int:
    """Play ``n`` random legal moves, one request each; the version after them."""
    version = 0
    for _ in range(n):
        s = requests.get(f"{base}{API}/{game['id']}", timeout=10).json()
        if s["status"] == "finished":
            break
        seat = s["to_act"][0]
        lm = requests.get(f"{base}{API}/{game['id']}/legal-moves", timeout=10,
                          headers={"Authorization": f"Bearer {game['tokens'][seat]}"}).json()
        r = requests.post(f"{base}{API}/{game['id']}/moves", timeout=10,
                          headers={"Authorization": f"Bearer {game['tokens'][seat]}"},
                          json={"expected_version": lm["version"],
                                "moves": [rng.choice(lm["moves"])["move"]]})
        assert r.status_code == 200, r.text
        version = r.json()["version"]
    return version


def events_of(msgs):
    return [m for m in msgs if "id" in m and "data" in m]


@pytest.fixture()
def server(redis_server):
    app = make_app(redis_server.url, STREAM_SECONDS=20, STREAM_KEEPALIVE=0.5, STREAM_LISTENERS=3)
    with LiveServer(app) as s:
        yield s, app


def test_events_arrive_live_in_order_and_resume_by_last_event_id(server):
    live, app = server
    game = new_game(live.url)
    got: list = []
    up = threading.Event()

    def listen():
        with requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=30) as r:
            assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/event-stream")
            up.set()
            got.extend(read_sse(r, stop=lambda m: sum(1 for x in m if "id" in x) >= 13))
    t = threading.Thread(target=listen)
    t.start()
    assert up.wait(10)
    version = play_moves(live.url, game, 12, random.Random(5))
    t.join(30)
    assert not t.is_alive(), "the listener did not get every event"
    evs = events_of(got)
    served = requests.get(f"{live.url}{API}/{game['id']}/events", timeout=10).json()["events"]
    assert [e["data"] for e in evs] == served[:len(evs)], "the stream differs from the public event log"
    assert [int(e["id"]) for e in evs] == list(range(1, 14)) and version >= 13
    assert got[0] == {"retry": "2000"}
    turns = [m["data"] for m in got if m.get("event") == "turn"]
    # the stream opens with the game as it stands: before the first move, or (on a loaded machine,
    # the headers out before the first message) just after it; never behind what it then streams
    first_turn = next(i for i, m in enumerate(got) if m.get("event") == "turn")
    before = len(events_of(got[:first_turn]))
    assert turns[0]["version"] == max(1, before) and turns[0]["status"] == "active", (turns[0], before)
    assert len(turns[0]["to_act"]) == 1

    # resume: Last-Event-ID 7 gives exactly the events 8.. (and takes precedence over ?after=)
    with requests.get(f"{live.url}{API}/{game['id']}/stream?after=2", stream=True, timeout=30,
                      headers={"Last-Event-ID": "7"}) as r:
        again = read_sse(r, stop=lambda m: any(x.get("event") == "turn" for x in m))
    assert [int(e["id"]) for e in events_of(again)] == list(range(8, version + 1))
    assert [e["data"] for e in events_of(again)] == served[7:version]
    turn = [m["data"] for m in again if m.get("event") == "turn"][0]
    assert turn["version"] == version and turn["status"] == "active"
    with requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=30,
                      headers={"Last-Event-ID": "seven"}) as r:
        assert r.status_code == 422 and r.json()["code"] == "invalid-request"
    r = requests.get(f"{live.url}{API}/nosuchgame/stream", timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"


def test_quiet_stream_keeps_alive_ends_after_its_lifetime_and_listeners_are_capped(redis_server):
    app = make_app(redis_server.url, STREAM_SECONDS=1.6, STREAM_KEEPALIVE=0.4, STREAM_LISTENERS=2)
    with LiveServer(app) as live:
        game = new_game(live.url)
        t0 = time.monotonic()
        with requests.get(f"{live.url}{API}/{game['id']}/stream?after=1", stream=True, timeout=30) as r:
            msgs = read_sse(r)
        took = time.monotonic() - t0
        assert 1.5 <= took < 6, f"the stream lasted {took:.1f} s, not its 1.6 s lifetime"
        assert sum(1 for m in msgs if m.get("comment") == "keep-alive") >= 2
        assert not events_of(msgs)
        # two listeners hold both slots; a third is told to come back later, then gets in
        a = requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=30)
        b = requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=30)
        assert a.status_code == b.status_code == 200
        c = requests.get(f"{live.url}{API}/{game['id']}/stream", timeout=30)
        assert c.status_code == 503 and c.json()["code"] == "too-many-listeners" and c.headers["Retry-After"]
        a.close()
        b.close()
        deadline = time.monotonic() + 10
        while True:  # a closed client's slot is free at the next keep-alive write at the latest
            with requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=30) as d:
                if d.status_code == 200:
                    break
            assert time.monotonic() < deadline, "the slots of closed streams were never freed"
            time.sleep(0.3)


def test_no_hidden_information_in_the_stream(server):
    """The stream carries no face-down tile or token (the pile order, the bag) and no seed."""
    live, app = server
    game = new_game(live.url, seats=3)
    version = play_moves(live.url, game, 25, random.Random(11))
    with requests.get(f"{live.url}{API}/{game['id']}/stream", stream=True, timeout=30) as r:
        chunks = []
        for chunk in r.iter_content(chunk_size=None, decode_unicode=True):
            chunks.append(chunk)
            if '"status"' in chunk and "event: turn" in "".join(chunks):
                break
    text = "".join(chunks)
    assert f"id: {version}\n" in text
    _, state = app.extensions["tablepost.service"].load(game["id"])
    # a face-down tile never revealed so far (a character can go back into its pile once seen)
    log = requests.get(f"{live.url}{API}/{game['id']}/events", timeout=10).text
    face_down = {t for pile in state.piles.values() for t in pile} | set(state.corruption_pool)
    secret = {t for t in face_down if f'"{t}"' not in log}
    assert len(secret) > 10, "nothing is face down: the test checks nothing"
    assert not {t for t in secret if f'"{t}"' in text}, "a face-down tile or token is in the stream"
    assert SEED not in text and "seed\"" not in text


def test_stream_through_tiletum_serve(tmp_path):
    """Under gunicorn (gthread): a listener gets a move live, while ordinary requests still go."""
    from tests.servers import Serve
    with Serve(tmp_path, "--workers", "1", "--threads", "10", "--no-workers", "--allow-seeded-games",
               env={"TABLEPOST_RATE_LIMIT": "0", "TABLEPOST_STREAM_KEEPALIVE": "1"}) as srv:
        game = new_game(srv.url)
        got: list = []
        listeners = [
            requests.get(f"{srv.url}{API}/{game['id']}/stream", stream=True, timeout=30) for _ in range(2)]
        assert all(r.status_code == 200 for r in listeners)
        # 10 threads - 8 for requests = 2 streams; the third gets 503 and the API still answers
        extra = requests.get(f"{srv.url}{API}/{game['id']}/stream", timeout=10)
        assert extra.status_code == 503, extra.text
        play_moves(srv.url, game, 1, random.Random(3))
        for r in listeners:
            got.append(events_of(read_sse(r, stop=lambda m: sum(1 for x in m if "id" in x) >= 2)))
            r.close()
        assert [[int(e["id"]) for e in evs] for evs in got] == [[1, 2], [1, 2]]
        assert got[0][1]["data"]["type"] == "MovePlayed"


def test_listeners_that_wake_together_read_the_game_once(redis_server):
    """The fan-out: many streams of one game at one version share one read of the new events."""
    app = make_app(redis_server.url)
    svc, feed = app.extensions["tablepost.service"], app.extensions["tablepost.feed"]
    gid = svc.create_game([{"name": "A"}, {"name": "B"}], {}, game="tiletum")["id"]
    calls = []
    real = svc.events

    def counted(game_id, after=0):
        calls.append(after)
        time.sleep(0.05)  # a slow read: the others arrive while it runs
        return real(game_id, after)
    svc.events = counted
    out = []
    threads = [threading.Thread(target=lambda: out.append(feed.batch(gid, 0))) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(out) == 20 and all(o == out[0] for o in out) and [e["version"] for e in out[0][0]] == [1]
    assert calls == [0], f"{len(calls)} reads for 20 listeners"
    # a new version is a new read (nothing stale is served)
    _, s = svc.load(gid)
    seat = s.actor
    svc.submit_for_seat(gid, seat, 1, [sorted(engine_legal(s))[0]])
    evs, turn, more = feed.batch(gid, 0)
    assert [e["version"] for e in evs] == [1, 2] and turn["version"] == 2 and not more and calls == [0, 0]


def test_a_move_between_the_events_read_and_the_turn_read_is_told_before_the_turn(redis_server):
    """The turn a stream tells is never ahead of the events it told before it: a move that lands
    between the batch's read of the events and its read of the game makes it read the events again."""
    app = make_app(redis_server.url)
    svc, feed = app.extensions["tablepost.service"], app.extensions["tablepost.feed"]
    gid = svc.create_game([{"name": "A"}, {"name": "B"}], {}, game="tiletum")["id"]
    real = svc.summary
    moved = []

    def move_first(game_id):
        if not moved:   # the other seat's move lands just after the events were read
            _, s = svc.load(game_id)
            svc.submit_for_seat(game_id, s.actor, 1, [sorted(engine_legal(s))[0]])
            moved.append(True)
        return real(game_id)
    svc.summary = move_first
    evs, turn, more = feed.batch(gid, 0)
    assert moved and turn["version"] == 2 and not more
    assert [e["version"] for e in evs] == [1, 2], "the turn is ahead of the events told before it"


def engine_legal(state):
    import tiletum
    return [str(m) for m in tiletum.legal(state) if str(m) != "undo"]
