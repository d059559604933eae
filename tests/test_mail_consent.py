"""Issue 51: email by consent. One budget per recipient for every email, whatever caused it, with
what a player needs never crowded out by what others cause; an address that has not accepted gets
its game's invitation, then only what keeps it from losing the game silently, and nothing another
person wrote; a refusal is final. Real parts: the project's Redis, a real Celery worker with beat, a
real SMTP server on loopback, the API app sending through it, and the test clock."""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from application import consent
from application.dashboard import mark_verified
from application.players import player_id
from mail.consent import Budget, Gate, Window, windows
from tests.conftest import make_app
from tests.servers import wait_for
from tests.test_pbem_e2e import Mailboxes, headline, own_redis, pbem, reply, spawn, text_of  # noqa: F401

from tests.test_inbox_respect import API, H, addr, to

def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def play_turn(c, game_id: str, token: str, seat: int) -> None:
    """The seat plays its whole turn (its first legal move at each decision) through the API."""
    while True:
        doc = c.get(f"{API}/{game_id}").json
        if doc["to_act"] != [seat]:
            return
        legal = c.get(f"{API}/{game_id}/legal-moves", headers=bearer(token)).json["moves"]
        rv = c.post(f"{API}/{game_id}/moves", headers=bearer(token),
                    json={"moves": [legal[0]["move"]], "expected_version": doc["version"]})
        assert rv.status_code == 200, rv.json


# --- the gate alone, on the real Redis ------------------------------------------------------------


class Clock:
    def __init__(self, t: float = 1_800_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def gate(redis_client, clock, **kw) -> Gate:
    b = dict(needed=windows("4/hour;10/day"), others=windows("2/hour;3/day"), pending_daily=3,
             pending_per_game=3, invitations=2)
    b.update(kw)
    return Gate(redis_client, Budget(**b), clock)


def test_the_budget_counts_each_class_apart_so_what_others_cause_never_crowds_out_a_turn(redis_client):
    clock = Clock()
    g = gate(redis_client, clock)
    who = addr("busy")
    mark_verified(redis_client, who)
    others = [g.check(who, f"newlink:g{i}:1:{i}", game_id=f"g{i}", seat=1).send for i in range(5)]
    assert others == [True, True, False, False, False], "2 an hour of what others cause"
    # the same email again (a sweep's retry) is not charged twice
    assert g.check(who, "newlink:g0:1:0", game_id="g0", seat=1).send
    # the player's own game goes on: its turn emails (its thread begun) draw on the other budget
    turns = [g.check(who, f"turn:mine:1:{v}", game_id="mine", seat=1, thread_open=True).send
             for v in range(5)]
    assert turns == [True] * 4 + [False]
    # a game's first email is caused by whoever created it: the others' budget; a tournament's game
    # the player entered is theirs (the needed budget: here spent too)
    assert not g.check(who, "turn:new:1:1", game_id="new", seat=1, thread_open=False).send
    assert not g.check(who, "turn:tour:1:1", game_id="tour", seat=1, own_game=True).send
    other = addr("entrant")
    mark_verified(redis_client, other)
    for i in range(3):
        g.check(other, f"talk:g{i}:1:{i}", game_id=f"g{i}", seat=1)
    assert g.check(other, "turn:tour:0:1", game_id="tour", seat=0, own_game=True).send, \
        "a tournament's first email is not crowded out by what others caused"
    assert not g.check(other, "turn:x:0:1", game_id="x", seat=0).send
    # an hour later, the hour's windows are new; the day's are not
    clock.t += H
    assert g.check(who, "newlink:g9:1:9", game_id="g9", seat=1).send
    assert not g.check(who, "newlink:g10:1:10", game_id="g10", seat=1).send, "3 a day"
    held = consent.held_of(redis_client, player_id(redis_client, who))
    assert held and {h["reason"] for h in held} == {"budget", "budget-needed"}
    assert all(h["why"] for h in held)


def test_an_address_that_has_not_accepted_gets_its_invitation_and_what_its_game_needs_only(redis_client):
    clock = Clock()
    g = gate(redis_client, clock)
    new = addr("new")
    first = g.check(new, "turn:a:1:1", game_id="a", seat=1)
    assert first.send and first.audience == consent.PENDING
    assert not g.check(new, "turn:a:1:5", game_id="a", seat=1, thread_open=True).send, \
        "its next turns wait for its consent"
    assert not g.check(new, "talk:a:1:3", game_id="a", seat=1, thread_open=True).send, \
        "never what another person wrote"
    assert not g.check(new, "newlink:a:1:2", game_id="a", seat=1, thread_open=True).send
    assert g.check(new, "reminder:a:1:5:2", game_id="a", seat=1, thread_open=True).send
    assert g.check(new, "final:a:1", game_id="a", seat=1, thread_open=True).send
    # three a day: a fourth game's invitation waits for tomorrow, and the unanswered ones are bounded
    assert not g.check(new, "turn:b:0:1", game_id="b", seat=0).send
    clock.t += 86400
    assert g.check(new, "turn:b:0:1", game_id="b", seat=0).send
    assert not g.check(new, "turn:c:0:1", game_id="c", seat=0).send, "2 unanswered invitations at most"
    reasons = [h["reason"] for h in consent.held_of(redis_client, player_id(redis_client, new))]
    assert "consent" in reasons and "consent-limit" in reasons
    # it accepts: everything follows, within the budget of an accepted address
    consent.accept(redis_client, new, clock())
    assert g.check(new, "talk:a:1:3", game_id="a", seat=1, thread_open=True).send
    # it refuses: nothing more, whatever the kind
    consent.refuse(redis_client, new, clock())
    assert not g.check(new, "final:b:0", game_id="b", seat=0, thread_open=True).send


def test_budget_settings_are_checked_at_start(monkeypatch):
    from mail.mailconfig import MailConfig
    assert windows("5/hour;15/day") == (Window(5, 3600), Window(15, 86400))
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "s")
    monkeypatch.setenv("TABLEPOST_MAIL_BUDGET_OTHERS", "five a day")
    with pytest.raises(RuntimeError, match="TABLEPOST_MAIL_BUDGET_OTHERS"):
        MailConfig.from_env()
    monkeypatch.setenv("TABLEPOST_MAIL_BUDGET_OTHERS", "off")
    assert MailConfig.from_env().budget().others is None


