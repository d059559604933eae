"""The Redis event store: atomic append at the expected version, snapshots, idempotency, AOF."""
from __future__ import annotations

import json
import threading

import pytest

import tiletum
from api.redis_server import EmbeddedRedis
from application.game_service import GameService
from application.store import Conflict, EventStore, key
from tiletum.game import replay
from tiletum.playout import random_game


@pytest.fixture()
def store(redis_client):
    return EventStore(redis_client)


def new_id(prefix="t"):
    import secrets
    return prefix + secrets.token_hex(6)


def test_append_only_at_the_expected_version(store):
    gid = new_id()
    game = random_game(2, "store-1")
    assert store.create(gid, {"seats": []}, "store-1", game.events[0])
    assert not store.create(gid, {"seats": []}, "x", game.events[0]), "an id cannot be created twice"
    assert store.append(gid, 1, game.events[1:4]) == ("ok", 4)
    with pytest.raises(Conflict) as c:
        store.append(gid, 1, game.events[1:2])
    assert c.value.current == 4
    assert store.version(gid) == 4
    assert store.events(gid) == game.events[:4]
    assert store.events(gid, after=2) == game.events[2:4]


def test_racing_appends_exactly_one_wins(store):
    gid = new_id()
    game = random_game(2, "store-race")
    store.create(gid, {"seats": []}, "s", game.events[0])
    results = []

    def writer(i):
        try:
            results.append(store.append(gid, 1, [game.events[1]]))
        except Conflict:
            results.append("conflict")

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(("ok", 2)) == 1 and results.count("conflict") == 15
    assert store.events(gid) == game.events[:2]


def test_snapshot_plus_tail_equals_full_replay(store):
    gid = new_id()
    game = random_game(3, "store-snap")
    store.create(gid, {"seats": []}, "store-snap", game.events[0])
    store.append(gid, 1, game.events[1:])
    full = replay(game.events)
    # snapshot at a point with no undo history, somewhere in the middle
    mid = replay(game.events[:200])
    while mid.undo_moves:
        mid = replay(game.events[:mid.version + 1])
    store.save_snapshot(gid, mid.version, mid.to_doc())
    loaded = store.load(gid)
    assert loaded.snapshot_version == mid.version
    assert len(loaded.tail) == len(game.events) - mid.version
    state = replay(loaded.tail, tiletum.GameState.from_doc(loaded.snapshot, validate=False))
    assert state.to_doc() == full.to_doc() == game.state.to_doc()
    # an older snapshot never replaces a newer one
    assert not store.save_snapshot(gid, 10, replay(game.events[:10]).to_doc())


def test_service_writes_snapshots_and_loads_the_same_game(store):
    svc = GameService(store, snapshot_every=50, allow_seeded_games=True)
    created = svc.create_game([{"name": "A"}, {"name": "B"}], {"seed": "svc-snap"}, game="tiletum")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    state = svc.load(gid)[1]
    n = 0
    import random
    rng = random.Random(1)
    while state.phase != "over" and n < 400:
        m = rng.choice(tiletum.legal_moves(state))
        svc.submit(gid, tokens[state.actor], state.version, [m])
        state = svc.load(gid)[1]
        n += 1
    raw = store.r.get(key(gid, "snap"))
    assert raw is not None and int(raw.split(b"\n")[0]) >= 50
    assert svc.load(gid)[1].to_doc() == replay(store.events(gid)).to_doc()


def test_idempotent_append_returns_the_first_answer(store):
    gid = new_id()
    game = random_game(2, "store-idem")
    store.create(gid, {"seats": []}, "s", game.events[0])
    assert store.append(gid, 1, [game.events[1]], "k1", {"version": 2}) == ("ok", 2)
    assert store.append(gid, 1, [game.events[1]], "k1", {"version": 2}) == ("idem", {"version": 2})
    assert store.version(gid) == 2


def test_games_survive_a_redis_restart(tmp_path):
    data = tmp_path / "redis"
    server = EmbeddedRedis(data).start()
    import redis
    store = EventStore(redis.Redis.from_url(server.url))
    game = random_game(2, "aof")
    gid = new_id()
    store.create(gid, {"seats": [], "x": 1}, "aof", game.events[0])
    for v in range(1, 60):
        store.append(gid, v, [game.events[v]])
    port = server.port
    server.stop()                      # SIGTERM: Redis flushes its AOF
    assert (data / "appendonly.aof").exists()
    server = EmbeddedRedis(data, port=port).start()
    try:
        store = EventStore(redis.Redis.from_url(server.url))
        assert store.events(gid) == game.events[:60]
        assert store.meta(gid) == {"seats": [], "x": 1}
        assert store.seed(gid) == "aof"
    finally:
        server.stop()


def test_recorded_games_replay_to_their_recorded_final_states():
    """Games recorded by earlier rules code keep replaying identically (tests/fixtures/games)."""
    import pathlib
    folder = pathlib.Path(__file__).parent / "fixtures" / "games"
    files = sorted(folder.glob("*.json"))
    assert len(files) >= 3, "the recorded fixtures are missing"
    for f in files:
        doc = json.loads(f.read_text())
        now = replay(doc["events"]).to_doc()
        recorded = doc["final_state"]
        # every recorded field replays identically; fields added to the position since then
        # (e.g. "solo") must hold their empty default for an old game
        assert {k: now.get(k) for k in recorded} == recorded, (f"{f.name} no longer replays to its recorded "
                                                               "state")
        assert all(now[k] is None for k in set(now) - set(recorded)), f"{f.name}: new fields are not empty"
        assert all(e.get("rules") for e in doc["events"]), "every event carries its rules version"
