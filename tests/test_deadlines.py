"""Deadlines with a controlled clock: reminders at the right times, the stand-in moves at the
deadline (labelled in the log and the record), vacation stops the clock, dropping after N missed
deadlines, and time that does not count (weekends, quiet hours)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from application.game_service import GameService
from application.store import EventStore
from application.deadline_store import DEADLINES, REMINDERS
from application.deadlines import Deadlines
from application.time_control import add_active
from application.indexes import PREFS
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox

H = 3600
DAY = 86400


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
def world(redis_client):
    redis_client.delete(*DEADLINES.keys(), *REMINDERS.keys())
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    transport = Transport()
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
    notifier = Notifier(svc, Outbox(redis_client, transport), cfg)
    clock = Clock(datetime(2026, 11, 18, 9, 0, tzinfo=timezone.utc).timestamp())  # a Wednesday
    notifier.deadlines = lambda: Deadlines(svc, notifier, clock)
    return svc, notifier, transport, clock


def new_game(svc, **options):
    g = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"}],
                        {"seed": "deadline", **options}, game="tiletum")
    return g["id"], [s["token"] for s in g["seats"]]


def counts_of(done):
    return {k: done[k] for k in ("reminders", "stand_in_turns")}


def plain(msg) -> str:
    part = next(p for p in msg.walk() if p.get_content_type() == "text/plain")
    return part.get_payload(decode=True).decode("utf-8")


def headline(msg) -> str:
    """What an email says happened: its first line (the subject is the game's, the same for all)."""
    return plain(msg).split("\n", 1)[0]


def subjects(transport):
    """The headline of each email sent (what the subject said before subjects became stable)."""
    return [headline(m) for m in transport.sent]


def test_reminders_then_the_stand_in_at_the_deadline(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": [12, 2]})
    assert notifier.notify(gid, 1) == 1                      # the turn email
    dl = notifier.deadlines()
    clock.t += 11 * H
    assert counts_of(dl.sweep()) == {"reminders": 0, "stand_in_turns": 0}
    clock.t += 2 * H                                          # 13 h: the 12-hour reminder
    assert dl.sweep()["reminders"] == 1
    assert "due in 11 hours" in subjects(transport)[-1], "the true remaining time, not the configured point"
    clock.t += 9 * H + 30 * 60                                # 22.5 h: the 2-hour reminder
    assert dl.sweep()["reminders"] == 1 and "due in 1 hour 30 minutes" in subjects(transport)[-1]
    assert counts_of(dl.sweep()) == {"reminders": 0, "stand_in_turns": 0}, "each reminder once"
    clock.t += 2 * H                                          # 24.5 h: the deadline has passed
    assert dl.sweep()["stand_in_turns"] == 1
    meta, state = svc.load(gid)
    assert state.actor == 1, "the stand-in played seat 0's turn to its end"
    events = svc.store.events(gid)
    played = [e for e in events if e.get("by") == "stand-in"]
    assert played and played[-1]["move"] == "end" and played[0]["move"].startswith("take ")
    assert "[stand-in]" in svc.record(gid)
    assert dl.seat_state(gid, 0)["missed"] == 1 and not dl.seat_state(gid, 0)["dropped"]


def test_moving_in_time_cancels_the_deadline(world):
    svc, notifier, transport, clock = world
    gid, tokens = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": []})
    notifier.notify(gid, 1)
    _, state = svc.load(gid)
    import tiletum
    while state.actor == 0:  # seat 0 plays its turn through the API
        m = "end" if "end" in tiletum.legal_moves(state) else tiletum.legal_moves(state)[0]
        svc.submit(gid, tokens[0], state.version, [m])
        _, state = svc.load(gid)
    clock.t += 2 * DAY
    assert notifier.deadlines().sweep()["stand_in_turns"] == 0
    assert not [e for e in svc.store.events(gid) if e.get("by")]


def test_vacation_stops_the_clock(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": [], "vacation_days": 5})
    notifier.notify(gid, 1)
    dl = notifier.deadlines()
    clock.t += 12 * H
    assert dl.vacation(gid, 0, True)["on"]
    clock.t += 3 * DAY                                        # away for 3 days: well past the deadline
    assert dl.sweep()["stand_in_turns"] == 0, "no stand-in while on vacation"
    info = dl.vacation(gid, 0, False)
    assert info == {"on": False, "used_days": 3.0, "allowance_days": 5.0}
    clock.t += 11 * H                                         # 12 h of the day were left: not yet due
    assert dl.sweep()["stand_in_turns"] == 0
    clock.t += 2 * H
    assert dl.sweep()["stand_in_turns"] == 1


def test_vacation_allowance_runs_out(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": [], "vacation_days": 1})
    notifier.notify(gid, 1)
    dl = notifier.deadlines()
    dl.vacation(gid, 0, True)
    clock.t += 2 * DAY + H                                    # allowance 1 day: deadline pushed to 2 days
    assert dl.sweep()["stand_in_turns"] == 1
    with pytest.raises(ValueError):
        dl.vacation(gid, 0, True)


def test_drop_after_missed_deadlines(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": []},
                      timeout={"mode": "drop", "drop_after": 1})
    notifier.notify(gid, 1)
    dl = notifier.deadlines()
    clock.t += DAY + H
    assert dl.sweep()["stand_in_turns"] == 1
    assert dl.seat_state(gid, 0)["dropped"]
    # when the dropped seat's turn comes again, the stand-in plays it at once
    meta, state = svc.load(gid)
    import tiletum
    while state.actor == 1:
        m = "end" if "end" in tiletum.legal_moves(state) else tiletum.legal_moves(state)[0]
        svc.submit_for_seat(gid, 1, state.version, [m])
        _, state = svc.load(gid)
    assert state.actor == 0
    notifier.notify(gid, state.version)
    _, after = svc.load(gid)
    assert after.actor == 1 and after.version > state.version


def test_time_that_does_not_count():
    fri_noon = datetime(2026, 11, 20, 12, tzinfo=timezone.utc).timestamp()
    tc = {"pause_weekends": True, "quiet_hours": None}
    # one day from Friday noon, weekends paused: Monday noon
    assert datetime.fromtimestamp(add_active(fri_noon, DAY, tc), tz=timezone.utc) == \
        datetime(2026, 11, 23, 12, tzinfo=timezone.utc)
    tc = {"pause_weekends": False, "quiet_hours": [22, 7]}
    # 3 hours from 21:00 with quiet hours 22-07: 1 hour before, 2 after -> 09:00
    nine_pm = datetime(2026, 11, 18, 21, tzinfo=timezone.utc).timestamp()
    assert datetime.fromtimestamp(add_active(nine_pm, 3 * H, tc), tz=timezone.utc) == \
        datetime(2026, 11, 19, 9, tzinfo=timezone.utc)
    assert add_active(nine_pm, 5 * H, {}) == nine_pm + 5 * H


def test_vacation_over_the_api(app):
    c = app.test_client()
    g = c.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}],
                                      "options": {"time_control": {"vacation_days": 2}}}).json
    auth = {"Authorization": f"Bearer {g['seats'][1]['token']}"}
    rv = c.post(f"/api/v1/games/{g['id']}/vacation", json={"on": True}, headers=auth)
    assert rv.status_code == 200 and rv.json["on"] and rv.json["allowance_days"] == 2
    assert c.post(f"/api/v1/games/{g['id']}/vacation", json={"on": False}, headers=auth).json["on"] is False
    assert c.post(f"/api/v1/games/{g['id']}/vacation", json={"on": True}).status_code == 401
    bad = c.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}],
                                        "options": {"timeout": {"mode": "sometimes"}}})
    assert bad.status_code == 422