# --- floods from one client, with a real worker and a real SMTP server ---------------------------


@pytest.fixture()
def world(own_redis, tmp_path):  # noqa: F811 (the fixture of tests/test_pbem_e2e.py)
    """A real Celery worker (with beat) sending email to a real SMTP server, on the test clock; the
    API app in this process; the mail settings at their defaults."""
    boxes = Mailboxes()
    boxes.controller.start()
    env = dict(os.environ, REDIS_URL=own_redis.url, TABLEPOST_SMTP_URL=f"smtp://127.0.0.1:{boxes.port}",
               TABLEPOST_MAIL_SECRET="consent-secret", TABLEPOST_MAIL_DOMAIN="pbem.test",
               TABLEPOST_PUBLIC_URL="http://127.0.0.1:9", TABLEPOST_MAIL_DUE_SECONDS="1",
               TABLEPOST_SWEEP_SECONDS="1", TABLEPOST_MAIL_PICTURES="0", TABLEPOST_TEST_CLOCK="1")
    for name in ("TABLEPOST_MAIL_NEW_ADDRESS_DAILY", "TABLEPOST_MAIL_BUDGET_OTHERS",
                 "TABLEPOST_MAIL_BUDGET_NEEDED"):
        env.pop(name, None)
    log = open(tmp_path / "worker.log", "w")
    proc = spawn(["-m", "celery", "-A", "workers.app", "worker", "-Q", "email,sweeps", "--pool", "solo", "-B",
                  "--schedule", str(tmp_path / "beat"), "--loglevel", "WARNING"], env, log)
    app = make_app(own_redis.url, SEND_TASK=None, MAIL_SECRET="consent-secret", CREATE_LIMIT="1000/hour",
                   RATE_LIMIT=0)
    r = app.extensions["tablepost.service"].store.r
    r.set("clock:offset", 0)
    try:
        yield app, boxes, r
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
        boxes.controller.stop()
        log.close()


