"""Tiletum's rating pool was called ``multiplayer``; it is ``tiletum:multiplayer`` (issue 38). The
ratings a 3.x service stored under the old name are moved when the service starts
(application/pool_names.py): every rating, games counted, rated game and leaderboard place; twice
is a no-op; two processes at once move each rating once; a rating written meanwhile is kept.

The old data is written here key for key as the 3.x service wrote it (application/rating_service.py's
key table at 3.1), on a real Redis; tests/test_cluster.py runs these tests on a Redis Cluster too,
where the old and the new keys lie in different hash slots."""
from __future__ import annotations

import json
import threading
import uuid

import pytest
import redis

from application.pool_names import MARKER, rename_pools
from application.rating_service import RatingService, pool_key
from conftest import make_app

OLD, NEW = "multiplayer", "tiletum:multiplayer"


@pytest.fixture()
def db(redis_server):
    """A database of these tests' own (the migration reads the whole key space), and its URL; on a
    Redis Cluster (one database) the old pool's keys and the marker are cleared instead."""
    if hasattr(redis_server, "client"):   # tests/test_cluster.py
        client, url = redis_server.client(socket_timeout=10), redis_server.url
        client.delete(MARKER, pool_key(OLD), pool_key(OLD) + ":board", pool_key(OLD) + ":done")
    else:
        url = redis_server.url.rsplit("/", 1)[0] + "/13"
        client = redis.Redis.from_url(url)
        client.flushdb()
    yield client, url
    client.close()


@pytest.fixture()
def r(db):
    return db[0]


def entry(game: str, at: float, before: float, after: float, pool: str = OLD) -> str:
    return json.dumps({"game": game, "pool": pool, "at": at, "before": {"rating": before, "rd": 300.0},
                       "after": {"rating": after, "rd": 280.0}})


def doc(rating: float, games: int) -> str:
    return json.dumps({"rating": rating, "rd": 280.0, "vol": 0.06, "games": games})


def write_old_pool(r, players: int = 12) -> dict[str, tuple[float, int]]:
    """``players`` rated players of the old pool, as 3.x stored them; their (rating, games)."""
    ok = pool_key(OLD)
    out = {}
    for i in range(players):
        p = f"p{i:02d}{uuid.uuid4().hex[:6]}"
        games = 1 + i % 4
        rating = 1400.0 + 17.5 * i
        r.hset(ok, p, doc(rating, games))
        r.zadd(ok + ":board", {p: rating})
        r.rpush(f"{ok}:hist:{p}", *(entry(f"G{i}-{n}", 1000.0 + 10 * n + i, 1500.0, rating)
                                    for n in range(games)))
        out[p] = (rating, games)
    for i in range(players):
        r.hset(ok + ":done", f"G{i}-0", "rated")
    return out


def everything(r) -> dict:
    """Every ratings key with its value (to compare two states)."""
    out = {}
    for k in sorted(r.scan_iter(match="ratings*", count=1000)):
        kind = r.type(k).decode()
        out[k] = (r.hgetall(k) if kind == "hash" else r.zrange(k, 0, -1, withscores=True) if kind == "zset"
                  else r.lrange(k, 0, -1) if kind == "list" else r.get(k))
    return out


def test_the_service_moves_the_old_pool_at_start_with_nothing_lost(r, db):
    before = write_old_pool(r)
    legacy = next(iter(before))   # a history kept before the pools had their own, naming the old pool
    r.rpush(f"ratings:hist:{legacy}", entry("G-early", 10.0, 1500.0, 1490.0))
    order = [m.decode() for m in r.zrevrange(pool_key(OLD) + ":board", 0, -1)]
    assert sorted(order) == sorted(before)

    app = make_app(db[1])   # the service starts: the migration runs
    ratings: RatingService = app.extensions["tablepost.ratings"]

    ok, nk = pool_key(OLD), pool_key(NEW)
    assert not r.exists(ok, ok + ":board", ok + ":done"), "the old keys are gone"
    assert not list(r.scan_iter(match="ratings:{multiplayer}*"))
    board = ratings.leaderboard(OLD, 0, 1000)   # the deprecated name, answered by the pool's
    assert board["pool"] == NEW and board["total"] >= len(before)
    mine = [row for row in board["ratings"] if row["player"] in before]
    assert [row["player"] for row in mine] == order, "the leaderboard keeps its order"
    for row in mine:
        rating, games = before[row["player"]]
        assert (row["rating"], row["games"]) == (round(rating, 1), games)
    for p, (rating, games) in before.items():
        hist = [json.loads(h) for h in r.lrange(f"{nk}:hist:{p}", 0, -1)]
        assert len(hist) == games and {h["pool"] for h in hist} == {NEW}
        theirs = ratings.player(p)
        assert list(theirs["ratings"]) == [NEW] and theirs["ratings"][NEW]["games"] == games
        assert {h["pool"] for h in theirs["history"]} == {NEW}
    assert len(ratings.player(legacy)["history"]) == before[legacy][1] + 1
    assert [json.loads(h)["pool"] for h in r.lrange(f"ratings:hist:{legacy}", 0, -1)] == [NEW]
    assert all(r.hget(nk + ":done", f"G{i}-0") == b"rated" for i in range(len(before)))
    assert r.exists(MARKER)


