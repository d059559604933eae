"""What a seat may append, and what reading a long event log costs (issue 27): (move, undo) pairs are
bounded per request and per turn, a request holds at most 100 moves; `GET /events` answers a page at
a time from each event's stored text (no fold of the log from its start), says where the next page
starts (`next_after`, `more`, a `Link` header), and so do the event stream and webhook deliveries;
`Last-Event-ID` takes the range `after` takes."""
from __future__ import annotations

import json
import random

import pytest

import tiletum
import games
from application.game_service import MAX_MOVES_PER_REQUEST, MAX_UNDOS_PER_REQUEST, MAX_UNDOS_PER_TURN
from application.push import EventFeed
from application.store import key
from application.webhooks import Webhooks
from tests.conftest import make_app
from tests.test_webhooks import Receiver, subscribe

API = "/api/v1/games"
SEED = "event-log-bounds"


@pytest.fixture()
def app(redis_server):
    # receivers on 127.0.0.1
    return make_app(redis_server.url, STREAM_SECONDS=0.2, WEBHOOK_ALLOW_LOOPBACK=True)


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture()
def svc(app):
    return app.extensions["tablepost.service"]


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def new_game(client, seed=SEED) -> dict:
    rv = client.post(API, json={"seats": [{"name": "Ann"}, {"name": "Ben"}], "options": {"seed": seed}})
    assert rv.status_code == 201, rv.get_json()
    return rv.get_json()


def undoable(state, seed=SEED) -> str:
    """A move of the seat to act that can be taken back (it reveals nothing and ends nothing)."""
    for m in sorted(str(m) for m in tiletum.legal(state)):
        if m not in ("undo", "end") and tiletum.play(state, state.actor, m, seed=seed)[1].undo_moves:
            return m
    raise AssertionError("no undoable move here")


def play_random(svc, gid: str, n: int, rng: random.Random) -> int:
    """``n`` random legal moves (no undo) through the move path; the version after them."""
    for _ in range(n):
        _, state = svc.load(gid)
        if state.phase == "over":
            break
        moves = sorted(str(m) for m in tiletum.legal(state) if str(m) != "undo")
        svc.submit_for_seat(gid, state.actor, state.version, [rng.choice(moves)])
    return svc.store.version(gid)


def to_action_turn(svc, gid: str, rng: random.Random):
    """Play random moves until the seat to act can take a move back; that state."""
    for _ in range(200):
        _, state = svc.load(gid)
        try:
            undoable(state)
            return state
        except AssertionError:
            play_random(svc, gid, 1, rng)
    raise AssertionError("no turn with an undoable move")


# --- what a seat may append ------------------------------------------------------------------------