def settle(boxes: Mailboxes, seconds: float = 6.0) -> None:
    """Wait until no email arrived for a few sweeps."""
    last, quiet_since = -1, time.monotonic()
    while time.monotonic() - quiet_since < seconds:
        with boxes.cond:
            n = len(boxes.messages)
        if n != last:
            last, quiet_since = n, time.monotonic()
        time.sleep(0.5)


def test_a_rematch_chain_and_link_reissues_bring_a_real_player_a_handful(world):
    """The attacks of issue 51 from one client, with the create limit out of the way (its own test is
    the API's): a rematch chain (the creator holds every seat's token: resign, rematch, again) and a
    seat's link re-issued again and again. The victim, an address that accepted our email long ago,
    gets at most the others' budget (5 an hour); its own game with a friend still brings its turn."""
    app, boxes, r = world
    c = app.test_client()
    victim, attacker, friend = addr("victim"), addr("attacker"), addr("friend")
    for a in (victim, attacker, friend):
        mark_verified(r, a)
    # the victim's own game: it moves first, so its first turn email opens the game's thread
    own = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Vic", "email": victim},
                                                             {"name": "Fay", "email": friend}]}).json
    wait_for(lambda: to(boxes, victim), 30, "the victim's own first turn")
    start = time.monotonic()
    g = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Att", "email": attacker},
                                                           {"name": "Vic", "email": victim}]}).json
    tokens = [s["token"] for s in g["seats"]]
    rounds = 0
    for _ in range(12):
        rv = c.post(f"{API}/{g['id']}/resign", headers=bearer(tokens[0]))
        assert rv.status_code == 200, rv.json
        for t in tokens:
            rm = c.post(f"{API}/{g['id']}/rematch", headers=bearer(t))
            assert rm.status_code in (200, 201), rm.json
        assert rm.json["new_game"], rm.json   # the same tokens hold the seats of the new game
        g = {"id": rm.json["new_game"]}
        rounds += 1
    for _ in range(30):
        rv = c.post(f"{API}/{own['id']}/seats/1/link", headers=bearer(own["seats"][1]["token"]))
        if rv.status_code != 200:
            break
    settle(boxes)
    took = time.monotonic() - start
    got = to(boxes, victim)
    flood = [m for m in got if "Fay" not in str(m["Subject"])]
    assert rounds == 12
    assert len(flood) <= 5, [str(m["Subject"]) for m in flood]
    pid = player_id(r, victim)
    held = consent.held_of(r, pid)
    assert held and all(h["reason"] == "budget" for h in held), held
    print(f"\nflood: {rounds} rematches in {took:.0f} s brought the victim {len(flood)} emails; "
          f"{len(held)} held (listed on the dashboard)")
    # the friend's link re-issues drew on the friend's budget, not the victim's; the victim's own
    # game goes on: its turn comes by email although others spent its budget
    mine = [m for m in got if "Fay" in str(m["Subject"])]
    assert len(mine) == 1
    ctok, ftok = own["seats"][0]["token"], own["seats"][1]["token"]
    c.put(f"{API}/{own['id']}/notifications", headers=bearer(ctok), json={"mode": "move", "delay_minutes": 0})
    play_turn(c, own["id"], ctok, 0)
    play_turn(c, own["id"], ftok, 1)
    wait_for(lambda: len([m for m in to(boxes, victim) if "Fay" in str(m["Subject"])]) >= 2, 30,
             "the victim's next turn, past the flood")
    # an hour later (the test clock) the others' budget has room again: one more round gets through
    r.incrbyfloat("clock:offset", H + 60)
    before = len(to(boxes, victim))
    c.post(f"{API}/{g['id']}/resign", headers=bearer(tokens[0]))
    wait_for(lambda: len(to(boxes, victim)) > before, 30, "an email an hour later")


