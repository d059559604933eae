"""Issue 39, "A lobby that scales": the lobby's list is served from one sorted set per filter (game,
players, rated, each or any: application/waiting.py), kept what the waiting records say through
every change (create, join, the last seat and the start, leave, cancel, expiry), put right after a
crash between a record and its index, and paged at and past its end. A sequence test with
Hypothesis over the application service on the project's real Redis."""
from __future__ import annotations

import secrets

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from application import waiting
from application.dashboard import Dashboard, dashboard_key_for, remember_address
from application.errors import ServiceError
from application.game_service import GameService
from application.lobby import Lobby
from application.store import EventStore
from tests.conftest import LiveServer, make_app
from tests.test_api_errors import Http, problem

GAME_KINDS = ("tiletum", "carcassonne")


def addr(who: str) -> str:
    return f"{who}-{secrets.token_hex(5)}@index.test"


@pytest.fixture()
def lobby(redis_client):
    games = GameService(EventStore(redis_client))
    return Lobby(games, Dashboard(games))


def expected(r, ours: dict, game=None, players=None, rated=None) -> list[str]:
    """Our games that a filter lists, newest first, from their records alone."""
    docs = {g: waiting.load(r, g) for g in ours}
    keep = [(d["created"], g) for g, d in docs.items() if waiting.listed(d)
            and (game is None or d["game"] == game) and (players is None or d["players"] == players)
            and (rated is None or d["rated"] == rated)]
    return [g for _, g in sorted(keep, reverse=True)]


FILTERS = [(g, p, r) for g in (*GAME_KINDS, None) for p in (2, 3, None) for r in (True, False, None)]


def check(r, lobby: Lobby, ours: dict) -> None:
    for game, players, rated in FILTERS:   # the listings first: they drop entries left behind
        want = expected(r, ours, game, players, rated)
        listed = lobby.listing(game, players, 0, 100, rated=rated)["games"]
        assert [e["id"] for e in listed if e["id"] in ours] == want, (game, players, rated)
    for game, players, rated in FILTERS:
        want = expected(r, ours, game, players, rated)
        members = {m.decode() for m in r.zrange(waiting.list_key(game, players, rated), 0, -1)}
        assert members & set(ours) == set(want), (game, players, rated)


OPS = st.lists(st.one_of(
    st.tuples(st.just("create"), st.sampled_from(GAME_KINDS), st.sampled_from((2, 3)), st.booleans(),
              st.booleans(), st.booleans()),
    st.tuples(st.just("join"), st.integers(0, 50)),
    st.tuples(st.just("leave"), st.integers(0, 50)),
    st.tuples(st.just("cancel"), st.integers(0, 50)),
    st.tuples(st.just("expire")),
    st.tuples(st.just("crash"), st.integers(0, 50))), min_size=1, max_size=14)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                  HealthCheck.too_slow])
@given(ops=OPS)
def test_the_filter_sets_stay_what_the_records_say_through_any_sequence(redis_client, lobby, ops):
    r = redis_client
    ours: dict[str, dict] = {}   # game id -> its creator token, invitation and the seats joined
    order: list[str] = []
    for op in ops:
        pick = (lambda i: order[i % len(order)]) if order else None
        if op[0] == "create":
            _, game, players, private, rated, short = op
            host = addr("host")
            made = lobby.create([{"name": "Host", "email": host}] + [{"kind": "open"}] * (players - 1),
                                {"private": private, "rated": rated, "waiting_days": 0.001 if short else 7},
                                game=game)
            ours[made["id"]] = {"creator": made["creator_token"],
                                "invite": made["invite_url"].split("invite=")[1], "joined": []}
            order.append(made["id"])
        elif op[0] == "join" and pick:
            gid = pick(op[1])
            who = addr("joiner")
            remember_address(r, who)
            try:
                seated = lobby.request_join(gid, "Joiner", None, ours[gid]["invite"],
                                            key=dashboard_key_for(r, who))
                ours[gid]["joined"].append(seated["seat"])
            except ServiceError as e:
                assert e.code in ("game-full", "game-started", "game-cancelled"), e
        elif op[0] == "leave" and pick:
            gid = pick(op[1])
            if ours[gid]["joined"]:
                try:
                    lobby.remove(gid, ours[gid]["joined"].pop(), ours[gid]["creator"])
                except ServiceError as e:
                    assert e.code in ("game-started", "game-cancelled"), e
        elif op[0] == "cancel" and pick:
            try:
                lobby.cancel_by_creator(pick(op[1]), ours[pick(op[1])]["creator"])
            except ServiceError as e:
                assert e.code == "game-started", e
        elif op[0] == "expire":
            lobby.sweep(lambda *a: None, now=lobby.clock() + 3600)   # the short ones are over
        elif op[0] == "crash" and pick:
            # a crash between a record's change and its index's: the entries are lost (or left)
            gid = pick(op[1])
            doc = waiting.load(r, gid)
            if doc is not None:
                pipe = r.pipeline()
                for k in waiting.list_keys(doc):
                    (pipe.zrem(k, gid) if waiting.listed(doc) else pipe.zadd(k, {gid: doc["created"]}))
                pipe.execute()
                if waiting.listed(doc):   # lost: the sweep's reindex puts it back
                    assert lobby.reindex() >= 1
                # left behind: the listing drops it (check() lists every filter)
        check(r, lobby, ours)


