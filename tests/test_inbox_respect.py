"""Issue 40, the when-and-to-whom half: no turn email while a seat plays live, reminders without
bursts, and no one floods another's inbox (docs/pbem.md). Real parts: the project's Redis, a real
SMTP server on loopback, real Celery workers or a real `tablepost serve`."""

from __future__ import annotations

import os
import re
import secrets
import signal
import threading
import time

import pytest
import requests

from application.clock import make_clock
from application.deadlines import Deadlines
from application.game_service import GameService
from application.store import EventStore
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SmtpTransport
from tests.conftest import make_app
from tests.servers import Serve, wait_for
from tests.test_pbem_e2e import Mailboxes, headline, legal_moves_in, own_redis, reply, spawn, text_of  # noqa: F401

API = "/api/v1/games"
H = 3600


def addr(who: str) -> str:
    return f"{who}-{secrets.token_hex(4)}@inbox.test"


def to(boxes: Mailboxes, address: str) -> list:
    with boxes.cond:
        return [m for m in boxes.messages if str(m["To"]) == address]


# --- reminders without bursts -------------------------------------------------------------------


def test_after_a_lag_only_the_most_urgent_reminder_goes_and_never_two_alike(redis_client, monkeypatch):
    """The test clock jumps past three reminder points at once: one reminder (the most urgent), and
    none of the passed points comes later; past the deadline no "due in 0 minutes" reminder."""
    monkeypatch.setenv("TABLEPOST_TEST_CLOCK", "1")
    boxes = Mailboxes()
    boxes.controller.start()
    try:
        svc = GameService(EventStore(redis_client), allow_seeded_games=True)
        cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
        notifier = Notifier(svc, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{boxes.port}")), cfg)
        ada, bob = addr("ada"), addr("bob")
        g = svc.create_game(
            [{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
            {"seed": "burst", "time_control": {"days_per_move": 1, "reminders_hours": [12, 2, 1, 0.5]}},
            game="tiletum",
        )
        redis_client.set("clock:offset", 0)
        assert notifier.notify(g["id"], 1) == 1  # Ada's turn email
        boxes.wait_for(1)
        dl = Deadlines(svc, notifier, make_clock(redis_client))
        redis_client.set("clock:offset", 23 * H + 15 * 60)  # a lag: 12 h, 2 h and 1 h points all passed
        assert dl.sweep()["reminders"] == 1
        assert dl.sweep()["reminders"] == 0, "the passed points do not come later"
        boxes.wait_for(2)
        heads = [headline(m) for m in to(boxes, ada)]
        assert heads[1:] == ["Reminder: your move is due in 45 minutes."], heads
        redis_client.set("clock:offset", 23 * H + 45 * 60)  # the half-hour point
        assert dl.sweep()["reminders"] == 1
        boxes.wait_for(3)
        redis_client.set("clock:offset", 23 * H + 45 * 60)  # the same point again (a sweep run twice)
        assert dl.sweep()["reminders"] == 0
        time.sleep(0.3)
        heads = [headline(m) for m in to(boxes, ada)]
        assert heads[1:] == [
            "Reminder: your move is due in 45 minutes.",
            "Reminder: your move is due in 15 minutes.",
        ], heads
        assert len(set(heads)) == len(heads), "never two identical reminders"
        # a reminder whose point passed with its deadline: none (the deadline sweep acts)
        g2 = svc.create_game(
            [{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
            {"seed": "burst2", "time_control": {"days_per_move": 1, "reminders_hours": [1]}},
            game="tiletum",
        )
        redis_client.set("clock:offset", 0)
        notifier.notify(g2["id"], 1)
        redis_client.set("clock:offset", 25 * H)
        assert notifier.remind(g2["id"], 0, 1, 1) == 0
    finally:
        redis_client.delete("clock:offset")
        boxes.controller.stop()


# --- no one floods another's inbox --------------------------------------------------------------


@pytest.fixture()
def workers(own_redis, tmp_path):  # noqa: F811 (the fixture of tests/test_pbem_e2e.py)
    """A real Celery worker (with beat) sending email to a real SMTP server, and the API app in
    this process sending real Celery messages; the limit on emailing strangers at its default."""
    boxes = Mailboxes()
    boxes.controller.start()
    env = dict(
        os.environ,
        REDIS_URL=own_redis.url,
        TABLEPOST_SMTP_URL=f"smtp://127.0.0.1:{boxes.port}",
        TABLEPOST_MAIL_SECRET="flood-secret",
        TABLEPOST_MAIL_DOMAIN="pbem.test",
        TABLEPOST_PUBLIC_URL="http://127.0.0.1:9",
        TABLEPOST_MAIL_DUE_SECONDS="2",
        TABLEPOST_SWEEP_SECONDS="2",
        TABLEPOST_MAIL_PICTURES="0",
    )
    env.pop("TABLEPOST_MAIL_NEW_ADDRESS_DAILY", None)
    log = open(tmp_path / "worker.log", "w")
    proc = spawn(
        [
            "-m",
            "celery",
            "-A",
            "workers.app",
            "worker",
            "-Q",
            "email,sweeps",
            "--pool",
            "solo",
            "-B",
            "--schedule",
            str(tmp_path / "beat"),
            "--loglevel",
            "WARNING",
        ],
        env,
        log,
    )
    app = make_app(own_redis.url, SEND_TASK=None, MAIL_SECRET="flood-secret")
    try:
        yield app, boxes
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
        boxes.controller.stop()
        log.close()


def test_a_flood_at_a_strangers_address_is_answered_by_at_most_the_cap(workers):
    """The attack of issue 40: 5 lobby joins naming the victim's address, then 5 rounds of "create a
    Carcassonne game with the address in 4 seats and 1 open seat, cancel it with the creator token".
    It made 25 emails a minute; now the victim gets at most the daily cap (3), each saying why it
    came with the link that stops every email, and no cancellation at all (not a confirmed seat)."""
    app, boxes = workers
    c = app.test_client()
    victim, host = addr("victim"), addr("host")
    for i in range(5):
        waiting = c.post(
            API, json={"game": "carcassonne", "seats": [{"name": "Host", "email": host}, {"kind": "open"}]}
        ).json
        rv = c.post(f"/api/v1/lobby/{waiting['id']}/join", json={"name": "V", "email": victim})
        assert rv.status_code == 202, rv.json
    for i in range(5):
        g = c.post(
            API,
            json={
                "game": "carcassonne",
                "seats": [{"name": f"V{j}", "email": victim} for j in range(4)] + [{"kind": "open"}],
            },
        )
        assert g.status_code == 201, g.json
        rv = c.delete(
            f"/api/v1/lobby/{g.json['id']}", headers={"Authorization": f"Bearer {g.json['creator_token']}"}
        )
        assert rv.status_code == 200, rv.json
    boxes.wait_for(1)
    time.sleep(8)  # every task done and several sweeps: what was held back stays held back
    got = to(boxes, victim)
    assert 1 <= len(got) <= 3, [headline(m) for m in got]
    for m in got:
        body = text_of(m)
        assert "did not ask for this" in body or "entered " + victim + " as a player" in body, body
        assert "/email/consent?" in body and "choice=refuse" in body, "one click refuses every email"
        assert not re.search(r"\b(Host|V[0-3])\b", body), "no name another person typed, before consent"
        assert m["List-Unsubscribe"] and m["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert "cancelled" not in str(m["Subject"]), "emails about a waiting game: confirmed players only"
    # addresses that acted on our email (they confirmed a join, replied...) are not limited so
    from application.dashboard import mark_verified

    other = addr("other")
    for a in (host, other):
        mark_verified(app.extensions["tablepost.service"].store.r, a)
    for i in range(4):
        g = c.post(
            API,
            json={
                "game": "carcassonne",
                "seats": [{"name": "Host", "email": host}, {"name": "Other", "email": other}],
            },
        )
        assert g.status_code == 201
    wait_for(lambda: len(to(boxes, host)) + len(to(boxes, other)) >= 4, 30, "the four first turn emails")


# --- no email while playing live: a real `tablepost serve` -------------------------------------------


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    from api.redis_server import EmbeddedRedis, free_port

    data = tmp_path_factory.mktemp("live-serve")
    redis_server = EmbeddedRedis(data / "redis").start()
    boxes = Mailboxes()
    boxes.controller.start()
    mailin = free_port()
    server = Serve(
        data,
        "--workers",
        "1",
        "--threads",
        "12",
        "--allow-seeded-games",
        "--mailin-port",
        str(mailin),
        env={
            "REDIS_URL": redis_server.url,
            "TABLEPOST_SMTP_URL": f"smtp://127.0.0.1:{boxes.port}",
            "TABLEPOST_TEST_CLOCK": "1",
            "TABLEPOST_SWEEP_SECONDS": "1",
            "TABLEPOST_MAIL_DUE_SECONDS": "2",
            "TABLEPOST_BOT_DUE_SECONDS": "3",
            "TABLEPOST_STREAM_KEEPALIVE": "2",
            "TABLEPOST_RATE_LIMIT": "0",
            "TABLEPOST_MAIL_DOMAIN": "pbem.test",
        },
        drop_env=("REDIS_URL", "TABLEPOST_MAIL_LIVE_DELAY_MINUTES", "TABLEPOST_MAIL_NEW_ADDRESS_DAILY"),
        boot_seconds=150,
    )
    server.start()
    try:
        yield server, boxes, mailin, redis_server
    finally:
        server.stop()
        boxes.controller.stop()
        redis_server.stop()


class Page:
    """A seat's open game page as far as the service can tell: its event stream, opened with the
    seat's token (as an API client does), read in a thread until closed."""

    def __init__(self, url: str, gid: str, token: str):
        self.resp = requests.get(
            f"{url}{API}/{gid}/stream", headers={"Authorization": f"Bearer {token}"}, stream=True, timeout=30
        )
        assert self.resp.status_code == 200
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for _ in self.resp.iter_lines():
                pass
        except Exception:
            pass

    def close(self):
        self.resp.close()


def play_one(url: str, gid: str, token: str) -> dict:
    me = {"Authorization": f"Bearer {token}"}
    legal = requests.get(f"{url}{API}/{gid}/legal-moves", headers=me, timeout=10).json()
    move = next(m["move"] for m in legal["moves"])
    rv = requests.post(
        f"{url}{API}/{gid}/moves",
        headers=me,
        timeout=10,
        json={"expected_version": legal["version"], "moves": [move]},
    )
    assert rv.status_code == 200, rv.text
    return rv.json()


def my_turn_again(url: str, gid: str, seat: int, after: int):
    def check():
        s = requests.get(f"{url}{API}/{gid}", timeout=10).json()
        return s if s["version"] > after and s["to_act"] == [seat] else None

    return wait_for(check, 90, "the AI's answer")


def test_a_game_against_the_ai_played_live_sends_no_turn_email_then_one_after_the_grace(serve):
    server, boxes, _, redis_server = serve
    import redis

    r = redis.Redis.from_url(redis_server.url)
    r.delete("clock:offset")
    ada = addr("ada")
    g = requests.post(
        server.url + API,
        timeout=10,
        json={
            "game": "carcassonne",
            "seats": [{"name": "Ada", "email": ada}, {"name": "Robo", "kind": "ai", "level": "easy"}],
            "options": {"seed": "live-1"},
        },
    ).json()
    gid, token = g["id"], g["seats"][0]["token"]
    page = Page(server.url, gid, token)
    s = requests.get(f"{server.url}{API}/{gid}", timeout=10).json()
    if s["to_act"] != [0]:
        s = my_turn_again(server.url, gid, 0, 0)
    for _ in range(4):  # four decisions, the AI answering each
        version = play_one(server.url, gid, token)["version"]
        s = my_turn_again(server.url, gid, 0, version)
    time.sleep(4)  # sweeps run: nothing is due while the page is open
    assert to(boxes, ada) == [], [headline(m) for m in to(boxes, ada)]
    # the page closes (the server finds its stream gone at the next keep-alive, every 2 s here), Ada
    # plays one more move through the API and looks no more: the AI answers
    page.close()
    time.sleep(6)
    version = play_one(server.url, gid, token)["version"]
    s = my_turn_again(server.url, gid, 0, version)
    time.sleep(3)
    assert to(boxes, ada) == [], "not at once: the grace period first"
    r.set("clock:offset", 6 * 60)  # past the 5-minute grace, on every process's clock
    try:
        wait_for(lambda: to(boxes, ada), 30, "the turn email after the grace")
        time.sleep(3)
        got = to(boxes, ada)
        assert len(got) == 1, [headline(m) for m in got]
        assert str(s["version"]) in got[0]["Reply-To"].split(".")[2], "the decision the seat has now"
    finally:
        r.delete("clock:offset")


def test_a_whole_game_against_the_ai_on_its_page_sends_only_the_results(serve):
    """Issue 40's report: one Carcassonne game against the AI played on its page sent 37 emails. Played
    to its end through the API with the seat's stream open: no turn email, and the results email."""
    server, boxes, _, _ = serve
    ada = addr("ada")
    g = requests.post(
        server.url + API,
        timeout=10,
        json={
            "game": "carcassonne",
            "seats": [{"name": "Ada", "email": ada}, {"name": "Robo", "kind": "ai", "level": "easy"}],
            "options": {"seed": "live-whole"},
        },
    ).json()
    gid, token = g["id"], g["seats"][0]["token"]
    page = Page(server.url, gid, token)
    deadline = time.monotonic() + 240
    try:
        while True:
            s = requests.get(f"{server.url}{API}/{gid}", timeout=10).json()
            if s["status"] == "finished":
                break
            assert time.monotonic() < deadline, f"the game stalled at version {s['version']}"
            if s["to_act"] == [0]:
                play_one(server.url, gid, token)
            else:
                time.sleep(0.2)
    finally:
        page.close()
    got = wait_for(lambda: to(boxes, ada), 30, "the results email")
    time.sleep(3)
    got = to(boxes, ada)
    assert [headline(m).split(":")[0] for m in got] == ["Game over"], [headline(m) for m in got]
    body = text_of(got[0])
    assert f"entered {ada} as a player" in body, "why it came, to an address that has not accepted"
    assert "choice=accept" in body and "choice=refuse" in body, "how to accept or refuse"


def test_an_email_played_seat_gets_its_turn_email_at_once_and_a_looked_at_turn_after_the_grace(serve):
    server, boxes, mailin, redis_server = serve
    import redis

    r = redis.Redis.from_url(redis_server.url)
    r.delete("clock:offset")
    ada, bob = addr("ada"), addr("bob")
    g = requests.post(
        server.url + API,
        timeout=10,
        json={
            "game": "carcassonne",
            "seats": [{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
            "options": {"seed": "live-2"},
        },
    ).json()
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    first = wait_for(lambda: to(boxes, ada), 30, "Ada's first turn email")  # never acted: at once
    reply(mailin, first[0], ada, legal_moves_in(first[0])[0])

    def bobs_turn():
        return requests.get(f"{server.url}{API}/{gid}", timeout=10).json()["to_act"] == [1]

    wait_for(bobs_turn, 30, "Ada's reply played")
    # Bob plays through the API: Ada, whose last action came by email, gets her email at once
    t0 = time.monotonic()
    version = play_one(server.url, gid, tokens[1])["version"]
    wait_for(
        lambda: [m for m in to(boxes, ada) if f".{version}." in str(m["Reply-To"])],
        30,
        "Ada's turn email, at once",
    )
    assert time.monotonic() - t0 < 30
    # Ada now plays on the API (live); when her decision comes back she looks at the game (her page
    # reads it) and leaves: her turn email comes once she is no longer live, not at the next reminder
    me = {"Authorization": f"Bearer {tokens[0]}"}
    # her first turn email, the answer to her reply and this turn email: all in before counting
    before = len(
        wait_for(lambda: (lambda got: got if len(got) >= 3 else None)(to(boxes, ada)), 30, "3 emails")
    )
    play_one(server.url, gid, tokens[0])
    version = play_one(server.url, gid, tokens[1])["version"]
    requests.get(f"{server.url}{API}/{gid}/state", headers=me, timeout=10)
    time.sleep(3)
    assert len(to(boxes, ada)) == before, "not while she is live"
    r.set("clock:offset", 6 * 60)
    try:
        wait_for(lambda: len(to(boxes, ada)) > before, 30, "the looked-at turn's email after the grace")
        time.sleep(3)
        got = to(boxes, ada)[before:]
        assert [f".{version}." in str(m["Reply-To"]) for m in got] == [True], [headline(m) for m in got]
    finally:
        r.delete("clock:offset")


def test_a_background_tab_does_not_hold_the_turn_email_and_an_open_page_does(serve):
    """Issue 51: reads with ``hidden=true`` (the page in a background tab) are not looks: the email
    goes after the grace all the same. A page that keeps looking holds it back until it stops."""
    server, boxes, mailin, redis_server = serve
    import redis

    from application.indexes import MAIL_LATER

    r = redis.Redis.from_url(redis_server.url)
    r.delete("clock:offset")
    ada, bob = addr("ada"), addr("bob")
    g = requests.post(
        server.url + API,
        timeout=10,
        json={
            "game": "carcassonne",
            "seats": [{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
            "options": {"seed": "live-3"},
        },
    ).json()
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    me = {"Authorization": f"Bearer {tokens[0]}"}
    first = wait_for(lambda: to(boxes, ada), 30, "Ada's first turn email")   # never acted: at once
    reply(mailin, first[0], ada, legal_moves_in(first[0])[0])   # (an address that answered: no cap)
    wait_for(lambda: requests.get(f"{server.url}{API}/{gid}", timeout=10).json()["to_act"] == [1], 30,
             "Ada's reply played")
    play_one(server.url, gid, tokens[1])
    # her first turn email, the answer to her reply and her next turn email: all in before counting
    n = len(wait_for(lambda: (lambda got: got if len(got) >= 3 else None)(to(boxes, ada)), 30, "3 emails"))

    def decision() -> int:   # Ada plays on the API, Bob answers: Ada's next decision
        play_one(server.url, gid, tokens[0])
        return play_one(server.url, gid, tokens[1])["version"]

    def emails_for(version: int) -> list:
        return [m for m in to(boxes, ada) if f".{version}." in str(m["Reply-To"])]

    def read(hidden: bool) -> None:
        rv = requests.get(f"{server.url}{API}/{gid}/state" + ("?hidden=true" if hidden else ""), headers=me,
                          timeout=10)
        assert rv.status_code == 200, rv.text

    try:
        # a background tab: past the grace it still reads (hidden): the email goes all the same
        version = decision()
        r.set("clock:offset", 6 * 60)
        for _ in range(4):
            read(hidden=True)
            time.sleep(0.5)
        wait_for(lambda: emails_for(version), 30, "the turn email despite the background tab")
        bad = requests.get(f"{server.url}{API}/{gid}/state?hidden=1", headers=me, timeout=10)
        assert bad.status_code == 422 and bad.json()["code"] == "invalid-request"
        # a page kept open (shown): the email waits while it looks, and goes once it has stopped
        version = decision()
        wait_for(lambda: f"{gid}:0:{version}".encode() in MAIL_LATER.due(r, "+inf"), 30, "the email held")
        r.set("clock:offset", 9 * 60)   # the email's grace (5 minutes from 6) not over yet
        read(hidden=False)
        r.set("clock:offset", 11 * 60 + 30)   # the grace over, but Ada looked 2.5 minutes ago
        time.sleep(4)
        assert emails_for(version) == [], "she is looking: no email"
        r.set("clock:offset", 13 * 60)   # 4 minutes since her last look: no longer live
        wait_for(lambda: emails_for(version), 30, "the turn email once she stopped looking")
        time.sleep(3)
        assert len(to(boxes, ada)) == n + 2, [headline(m) for m in to(boxes, ada)]
    finally:
        r.delete("clock:offset")


def test_a_rematch_started_on_the_page_emails_no_one_there_until_they_leave(serve):
    """Issue 51: the rematch emailed a player who was on the page. Its seats whose players are
    live in the old game (they accepted on its page) are live in the new one: the first turn email
    waits, and goes once the player has left."""
    server, boxes, _, redis_server = serve
    import redis

    r = redis.Redis.from_url(redis_server.url)
    r.delete("clock:offset")
    ada, bob = addr("ada"), addr("bob")
    g = requests.post(
        server.url + API,
        timeout=10,
        json={
            "game": "carcassonne",
            "seats": [{"name": "Ada", "email": ada}, {"name": "Bob", "email": bob}],
            "options": {"seed": "live-rematch"},
        },
    ).json()
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
    rv = requests.post(f"{server.url}{API}/{gid}/resign", headers=auth[0], timeout=10)
    assert rv.status_code == 200 and rv.json()["status"] == "finished", rv.text
    # both on the game's page: it reads the game, and each asks (accepts) there
    for seat in (0, 1):
        rv = requests.get(f"{server.url}{API}/{gid}/state", headers=auth[seat], timeout=10)
        assert rv.status_code == 200
        rv = requests.post(f"{server.url}{API}/{gid}/rematch", headers=auth[seat], timeout=10)
        assert rv.status_code == 200, rv.text
    assert rv.json()["status"] == "started"
    new = rv.json()["new_game"]
    first = requests.get(f"{server.url}{API}/{new}", timeout=10).json()["to_act"][0]
    first_addr = [ada, bob][next(s["seat"] for s in rv.json()["seats"] if s["new_seat"] == first)]

    def new_game_emails() -> list:
        return [m for m in to(boxes, first_addr) if new in str(m["Subject"])]

    time.sleep(5)   # the new game's first turn is notified, the sweeps run
    assert new_game_emails() == [], "on the page: no turn email at once"
    r.set("clock:offset", 6 * 60)   # the player left: past the grace
    try:
        wait_for(new_game_emails, 30, "the rematch's turn email once the player left")
    finally:
        r.delete("clock:offset")


# --- the player's setting -------------------------------------------------------------------------


def test_the_wait_is_the_players_choice_and_a_bad_one_changes_nothing(redis_server, redis_client):
    """``delay_minutes`` through the dashboard's API (0: at once, even while playing live), and what
    the notifier does with it: a live seat's turn email waits, one whose player chose 0 goes at once."""
    from application.dashboard import dashboard_key_for

    app = make_app(redis_server.url)
    c = app.test_client()
    ada = addr("ada")
    g = c.post(
        API, json={"seats": [{"name": "Ada", "email": ada}, {"name": "Bob"}], "options": {"seed": "wait"}}
    ).json
    me = {"Authorization": f"Bearer {dashboard_key_for(redis_client, ada)}"}
    assert c.get("/api/v1/me/notifications", headers=me).json == {"mode": "move", "delay_minutes": 5,
                                                                   "language": None, "time_zone": None}
    assert c.put("/api/v1/me/notifications", headers=me, json={"mode": "move", "delay_minutes": 15}).json == {
        "mode": "move",
        "delay_minutes": 15,
        "language": None,
        "time_zone": None,
    }
    for bad in (-1, 1441, "5", True, 2.5):
        rv = c.put("/api/v1/me/notifications", headers=me, json={"mode": "none", "delay_minutes": bad})
        assert rv.status_code == 422 and rv.mimetype == "application/problem+json", bad
        assert rv.json["code"] == "invalid-request"
    assert c.put("/api/v1/me/notifications", headers=me, json={"mode": "move"}).json["delay_minutes"] == 15, (
        "left out: unchanged, and a refused body changed nothing"
    )
    # the notifier: Ada plays through the API (live), Bob answers, her turn email waits
    boxes = Mailboxes()
    boxes.controller.start()
    try:
        svc = app.extensions["tablepost.service"]
        cfg = MailConfig(
            secret="s", domain="pbem.test", from_addr="p@pbem.test", public_url="http://x", live_delay=300
        )
        notifier = Notifier(svc, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{boxes.port}")), cfg)
        tokens = [s["token"] for s in g["seats"]]

        def one_turn(seat: int) -> int:
            while True:
                legal = svc.legal_moves(g["id"], tokens[seat])
                moves = [m["move"] for m in legal["moves"]]
                if not moves:
                    return legal["version"]
                m = "end" if "end" in moves else next((x for x in moves if x.startswith("take")), moves[0])
                svc.submit(g["id"], tokens[seat], legal["version"], [m])

        if svc.summary(g["id"])["to_act"] != [0]:
            one_turn(1)
        one_turn(0)
        version = one_turn(1)
        assert svc.summary(g["id"])["to_act"] == [0]
        assert notifier.notify(g["id"], version) == 0, "live: the email waits"
        from application.indexes import MAIL_LATER

        assert f"{g['id']}:0:{version}".encode() in MAIL_LATER.due(redis_client, "+inf")
        c.put("/api/v1/me/notifications", headers=me, json={"mode": "move", "delay_minutes": 0})
        one_turn(0)
        version = one_turn(1)
        assert notifier.notify(g["id"], version) == 1, "0 minutes: at once, even while playing live"
        boxes.wait_for(1)
    finally:
        boxes.controller.stop()
