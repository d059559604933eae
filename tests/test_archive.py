"""Finished games are archived (application/archive.py): every read over HTTP answers the same before
and after, ratings, dashboards and standings still work, appending is refused, the sweep is
idempotent and leaves games within the grace period and games not over alone, and a process killed
while archiving loses nothing. Real Redis, real HTTP."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
import requests

import tiletum
from application import archive
from application.dashboard import dashboard_key_for
from application.finished import done, on_game_over
from application.game_service import GameService
from application.players import player_id
from application.rating_service import RatingService
from application.store import EventStore, GameArchived, key
from application.tournament_service import TournamentService
from tiletum.playout import random_game
from tests.conftest import LiveServer, make_app

DAY = 86400.0
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def play_out(svc: GameService, game_id: str, rng: random.Random) -> None:
    """Random legal moves to the end, each seat submitting for itself."""
    while True:
        _, state = svc.load(game_id)
        if state.phase == "over":
            return
        move = rng.choice(sorted(tiletum.legal(state), key=str))
        svc.submit_for_seat(game_id, state.actor, state.version, [str(move)])


def finished_game(svc: GameService, players: int, seed: str, email_tag: str) -> dict:
    created = svc.create_game(
        [{"name": f"P{i}", "email": f"p{i}-{email_tag}@example.org"} for i in range(players)],
        {"seed": seed}, game="tiletum")
    play_out(svc, created["id"], random.Random(seed))
    on_game_over(svc, created["id"])   # what workers.game_over does: rate it, move its tournament on
    done(svc.store.r, created["id"])   # ... and the follow-up is done: due for archiving
    return created


def reads(base: str, game_id: str, token: str, dash_key: str, pid: str, tid: str | None = None) -> dict:
    """Every read of a game (and of what is built on it) over HTTP: status, type, ETag and body."""
    auth = {"Authorization": f"Bearer {token}"}
    paths = [(f"/api/v1/games/{game_id}", {}), (f"/api/v1/games/{game_id}/state", {}),
             (f"/api/v1/games/{game_id}/state", auth), (f"/api/v1/games/{game_id}/legal-moves", auth),
             (f"/api/v1/games/{game_id}/events", {}), (f"/api/v1/games/{game_id}/events?after=7", {}),
             (f"/api/v1/games/{game_id}/record", {}), (f"/api/v1/games/{game_id}/fairness", {}),
             (f"/api/v1/games/{game_id}/board.svg", {}), (f"/play/{game_id}", {}),
             ("/api/v1/me/games", {"Authorization": f"Bearer {dash_key}"}),
             ("/api/v1/ratings?pool=tiletum:multiplayer", {}), (f"/api/v1/ratings/{pid}", {})]
    if tid:
        paths += [(f"/api/v1/tournaments/{tid}", {}), (f"/api/v1/tournaments/{tid}/standings", {})]
    out = {}
    for path, headers in paths:
        r = requests.get(base + path, headers=headers, timeout=30)
        out[(path, bool(headers))] = (r.status_code, r.headers.get("Content-Type"), r.headers.get("ETag"),
                                      r.text)
    return out


@pytest.fixture()
def world(redis_server, redis_client):
    app = make_app(redis_server.url)
    with LiveServer(app) as server:
        yield app, server, app.extensions["tablepost.service"]


def test_every_read_answers_the_same_after_archiving(world, redis_server, redis_client):
    _, server, svc = world
    tag = f"{time.time_ns()}"
    created = finished_game(svc, 3, f"archive-reads-{tag}", tag)
    gid, token = created["id"], created["seats"][1]["token"]
    email = f"p1-{tag}@example.org"
    dash, pid = dashboard_key_for(redis_client, email), player_id(redis_client, email)
    before = reads(server.url, gid, token, dash, pid)
    assert all(status == 200 for status, *_ in before.values()), {k: v[:2] for k, v in before.items()}
    assert json.loads(before[(f"/api/v1/games/{gid}", False)][3])["status"] == "finished"
    assert json.loads(before[(f"/api/v1/games/{gid}/legal-moves", True)][3])["moves"] == []
    assert json.loads(before[(f"/api/v1/games/{gid}/fairness", False)][3])["seed"]
    assessed = RatingService(svc).assess(gid)
    version = svc.store.version(gid)
    move = requests.post(f"{server.url}/api/v1/games/{gid}/moves",
                         json={"expected_version": version, "moves": ["end"]},
                         headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert move.status_code == 422 and move.json()["code"] == "game-over"
    before_memory = sum(
        redis_client.memory_usage(k, samples=0) for k in redis_client.scan_iter(match=f"g:{{{gid}}}:*"))

    # the sweep leaves the game alone within the grace period, then archives it
    assert archive.archive_game(svc, gid, time.time() - 7 * DAY) == "not-due"
    assert redis_client.exists(key(gid, "events"))
    assert archive.archive_game(svc, gid, time.time() + 8 * DAY - 7 * DAY) == "archived"
    assert not redis_client.exists(key(gid, "events")) and not redis_client.exists(key(gid, "snap"))
    assert redis_client.exists(key(gid, "archive"))
    after_memory = sum(
        redis_client.memory_usage(k, samples=0) for k in redis_client.scan_iter(match=f"g:{{{gid}}}:*"))
    assert after_memory * 5 < before_memory, (before_memory, after_memory)

    # the same answers: from this process (its cached state) and from a fresh one (no cache)
    assert reads(server.url, gid, token, dash, pid) == before
    with LiveServer(make_app(redis_server.url)) as fresh:
        assert reads(fresh.url, gid, token, dash, pid) == before
        again = requests.post(f"{fresh.url}/api/v1/games/{gid}/moves",
                              json={"expected_version": version, "moves": ["end"]},
                              headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert (again.status_code, again.json()["code"]) == (422, "game-over")
        stale = requests.post(f"{fresh.url}/api/v1/games/{gid}/moves",
                              json={"expected_version": 1, "moves": ["end"]},
                              headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert stale.status_code == 409  # as for any finished game at a stale version
    fresh_svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    assert RatingService(fresh_svc).assess(gid) == assessed
    assert RatingService(fresh_svc).record_game(gid) is False  # rated once, before archiving
    assert fresh_svc.store.version(gid) == version
    loaded = fresh_svc.store.load(gid)
    assert loaded.snapshot is None and len(loaded.tail) == version


def test_tournament_standings_read_archived_games(world, redis_server, redis_client):
    _, server, svc = world
    tag = f"{time.time_ns()}"
    ts = TournamentService(svc)
    out = ts.create({"name": "T", "format": "swiss", "rounds": 1, "table_size": 2, "seed": f"arch-{tag}",
                     "entries": [{"name": f"E{i}", "email": f"e{i}-{tag}@example.org"} for i in range(2)]})
    tid = out["id"]
    ts.start(tid, out["organizer_token"])
    (table,) = ts.load(tid).rounds[0].tables
    game = table.game
    play_out(svc, game, random.Random(tag))
    on_game_over(svc, game)
    done(redis_client, game)
    base = server.url
    paths = [f"/api/v1/tournaments/{tid}", f"/api/v1/tournaments/{tid}/standings"]
    before = [requests.get(base + p, timeout=30).json() for p in paths]
    assert before[0]["status"] == "finished"
    assert svc.store.archive(game) == "ok"
    with LiveServer(make_app(redis_server.url)) as fresh:
        assert [requests.get(fresh.url + p, timeout=30).json() for p in paths] == before
    assert TournamentService(GameService(EventStore(redis_client))).advance(tid) == 0


def test_appending_and_creating_over_an_archived_game_are_refused(redis_client):
    store = EventStore(redis_client)
    g = random_game(2, "archive-append")
    gid = f"arch-append-{time.time_ns()}"
    assert store.create(gid, {"seats": []}, "seed", g.events[0])
    store.append(gid, 1, g.events[1:])
    assert store.archive(gid) == "ok"
    assert store.archive(gid) == "archived"
    n = len(g.events)
    with pytest.raises(GameArchived):
        store.append(gid, n, g.events[1:2])
    with pytest.raises(GameArchived):
        store.append(gid, 5, g.events[1:2])
    with pytest.raises(ValueError):
        store.append(gid, 0, g.events[:1])
    assert store.create(gid, {"seats": []}, "seed", g.events[0]) is False
    assert not redis_client.exists(key(gid, "events"))
    assert store.events(gid) == g.events and store.version(gid) == n
    assert store.events(gid, after=3, upto=5) == g.events[3:5]
    assert store.events(gid, after=n) == []


def test_the_sweep_skips_the_grace_period_and_games_not_over_and_is_idempotent(redis_client):
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    tag = f"{time.time_ns()}"
    old = finished_game(svc, 2, f"sweep-old-{tag}", tag)["id"]
    recent = finished_game(svc, 2, f"sweep-recent-{tag}", tag + "r")["id"]
    live = svc.create_game([{"name": "A"}, {"name": "B"}], {"seed": f"sweep-live-{tag}"},
                           game="tiletum")["id"]
    now = time.time()
    archive.schedule(redis_client, old, now - 10 * DAY)  # the first time counts: done() scheduled it now
    assert now - 60 < archive.scheduled_at(redis_client, old) <= time.time()
    redis_client.zadd(archive.archive_due_key(archive.shard_of(old)), {old: now - 10 * DAY})  # 10 days ago
    redis_client.zadd(archive.archive_due_key(archive.shard_of(recent)), {recent: now - 2 * DAY})
    archive.schedule(redis_client, live, now - 30 * DAY)  # cannot happen; the sweep checks anyway
    assert archive.sweep(svc, 7, now=now, dry_run=True).get("would-archive", 0) >= 1
    assert redis_client.exists(key(old, "events"))  # a dry run writes nothing
    seen = {}
    archive.sweep(svc, 7, now=now, progress=lambda i, n, gid, status: seen.__setitem__(gid, status))
    assert seen[old] == "archived" and seen[live] == "not-over" and recent not in seen
    assert (svc.store.is_archived(old) and not svc.store.is_archived(recent)
            and not svc.store.is_archived(live))
    assert redis_client.exists(key(live, "events")) and svc.load(live)[1].phase != "over"
    assert (archive.scheduled_at(redis_client, old) is None
            and archive.scheduled_at(redis_client, live) is None)
    assert archive.scheduled_at(redis_client, recent) is not None
    seen.clear()
    archive.sweep(svc, 7, now=now, progress=lambda i, n, gid, status: seen.__setitem__(gid, status))
    assert old not in seen and recent not in seen
    # the task redone for an id it already did (a redelivered message): nothing changes
    record = redis_client.get(key(old, "archive"))
    assert archive.archive_game(svc, old, now) == "already"
    assert redis_client.get(key(old, "archive")) == record
    # the recent one once its grace period is over
    assert archive.sweep(svc, 7, now=now + 6 * DAY).get("archived", 0) >= 1
    assert svc.store.is_archived(recent)


def test_a_stream_that_moved_on_is_not_archived_and_a_crash_after_the_script_loses_nothing(redis_client,
                                                                                           monkeypatch):
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    tag = f"{time.time_ns()}"
    gid = finished_game(svc, 2, f"crash-{tag}", tag)["id"]
    events = svc.store.events(gid)
    real_encode = archive.encode

    def racing_encode(raws):  # another writer gets in between the read and the script
        redis_client.xadd(key(gid, "events"), {"e": json.dumps({"type": "Intruder"})},
                          id=f"{len(raws) + 1}-0")
        return real_encode(raws)
    monkeypatch.setattr(archive, "encode", racing_encode)
    assert svc.store.archive(gid) == "changed"
    assert not redis_client.exists(key(gid, "archive")) and svc.store.events(gid)[:-1] == events
    redis_client.xdel(key(gid, "events"), f"{len(events) + 1}-0")
    monkeypatch.setattr(archive, "encode", real_encode)

    # the process dies after the script, before the index is updated: the next sweep finishes
    def dying(r, game_id):
        raise KeyboardInterrupt("killed")
    monkeypatch.setattr(archive, "unschedule", dying)
    with pytest.raises(KeyboardInterrupt):
        archive.archive_game(svc, gid, time.time() + 30 * DAY)
    monkeypatch.undo()
    assert svc.store.is_archived(gid) and svc.store.events(gid) == events
    assert archive.archive_game(svc, gid, time.time() + 30 * DAY) == "already"
    assert archive.scheduled_at(redis_client, gid) is None


KILLED_SWEEP = """
import sys, time
import redis
from application import archive
from application.game_service import GameService
from application.store import EventStore
svc = GameService(EventStore(redis.Redis.from_url(sys.argv[1])))
real = archive.compact
def slow(*a, **kw):
    time.sleep(0.02)
    return real(*a, **kw)