def test_pages_at_and_past_the_end(redis_server, redis_client):
    """Pages of a filter that only this test's games match: the last page says no more, and an offset
    at or past the end answers an empty page at once."""
    with LiveServer(make_app(redis_server.url)) as live:
        h = Http(live.url)
        made = []
        for _ in range(5):   # Pillars for 4 players: no other test of the module posts such a game
            seats = [{"name": "Host", "email": addr("h")}] + [{"kind": "open"}] * 3
            made.append(h.ok("POST", "/api/v1/games", json={"game": "pillars", "seats": seats,
                                                           "options": {"rated": False}}, status=201)["id"])
        q = {"game": "pillars", "players": 4, "rated": "false"}
        every = h.ok("GET", "/api/v1/lobby", params={**q, "limit": 100})
        ids = [g["id"] for g in every["games"]]
        assert ids[:5] == made[::-1] and every["more"] is False and every["next_offset"] is None
        n = len(ids)
        page = h.ok("GET", "/api/v1/lobby", params={**q, "limit": 2, "offset": n - 2})
        assert [g["id"] for g in page["games"]] == ids[-2:] and page["more"] is False
        page = h.ok("GET", "/api/v1/lobby", params={**q, "limit": 2, "offset": n - 3})
        assert page["more"] is True and page["next_offset"] == n - 1
        for offset in (n, n + 1, 1_000_000):
            assert h.ok("GET", "/api/v1/lobby", params={**q, "offset": offset}) == {
                "games": [], "more": False, "next_offset": None}
        rated = h.ok("GET", "/api/v1/lobby",
                     params={"game": "pillars", "rated": "true", "limit": 100})["games"]
        assert not set(made) & {g["id"] for g in rated} and all(g["rated"] for g in rated)
        for bad in ("yes", "1", "True", ""):
            problem(h.get("/api/v1/lobby", params={"rated": bad}), 422, "invalid-request")
        h.s.close()


def test_the_sweep_adopts_the_list_kept_before_the_indexes(redis_client, lobby):
    """A waiting game listed the old way (``lobby:open``, before these indexes) is in the new list
    after the sweep's reindex, and the old list is gone; a second reindex changes nothing."""
    r = redis_client
    made = lobby.create([{"name": "Old", "email": addr("old")}, {"kind": "open"}], {})
    gid = made["id"]
    doc = waiting.load(r, gid)
    pipe = r.pipeline()
    for k in waiting.list_keys(doc):   # as the old code left it: in lobby:open only
        pipe.zrem(k, gid)
    pipe.execute()
    r.zadd(waiting.OPEN.key(gid), {gid: doc["created"]})
    assert gid not in [g["id"] for g in lobby.listing(limit=100)["games"]]
    lobby.sweep(lambda *a: None)
    assert gid in [g["id"] for g in lobby.listing(limit=100)["games"]]
    assert not any(r.exists(k) for k in waiting.OPEN.keys())
    assert lobby.reindex() == 0


def test_the_listing_serves_each_row_as_its_schema_dumps_it_and_follows_every_change(redis_server,
                                                                                   redis_client):
    """The listing's rows are kept per record and joined, not dumped by the schema on each request:
    each page is what the schema makes of the service's entries, and a row follows its game's record
    (a seat taken, a seat freed, the game cancelled) on the next request."""
    from api.schemas.lobby import LobbyList
    app = make_app(redis_server.url)
    with LiveServer(app) as live:
        h = Http(live.url)
        seats = [{"name": "Host", "email": addr("h")}] + [{"kind": "open"}] * 2
        made = h.ok("POST", "/api/v1/games", json={"game": "carcassonne", "seats": seats,
                                                  "options": {"rated": False, "waiting_days": 3}},
                    status=201)
        gid = made["id"]
        q = {"game": "carcassonne", "players": 3, "rated": "false", "limit": 100}

        def row():
            r = h.get("/api/v1/lobby", params=q)
            assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
            page = r.json()
            service = app.extensions["tablepost.lobby"]
            want = LobbyList().dump(service.listing("carcassonne", 3, 0, 100, rated=False))
            assert page == want
            return next((g for g in page["games"] if g["id"] == gid), None)

        assert row()["seats_taken"] == ["Host"] and row()["open_seats"] == 2
        joiner = addr("j")
        remember_address(redis_client, joiner)
        joined = h.ok("POST", f"/api/v1/lobby/{gid}/join", dashboard_key_for(redis_client, joiner),
                      json={"name": "Joiner"})
        assert row()["seats_taken"] == ["Host", "Joiner"] and row()["open_seats"] == 1
        h.ok("DELETE", f"/api/v1/lobby/{gid}/seats/{joined['seat']}", joined["token"])
        assert row()["seats_taken"] == ["Host"]
        h.ok("DELETE", f"/api/v1/lobby/{gid}", made["creator_token"])
        assert row() is None
        h.s.close()