def test_email_preferences_and_the_daily_digest(world, app):
    svc, notifier, transport, clock = world
    c = app.test_client()
    g = c.post("/api/v1/games",
               json={"seats": [{"name": "Ada", "email": "Digest@X.test"}, {"name": "Bob"}]}).json
    auth = {"Authorization": f"Bearer {g['seats'][0]['token']}"}
    assert c.put(f"/api/v1/games/{g['id']}/notifications", json={"mode": "digest"},
                 headers=auth).json == {"mode": "digest", "delay_minutes": 5}
    no_email = {"Authorization": f"Bearer {g['seats'][1]['token']}"}
    assert c.put(f"/api/v1/games/{g['id']}/notifications", json={"mode": "none"},
                 headers=no_email).status_code == 422
    before = len(transport.sent)
    assert notifier.notify(g["id"], 1) == 0, "a digest reader gets no per-move email"
    assert notifier.send_digests("2026-11-18") == 1
    digest = transport.sent[-1]
    assert len(transport.sent) == before + 1 and "1 game awaits your move" in str(digest["Subject"])
    assert g["id"] in digest.get_content() and "List-Unsubscribe" in digest
    assert notifier.send_digests("2026-11-18") == 0, "one digest a day"
    svc.store.r.hset(PREFS.key("digest@x.test"), "digest@x.test", "none")
    assert notifier.notify(g["id"], 1) == 0 and notifier.send_digests("2026-11-19") == 0
    svc.store.r.hdel(PREFS.key("digest@x.test"), "digest@x.test")


