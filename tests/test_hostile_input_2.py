"""Issue 27, "Hostile input and faults, second round: no request may stall the service".

A time control under which no hour counts (``quiet_hours: [5, 5]``) made the worker loop for ever in
``add_active``, and every task of every game waited behind it: now every path that stores a time
control checks it (422), ``add_active`` ends for any input, a stored impossible one falls back to the
defaults, the sweeps give up an entry that fails (or never finishes) instead of retrying it for ever,
and every Celery task has a time limit. Then input that was a 500 or was taken: integers of more than
4,300 digits, time-zone directories, lone surrogates and control characters in any text field, names
that show nothing, and Carcassonne moves written with other scripts' digits. Through the real API on
a real Redis, and unit tests of one layer where apt."""
from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from datetime import datetime, timezone

import pytest

import games
from hypothesis import HealthCheck, given, settings, strategies as st

import carcassonne
from application.deadlines import Deadlines
from application.time_control import DEFAULTS, InvalidTimeControl, add_active, counts, time_control, valid_tz
from application.errors import ServiceError
from application.game_service import GameService
from application.indexes import DEADLINES, MAIL_DUE, REMINDERS, SEAT_STATE, add, attempts_key, begin_attempt
from application.store import EventStore, key as game_key
from application.tournament_service import TournamentService
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from test_api_errors import game_count