def test_renaming_twice_is_a_no_op(r):
    before = write_old_pool(r, players=5)
    assert rename_pools(r) == len(before)
    moved = everything(r)
    assert rename_pools(r) == 0
    assert everything(r) == moved


def test_two_processes_at_once_move_each_rating_once(r, db, redis_server):
    before = write_old_pool(r, players=30)
    got: list[int] = []
    errors: list[BaseException] = []

    def run():
        client = (redis_server.client(socket_timeout=10) if hasattr(redis_server, "client")
                  else redis.Redis.from_url(db[1]))
        try:
            got.append(rename_pools(client))
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)
        finally:
            client.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and sorted(got) == [0, len(before)], got
    nk = pool_key(NEW)
    for p, (rating, games) in before.items():
        assert json.loads(r.hget(nk, p)) == json.loads(doc(rating, games))
        assert r.zscore(nk + ":board", p) == rating
        assert r.llen(f"{nk}:hist:{p}") == games


def test_a_rating_written_under_either_name_meanwhile_is_kept(r):
    """A process of the previous release rates a game in the old pool after the move, while the
    new service rated another: the next start merges them, counting every game once."""
    ok, nk = pool_key(OLD), pool_key(NEW)
    p = "p-both"
    r.hset(ok, p, doc(1600.0, 2))
    r.rpush(f"{ok}:hist:{p}", entry("A", 100.0, 1500.0, 1550.0), entry("B", 200.0, 1550.0, 1600.0))
    r.zadd(ok + ":board", {p: 1600.0})
    assert rename_pools(r) == 1
    # the new service rates game C; an old process, not knowing the move, rates game D (later)
    r.hset(nk, p, doc(1620.0, 3))
    r.rpush(f"{nk}:hist:{p}", entry("C", 300.0, 1600.0, 1620.0, pool=NEW))
    r.zadd(nk + ":board", {p: 1620.0})
    r.hset(ok, p, doc(1480.0, 1))
    r.rpush(f"{ok}:hist:{p}", entry("D", 400.0, 1500.0, 1480.0))
    r.zadd(ok + ":board", {p: 1480.0})
    r.hset(ok + ":done", "D", "rated")

    assert rename_pools(r) == 1, "the marker does not hide old keys written after it"
    merged = json.loads(r.hget(nk, p))
    assert merged["games"] == 4 and merged["rating"] == 1480.0, "every game counted; the latest game's rating"
    assert [json.loads(h)["game"] for h in r.lrange(f"{nk}:hist:{p}", 0, -1)] == ["A", "B", "C", "D"]
    assert r.zscore(nk + ":board", p) == 1480.0
    assert r.hget(nk + ":done", "D") == b"rated" and not r.exists(ok, ok + ":board", ok + ":done")


def test_a_run_stopped_half_way_counts_nothing_twice(r):
    """The player was merged into the pool but the old keys were not yet deleted (the process died
    between the two transactions): the next run deletes them and counts nothing twice."""
    ok, nk = pool_key(OLD), pool_key(NEW)
    p = "p-half"
    old_hist = [entry("A", 100.0, 1500.0, 1550.0), entry("B", 200.0, 1550.0, 1600.0)]
    r.hset(ok, p, doc(1600.0, 2))
    r.rpush(f"{ok}:hist:{p}", *old_hist)
    r.zadd(ok + ":board", {p: 1600.0})
    r.hset(nk, p, doc(1630.0, 3))   # carried, then rated once more under the new name
    r.rpush(f"{nk}:hist:{p}", *(json.dumps({**json.loads(h), "pool": NEW}) for h in old_hist),
            entry("C", 300.0, 1600.0, 1630.0, pool=NEW))
    r.zadd(nk + ":board", {p: 1630.0})
    rename_pools(r)
    assert json.loads(r.hget(nk, p))["games"] == 3 and r.llen(f"{nk}:hist:{p}") == 3
    assert not r.exists(ok, f"{ok}:hist:{p}")
