"""Finished games leave nothing behind (issue 12): no deadline, reminder, notice, mail:due or
bot:due entry, once the game is over; and the sweeps drop entries whose game is over or gone
(entries left by games that finished before this was fixed) instead of reprocessing them."""
from __future__ import annotations

import time

import tiletum
from application.deadline_store import DEADLINES, REMINDERS, TURNS
from application.deadlines import Deadlines
from application.finished import done, on_game_over, purge_finished
from application.indexes import adopt_legacy
from application.game_service import GameService
from application.scheduling import DUE, DUE_AT, MAIL_DUE, Dispatcher
from application.store import EventStore
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox


class Transport:
    def __init__(self):
        self.sent = []

    def send(self, msg):
        self.sent.append(msg)


def world(redis_client):
    tasks = []
    dispatcher = Dispatcher(redis_client, lambda name, args, queue: tasks.append((name, args)))
    svc = GameService(EventStore(redis_client), on_append=dispatcher.after_append, allow_seeded_games=True,
                      bot_token="bot-token")
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x",
                     pictures=False)   # what is left behind, not the emails' pictures, is tested here
    notifier = Notifier(svc, Outbox(redis_client, Transport()), cfg)
    return svc, notifier, tasks


def run_tasks(svc, notifier, tasks):
    """What the workers do with the messages the dispatcher sent (inline)."""
    while tasks:
        name, args = tasks.pop(0)
        if name == "workers.notify_turn":
            notifier.notify(*args)
        elif name == "workers.game_over":
            on_game_over(svc, args[0])
            notifier.notify(*args)
            done(svc.store.r, args[0])


def members_of(r, index, game_id: str) -> list[bytes]:
    """Every entry of ``game_id`` in any shard of ``index`` (read shard by shard, not the registry)."""
    return [m for m in index.all_members(r) if m.decode().split(":")[0] == game_id]


def leftovers(r, game_id: str) -> dict:
    out = {index.name: members_of(r, index, game_id) for index in (DEADLINES, REMINDERS, MAIL_DUE, DUE,
                                                                   DUE_AT, TURNS)}
    return {k: v for k, v in out.items() if v}


def play_to_the_end(svc, notifier, tasks, gid):
    for _ in range(2000):
        run_tasks(svc, notifier, tasks)
        _, state = svc.load(gid)
        if state.phase == "over":
            break
        legal = tiletum.legal_moves(state)
        move = "end" if "end" in legal else legal[0]
        if svc.meta(gid)["seats"][state.actor]["kind"] == "cardinalbot":
            svc.submit(gid, "bot-token", state.version, [move])   # what the Cardinalbot does over HTTP
        else:
            svc.submit_for_seat(gid, state.actor, state.version, [move])
    run_tasks(svc, notifier, tasks)
    assert svc.load(gid)[1].phase == "over"


def test_games_played_to_the_end_leave_no_entries(redis_client):
    svc, notifier, tasks = world(redis_client)
    games = []
    for i, seats in enumerate((2, 3)):
        g = svc.create_game([{"name": f"P{s}", "email": f"p{s}@x.test"} for s in range(seats)],
                            {"seed": f"cleanup-{i}",
                             "time_control": {"days_per_move": 2, "reminders_hours": [24, 2, 0.5]}},
                             game="tiletum")
        games.append(g["id"])
    solo = svc.create_game([{"name": "Bot", "kind": "cardinalbot"}, {"name": "Ada", "email": "ada@x.test"}],
                           {"seed": "cleanup-solo"}, game="tiletum")["id"]
    games.append(solo)
    for gid in games:
        play_to_the_end(svc, notifier, tasks, gid)
    assert {gid: leftovers(redis_client, gid) for gid in games} == {gid: {} for gid in games}


def test_the_sweeps_drop_entries_of_finished_or_gone_games(redis_client):
    svc, notifier, tasks = world(redis_client)
    gid = svc.create_game([{"name": "A", "email": "a@x.test"}, {"name": "B", "email": "b@x.test"}],
                          {"seed": "cleanup-legacy"}, game="tiletum")["id"]
    play_to_the_end(svc, notifier, tasks, gid)
    r = redis_client
    version = svc.load(gid)[1].version
    # what games that finished before the fix left behind, and entries of a game that is gone,
    # in the one-key-per-index layout of before the sharding (issue 15)
    future = time.time() + 5 * 86400
    r.zadd(DEADLINES.name, {f"{gid}:0:{version - 3}": future, "gone0game:1:7": future})
    r.zadd(REMINDERS.name, {f"{gid}:0:{version - 3}:24": future - 86400, "gone0game:1:7:2": future})
    r.zadd(MAIL_DUE.name, {f"{gid}:0:{version - 3}": 1, f"{gid}:1:{version - 1}": 1, "gone0game:1:7": 1})
    r.zadd(DUE.name, {gid: 1})
    r.hset(DUE_AT.name, gid, "1:4")
    r.hset(TURNS.name, f"{gid}:0", version - 3)
    assert adopt_legacy(r) == 10, "the service moves them into the shards when it starts"
    assert not r.exists(DEADLINES.name, REMINDERS.name, MAIL_DUE.name, DUE.name, DUE_AT.name, TURNS.name)
    assert set(leftovers(r, gid)) == {"deadlines", "reminders", "bot:due", "bot:due:at", "deadlines:turn",
                                      "mail:due"}
    assert adopt_legacy(r) == 0, "and only once"
    calls = []
    real_notify = notifier.notify
    notifier.notify = lambda g, v: calls.append((g, v)) or real_notify(g, v)
    notifier.sweep_due(older_than=0)                   # the turn-email sweep: stale due entries leave at once
    assert members_of(r, MAIL_DUE, gid) == [] and members_of(r, MAIL_DUE, "gone0game") == []
    n = len(calls)
    notifier.sweep_due(older_than=0)
    assert len(calls) == n, "nothing is reprocessed at the next sweep"
    # the maintenance pass (beat) drops the rest, whatever their due time
    purge_finished(svc)
    assert leftovers(r, gid) == {} and leftovers(r, "gone0game") == {}


def test_start_turn_keeps_one_deadline_per_game(redis_client):
    svc, notifier, tasks = world(redis_client)
    gid = svc.create_game([{"name": "A", "email": "a@x.test"}, {"name": "B", "email": "b@x.test"}],
                          {"seed": "cleanup-one", "time_control": {"reminders_hours": [24, 2]}},
                          game="tiletum")["id"]
    for _ in range(40):
        run_tasks(svc, notifier, tasks)
        _, state = svc.load(gid)
        legal = tiletum.legal_moves(state)
        svc.submit_for_seat(gid, state.actor, state.version, ["end" if "end" in legal else legal[0]])
    run_tasks(svc, notifier, tasks)
    assert len(members_of(redis_client, DEADLINES, gid)) == 1, "the turns that ended keep no deadline"
    assert len(members_of(redis_client, REMINDERS, gid)) <= 2
    Deadlines  # (the sweep of a passed deadline is covered in tests/test_deadlines.py)