archive.compact = slow
print("ready", flush=True)
for gid in sys.argv[2:]:
    archive.archive_game(svc, gid, time.time())
"""


def test_a_sweep_killed_midway_loses_nothing(redis_server, redis_client):
    """A real process archiving games one after another is killed with SIGKILL at some point: every game is
    either live or archived, and reads the same; the next sweep archives the rest."""
    store = EventStore(redis_client)
    tag = time.time_ns()
    logs = {}
    for i in range(24):
        g = random_game(2 + i % 3, f"kill-{tag}-{i}")
        gid = f"kill{tag}x{i}"
        store.create(gid, {"seats": [{"name": f"S{s}", "kind": "human", "token_hash": None}
                                     for s in range(2 + i % 3)], "seed_commitment": "c"}, "seed", g.events[0])
        store.append(gid, 1, g.events[1:])
        store.save_snapshot(gid, len(g.events), g.state.to_doc())
        archive.schedule(redis_client, gid, time.time() - 1)
        logs[gid] = g.events
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SWEEP, redis_server.url, *logs], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 60
    while not any(store.is_archived(gid) for gid in logs):  # kill it once it has begun
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.005)
    time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    archived = [gid for gid in logs if store.is_archived(gid)]
    for gid, events in logs.items():
        live = redis_client.exists(key(gid, "events"))
        assert live != store.is_archived(gid), gid  # one or the other, never both, never neither
        assert store.events(gid) == events and store.version(gid) == len(events)
    assert 0 < len(archived) < len(logs), "killed midway"
    svc = GameService(store)
    for gid in logs:
        assert archive.archive_game(svc, gid, time.time()) in ("archived", "already")
    for gid, events in logs.items():
        assert store.is_archived(gid) and store.events(gid) == events
        assert svc.load(gid)[1].version == len(events)


def test_the_cli_archives_with_progress_and_a_dry_run_changes_nothing(redis_server, redis_client, monkeypatch,
                                                                      capsys):
    from api.cli import main
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    tag = f"{time.time_ns()}"
    gid = finished_game(svc, 2, f"cli-{tag}", tag)["id"]
    unindexed = svc.create_game([{"name": "A"}, {"name": "B"}], {"seed": f"cli-old-{tag}"},
                                game="tiletum")["id"]
    play_out(svc, unindexed, random.Random(tag))  # finished before archiving existed: in no index
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    assert main(["archive", "--older-than-days", "-1"]) == 2
    assert main(["archive", "--dry-run", "--older-than-days", "0"]) == 0
    out = capsys.readouterr().out
    assert f"{gid}: would-archive" in out and "dry run:" in out
    assert redis_client.exists(key(gid, "events")) and not svc.store.is_archived(gid)
    assert main(["archive"]) == 0  # the default grace period: 7 days
    assert f"{gid}:" not in capsys.readouterr().out and not svc.store.is_archived(gid)
    assert main(["archive", "--older-than-days", "0"]) == 0
    out = capsys.readouterr().out
    assert f"{gid}: archived" in out and svc.store.is_archived(gid)
    assert not svc.store.is_archived(unindexed)
    # (other tests' games are in this Redis too)
    main(["archive", "--older-than-days", "0", "--index-existing"])
    out = capsys.readouterr().out
    assert f"{unindexed}: archived" in out and svc.store.is_archived(unindexed)
    assert f"{gid}:" not in out  # done already: the index no longer holds it


def test_a_game_that_fails_to_archive_is_tried_again_a_day_later_and_stays_whole(redis_client, monkeypatch):
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    tag = f"{time.time_ns()}"
    gid = finished_game(svc, 2, f"fail-{tag}", tag)["id"]
    events = svc.store.events(gid)
    now = time.time() + 8 * DAY
    monkeypatch.setattr(EventStore, "archive", lambda self,
                        game_id: (_ for _ in ()).throw(ConnectionError("down")))
    seen = {}
    counts = archive.sweep(svc, 7, now=now, progress=lambda i, n, g, status: seen.__setitem__(g, status))
    assert seen[gid] == "failed" and counts["failed"] >= 1
    assert svc.store.events(gid) == events and not svc.store.is_archived(gid)
    monkeypatch.undo()
    seen.clear()
    archive.sweep(svc, 7, now=now + 3600, progress=lambda i, n, g, status: seen.__setitem__(g, status))
    assert gid not in seen  # not before a day has passed
    archive.sweep(svc, 7, now=now + archive.RETRY_SECONDS + 1, progress=lambda i, n, g,
                  status: seen.__setitem__(g, status))
    assert seen[gid] == "archived" and svc.store.events(gid) == events


def test_the_record_names_its_codec_and_both_read_back():
    g = random_game(3, "archive-codec")
    raws = [json.dumps(e).encode() for e in g.events]
    for codec in archive.CODECS:
        record = archive.encode(raws, codec)
        assert record.startswith(f"{len(raws)} {codec}\n".encode())
        assert archive.decode(record) == g.events and archive.count(record[:12]) == len(raws)
    assert len(archive.encode(raws)) * 8 < len(b",".join(raws))
    broken = archive.encode(raws[:-1]).replace(f"{len(raws) - 1} ".encode(), f"{len(raws)} ".encode(), 1)
    with pytest.raises(ValueError):
        archive.decode(broken)


BEAT_TASK = """
import json
from workers.app import app
from workers.tasks import archive_game, sweep_archive
assert app.conf.beat_schedule["sweep-archive"]["task"] == "workers.sweep_archive"
assert "workers.sweep_archive" in app.tasks and "workers.archive_game" in app.tasks
print(json.dumps(sweep_archive()), flush=True)
import sys
print(archive_game(sys.argv[1]), flush=True)
"""


def test_the_beat_task_archives_what_is_due_by_the_setting(redis_server, redis_client):
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    tag = f"{time.time_ns()}"
    gid = finished_game(svc, 2, f"beat-{tag}", tag)["id"]
    events = svc.store.events(gid)

    def run(days: str) -> list[str]:
        env = dict(os.environ, PYTHONPATH=ROOT, REDIS_URL=redis_server.url, TABLEPOST_ARCHIVE_AFTER_DAYS=days,
                   CELERY_BROKER_URL="redis://127.0.0.1:1/0")
        out = subprocess.run([sys.executable, "-c", BEAT_TASK, gid], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.splitlines()
    counts, single = run("7")  # within the grace period: nothing
    assert (json.loads(counts).get("archived", 0) == 0 and single == "not-due"
            and not svc.store.is_archived(gid))
    counts, single = run("0")
    assert json.loads(counts)["archived"] >= 1 and single == "already"
    assert svc.store.is_archived(gid) and svc.store.events(gid) == events