def test_undo_pairs_are_bounded_per_request_and_per_turn(client, svc):
    g = new_game(client)
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    state = to_action_turn(svc, gid, random.Random(1))
    seat, m, v = state.actor, undoable(state), state.version
    post = lambda version, moves: client.post(f"{API}/{gid}/moves", headers=bearer(tokens[seat]),  # noqa: E731
                                              json={"expected_version": version, "moves": moves})
    before = client.get(f"{API}/{gid}/events").get_json()
    rv = post(v, [m, "undo"] * (MAX_UNDOS_PER_REQUEST + 1))
    assert rv.status_code == 422 and rv.get_json()["code"] == "too-many-undos", rv.get_json()
    assert rv.get_json()["move_index"] == 2 * MAX_UNDOS_PER_REQUEST + 1
    assert rv.headers["Content-Type"] == "application/problem+json"
    assert client.get(f"{API}/{gid}/events").get_json() == before, "a refused request changed the log"
    # up to the bound per request, request after request, up to the bound per turn
    for _ in range(MAX_UNDOS_PER_TURN // MAX_UNDOS_PER_REQUEST):
        rv = post(v, [m, "undo"] * MAX_UNDOS_PER_REQUEST)
        assert rv.status_code == 200, rv.get_json()
        v = rv.get_json()["version"]
    rv = post(v, [m, "undo"])
    assert rv.status_code == 422 and rv.get_json()["code"] == "too-many-undos", rv.get_json()
    assert rv.get_json()["move_index"] == 1 and svc.store.version(gid) == v
    # the move itself is still the seat's to play, and its next turn has the whole budget again
    rv = post(v, [m])
    assert rv.status_code == 200, rv.get_json()
    rng = random.Random(2)
    for _ in range(400):
        play_random(svc, gid, 1, rng)
        _, state = svc.load(gid)
        if state.actor == seat and state.undo_moves == [] and state.phase == "action":
            try:
                m2 = undoable(state)
                break
            except AssertionError:
                continue
    else:
        pytest.skip("the seat had no other turn with an undoable move")
    rv = post(state.version, [m2, "undo"] * MAX_UNDOS_PER_REQUEST)
    assert rv.status_code == 200, rv.get_json()


def test_a_request_holds_at_most_100_moves(client, svc):
    g = new_game(client)
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    state = to_action_turn(svc, gid, random.Random(3))
    m = undoable(state)
    moves = [m, "undo"] * (MAX_MOVES_PER_REQUEST // 2) + [m]
    assert MAX_MOVES_PER_REQUEST == 100 and len(moves) == 101
    rv = client.post(f"{API}/{gid}/moves", headers=bearer(tokens[state.actor]),
                     json={"expected_version": state.version, "moves": moves})
    assert rv.status_code == 422 and rv.get_json()["code"] == "too-many-moves", rv.get_json()
    assert svc.store.version(gid) == state.version


# --- reading the log -------------------------------------------------------------------------------

def test_events_come_in_pages_and_say_where_the_next_starts(client, svc):
    g = new_game(client)
    gid = g["id"]
    state = to_action_turn(svc, gid, random.Random(4))
    svc.submit_for_seat(gid, state.actor, state.version, [undoable(state), "undo"])  # an undo's text too
    version = play_random(svc, gid, 25, random.Random(5))
    whole = client.get(f"{API}/{gid}/events?limit=1000").get_json()
    assert [e["version"] for e in whole["events"]] == list(range(1, version + 1))
    assert (whole["next_after"], whole["more"]) == (version, False)
    got, after, pages = [], 0, 0
    while True:
        rv = client.get(f"{API}/{gid}/events?after={after}&limit=7")
        body = rv.get_json()
        pages += 1
        assert rv.status_code == 200 and len(body["events"]) <= 7 and body["after"] == after
        got += body["events"]
        if not body["more"]:
            assert "Link" not in rv.headers and body["next_after"] == version
            break
        assert body["next_after"] == after + 7
        assert rv.headers["Link"] == f'</api/v1/games/{gid}/events?after={after + 7}&limit=7>; rel="next"'
        after = body["next_after"]
    assert got == whole["events"] and pages == -(-version // 7)
    # the default page and the bounds of `limit`
    assert len(client.get(f"{API}/{gid}/events").get_json()["events"]) == min(version, 500)
    for bad in ("0", "1001", "-1", "1e3"):
        rv = client.get(f"{API}/{gid}/events?limit={bad}")
        assert rv.status_code == 422 and rv.get_json()["code"] == "invalid-request", bad


def test_texts_are_stored_with_the_events_and_read_without_a_fold(client, svc, redis_client, monkeypatch):
    g = new_game(client)
    gid = g["id"]
    state = to_action_turn(svc, gid, random.Random(6))
    svc.submit_for_seat(gid, state.actor, state.version, [undoable(state), "undo"])
    version = play_random(svc, gid, 30, random.Random(7))
    events = svc.store.events(gid)
    # stored in the third person with a marker for each seat, the names put in when served
    folded = games.TILETUM.event_texts(events, names=["{seat0}", "{seat1}"])
    stored = [f[b"t"].decode() for _, f in redis_client.xrange(key(gid, "events"))]
    assert stored == folded and any(t.endswith(" took back their last move") for t in stored)
    folded = games.TILETUM.event_texts(events, names=["Ann", "Ben"])
    assert not any("{seat" in t for t in folded) and any(t.startswith(("Ann ", "Ben ")) for t in folded)

    def no_fold(*a, **k):
        raise AssertionError("the log was folded to say its events")
    monkeypatch.setattr(games.TILETUM, "event_texts", no_fold)
    body = client.get(f"{API}/{gid}/events?after={version - 3}").get_json()
    assert [e["text"] for e in body["events"]] == folded[-3:]


def test_a_log_saved_without_texts_is_said_from_the_latest_snapshot(client, svc, redis_client, monkeypatch):
    """Games saved before texts were stored: their texts are made from the latest snapshot at or
    before `after` plus the events between, not from the game's start."""
    gid = new_game(client, seed="legacy-texts")["id"]
    _, state = svc.load(gid)
    rng, snap = random.Random(8), None
    while state.version < 60 and state.phase != "over":
        moves = sorted(str(m) for m in tiletum.legal(state) if str(m) != "undo")
        evs, state = tiletum.play(state, state.actor, rng.choice(moves), seed="legacy-texts")
        svc.store.append(gid, state.version - len(evs), evs)  # as the service stored them before: no text
        if snap is None and state.version >= 30 and not state.undo_moves:
            snap = state.version
            svc.store.save_snapshot(gid, snap, state.to_doc())
    assert snap is not None
    folded = games.TILETUM.event_texts(svc.store.events(gid), names=["Ann", "Ben"])
    seen = []
    real = games.TILETUM.event_texts

    def spy(events, start=0, state=None, **kw):
        seen.append((len(events), start, state is not None))
        return real(events, start, state, **kw)
    monkeypatch.setattr(games.TILETUM, "event_texts", spy)
    after = snap + 5
    body = client.get(f"{API}/{gid}/events?after={after}").get_json()
    assert [e["text"] for e in body["events"]] == folded[after:]
    assert seen == [(state.version - snap, after - snap, True)], "not folded from the snapshot"
    body = client.get(f"{API}/{gid}/events?after=3&limit=4").get_json()  # before the snapshot: from the start
    assert [e["text"] for e in body["events"]] == folded[3:7]


# --- the stream and webhooks follow the pages ------------------------------------------------------

def test_the_event_stream_sends_a_long_log_page_by_page(svc, redis_client):
    gid = svc.create_game([{"name": "A"}, {"name": "B"}], {"seed": SEED}, game="tiletum")["id"]
    version = play_random(svc, gid, 20, random.Random(9))
    feed = EventFeed(svc, redis_client, page=4)
    text = "".join(feed.frames(gid, 0, lifetime=0, keepalive=0.1))
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert ids == list(range(1, version + 1))
    assert (text.count("event: turn") == 1
            and text.rstrip().endswith('"to_act":[' + str(svc.load(gid)[1].actor) + "]}"))


def test_webhook_deliveries_are_paged(client, svc):
    g = new_game(client)
    gid = g["id"]
    receiver = Receiver()
    try:
        h = subscribe(client, g["seats"][0]["token"], receiver.url + "/all", game=gid).get_json()
        version = play_random(svc, gid, 12, random.Random(10))
        hooks = Webhooks(svc, page=5, allow_loopback=True)
        results = [hooks.deliver(h["id"], gid, version)]
        while results[-1] == "more":
            results.append(hooks.deliver(h["id"], gid, version))
        assert results == ["more"] * ((version - 1) // 5) + ["sent"]
        bodies = [json.loads(x["body"]) for x in receiver.got]
        assert all(len(b["events"]) <= 5 and b["version"] == version for b in bodies)
        assert [b["more"] for b in bodies] == [True] * (len(bodies) - 1) + [False]
        got = [e for b in bodies for e in b["events"]]
        assert got == client.get(f"{API}/{gid}/events").get_json()["events"], "a page lost or repeated events"
        ids = [x["headers"]["X-Tablepost-Delivery"] for x in receiver.got]
        assert ids[-1] == f"{h['id']}:{version}" and len(set(ids)) == len(ids)
        assert hooks.deliver(h["id"], gid, version) == "skipped"
    finally:
        receiver.close()


# --- Last-Event-ID and `after`: one range ----------------------------------------------------------

@pytest.mark.parametrize("value, ok", [(str(2**63 - 1), True), ("0", True), (str(2**63), False),
                                       ("99999999999999999999", False), ("-1", False), ("1e3", False)])
def test_last_event_id_takes_the_range_after_takes(client, value, ok):
    gid = new_game(client)["id"]
    for rv in (client.get(f"{API}/{gid}/stream", headers={"Last-Event-ID": value}),
               client.get(f"{API}/{gid}/events?after={value}")):
        if ok:
            assert rv.status_code == 200, rv.get_data()[:200]
        else:
            assert rv.status_code == 422 and rv.get_json()["code"] == "invalid-request", rv.get_data()[:200]