def test_a_new_address_is_invited_accepts_by_click_and_refuses(world):
    """A new address gets one email of a game it was entered in: its invitation, with no name anyone
    typed, and accept and refuse links; the rest of its game waits (held, and said so on its
    dashboard); its reminder and its results still come. Accepting by the link lets the game's
    emails follow; refusing stops everything."""
    app, boxes, r = world
    c = app.test_client()
    host, new = addr("host"), addr("new")
    mark_verified(r, host)
    g = c.post(API, json={"game": "carcassonne",
                          "seats": [{"name": "Mallory https", "email": host}, {"name": "Zed", "email": new}],
                          "options": {"time_control": {"days_per_move": 1, "reminders_hours": [2]}}}).json
    htok, ntok = g["seats"][0]["token"], g["seats"][1]["token"]

    def play(tok, seat):
        play_turn(c, g["id"], tok, seat)
    play(htok, 0)
    inv = wait_for(lambda: to(boxes, new), 30, "the invitation")[0]
    body = text_of(inv)
    assert f"entered {new} as a player" in body
    assert not re.search(r"\b(Mallory|Zed)\b", body + str(inv["Subject"])), "no name anyone typed"
    accept = re.search(r"(http://\S+/email/consent\?\S*choice=accept\S*)", body).group(1)
    refuse = re.search(r"(http://\S+/email/consent\?\S*choice=refuse\S*)", body).group(1)
    # the new address's seat is played through the API by whoever holds its token (the creator):
    # its next turn email is held, not sent, and its dashboard would say so
    play(ntok, 1)
    play(htok, 0)
    r.incrbyfloat("clock:offset", 600)   # past the grace of a seat played live (its token was used)
    pid = player_id(r, new)
    wait_for(lambda: consent.held_of(r, pid, g["id"]), 30, "the turn email held back")
    assert [h["reason"] for h in consent.held_of(r, pid, g["id"])] == ["consent"]
    assert len(to(boxes, new)) == 1, [headline(m) for m in to(boxes, new)]
    # the game page opened from the email's link says so; the creator's seat token is told nothing
    # (it would tell whether the address plays here)
    from application.links import seat_token
    held = c.get(f"{API}/{g['id']}/held-emails", headers=bearer(seat_token(r, g["id"], 1))).json
    assert [h["kind"] for h in held["held"]] == ["turn"] and held["held"][0]["why"]
    rv = c.get(f"{API}/{g['id']}/held-emails", headers=bearer(ntok))
    assert rv.status_code == 403 and rv.json["code"] == "link-token-required"
    assert c.get(f"{API}/{g['id']}/held-emails").status_code == 401
    assert c.get(f"{API}/{g['id']}/held-emails", headers=bearer(seat_token(r, g["id"], 0))).json["held"] == []
    # its reminder before the deadline still comes (the test clock: 22 hours on)
    # (the decision's deadline starts when the worker handles it: before or after the jump above)
    r.incrbyfloat("clock:offset", 22 * H + 120)
    wait_for(lambda: len(to(boxes, new)) >= 2, 40, "the reminder before accepting")
    rem = to(boxes, new)[-1]
    assert headline(rem).startswith("Reminder"), headline(rem)
    assert not re.search(r"\b(Mallory|Zed)\b", text_of(rem))
    # opening the link accepts nothing (mail scanners open links); its button does
    path = accept.split("127.0.0.1:9", 1)[1]
    assert c.get(path, headers={"Accept": "text/html"}).status_code == 200
    assert consent.audience(r, new) == consent.PENDING
    assert c.post(path, headers={"Accept": "text/html"}).status_code == 200
    assert consent.audience(r, new) == consent.ACCEPTED
    # refused: the results of the game never come
    assert c.post(refuse.split("127.0.0.1:9", 1)[1], headers={"Accept": "text/html"}).status_code == 200
    n = len(to(boxes, new))
    assert c.post(f"{API}/{g['id']}/resign", headers=bearer(htok)).status_code == 200
    wait_for(lambda: any(headline(m).startswith("Game over") for m in to(boxes, host)), 30,
             "the host's results")
    settle(boxes, 3)
    assert len(to(boxes, new)) == n, "nothing after a refusal"
    # a forged accept link is refused and changes nothing
    assert c.post(path[:-3] + "xyz", headers={"Accept": "text/html"}).status_code == 403


