"""The REST API end to end, over real HTTP against a real Redis: whole games played with random
legal moves, the record and the event log replaying to the served position, the seed revealed
and checked at the end, what spectators and seats see, ETags and event paging."""
from __future__ import annotations

import hashlib
import json
import random
import re

import pytest
import requests

import tiletum
from application.store import key
from tiletum.fairness import verify_events
from tiletum.record import replay_record

API = "/api/v1/games"


class Http:
    """A requests session on the live server that keeps every response body it got, so a test
    can search all of them afterwards (for the seed, tokens, e-mail addresses...)."""

    def __init__(self, base: str):
        self.base = base
        self.s = requests.Session()
        self.bodies: list[tuple[str, str]] = []   # (method path, body text)

    def call(self, method: str, path: str, token: str | None = None, keep: bool = True,
             **kw) -> requests.Response:
        headers = dict(kw.pop("headers", {}) or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        r = self.s.request(method, self.base + path, headers=headers, timeout=30, **kw)
        if keep:
            self.bodies.append((f"{method} {path}", r.text))
        return r

    def get(self, path, token=None, **kw):
        return self.call("GET", path, token, **kw)

    def post(self, path, token=None, **kw):
        return self.call("POST", path, token, **kw)

    def ok(self, method, path, token=None, status=200, **kw) -> dict:
        r = self.call(method, path, token, **kw)
        assert r.status_code == status, f"{method} {path}: {r.status_code} {r.text[:500]}"
        return r.json()


@pytest.fixture()
def http(live_server):
    h = Http(live_server.url)
    yield h
    h.s.close()


def expected_view(state: tiletum.GameState, viewer: int | None) -> dict:
    """The position as the API must serve it, built from the engine alone: face-down piles and
    face-down Corruption tokens as counts, plus ``viewer`` and ``to_act``; JSON-normalised."""
    doc = state.to_doc()
    doc["piles"] = {k: len(v) for k, v in doc["piles"].items()}
    doc["corruption_pool"] = len(doc["corruption_pool"])
    doc["viewer"] = viewer
    doc["to_act"] = [] if state.actor is None else [state.actor]
    return json.loads(json.dumps(doc))


def assert_same_position(served: dict, expected: dict, what: str = "") -> None:
    """``served`` is ``expected`` exactly, except that a field the engine leaves empty (None)
    may be absent from the API's document (the engine's document can grow optional fields, such
    as ``solo``, before the API's TiletumPosition schema lists them); any other difference fails."""
    omitted = set(expected) - set(served)
    assert not {k for k in omitted if expected[k] is not None}, f"{what}: the API drops {sorted(omitted)}"
    assert served == {k: v for k, v in expected.items() if k not in omitted}, \
        f"{what}: the served position differs from the engine's"


def hidden_ids(state: tiletum.GameState) -> set[str]:
    """Ids a viewer must never see: the tiles in the face-down piles and the face-down
    Corruption tokens."""
    return {t for pile in state.piles.values() for t in pile} | set(state.corruption_pool)


def create(http: Http, players: int, seed: str | None = None, emails: bool = True) -> dict:
    seats = [{"name": f"Player {i}", "kind": "human"} for i in range(players)]
    if emails:
        for i, s in enumerate(seats):
            s["email"] = f"player{i}.e2e@example.org"
    options = {} if seed is None else {"seed": seed}
    body = http.ok("POST", API, json={"game": "tiletum", "seats": seats, "options": options}, status=201)
    assert body["version"] == 1
    assert [s["seat"] for s in body["seats"]] == list(range(players))
    assert [s["name"] for s in body["seats"]] == [s["name"] for s in seats]
    assert all(s["kind"] == "human" for s in body["seats"])
    tokens = [s["token"] for s in body["seats"]]
    assert len(set(tokens)) == players and all(len(t) >= 20 for t in tokens)
    assert len(body["seed_commitment"]) == 64 and int(body["seed_commitment"], 16) >= 0
    if seed is not None:
        assert body["seed_commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    body["tokens"] = tokens
    body["emails"] = [s.get("email") for s in seats]
    return body


def local_state(http: Http, gid: str) -> tiletum.GameState:
    events = http.ok("GET", f"{API}/{gid}/events")["events"]
    return tiletum.replay(events)


def choose_batch(state: tiletum.GameState, seat: int, rng: random.Random, can_undo: bool) -> list[str]:
    """One to three moves of ``seat`` in a row. Only the last may reveal something (draw or
    roll): a move that reveals nothing goes the same way whatever the seed, so the moves after
    it can be chosen here without knowing the server's seed."""
    if can_undo and rng.random() < 0.05:
        return ["undo"]
    size = rng.choice((1, 1, 1, 2, 3))
    batch: list[str] = []
    s = state
    while True:
        move = rng.choice(tiletum.legal_moves(s))
        batch.append(move)
        if len(batch) == size:
            return batch
        evs, nxt = tiletum.play(s, seat, move, seed="probe: not the game's seed")
        if evs[0].get("chance") or nxt.phase == "over" or nxt.actor != seat:
            return batch
        s = nxt


def check_views(http: Http, gid: str, tokens: list[str], state: tiletum.GameState) -> None:
    """Spectator and every seat see the same board; only ``viewer`` differs; piles are counts;
    no face-down tile or token is named; the ETag is the version; other seats list no moves."""
    expected = expected_view(state, None)
    secret = hidden_ids(state)
    r = http.get(f"{API}/{gid}/state")
    assert r.status_code == 200, r.text
    assert r.headers["ETag"] == f'"v{state.version}"'
    spectator = r.json()
    assert_same_position(spectator, expected, f"game {gid} v{state.version}")
    assert spectator["viewer"] is None
    assert isinstance(spectator["corruption_pool"], int)
    assert spectator["piles"] and all(isinstance(n, int) and not isinstance(n, bool)
                                      for n in spectator["piles"].values())
    assert not {t for t in secret if f'"{t}"' in r.text}, "a face-down tile or token is named in /state"
    for seat, token in enumerate(tokens):
        r = http.get(f"{API}/{gid}/state", token)
        assert r.status_code == 200, r.text
        assert r.headers["ETag"] == f'"v{state.version}"'
        view = r.json()
        assert view["viewer"] == seat
        assert {k: v for k, v in view.items() if k != "viewer"} == \
            {k: v for k, v in spectator.items() if k != "viewer"}, "a seat sees another board than spectators"
        if seat != state.actor:
            lm = http.ok("GET", f"{API}/{gid}/legal-moves", token)
            assert lm == {"seat": seat, "version": state.version, "to_act": expected["to_act"],
                          "actor": state.actor, "moves": [], "can_undo": False}
        else:
            r = http.get(f"{API}/{gid}/legal-moves", token)
            named = {t for t in secret if re.search(rf"\b{t}\b", r.text)}
            assert not named, f"face-down {named} named in /legal-moves"


def check_record_midgame(http: Http, gid: str, state: tiletum.GameState, created: dict) -> None:
    r = http.get(f"{API}/{gid}/record")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
    headers, events, replayed = replay_record(r.text)
    assert "Seed" not in headers and "Result" not in headers, "the seed is in the record before the end"
    assert headers["SeedCommitment"] == created["seed_commitment"] and headers["Id"] == gid
    assert len(events) == state.version
    assert expected_view(replayed, None) == expected_view(state, None), "the record replays elsewhere"
    fair = http.ok("GET", f"{API}/{gid}/fairness")
    assert fair["finished"] is False and fair["seed"] is None and fair["verify"] is None
    assert fair["seed_commitment"] == created["seed_commitment"]


def play_to_end(http: Http, created: dict, rng: random.Random,
                check_every: int = 40) -> tuple[tiletum.GameState, dict]:
    """Plays random legal moves over HTTP until the game is over; checks every answer against a
    position folded locally from the events the API returned. Returns (local state, stats)."""
    gid, tokens = created["id"], created["tokens"]
    state = local_state(http, gid)
    assert state.version == 1
    stats = {"requests": 0, "moves": 0, "batches": 0, "undos": 0}
    while True:
        summary = http.ok("GET", f"{API}/{gid}")
        assert summary["version"] == state.version
        assert summary["round"] == state.round and summary["phase"] == state.phase
        assert [s["score"] for s in summary["seats"]] == [p.score for p in state.seats]
        if summary["status"] == "finished":
            assert state.phase == "over"
            break
        assert summary["status"] == "active" and summary["winner"] is None
        assert summary["to_act"] == [state.actor], f"to_act {summary['to_act']} != actor {state.actor}"
        seat = summary["to_act"][0]
        lm = http.ok("GET", f"{API}/{gid}/legal-moves", tokens[seat])
        assert lm["seat"] == seat and lm["to_act"] == [seat] and lm["actor"] == seat
        assert lm["version"] == state.version
        assert [m["move"] for m in lm["moves"]] == tiletum.legal_moves(state)
        assert all(isinstance(m["description"], str) and m["description"] for m in lm["moves"])
        assert lm["can_undo"] == bool(state.undo_moves)
        if stats["requests"] % check_every == 0:
            check_views(http, gid, tokens, state)
        if stats["requests"] == 60:
            check_record_midgame(http, gid, state, created)
        batch = choose_batch(state, seat, rng, lm["can_undo"])
        answer = http.ok("POST", f"{API}/{gid}/moves", tokens[seat],
                         json={"expected_version": state.version, "moves": batch})
        events = answer["events"]
        assert len(events) == len(batch), f"{batch} gave {len(events)} events"
        assert [e["version"] for e in events] == [state.version + 1 + i for i in range(len(batch))]
        assert answer["version"] == state.version + len(batch)
        for move, ev in zip(batch, events):
            assert ev["seat"] == seat
            if move == "undo":
                assert ev["type"] == "MoveUndone"
                stats["undos"] += 1
            else:
                assert ev["type"] == "MovePlayed" and ev["move"] == str(tiletum.parse(move))
            state = tiletum.evolve(state, ev)
        assert state.version == answer["version"]
        stats["requests"] += 1
        stats["moves"] += len(batch)
        stats["batches"] += len(batch) > 1
        assert stats["requests"] < 3000, "the game does not end"
    return state, stats


@pytest.mark.parametrize("players,seeded", [(2, True), (3, False), (4, True)],
                         ids=["2p-seeded", "3p-secret-seed", "4p-seeded"])
def test_a_whole_game_over_http(http, redis_client, players, seeded):
    rng = random.Random(f"api-e2e-{players}")
    seed = f"e2e-{players}p-seed-5b1f0c2e9a7d4e63" if seeded else None
    created = create(http, players, seed)
    gid = created["id"]
    state, stats = play_to_end(http, created, rng)
    assert stats["batches"] >= 5, stats       # several requests carried 2-3 moves
    assert stats["moves"] > 100, stats
    if seeded:  # the moves chosen depend on the draws, so only a seeded game is sure to have undone one
        assert stats["undos"] >= 1, stats
    # the position served at the end came from a snapshot plus the events after it
    snap = redis_client.get(key(gid, "snap"))
    assert snap is not None and 100 <= int(snap.split(b"\n", 1)[0]) <= state.version

    # --- the end: summary, legal moves, a move after the end ------------------------------
    summary = http.ok("GET", f"{API}/{gid}")
    scores = [p.score for p in state.seats]
    assert summary["status"] == "finished" and summary["phase"] == "over" and summary["to_act"] == []
    assert summary["winner"] == state.winner and summary["winner"] in range(players)
    assert [s["score"] for s in summary["seats"]] == scores
    assert max(scores) == scores[summary["winner"]]
    assert [(s["seat"], s["name"], s["kind"]) for s in summary["seats"]] == \
        [(i, f"Player {i}", "human") for i in range(players)]
    for seat, token in enumerate(created["tokens"]):
        lm = http.ok("GET", f"{API}/{gid}/legal-moves", token)
        assert lm == {"seat": seat, "version": state.version, "to_act": [], "actor": None, "moves": [],
                      "can_undo": False}
    check_views(http, gid, created["tokens"], state)
    r = http.post(f"{API}/{gid}/moves", created["tokens"][0], json={"expected_version": state.version,
                                                                     "moves": ["end"]})
    assert r.status_code == 422 and r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == "game-over" and r.json()["move_index"] == 0

    # --- the event log replays to the served position ---------------------------------------
    served = http.ok("GET", f"{API}/{gid}/state")
    events = http.ok("GET", f"{API}/{gid}/events")["events"]
    assert [e["version"] for e in events] == list(range(1, state.version + 1))
    assert events[0]["type"] == "GameStarted" and events[0]["players"] == players
    from_events = tiletum.replay(events)
    assert expected_view(from_events, None) == expected_view(state, None)
    assert_same_position(served, expected_view(from_events, None), f"game {gid} at the end")
    assert from_events.winner == summary["winner"]

    # --- the seed is revealed and checks out ------------------------------------------------
    before_reveal = list(http.bodies)
    fair = http.ok("GET", f"{API}/{gid}/fairness")
    revealed = fair["seed"]
    assert fair["finished"] is True and isinstance(revealed, str) and revealed
    if seeded:
        assert revealed == seed
    assert hashlib.sha256(revealed.encode()).hexdigest() == fair["seed_commitment"]
    assert fair["seed_commitment"] == created["seed_commitment"]
    assert revealed in fair["verify"] and gid in fair["verify"]
    assert verify_events(events, revealed) == []
    assert verify_events(events, revealed, created["seed_commitment"]) == []
    assert verify_events(events, revealed + "x"), "the seed check cannot fail"

    # --- the record replays, move by move with full checks, to the same position -------------
    r = http.get(f"{API}/{gid}/record")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
    headers, rec_events, rec_state = replay_record(r.text)
    assert headers["Seed"] == revealed and headers["SeedCommitment"] == created["seed_commitment"]
    assert headers["Id"] == gid and headers["Players"] == str(players)
    assert [headers[f"Seat{i}"] for i in range(players)] == [f"Player {i}" for i in range(players)]
    assert headers["Result"] == " ".join(map(str, scores))
    assert len(rec_events) == len(events)
    assert expected_view(rec_state, None) == expected_view(from_events, None)
    assert_same_position(served, expected_view(rec_state, None), f"game {gid}: record")
    assert rec_state.winner == summary["winner"]
    assert verify_events(rec_events, revealed, created["seed_commitment"]) == []

    # --- nothing served before the reveal held the seed, a token (hash) or an e-mail ----------
    after_reveal = [(w, b) for w, b in http.bodies[len(before_reveal):]
                    if not w.endswith(("/fairness", "/record"))]
    secrets = {"seed": revealed}
    for i, token in enumerate(created["tokens"]):
        secrets[f"token hash {i}"] = hashlib.sha256(token.encode()).hexdigest()
        secrets[f"token {i}"] = token
        secrets[f"email {i}"] = created["emails"][i]
    bodies = [(w, b) for w, b in before_reveal + after_reveal if not w == f"POST {API}"]
    assert len(bodies) > 3 * stats["requests"]
    assert {w.split()[1].split("/")[-1] for w, _ in bodies} >= {"state", "events", "legal-moves", "record",
                                                                "fairness", "moves", gid}
    for what, secret in secrets.items():
        leaks = [w for w, b in bodies if secret in b]
        assert not leaks, f"the {what} appears in {leaks[:3]}"


def test_spectator_and_seat_views(http):
    created = create(http, 3, seed="views-seed-1")
    gid, tokens = created["id"], created["tokens"]
    state = local_state(http, gid)
    check_views(http, gid, tokens, state)
    spectator = http.ok("GET", f"{API}/{gid}/state")
    assert spectator["viewer"] is None and spectator["players"] == 3 and spectator["version"] == 1
    assert set(spectator["piles"]) == {"bonus", "character", "contract"}
    assert spectator["piles"] == {k: len(v) for k, v in state.piles.items()}
    assert all(n > 0 for n in spectator["piles"].values())
    assert spectator["corruption_pool"] == len(state.corruption_pool) > 0
    assert "seed" not in json.dumps(spectator).lower()
    # a few moves later the views still agree with the engine
    rng = random.Random(7)
    for _ in range(12):
        seat = state.actor
        batch = choose_batch(state, seat, rng, can_undo=False)
        answer = http.ok("POST", f"{API}/{gid}/moves", tokens[seat],
                         json={"expected_version": state.version, "moves": batch})
        for ev in answer["events"]:
            state = tiletum.evolve(state, ev)
    check_views(http, gid, tokens, state)
    assert not any("views-seed-1" in body for _, body in http.bodies[1:]), "the seed was served"


def test_etag_and_not_modified(http):
    created = create(http, 2, seed="etag-seed")
    gid, tokens = created["id"], created["tokens"]
    r = http.get(f"{API}/{gid}/state")
    assert r.status_code == 200 and r.headers["ETag"] == '"v1"'
    for token in (None, tokens[0], tokens[1]):
        for inm in ('"v1"', 'W/"v1"', '"v7", "v1"'):
            r = http.get(f"{API}/{gid}/state", token, headers={"If-None-Match": inm})
            assert r.status_code == 304, (token, inm, r.status_code)
            assert r.content == b"" and r.headers["ETag"] == '"v1"'
    r = http.get(f"{API}/{gid}/state", headers={"If-None-Match": '"v2"'})
    assert r.status_code == 200 and r.json()["version"] == 1
    # a bad token is refused even with a matching ETag
    r = http.get(f"{API}/{gid}/state", "not-a-token", headers={"If-None-Match": '"v1"'})
    assert r.status_code == 401
    # after a move the old ETag no longer matches
    state = local_state(http, gid)
    move = tiletum.legal_moves(state)[0]
    http.ok("POST", f"{API}/{gid}/moves", tokens[state.actor], json={"expected_version": 1, "moves": [move]})
    r = http.get(f"{API}/{gid}/state", headers={"If-None-Match": '"v1"'})
    assert r.status_code == 200 and r.headers["ETag"] == '"v2"' and r.json()["version"] == 2
    r = http.get(f"{API}/{gid}/state", tokens[1], headers={"If-None-Match": '"v2"'})
    assert r.status_code == 304 and r.headers["ETag"] == '"v2"'


def bare(events: list[dict]) -> list[dict]:
    """Events as stored: without the ``text`` in words that GET /events adds."""
    return [{k: v for k, v in e.items() if k != "text"} for e in events]


def test_events_paging(http):
    created = create(http, 2, seed="paging-seed")
    gid, tokens = created["id"], created["tokens"]
    state = local_state(http, gid)
    rng = random.Random(11)
    seen = http.ok("GET", f"{API}/{gid}/events")["events"]
    assert len(seen) == 1 and seen[0]["version"] == 1 and seen[0]["type"] == "GameStarted"
    while state.version < 25:
        seat = state.actor
        batch = choose_batch(state, seat, rng, can_undo=False)
        answer = http.ok("POST", f"{API}/{gid}/moves", tokens[seat],
                         json={"expected_version": state.version, "moves": batch})
        for ev in answer["events"]:
            state = tiletum.evolve(state, ev)
        # a poller reading what arrived since its last read gets exactly what the move answered
        page = http.ok("GET", f"{API}/{gid}/events", params={"after": seen[-1]["version"]})
        assert page["after"] == seen[-1]["version"]
        # ... plus each event in words (for the game page's history)
        assert all(isinstance(e["text"], str) and e["text"] for e in page["events"])
        assert bare(page["events"]) == answer["events"]
        seen += page["events"]
    n = state.version
    full = http.ok("GET", f"{API}/{gid}/events")
    assert full["after"] == 0 and [e["version"] for e in full["events"]] == list(range(1, n + 1))
    assert full["events"] == seen
    assert http.ok("GET", f"{API}/{gid}/events", params={"after": 0}) == full
    for after in (1, 2, 7, n - 1, n):
        page = http.ok("GET", f"{API}/{gid}/events", params={"after": after})
        assert page["after"] == after
        assert page["events"] == full["events"][after:]
        assert len(page["events"]) == n - after
    assert http.ok("GET", f"{API}/{gid}/events", params={"after": n + 50})["events"] == []
    assert expected_view(tiletum.replay(bare(seen)), None) == expected_view(state, None)
    assert_same_position(http.ok("GET", f"{API}/{gid}/state"), expected_view(state, None))
    # the tail folds onto the position at its start
    base = tiletum.replay(full["events"][:10])
    tail = http.ok("GET", f"{API}/{gid}/events", params={"after": 10})["events"]
    assert expected_view(tiletum.replay(tail, base), None) == expected_view(state, None)


def test_summary_names_the_seat_to_act(http):
    created = create(http, 4, seed="summary-seed")
    gid, tokens = created["id"], created["tokens"]
    state = local_state(http, gid)
    actors = set()
    rng = random.Random(5)
    while len(actors) < 4:
        summary = http.ok("GET", f"{API}/{gid}")
        assert summary["to_act"] == [state.actor] and summary["status"] == "active"
        assert summary["winner"] is None and summary["seed_commitment"] == created["seed_commitment"]
        actors.add(state.actor)
        # only the seat named in to_act has moves
        for seat, token in enumerate(tokens):
            lm = http.ok("GET", f"{API}/{gid}/legal-moves", token)
            assert bool(lm["moves"]) == (seat == state.actor)
        move = rng.choice(tiletum.legal_moves(state))
        answer = http.ok("POST", f"{API}/{gid}/moves", tokens[state.actor],
                         json={"expected_version": state.version, "moves": [move]})
        for ev in answer["events"]:
            state = tiletum.evolve(state, ev)
        assert state.version < 200
    assert actors == {0, 1, 2, 3}