API = "/api/v1/games"
H = 3600
DAY = 86400
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@contextmanager
def within(seconds: float):
    """Fail (instead of hanging the suite) if the block runs longer than ``seconds``: the code
    before issue 27 looped for ever here."""
    def expired(*_):
        raise TimeoutError(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def problem(rv, status: int, code: str) -> dict:
    assert rv.status_code == status, (rv.status_code, rv.get_data(as_text=True)[:400])
    assert rv.mimetype == "application/problem+json", rv.mimetype
    assert rv.json["code"] == code, rv.json
    return rv.json


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def game_body(**options):
    return {"seats": [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob"}], "options": options}


def tournament_body(**extra):
    body = {"name": "Cup", "format": "round_robin", "table_size": 2,
            "entries": [{"name": "Ann", "email": "ann@example.org"},
                        {"name": "Bob", "email": "bob@example.org"}]}
    body.update(extra)
    return body


def tournaments(client) -> list:
    return client.get("/api/v1/tournaments?limit=200").json["tournaments"]


# --- time controls: refused where they are stored --------------------------------------------

IMPOSSIBLE_QUIET = [[5, 5], [0, 0], [23, 23], [3, 0], [0, 21], [10, 7]]   # none, or more than 20 quiet hours


@pytest.mark.parametrize("quiet", IMPOSSIBLE_QUIET, ids=[str(q) for q in IMPOSSIBLE_QUIET])
def test_quiet_hours_that_leave_too_little_time_are_a_422_for_games_and_tournaments(client, redis_client,
                                                                                     quiet):
    n, before = game_count(redis_client), tournaments(client)
    for pause in (False, True):
        tc = {"quiet_hours": quiet, "pause_weekends": pause}
        p = problem(client.post(API, json=game_body(time_control=tc)), 422, "invalid-request")
        assert "quiet_hours" in json.dumps(p["errors"]), p
        p = problem(client.post("/api/v1/tournaments", json=tournament_body(time_control=tc)), 422,
                    "invalid-request")
        assert "quiet_hours" in json.dumps(p["errors"]), p
    assert game_count(redis_client) == n
    assert tournaments(client) == before


def test_a_quiet_window_of_up_to_twenty_hours_is_still_accepted(client):
    for quiet in ([22, 7], [4, 0], [23, 0], [0, 20]):
        rv = client.post(API, json=game_body(time_control={"quiet_hours": quiet, "pause_weekends": True}))
        assert rv.status_code == 201, rv.json


BAD_TIME_CONTROLS = [
    ({"quiet_hours": [5, 5]}, "bad-time-control"), ({"quiet_hours": [2, 1]}, "bad-time-control"),
    ({"quiet_hours": [5]}, "bad-time-control"), ({"quiet_hours": [5, 24]}, "bad-time-control"),
    ({"quiet_hours": [5.0, 7]}, "bad-time-control"), ({"quiet_hours": "5-7"}, "bad-time-control"),
    ({"days_per_move": 0}, "bad-time-control"), ({"days_per_move": 1e308}, "bad-time-control"),
    ({"days_per_move": math.nan}, "bad-time-control"), ({"days_per_move": -1}, "bad-time-control"),
    ({"days_per_move": "3"}, "bad-time-control"), ({"days_per_move": True}, "bad-time-control"),
    ({"vacation_days": 1e9}, "bad-time-control"), ({"reminders_hours": [1] * 6}, "bad-time-control"),
    ({"reminders_hours": [0]}, "bad-time-control"), ({"pause_weekends": "yes"}, "bad-time-control"),
    ({"hours_per_move": 3}, "bad-time-control"),
]
BAD_TIMEOUTS = [{"mode": "forfeit"}, {"drop_after": 0}, {"drop_after": 10**9}, {"drop_after": 1.5}, {"x": 1}]


@pytest.fixture()
def service(redis_client):
    return GameService(EventStore(redis_client), allow_seeded_games=True)


def test_the_core_refuses_an_impossible_time_control_on_every_path(service, redis_client):
    """Not only the schema: a game of either kind and a tournament, created inside the service."""
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    tournaments_svc = TournamentService(service)
    n = game_count(redis_client)
    cases = [({"time_control": tc}, code) for tc, code in BAD_TIME_CONTROLS]
    cases += [({"timeout": t}, "bad-timeout") for t in BAD_TIMEOUTS]
    for options, code in cases:
        for game in games.NAMES:
            with pytest.raises(ServiceError) as e:
                service.create_game(seats, dict(options), game=game)
            assert (e.value.kind, e.value.code) == ("invalid", code), (options, e.value)
        with pytest.raises(ServiceError) as e:
            tournaments_svc.create({"name": "Cup", "format": "round_robin", "table_size": 2, **options})
        assert (e.value.kind, e.value.code) == ("invalid", code), (options, e.value)
    assert game_count(redis_client) == n
    # and the good ones still go through
    created = service.create_game(seats, {"time_control": {"quiet_hours": [22, 7], "pause_weekends": True},
                                          "timeout": {"mode": "drop", "drop_after": 2}}, game="tiletum")
    assert created["id"]


def test_add_active_ends_at_once_when_no_hour_counts():
    start = datetime(2026, 11, 18, 9, tzinfo=timezone.utc).timestamp()
    for tc in ({"quiet_hours": [5, 5]}, {"quiet_hours": [0, 0], "pause_weekends": True}):
        with within(5), pytest.raises(InvalidTimeControl):
            add_active(start, 3 * DAY, tc)
    for seconds in (math.inf, math.nan, -1.0):
        with within(5), pytest.raises(InvalidTimeControl):
            add_active(start, seconds, {"quiet_hours": [22, 7]})


def reference_add_active(start: float, seconds: float, tc: dict) -> float:
    """The hour-by-hour walk that add_active was (for inputs where it ends; an uncounted hour is
    crossed at once, as it ends at the same moment when walked in smaller steps)."""
    t, left = start, seconds
    while left > 0:
        to_hour = 3600 - (t % 3600)
        if counts(t, tc):
            step = min(left, to_hour)
            left -= step
            t += step
        else:
            t += to_hour
    return t


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(start=st.floats(1.6e9, 1.9e9), seconds=st.floats(0, 1e12), a=st.integers(0, 23), b=st.integers(0, 23),
       pause=st.booleans())
def test_add_active_ends_for_any_input_and_counts_as_the_hour_walk_did(start, seconds, a, b, pause):
    tc = {"quiet_hours": [a, b], "pause_weekends": pause}
    with within(2):
        try:
            due = add_active(start, seconds, tc)
        except InvalidTimeControl:
            assert a == b, "only a time control under which nothing counts is refused"
            return
    assert due >= start + seconds - 1e-3
    if seconds <= 20 * DAY:
        assert due == pytest.approx(reference_add_active(start, seconds, tc), abs=1e-3)


# --- the sweeps: a poisoned entry is skipped, the others handled -------------------------------

class Clock:
    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> float:
        return self.t


class Transport:
    def __init__(self):
        self.sent = []

    def send(self, msg):
        self.sent.append(msg)


@pytest.fixture()
def world(redis_client, service):
    redis_client.delete(*DEADLINES.keys(), *REMINDERS.keys(), *MAIL_DUE.keys())
    transport = Transport()
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
    notifier = Notifier(service, Outbox(redis_client, transport), cfg)
    clock = Clock(datetime(2026, 11, 18, 9, 0, tzinfo=timezone.utc).timestamp())  # a Wednesday
    notifier.deadlines = lambda: Deadlines(service, notifier, clock)
    return service, notifier, transport, clock


def two_games(svc, **tc):
    ids = []
    for who in ("ada", "bob"):
        g = svc.create_game([{"name": who, "email": f"{who}@x.test"}, {"name": "Cy", "email": "cy@x.test"}],
                            {"seed": f"poison-{who}", "time_control": {"reminders_hours": [], **tc}},
                            game="tiletum")
        ids.append(g["id"])
    return ids


def due_now(r, *game_ids):
    pipe = r.pipeline()
    for gid in game_ids:
        add(pipe, MAIL_DUE, gid, f"{gid}:0:1", 1.0)   # due long ago: a lost broker message
    pipe.execute()


def test_a_stored_impossible_time_control_gets_the_defaults_and_the_sweep_handles_every_entry(world, caplog):
    """As old data might be: the meta written without any check. The turn-email sweep (which put
    the game back on the worker within 100 s, for ever) sends both turn emails; the poisoned game's
    deadline is the defaults' (3 days), and the log says why."""
    svc, notifier, transport, clock = world
    poisoned, other = two_games(svc, days_per_move=1)
    meta = svc.store.meta(poisoned)
    meta["options"]["time_control"] = {"quiet_hours": [5, 5], "pause_weekends": True, "days_per_move": 1}
    svc.store.set_meta(poisoned, meta)
    due_now(svc.store.r, poisoned, other)
    with caplog.at_level(logging.WARNING, logger="tablepost.deadlines"), within(10):
        assert notifier.sweep_due(older_than=0) == 2
    assert sorted(m["To"] for m in transport.sent) == ["ada@x.test", "bob@x.test"]
    assert "cannot be honoured" in caplog.text and "[5, 5]" in caplog.text
    dl = notifier.deadlines()
    assert dl.deadline_of(poisoned, 0) == clock.t + DEFAULTS["days_per_move"] * DAY
    assert dl.deadline_of(other, 0) == clock.t + DAY
    assert not MAIL_DUE.due(svc.store.r, "+inf")
    assert time_control(svc.store.meta(poisoned)) == DEFAULTS


def test_the_deadline_sweep_gives_up_an_entry_that_always_fails_and_handles_the_others(world, caplog):
    svc, notifier, transport, clock = world
    poisoned, other = two_games(svc, days_per_move=1)
    for gid in (poisoned, other):
        assert notifier.notify(gid, 1) == 1
    # the poisoned seat's deadline state cannot be read: handling its deadline raises every time
    svc.store.r.hset(SEAT_STATE.key(poisoned), f"{poisoned}:0", "{not json")
    dl = Deadlines(svc, notifier, clock, max_attempts=3)
    clock.t += DAY + 60
    with caplog.at_level(logging.WARNING, logger="tablepost.deadlines"):
        done = dl.sweep()
        assert (done["stand_in_turns"], done["given_up"]) == (1, 0)   # the other game's late turn is played
        for attempt in (2, 3):
            clock.t += 61
            done = dl.sweep()
            assert (done["stand_in_turns"], done["given_up"]) == (0, 0), attempt
        clock.t += 61
        assert dl.sweep()["given_up"] == 1
    assert "giving up the deadline entry" in caplog.text and poisoned in caplog.text
    assert not [m for m in DEADLINES.due(svc.store.r, "+inf") if m.startswith(poisoned.encode())]
    assert svc.store.r.get(attempts_key(DEADLINES, f"{poisoned}:0:1")) is None   # nothing left behind
    clock.t += DAY
    assert dl.sweep()["given_up"] == 0


def test_an_entry_whose_handling_never_finished_is_given_up_without_running_it_again(world, caplog):
    """A worker killed at its hard time limit in the middle of an entry leaves its attempts counted:
    after max_attempts of them the sweep gives the entry up instead of running it once more."""
    svc, notifier, transport, clock = world
    hanging, other = two_games(svc)
    due_now(svc.store.r, hanging, other)
    for _ in range(3):   # three sweeps were killed while handling it
        begin_attempt(svc.store.r, MAIL_DUE, f"{hanging}:0:1")
    with caplog.at_level(logging.ERROR, logger="tablepost.notify"):
        assert notifier.sweep_due(older_than=0, max_attempts=3) == 1
    assert [m["To"] for m in transport.sent] == ["bob@x.test"]
    assert "giving up the mail:due entry" in caplog.text
    assert not MAIL_DUE.due(svc.store.r, "+inf")


def test_a_sweep_stops_when_its_time_is_spent_and_leaves_the_rest_due(world):
    svc, notifier, transport, clock = world
    games = two_games(svc)
    due_now(svc.store.r, *games)
    assert notifier.sweep_due(older_than=0, budget=0) == 0
    assert len(MAIL_DUE.due(svc.store.r, "+inf")) == 2 and not transport.sent
    assert notifier.sweep_due(older_than=0, budget=60) == 2


# --- every Celery task has a time limit --------------------------------------------------------

LIMITS_SCRIPT = """
import json
from workers.app import app as service_app
import workers.tasks
from seats.worker import app as bot_app
out = {}
for app in (service_app, bot_app):
    app.finalize()
    conf = [app.conf.task_soft_time_limit, app.conf.task_time_limit]
    # (Celery shares every task with every app: each app's own, with its own limits)
    out.update({name: [t.soft_time_limit, t.time_limit, *conf] for name, t in app.tasks.items()
                if not name.startswith("workers.") or app is service_app})
print(json.dumps(out))
"""


def task_limits(**env) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TABLEPOST_TASK_")}
    environ.update(env)
    done = subprocess.run([sys.executable, "-c", LIMITS_SCRIPT], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_task_of_both_celery_apps_has_a_soft_and_a_hard_time_limit_set_by_the_environment():
    defaults = task_limits()
    ours = {n for n in defaults if n.startswith(("workers.", "seats.", "cardinalbot."))}
    assert {"workers.notify_turn", "workers.sweep_deadlines", "workers.sweep_notifications",
            "seats.play_automa_turn", "seats.play_ai_turn",
            "cardinalbot.play_turn", "cardinalbot.play_ai_turn"} <= ours   # (the old names: one release)
    visibility = 300   # TABLEPOST_VISIBILITY_TIMEOUT's default: a task is killed before it is redelivered
    ai = {"workers.stand_in_turn"}   # the AI worker's: sized for master (workers.app.ai_time_limits)
    assert ai <= ours
    for name, (soft, hard, conf_soft, conf_hard) in defaults.items():
        assert 0 < soft < hard < visibility, (name, soft, hard)
        assert name in ai or (conf_soft, conf_hard) == (soft, hard), (name, soft, hard)
    assert {n: defaults[n][:2] for n in ai} == {n: [234, 260] for n in ai}   # 20 decisions of 10 s, and 60 s
    small = task_limits(TABLEPOST_TASK_SOFT_TIME_LIMIT="5", TABLEPOST_TASK_TIME_LIMIT="7",
                        TABLEPOST_AI_TASK_TIME_LIMIT="20")
    assert {name: limits for name, limits in small.items() if name in ours - ai} == \
        {n: [5, 7, 5, 7] for n in ours - ai}
    assert {n: small[n] for n in ai} == {n: [18, 20, 5, 7] for n in ai}


def test_a_soft_limit_that_could_never_fire_is_refused_at_start():
    from workers.app import time_limits
    with pytest.raises(ValueError):
        time_limits({"TABLEPOST_TASK_SOFT_TIME_LIMIT": "10", "TABLEPOST_TASK_TIME_LIMIT": "5"})
    with pytest.raises(ValueError):
        time_limits({"TABLEPOST_TASK_SOFT_TIME_LIMIT": "0"})
    assert time_limits({}) == (120, 150)


# --- integers of more than 4,300 digits -------------------------------------------------------

def test_an_integer_too_long_for_python_in_any_json_body_is_a_400_not_a_500(client, redis_client):
    created = client.post(API, json=game_body(seed="huge-int")).json
    gid, token = created["id"], created["seats"][0]["token"]
    before = client.get(f"{API}/{gid}/events").json
    n, tours = game_count(redis_client), tournaments(client)
    huge = "9" * 5000
    for method, path, body in (
            ("POST", API, '{"seats": [{"name": "A"}, {"name": "B"}], "options": {"time_control": '
                          '{"days_per_move": ' + huge + '}}}'),
            ("POST", f"{API}/{gid}/moves", '{"expected_version": ' + huge + ', "moves": ["end"]}'),
            ("POST", f"{API}/{gid}/vacation", '{"on": true, "x": -' + huge + '}'),
            ("POST", "/api/v1/tournaments", '{"name": "Cup", "format": "swiss", "table_size": 2, "rounds": '
                                            + huge + '}'),
            ("POST", "/api/v1/webhooks", '{"url": "https://example.org/", "events": ["all"], "n": '
                                         + huge + "}")):
        headers = {**bearer(token), "Content-Type": "application/json"}
        rv = client.open(path, method=method, data=body, headers=headers)
        p = problem(rv, 400, "invalid-request")   # the code of every unreadable JSON body
        assert "digits" in json.dumps(p["errors"]["json"]), p
    assert client.get(f"{API}/{gid}/events").json == before
    assert game_count(redis_client) == n and tournaments(client) == tours


# --- time zones --------------------------------------------------------------------------------

NOT_ZONES = ["Europe", "America", "Etc", "posixrules", "right/UTC", "posix/Europe/Berlin", "localtime",
             "zone.tab", "Europe/", "../Europe/Berlin", "europe/berlin"]


def test_valid_tz_takes_only_the_zones_of_the_iana_list():
    assert all(valid_tz(z) for z in ("Europe/Berlin", "UTC", "America/Argentina/Buenos_Aires",
                                     "Asia/Kolkata"))
    assert not any(valid_tz(z) for z in NOT_ZONES), [z for z in NOT_ZONES if valid_tz(z)]


@pytest.mark.parametrize("tz", NOT_ZONES)
def test_a_time_zone_that_is_not_a_zone_is_a_422(client, service, redis_client, tz):
    n = game_count(redis_client)
    p = problem(client.post(API, json={"seats": [{"name": "Ann", "tz": tz}, {"name": "Bob"}]}), 422,
                "invalid-request")
    assert "tz" in json.dumps(p["errors"]), p
    with pytest.raises(ServiceError) as e:
        service.create_game([{"name": "Ann", "tz": tz}, {"name": "Bob"}], {}, game="tiletum")
    assert e.value.code == "bad-time-zone"
    assert game_count(redis_client) == n


# --- lone surrogates and control characters in every text field --------------------------------

URL = "https://example.org/"
BAD_TEXT = {"surrogate": "\udc80", "CR": "\r", "NUL": "\x00", "RLO": "\u202e", "ZWSP": "\u200b"}


@pytest.mark.parametrize("bad", list(BAD_TEXT.values()), ids=list(BAD_TEXT))
def test_every_text_field_of_every_request_refuses_surrogates_and_control_characters(client, redis_client,
                                                                                    bad):
    created = client.post(API, json=game_body(seed="text-fields")).json
    gid, token = created["id"], created["seats"][0]["token"]
    t = client.post("/api/v1/tournaments", json=tournament_body()).json
    n, tours = game_count(redis_client), tournaments(client)

    def seat(**kw):
        return {"seats": [{"name": "Ann", **kw}, {"name": "Bob"}]}
    requests = [
        ("POST", API, seat(tz="Europe/Berlin" + bad), None),
        ("POST", API, seat(kind="bot", bot="b" + bad, name=None), None),
        ("POST", API, seat(level="easy" + bad, kind="ai"), None),
        ("POST", API, seat(kind="human" + bad), None),
        ("POST", API, {**seat(), "game": "tiletum" + bad}, None),
        ("POST", API, {**seat(), "options": {"action_tiles": "printed" + bad}}, None),
        ("POST", API, {**seat(), "options": {"timeout": {"mode": "drop" + bad}}}, None),
        ("POST", "/api/v1/webhooks", {"url": URL + bad, "events": ["all"], "game": gid}, token),
        ("POST", "/api/v1/webhooks", {"url": URL, "events": ["all"], "game": gid + bad}, token),
        ("POST", "/api/v1/webhooks", {"url": URL, "events": ["all" + bad], "game": gid}, token),
        ("PUT", f"{API}/{gid}/notifications", {"mode": "none" + bad}, token),
        ("POST", "/api/v1/tournaments", tournament_body(format="swiss" + bad, rounds=2), None),
        ("POST", f"/api/v1/tournaments/{t['id']}/withdrawals", {"player": "p" + bad}, t["organizer_token"]),
    ]
    for method, path, body, tok in requests:
        body = {k: v for k, v in body.items()}
        if "seats" in body:
            body["seats"] = [{k: v for k, v in s.items() if v is not None} for s in body["seats"]]
        rv = client.open(path, method=method, json=body, headers=bearer(tok) if tok else {})
        problem(rv, 422, "invalid-request")
    assert game_count(redis_client) == n and tournaments(client) == tours
    assert not redis_client.exists(game_key(gid, "hooks"))   # no webhook was registered


# --- names that show nothing -------------------------------------------------------------------

INVISIBLE = {"hangul-filler": "\u3164", "braille-blank": "\u2800", "ideographic-space": "\u3000",
             "spaces": "   ",
             "nbsp": "\u00a0", "halfwidth-filler": "\uffa0", "choseong-fillers": "\u115f\u1160",
             "combining-mark": "\u0301", "mixed": " \u3164\u2800\u3000 ", "em-spaces": "\u2003\u2003"}


@pytest.mark.parametrize("name", list(INVISIBLE.values()), ids=list(INVISIBLE))
def test_a_name_that_shows_nothing_is_a_422_everywhere_names_are_given(client, redis_client, name):
    n, tours = game_count(redis_client), tournaments(client)
    p = problem(client.post(API, json={"seats": [{"name": "Ann"}, {"name": name}]}), 422, "invalid-request")
    assert "seats" in p["errors"]["json"], p
    p = problem(client.post("/api/v1/tournaments", json=tournament_body(name=name)), 422, "invalid-request")
    assert "name" in p["errors"]["json"], p
    p = problem(client.post("/api/v1/tournaments", json=tournament_body(
        entries=[{"name": name, "email": "x@example.org"}, {"name": "Bob", "email": "bob@example.org"}])),
        422, "invalid-request")
    assert "entries" in p["errors"]["json"], p
    p = problem(client.post("/api/v1/bots", json={"name": name, "email": "owner@example.org"}), 422,
                "invalid-request")
    assert "name" in p["errors"]["json"], p
    assert game_count(redis_client) == n and tournaments(client) == tours


@pytest.mark.parametrize("name", ["Ann", "李", "Zoë", "🎲", "·", "R2-D2", "ㅤAnn", "عمر", "Ω", "1"])
def test_a_name_with_something_visible_is_still_accepted(client, name):
    rv = client.post(API, json={"seats": [{"name": name}, {"name": "Bob"}]})
    assert rv.status_code == 201, rv.json


# --- Carcassonne moves: ASCII digits only -------------------------------------------------------

FULLWIDTH = str.maketrans("0123456789-", "０１２３４５６７８９-")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
DEVANAGARI = str.maketrans("0123456789", "०१२३४५६७८९")


def test_carcassonne_notation_refuses_digits_of_other_scripts_as_tiletums_does():
    for text in ("place ３,４ r0", "place ٣,٤ r0", "place 3,4 r９０", "place -1,0 r٩٠",
                 "place (१,०) r0"):
        with pytest.raises(carcassonne.errors.EngineError):
            carcassonne.parse(text)
    assert str(carcassonne.parse("place -1,0 r90 farmer NE")) == "place -1,0 r90 farmer NE"


@pytest.mark.parametrize("table", [FULLWIDTH, ARABIC_INDIC, DEVANAGARI],
                         ids=["fullwidth", "arabic-indic", "devanagari"])
def test_a_carcassonne_move_with_other_scripts_digits_is_not_played(client, table):
    created = client.post(API, json={"game": "carcassonne", "seats": [{"name": "A"}, {"name": "B"}],
                                     "options": {"seed": "digits"}}).json
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    to_act = client.get(f"{API}/{gid}").json["to_act"][0]
    listed = client.get(f"{API}/{gid}/legal-moves", headers=bearer(tokens[to_act])).json["moves"]
    legal = [m["move"] for m in listed]
    before = client.get(f"{API}/{gid}/state").json
    move = legal[0].translate(table)
    assert move != legal[0]
    rv = client.post(f"{API}/{gid}/moves", headers=bearer(tokens[to_act]),
                     json={"expected_version": before["version"], "moves": [move]})
    problem(rv, 422, "bad-notation")
    assert client.get(f"{API}/{gid}/state").json == before


def test_a_finished_game_whose_follow_up_always_fails_is_given_up_and_the_others_go_on(redis_client, caplog):
    """The tournaments sweep's part for finished games (workers.sweep_tournaments): one game's
    follow-up failing never stops the others, and after max_attempts it is logged and given up
    instead of being tried at every sweep for ever."""
    import logging
    import time as _time

    from application.finished import follow_up_pending
    from application.indexes import GAMES_OVER
    bad, good = f"poison{_time.time_ns()}", f"fine{_time.time_ns()}"
    for gid in (bad, good):
        redis_client.zadd(GAMES_OVER.key(gid), {gid: _time.time() - 3600})
    handled = []

    def handle(gid):
        if gid == bad:
            raise RuntimeError("the rating pool is broken")
        handled.append(gid)

    caplog.set_level(logging.WARNING, logger="tablepost.finished")
    assert follow_up_pending(redis_client, 60, handle, max_attempts=3) >= 1
    # done() is the task's
    assert good in handled and redis_client.zscore(GAMES_OVER.key(good), good) is not None
    redis_client.zrem(GAMES_OVER.key(good), good)
    for _ in range(2):
        follow_up_pending(redis_client, 60, handle, max_attempts=3)
        assert redis_client.zscore(GAMES_OVER.key(bad), bad) is not None, "given up too early"
    follow_up_pending(redis_client, 60, handle, max_attempts=3)
    assert redis_client.zscore(GAMES_OVER.key(bad), bad) is None
    assert "giving up the follow-up of finished game " + bad in caplog.text