def test_any_reply_from_the_invited_address_accepts(pbem):  # noqa: F811 (the fixture)
    """An invitation answered by a reply with no move at all (a greeting) accepts our email: the
    address's next emails name the players again."""
    app, boxes, mailin_port = pbem
    c = app.test_client()
    r = app.extensions["tablepost.service"].store.r
    new = addr("replier")
    g = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Nia", "email": new},
                                                           {"name": "Oz", "email": addr("oz")}]}).json
    inv = boxes.wait_until(lambda m: str(m["To"]) == new)[0]
    assert "choice=accept" in text_of(inv) and consent.audience(r, new) == consent.PENDING
    reply(mailin_port, inv, new, "Hello! Happy to play.")
    wait_for(lambda: consent.audience(r, new) == consent.ACCEPTED, 30, "the reply's acceptance")
    assert g["id"]


def test_a_flood_of_games_at_a_new_address_brings_a_few_invitations_a_day(world):
    """One client names a new address in game after game (it moves first: each game's first email
    is due at once). The address gets 3 a day, and 5 unanswered invitations in all; none names
    anyone; the rest is held and said so."""
    app, boxes, r = world
    c = app.test_client()
    new, host = addr("target"), addr("host")
    mark_verified(r, host)

    def flood(n: int) -> None:
        for i in range(n):
            rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": f"Bait{i}", "email": new},
                                                                    {"name": "Host", "email": host}]})
            assert rv.status_code == 201, rv.json
        settle(boxes, 5)
    flood(10)
    day1 = len(to(boxes, new))
    r.incrbyfloat("clock:offset", 86400 + 60)
    flood(10)
    day2 = len(to(boxes, new)) - day1
    print(f"\nnew address: 20 games in two days brought {day1} then {day2} emails")
    assert day1 == 3 and day2 == 2, (day1, day2)
    for m in to(boxes, new):
        assert not re.search(r"\b(Bait\d+|Host)\b", text_of(m) + str(m["Subject"]))
    held = consent.held_of(r, player_id(r, new))
    assert {h["reason"] for h in held} == {"consent-limit"}


def test_tournament_entry_asks_naming_an_address_again_and_again(world):
    """One client asks, again and again, to enter an address in a tournament (each ask emails the
    address its confirmation link): a new address gets 3 a day, none with the tournament's name;
    a real player 5 an hour, the others' budget."""
    app, boxes, r = world
    c = app.test_client()
    new, real = addr("entrant"), addr("player")
    mark_verified(r, real)
    t = c.post("/api/v1/tournaments", json={
        "name": "Spring Cup", "format": "round_robin", "table_size": 2, "invite": True,
        "entries": [{"name": "Ann", "email": addr("ann")}, {"name": "Bob", "email": addr("bob")}]})
    assert t.status_code == 201, t.json
    for who in (new, real):
        for i in range(12):
            rv = c.post(f"/api/v1/tournaments/{t.json['id']}/entries",
                        json={"name": f"Probe{i}", "email": who, "invite": t.json["invite_code"]})
            assert rv.status_code in (200, 202), rv.json
    settle(boxes, 5)
    got_new, got_real = to(boxes, new), to(boxes, real)
    print(f"\ntournament asks: 12 each brought a new address {len(got_new)}, a player {len(got_real)}")
    assert len(got_new) == 3 and len(got_real) == 5, (len(got_new), len(got_real))
    for m in got_new:
        assert "Spring Cup" not in text_of(m) + str(m["Subject"]) and not re.search(r"\bProbe\d+", text_of(m))