def test_the_unsubscribe_link_works(world, app):
    svc, notifier, transport, clock = world
    from tests.conftest import make_app
    web = make_app(svc.store.r.connection_pool.connection_kwargs and app.config["REDIS_URL"], MAIL_SECRET="s")
    c = web.test_client()
    url = notifier.unsubscribe_url("leaver@x.test").replace("http://x", "")
    page = c.get(url)
    assert page.status_code == 200 and b"Unsubscribe" in page.data
    assert svc.store.r.hget(PREFS.key("leaver@x.test"),
                            "leaver@x.test") is None, "opening the link changes nothing"
    assert c.post(url).status_code == 200
    assert svc.store.r.hget(PREFS.key("leaver@x.test"), "leaver@x.test") == b"none"
    assert c.post(url.replace("leaver", "other")).status_code == 403, "a tampered link is refused"


# --- issue 12: every reminder value the API accepts works; one bad entry never stops a sweep ----

def test_reminder_hours_with_decimals_are_sent(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": [0.2, 1.5]})
    notifier.notify(gid, 1)
    dl = notifier.deadlines()
    clock.t += DAY - 1.5 * H + 60                               # past the 1.5-hour reminder point
    assert dl.sweep()["reminders"] == 1
    clock.t += 1.3 * H                                          # past the 0.2-hour (12 minutes) point
    assert dl.sweep()["reminders"] == 1
    assert REMINDERS.card(svc.store.r) == 0


def test_a_poisoned_reminder_or_deadline_does_not_stop_the_sweep(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": [2]})
    notifier.notify(gid, 1)
    r = svc.store.r
    # entries that cannot be read, scored before the good ones
    for m, t in {"garbage": 1, f"{gid}:x:1:2": 2, f"{gid}:0:1:two": 3, "nogame:0:1:2": 4}.items():
        r.zadd(REMINDERS.key_of(m), {m: t})
    for m, t in {"junk": 1, f"{gid}:zero:1": 2, "nogame:0:1": 3}.items():
        r.zadd(DEADLINES.key_of(m), {m: t})
    dl = notifier.deadlines()
    clock.t += DAY - H
    assert dl.sweep()["reminders"] == 1, "the good reminder is sent after the bad ones"
    assert REMINDERS.due(r, 10) == [], "bad reminder entries are logged and removed"
    clock.t += 2 * H
    assert dl.sweep()["stand_in_turns"] == 1, "the good deadline is applied after the bad ones"
    assert DEADLINES.due(r, 10) == [], "bad deadline entries are removed"


def test_reminders_move_with_the_deadline_after_a_vacation(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": [2], "vacation_days": 5})
    notifier.notify(gid, 1)
    dl = notifier.deadlines()
    clock.t += 12 * H
    dl.vacation(gid, 0, True)
    clock.t += 3 * DAY                                        # the reminder point passes during the vacation
    assert dl.sweep()["reminders"] == 0, "no reminder while on vacation"
    dl.vacation(gid, 0, False)
    # 11 h 59 of the 12 h left: 1 minute before the point
    clock.t += 9 * H + 59 * 60
    assert dl.sweep()["reminders"] == 0
    clock.t += 2 * 60
    assert dl.sweep()["reminders"] == 1, "the reminder moved back with the deadline"
    assert "due in 1 hour 59 minutes" in subjects(transport)[-1]
    body = plain(transport.sent[-1])
    assert "Your deadline: Sun 22 Nov 2026 09:00 UTC" in body, "the deadline after the vacation"


def test_the_turn_email_states_the_deadline_in_the_players_time_zone(world, app):
    svc, notifier, transport, clock = world
    g = svc.create_game([{"name": "Ada", "email": "ada@x.test", "tz": "Europe/Berlin"},
                         {"name": "Bob", "email": "bob@x.test"}],
                        {"seed": "tz", "time_control": {"days_per_move": 1, "reminders_hours": []}},
                        game="tiletum")
    notifier.notify(g["id"], 1)
    assert "Your deadline: Thu 19 Nov 2026 10:00 CET (in 1 day)." in plain(transport.sent[-1])
    # without a time zone: UTC
    gid, _ = new_game(svc, time_control={"days_per_move": 2.5, "reminders_hours": []})
    notifier.notify(gid, 1)
    assert "Your deadline: Fri 20 Nov 2026 21:00 UTC (in 2 days 12 hours)." in plain(transport.sent[-1])
    # the API takes an IANA name and refuses anything else
    c = app.test_client()
    ok = c.post("/api/v1/games", json={"seats": [{"name": "A", "tz": "America/New_York"}, {"name": "B"}]})
    assert ok.status_code == 201
    assert svc.meta(ok.json["id"])["seats"][0]["tz"] == "America/New_York"
    for bad in ("Mars/Olympus", "../etc/passwd", "", 5):
        rv = c.post("/api/v1/games", json={"seats": [{"name": "A", "tz": bad}, {"name": "B"}]})
        assert rv.status_code == 422, bad


def test_a_player_is_told_when_the_stand_in_played_or_they_were_dropped(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": []},
                      timeout={"mode": "drop", "drop_after": 2})
    notifier.notify(gid, 1)
    dl = notifier.deadlines()
    clock.t += DAY + H
    assert dl.sweep()["stand_in_turns"] == 1
    told = [m for m in transport.sent if str(m["To"]) == "ada@x.test" and "stand-in" in headline(m)]
    assert len(told) == 1, subjects(transport)
    body = told[0].get_body(("plain",)).get_content()
    # what it played, in words
    assert "missed its deadline" in body and "1 of 2" in body and "Ada took" in body
    assert dl.sweep()["notices"] == 0, "told once"
    # seat 1 plays; seat 0 misses a second deadline: dropped, and told so
    _, state = svc.load(gid)
    import tiletum
    while state.actor == 1:
        m = "end" if "end" in tiletum.legal_moves(state) else tiletum.legal_moves(state)[0]
        svc.submit_for_seat(gid, 1, state.version, [m])
        _, state = svc.load(gid)
    notifier.notify(gid, state.version)
    clock.t += DAY + H
    assert dl.sweep()["stand_in_turns"] == 1
    dropped = [m for m in transport.sent if str(m["To"]) == "ada@x.test" and "dropped" in headline(m)]
    assert len(dropped) == 1, subjects(transport)
    assert "for the rest of the game" in dropped[0].get_body(("plain",)).get_content()


def test_since_your_last_turn_is_told_in_words_with_names(world):
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"reminders_hours": []})
    import tiletum
    for seat in (0, 1):   # each seat plays a whole turn: a die, the action, end
        _, state = svc.load(gid)
        while state.actor == seat:
            legal = tiletum.legal_moves(state)
            take = [m for m in legal if m.startswith("take ") and ">" not in m]
            m = take[0] if take else ("end" if "end" in legal else legal[0])
            svc.submit_for_seat(gid, seat, state.version, [m])
            _, state = svc.load(gid)
    _, state = svc.load(gid)
    assert state.actor == 0
    notifier.notify(gid, state.version)
    body = plain(transport.sent[-1])
    since = body.split("Since your last turn:")[1].split("\n\n")[0]
    assert "Bob took the " in since and " die: 2 Food and the " in since, since
    assert "Bob ended their turn" in since
    for raw in ("played take", "played end", "seat 1", ": End your turn"):
        assert raw not in since, since
    assert "Scores of the others: Bob " in body, "names, not seat numbers"


def test_every_email_has_date_message_id_threading_and_one_click_unsubscribe(world):
    svc, notifier, transport, clock = world
    from mail.compose import message_id
    assert message_id("turn:g:0:1", "pbem.test") == message_id("turn:g:0:1",
                                                               "pbem.test"), "stable per once-key"
    assert message_id("turn:g:0:1", "pbem.test") != message_id("turn:g:0:2", "pbem.test")
    gid, _ = new_game(svc, time_control={"days_per_move": 1, "reminders_hours": [2]},
                      timeout={"mode": "drop", "drop_after": 1})
    notifier.cfg.pictures = False   # a whole game of headers: the pictures (a second each) add nothing here
    notifier.notify(gid, 1)
    first = transport.sent[-1]
    clock.t += DAY - H
    notifier.deadlines().sweep()                              # a reminder
    clock.t += 2 * H
    notifier.deadlines().sweep()                              # the stand-in plays, and Ada is told
    import tiletum
    _, state = svc.load(gid)
    while state.phase != "over":                              # to the end: turn emails and the results
        notifier.notify(gid, state.version)
        _, state = svc.load(gid)
        if state.phase == "over":
            break
        legal = tiletum.legal_moves(state)
        svc.submit_for_seat(gid, state.actor, state.version, ["end" if "end" in legal else legal[0]])
        _, state = svc.load(gid)
    notifier.notify(gid, state.version)
    kinds = set()
    for msg in transport.sent:
        subject = headline(msg)
        assert msg["Date"] and msg["Message-ID"], subject
        assert msg["Message-ID"].endswith("@pbem.test>"), msg["Message-ID"]
        assert msg["List-Unsubscribe"].startswith("<http://x/email/unsubscribe?"), subject   # a page
        assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click", subject
        if str(msg["To"]) == "bob@x.test" and "your turn" in subject.lower() and msg is not transport.sent[0]:
            kinds.add("bob-turn")
        if str(msg["To"]) == "ada@x.test" and msg is not first:
            kinds.add("ada-thread")
            assert first["Message-ID"] in msg["References"].split(), subject
    assert {"ada-thread", "bob-turn"} <= kinds
    # one conversation per game and seat in every client: the same subject, and each email replies
    # to the one before it, referencing the root and the latest ones (capped, the root kept)
    ada = [m for m in transport.sent if str(m["To"]) == "ada@x.test"]
    assert len(ada) > 3 and len({str(m["Subject"]) for m in ada}) == 1, {str(m["Subject"]) for m in ada}
    assert str(ada[0]["Subject"]) == f"Tiletum with Bob (game {gid})"
    lengths = []
    for prev, msg in zip(ada, ada[1:]):
        refs = msg["References"].split()
        assert msg["In-Reply-To"] == prev["Message-ID"] and refs[-1] == prev["Message-ID"], headline(msg)
        assert refs[0] == first["Message-ID"] and len(refs) == len(set(refs))
        lengths.append(len(refs))
    assert lengths == [min(n, 20) for n in range(1, len(ada))], "the chain grows to its cap"
    ids = [m["Message-ID"] for m in transport.sent]
    assert len(ids) == len(set(ids)), "one Message-ID per email"


def inline_pictures(msg) -> tuple[str, dict[str, bytes]]:
    """The HTML of an email and the pictures it carries, by Content-ID (without the brackets)."""
    html = next(p for p in msg.walk()
                if p.get_content_type() == "text/html").get_payload(decode=True).decode()
    return html, {str(p["Content-ID"]).strip("<>"): p.get_payload(decode=True)
                  for p in msg.walk() if p.get_content_type() == "image/png"}


def test_the_turn_email_carries_the_board_of_its_own_version_inline(world, app):
    """The board is in the email (multipart/related, shown by cid:), not a remote image a client
    blocks or that shows a later position: an old email keeps the position it describes."""
    import tiletum
    from application.board_svg import board_picture, email_pictures
    from mail import board_png
    svc, notifier, transport, clock = world
    gid, _ = new_game(svc, time_control={"reminders_hours": []})
    notifier.notify(gid, 1)
    msg = transport.sent[-1]
    assert msg.get_content_type() == "multipart/alternative"
    text, related = msg.get_payload()
    assert text.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    html, pictures = inline_pictures(msg)
    # the shared table and the seat's own board, each laid out for a phone
    # (tests/test_email_picture_legible.py)
    assert len(pictures) == 2 and "board.png?v=" not in html
    cid = next(c for c in pictures if c.startswith("board."))
    png = pictures[cid]
    yours = next(v for c, v in pictures.items() if c.startswith("yours."))
    assert board_png.png_width(yours) == 360 and 'alt="Your own board' in html
    assert f'<img src="cid:{cid}" alt="The Tiletum table, round 1' in html, "referenced, with alt text"
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and board_png.png_width(png) == 360
    size = len(msg.as_bytes())
    print(f"turn email: {size} bytes, the board {len(png)} bytes")
    assert size < 300_000, "small enough for any mailbox"
    assert "/api/v1/" not in plain(msg) and f"/play/{gid}#token=" in plain(msg), "links open pages"
    assert "Resources:" in plain(msg) and "Dice on the Action Wheel:" in plain(msg), "the position in words"
    # Ada plays on: the earlier email's picture is still the board of version 1, exactly
    meta, before = svc.load(gid)
    move = next(m for m in tiletum.legal_moves(before) if m.startswith("take"))
    svc.submit_for_seat(gid, 0, 1, [move])
    meta, after = svc.load(gid)
    board_png.cache_clear()
    drawn = {name: svg for name, _alt, svg in email_pictures(meta, before, 0)}["board"]
    assert png == board_png.svg_to_png(drawn, 360), "a fresh render of version 1"
    later = {name: svg for name, _alt, svg in email_pictures(meta, after, 0)}["board"]
    assert png != board_png.svg_to_png(later, 360)
    # the email's is the shared table, not the seats' boards (its own is pictured on its own): the
    # page's has every one
    assert "Ada (to act)" in board_picture(meta, before) and "Ada (to act)" not in drawn
    # the API still serves the board as PNG for the pages
    rv = app.test_client().get(f"/api/v1/games/{gid}/board.png")
    assert rv.status_code == 200 and rv.mimetype == "image/png" and board_png.png_width(rv.data) == 800


def test_the_board_picture_draws_every_label_with_the_fonts_it_finds():
    """Only characters every sans-serif font has (Latin-1 and a few dashes): the Cathedral's cross
    and the pointer to the seat to act are drawn as shapes or words; and the picture is as wide as
    its longest label, so nothing is cut off at the right edge."""
    import re
    from xml.sax.saxutils import unescape

    import tiletum
    from tiletum.svg import WIDTH, render_board_svg
    state, _ = tiletum.new_game(4, "glyphs")
    long = ["Ada", "Bob", "Maximiliane Charlotte von Hohenzollern-Sigmaringen", "Dan"]
    svg = render_board_svg(state, long)
    texts = [unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)<", svg)]
    odd = {ch for t in texts for ch in t if ord(ch) > 0xFF and ch not in "\u2013\u2014"}
    assert not odd, odd
    width = int(re.search(r'<svg[^>]* width="(\d+)"', svg).group(1))
    assert re.search(r'viewBox="0 0 (\d+) ', svg).group(1) == str(width)
    assert width > WIDTH, "widened for the long name"
    assert render_board_svg(state, ["Ada", "Bob", "Cid", "Dan"]).startswith(
        f'<svg xmlns="http://www.w3.org/2000/svg" '
                                                                          f'width="{WIDTH}"')


# --- issue 13: anybody may enter anybody's address: the first email says why and stops all mail --

def test_the_first_email_to_a_stranger_says_why_and_stops_all_mail_in_one_click(world, app):
    import tiletum
    from tests.conftest import make_app
    import secrets
    svc, notifier, transport, clock = world
    fresh = [f"{name}-{secrets.token_hex(4)}@x.test" for name in ("ada", "bob")]  # never emailed before

    def game():
        return svc.create_game([{"name": "Ada", "email": fresh[0]}, {"name": "Bob", "email": fresh[1]}],
                               {"seed": "deadline"}, game="tiletum")["id"]
    gid = game()
    notifier.notify(gid, 1)
    first = transport.sent[-1]
    to = str(first["To"])
    url = notifier.unsubscribe_url(to)
    opening = plain(first).split("It is your", 1)[0]
    assert f"You get this email because {to} was entered as a player" in opening and url in opening
    assert first["List-Unsubscribe"] == f"<{url}>"
    assert first["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"   # RFC 8058: the client's button
    # the address's next email does not repeat it
    _, state = svc.load(gid)
    seat = state.actor
    while svc.load(gid)[1].actor == seat:
        s = svc.load(gid)[1]
        legal = tiletum.legal_moves(s)
        svc.submit_for_seat(gid, seat, s.version, ["end" if "end" in legal else legal[0]])
    while svc.load(gid)[1].actor != seat:
        s = svc.load(gid)[1]
        legal = tiletum.legal_moves(s)
        svc.submit_for_seat(gid, s.actor, s.version, ["end" if "end" in legal else legal[0]])
    notifier.notify(gid, svc.load(gid)[1].version)
    assert str(transport.sent[-1]["To"]) == to and "was entered as a player" not in plain(transport.sent[-1])
    # the one click (what a mail client's unsubscribe button POSTs) stops every email to the address
    web = make_app(app.config["REDIS_URL"], MAIL_SECRET="s").test_client()
    assert web.post(url.replace("http://x", ""), data="List-Unsubscribe=One-Click").status_code == 200
    before = len(transport.sent)
    gid2 = game()                                             # a new game with the same address
    notifier.notify(gid2, 1)
    assert all(str(m["To"]) != to for m in transport.sent[before:]), "no more email to that address"


@pytest.mark.parametrize("seconds,words", [
    (3 * DAY - 5, "3 days"),                      # a fresh three-day deadline, not "2 days 23 hours"
    (2 * DAY + 4 * H - 20 * 60, "2 days 4 hours"),
    (2 * DAY + 4 * H + 29 * 60, "2 days 4 hours"),
    (2 * DAY + 4 * H + 31 * 60, "2 days 5 hours"),
    (DAY, "1 day"),
    (DAY + 5 * H, "29 hours"),
    (H + 30 * 60 - 20, "1 hour 30 minutes"),
    (H, "1 hour"),
    (61, "1 minute"),
    (29, "0 minutes"),
    (-40, "0 minutes"),
])
def test_the_time_left_is_rounded_to_the_nearest_unit(seconds, words):
    from application.time_control import remaining_text
    assert remaining_text(seconds) == words


def test_counts_take_the_right_plural():
    from application.time_control import plural
    assert (plural(1, "deadline"), plural(2, "deadline"), plural(0, "game")) == ("1 deadline", "2 deadlines",
                                                                                 "0 games")
