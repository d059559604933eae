"""The player dashboard (docs/pbem.md, "Your dashboard") and the seat links of emails: one
address with several games made through the API; its games by urgency, its email setting and
vacation over /api/v1/me with its dashboard key; the game page opened as the seat from a link
token in the URL fragment; the dashboard link in the address's first email over real SMTP."""
from __future__ import annotations

import re
import uuid
from urllib.parse import urlsplit

import html5lib
import pytest

import tiletum
from application import links
from application.dashboard import dashboard_key_for
from tests.conftest import make_app
from application.deadlines import Deadlines
from games.tiletum import stand_in_move
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox

PUBLIC = "http://pbem.test"


class Captured:
    """A mail transport that keeps what it is given."""

    def __init__(self):
        self.messages = []

    def send(self, message) -> None:
        self.messages.append(message)


def address(who: str = "me") -> str:
    return f"{who}-{uuid.uuid4().hex[:10]}@players.test"


@pytest.fixture()
def setup(redis_server):
    app = make_app(redis_server.url)
    service = app.extensions["tablepost.service"]
    transport = Captured()
    notifier = Notifier(service, Outbox(service.store.r, transport),
                        MailConfig(secret="dash-secret", domain="pbem.test", from_addr="t@pbem.test",
                                   public_url=PUBLIC))
    return app, app.test_client(), notifier, transport


def create(client, seats: list[dict], seed: str, **options) -> dict:
    rv = client.post("/api/v1/games", json={"seats": seats, "options": {"seed": seed, **options}})
    assert rv.status_code == 201, rv.get_json()
    return rv.get_json()


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def token_of(play_url: str) -> str:
    fragment = urlsplit(play_url).fragment
    assert fragment.startswith("token="), play_url
    return fragment.removeprefix("token=")


def summary(client, gid: str) -> dict:
    return client.get(f"/api/v1/games/{gid}").get_json()


def play_turn(client, service, gid: str, token: str) -> dict:
    """The seat to act plays its whole decision as the stand-in would, in one request."""
    _, state = service.load(gid)
    seat, seed, moves, s = state.actor, service.store.seed(gid), [], state
    while s.actor == seat and s.phase != "over":
        m = stand_in_move(s)
        _, s = tiletum.play(s, seat, m, seed=seed, trusted=True)
        moves.append(str(m))
    rv = client.post(f"/api/v1/games/{gid}/moves", json={"expected_version": state.version, "moves": moves},
                     headers=auth(token))
    assert rv.status_code == 200, rv.get_json()
    return rv.get_json()


def finish(client, service, gid: str) -> None:
    """Play the game to its end over the API, each seat with its seat link token."""
    r = service.store.r
    while True:
        _, state = service.load(gid)
        if state.phase == "over":
            return
        play_turn(client, service, gid, links.seat_token(r, gid, state.actor))


# --- seat link tokens ------------------------------------------------------------------------

def test_a_link_token_is_its_seat_in_its_game_and_nothing_else(setup):
    app, client, _, _ = setup
    r = app.extensions["tablepost.service"].store.r
    a = create(client, [{"name": "Ada"}, {"name": "Bob"}], "links-a")
    b = create(client, [{"name": "Cy"}, {"name": "Di"}], "links-b")
    ga, gb = a["id"], b["id"]
    for seat in (0, 1):
        token = links.seat_token(r, ga, seat)
        assert re.fullmatch(r"L[0-9]\.[a-z2-7]{32}", token)
        rv = client.get(f"/api/v1/games/{ga}/legal-moves", headers=auth(token))
        assert rv.status_code == 200 and rv.get_json()["seat"] == seat
        assert client.get(f"/api/v1/games/{ga}/state", headers=auth(token)).get_json()["viewer"] == seat
        rv = client.get(f"/api/v1/games/{gb}/legal-moves", headers=auth(token))
        assert (rv.status_code, rv.get_json()["code"]) == (401, "unauthorized"), "not another game"
    token0 = links.seat_token(r, ga, 0)
    actor = summary(client, ga)["to_act"][0]
    other = links.seat_token(r, ga, 1 - actor)
    rv = client.post(f"/api/v1/games/{ga}/moves", json={"expected_version": 1, "moves": ["end"]},
                     headers=auth(other))
    assert rv.get_json()["code"] == "not-your-turn", "the other seat's link is the other seat"
    forged = [token0[:-1] + ("a" if token0[-1] != "a" else "b"),     # one character changed
              "L1" + token0[2:],                                      # another seat, same MAC
              "L7." + token0[3:],                                     # a seat the game lacks
              token0.upper()]
    for bad in forged:
        rv = client.get(f"/api/v1/games/{ga}/legal-moves", headers=auth(bad))
        assert (rv.status_code, rv.get_json()["code"]) == (401, "unauthorized"), bad
    # the raw tokens shown at creation keep working
    assert client.get(f"/api/v1/games/{ga}/legal-moves",
                      headers=auth(a["seats"][1]["token"])).get_json()["seat"] == 1
    # moves with the link token
    play_turn(client, app.extensions["tablepost.service"], ga, links.seat_token(r, ga, actor))
    assert summary(client, ga)["version"] > 1


def test_no_link_token_for_a_cardinalbot_seat(setup):
    app, client, _, _ = setup
    r = app.extensions["tablepost.service"].store.r
    g = create(client, [{"name": "Ada"}, {"name": "Cardinal", "kind": "cardinalbot"}], "links-solo")
    bot = links.seat_token(r, g["id"], 0)  # the bot is seat 0
    rv = client.get(f"/api/v1/games/{g['id']}/legal-moves", headers=auth(bot))
    assert rv.status_code == 401
    human = links.seat_token(r, g["id"], 1)
    assert client.get(f"/api/v1/games/{g['id']}/legal-moves", headers=auth(human)).get_json()["seat"] == 1


def test_turn_reminder_and_results_emails_open_the_game_page_by_fragment(setup):
    app, client, notifier, transport = setup
    service = app.extensions["tablepost.service"]
    me = address()
    g = create(client, [{"name": "Ada", "email": me}, {"name": "Bob", "email": address("bob")}], "links-mail")
    gid = g["id"]
    s = summary(client, gid)
    assert notifier.notify(gid, s["version"]) == 1
    actor = s["to_act"][0]
    assert notifier.remind(gid, actor, s["version"], 24) == 1
    finish(client, service, gid)
    assert notifier.notify(gid, summary(client, gid)["version"]) == 2, "the results, to each player"
    assert len(transport.messages) == 4
    for msg in transport.messages:
        texts = [p.get_payload(decode=True).decode() for p in msg.walk()
                 if p.get_content_maintype() == "text"]
        body = "\n".join(texts)
        seat = 0 if str(msg["To"]) == me else 1
        play_link = f"{PUBLIC}/play/{gid}#token={links.seat_token(service.store.r, gid, seat)}"
        assert play_link in body, msg["Subject"]
        assert "?seat=" not in body and "&seat=" not in body, "no seat in a query string"
        assert f"{PUBLIC}/me#key={dashboard_key_for(service.store.r, str(msg['To']))}" in body
        if "the game is over" in body:        # the results link the seat's review (docs/ai.md, "Game review")
            assert f"{play_link}&review=1" in body


# --- the dashboard ---------------------------------------------------------------------------

def test_the_dashboard_lists_games_by_urgency_with_working_links(setup):
    app, client, notifier, _ = setup
    service = app.extensions["tablepost.service"]
    r = service.store.r
    me = address()
    who = lambda name: {"name": name, "email": me}  # noqa: E731
    opp = lambda name: {"name": name, "email": address(name.lower())}  # noqa: E731
    made = {}
    # three games where I am seat 0 (to act first) with different time controls; one where I
    # am seat 1 (waiting); one finished; one 3-player game where I wait
    for label, days in (("slow", 5), ("urgent", 1), ("middle", 2)):
        made[label] = create(client, [who("Me"), opp(f"Opp{label}")], f"dash-{label}",
                             time_control={"days_per_move": days})["id"]
    made["waiting"] = create(client, [opp("First"), who("Me")], "dash-waiting")["id"]
    made["three"] = create(client, [opp("A"), opp("B"), who("Me")], "dash-three")["id"]
    made["over"] = create(client, [who("Me"), opp("Loser")], "dash-over")["id"]
    for label in ("slow", "urgent", "middle", "waiting", "three"):
        s = summary(client, made[label])
        assert notifier.notify(made[label], s["version"]) == 1  # the notifier sets the actor's deadline
    finish(client, service, made["over"])
    key = dashboard_key_for(r, me)
    rv = client.get("/api/v1/me/games", headers=auth(key))
    assert rv.status_code == 200, rv.get_json()
    out = rv.get_json()
    assert [g["game"] for g in out["to_move"]] == [made["urgent"], made["middle"], made["slow"]]
    assert sorted(g["game"] for g in out["waiting"]) == sorted([made["waiting"], made["three"]])
    assert [g["game"] for g in out["finished"]] == [made["over"]]
    urgent = out["to_move"][0]
    assert (urgent["opponents"] == ["Opp" + "urgent"] and urgent["name"] == "Me"
            and urgent["to_act_names"] == ["Me"])
    assert urgent["to_act"] == [urgent["seat"]]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", urgent["deadline"])
    assert out["to_move"][0]["deadline"] < out["to_move"][1]["deadline"] < out["to_move"][2]["deadline"]
    three = next(g for g in out["waiting"] if g["game"] == made["three"])
    assert three["seat"] == 2 and three["opponents"] == ["A", "B"] and three["to_act_names"] == ["A"]
    assert three["to_act"] == [0]
    assert three["deadline"] is not None, "the deadline of the seat to act"
    for g in out["to_move"] + out["waiting"]:
        assert g["play_url"].startswith(f"/play/{g['game']}#token=") and "?" not in g["play_url"]
        rv = client.get(f"/api/v1/games/{g['game']}/legal-moves", headers=auth(token_of(g["play_url"])))
        assert rv.get_json()["seat"] == g["seat"]
        assert bool(rv.get_json()["moves"]) == (g in out["to_move"])
    over = out["finished"][0]
    final = summary(client, made["over"])
    scores = [s["score"] for s in final["seats"]]
    assert over["score"] == scores[0] and over["winner"] == final["seats"][final["winner"]]["name"]
    assert over["place"] == (1 if final["winner"] == 0 else 2)
    assert [p["place"] for p in over["places"]] == [1, 2]
    assert client.get(f"/api/v1/games/{made['over']}/state",
                      headers=auth(token_of(over["play_url"]))).get_json()["viewer"] == 0
    # a move elsewhere moves the game between the lists
    play_turn(client, service, made["urgent"], token_of(urgent["play_url"]))
    again = client.get("/api/v1/me/games", headers=auth(key)).get_json()
    assert made["urgent"] not in [g["game"] for g in again["to_move"]]
    assert made["urgent"] in [g["game"] for g in again["waiting"]]
    # nobody else's dashboard shows my games, and the answer never shows my address
    assert me not in rv.get_data(as_text=True) and me not in client.get(
        "/api/v1/me/games", headers=auth(key)).get_data(as_text=True)
    other = client.get("/api/v1/me/games", headers=auth(dashboard_key_for(r, address("stranger"))))
    assert other.status_code == 401, "a key for an address that never played"


def test_tournament_games_are_on_the_dashboard(setup):
    app, client, _, _ = setup
    ts = app.extensions["tablepost.tournaments"]
    me = address()
    out = ts.create({"name": "Dash cup", "format": "round_robin", "table_size": 2, "seed": "dash-cup",
                     "entries": [{"name": "Me", "email": me}, {"name": "Other", "email": address("o")}]})
    ts.start(out["id"], out["organizer_token"])
    games = client.get("/api/v1/me/games",
                       headers=auth(dashboard_key_for(app.extensions["tablepost.service"].store.r,
                                                      me))).get_json()
    mine = games["to_move"] + games["waiting"]
    assert len(mine) == 1 and mine[0]["tournament"] == out["id"] and mine[0]["opponents"] == ["Other"]
    rv = client.get(f"/api/v1/games/{mine[0]['game']}/legal-moves",
                    headers=auth(token_of(mine[0]["play_url"])))
    assert rv.get_json()["seat"] == mine[0]["seat"]


@pytest.mark.parametrize("header", [None, "Bearer", "Basic abc", "Bearer p0123456789abcdef." + "a" * 32,
                                    "Bearer not-a-key", "Bearer L0." + "a" * 32])
def test_no_or_a_bad_key_is_401(setup, header):
    _, client, _, _ = setup
    for method, path, body in (("GET", "/games", None), ("GET", "/notifications", None),
                               ("PUT", "/notifications", {"mode": "none"}),
                               ("PUT", "/vacation", {"on": True})):
        rv = client.open("/api/v1/me" + path, method=method, json=body,
                         headers={"Authorization": header} if header else {})
        assert rv.status_code == 401, (method, path, rv.get_json())
        assert rv.mimetype == "application/problem+json" and rv.get_json()["code"] == "unauthorized"


def test_a_forged_key_for_a_real_player_is_401(setup):
    app, client, _, _ = setup
    r = app.extensions["tablepost.service"].store.r
    me = address()
    create(client, [{"name": "Me", "email": me}, {"name": "B"}], "dash-forged")
    key = dashboard_key_for(r, me)
    assert client.get("/api/v1/me/games", headers=auth(key)).status_code == 200
    pid, mac = key.split(".")
    for bad in (f"{pid}.{mac[::-1]}", f"{pid}.{'a' * 32}",
                f"{pid[:-1]}{'0' if pid[-1] != '0' else '1'}.{mac}"):
        assert client.get("/api/v1/me/games", headers=auth(bad)).status_code == 401, bad


def test_notifications_round_trip(setup):
    app, client, _, _ = setup
    from application.notifications import preference
    r = app.extensions["tablepost.service"].store.r
    me = address()
    g = create(client, [{"name": "Me", "email": me.upper()}, {"name": "B"}], "dash-prefs")
    key = dashboard_key_for(r, me)
    setting = {"mode": "move", "delay_minutes": 5,   # the service's default wait while playing live
               "language": None, "time_zone": None}   # each seat's (docs/i18n.md)
    assert client.get("/api/v1/me/notifications", headers=auth(key)).get_json() == setting
    for mode in ("digest", "none", "move"):
        rv = client.put("/api/v1/me/notifications", json={"mode": mode}, headers=auth(key))
        assert rv.get_json() == {**setting, "mode": mode}
        got = client.get("/api/v1/me/notifications", headers=auth(key)).get_json()
        assert got == {**setting, "mode": mode}
        assert preference(r, me) == mode, "the same setting the emails read"
    # the per-game setting is the same one
    client.put(f"/api/v1/games/{g['id']}/notifications", json={"mode": "digest"},
               headers=auth(g["seats"][0]["token"]))
    got = client.get("/api/v1/me/notifications", headers=auth(key)).get_json()
    assert got == {**setting, "mode": "digest"}
    rv = client.put("/api/v1/me/notifications", json={"mode": "often"}, headers=auth(key))
    assert (rv.status_code, rv.get_json()["code"]) == (422, "invalid-request")


def test_vacation_everywhere_reports_each_game(setup):
    app, client, notifier, _ = setup
    service = app.extensions["tablepost.service"]
    r = service.store.r
    me = address()
    ok1 = create(client, [{"name": "Me", "email": me}, {"name": "B"}], "vac-1")["id"]
    ok2 = create(client, [{"name": "A"}, {"name": "Me", "email": me}], "vac-2")["id"]
    none_left = create(client, [{"name": "Me", "email": me}, {"name": "C"}], "vac-3",
                       time_control={"vacation_days": 0})["id"]
    over = create(client, [{"name": "Me", "email": me}, {"name": "D"}], "vac-4")["id"]
    finish(client, service, over)
    key = dashboard_key_for(r, me)
    rv = client.put("/api/v1/me/vacation", json={"on": True}, headers=auth(key))
    assert rv.status_code == 200, rv.get_json()
    out = rv.get_json()
    assert out["on"] is True and out["all_applied"] is False
    by_game = {g["game"]: g for g in out["games"]}
    assert set(by_game) == {ok1, ok2, none_left}, "games in progress only"
    assert by_game[ok1]["ok"] and by_game[ok1]["on"] and by_game[ok2]["ok"] and by_game[ok2]["on"]
    assert (by_game[none_left]["ok"], by_game[none_left]["code"], by_game[none_left]["on"]) == \
        (False, "no-vacation-left", False)
    deadlines = Deadlines(service, None)
    assert deadlines.seat_state(ok1, 0)["vacation_since"] is not None
    assert deadlines.seat_state(ok2, 1)["vacation_since"] is not None
    games = client.get("/api/v1/me/games", headers=auth(key)).get_json()
    flags = {g["game"]: g["on_vacation"] for g in games["to_move"] + games["waiting"]}
    assert flags == {ok1: True, ok2: True, none_left: False}
    # again: nothing changes, still reported per game
    again = client.put("/api/v1/me/vacation", json={"on": True}, headers=auth(key)).get_json()
    assert {g["game"]: g["ok"] for g in again["games"]} == {ok1: True, ok2: True, none_left: False}
    off = client.put("/api/v1/me/vacation", json={"on": False}, headers=auth(key)).get_json()
    assert off["all_applied"] is True and not any(g["on"] for g in off["games"])
    assert deadlines.seat_state(ok1, 0)["vacation_since"] is None
    rv = client.put("/api/v1/me/vacation", json={"on": "maybe"}, headers=auth(key))
    assert (rv.status_code, rv.get_json()["code"]) == (422, "invalid-request")


# --- the page --------------------------------------------------------------------------------

def test_the_page_is_valid_html_with_labelled_controls(client):
    rv = client.get("/me")
    assert rv.status_code == 200 and rv.mimetype == "text/html"
    assert rv.headers["Referrer-Policy"] == "no-referrer"
    page = rv.get_data(as_text=True)
    doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)
    assert doc.find(".//meta[@name='viewport']") is not None, "readable on a phone"
    labels = {lab.get("for") for lab in doc.iter("label")}
    controls = [el for tag in ("input", "select") for el in doc.iter(tag)]
    assert [el.get("id") for el in controls] == ["vacation", "handle", "public", "confirm", "mode", "delay",
                                                 "email-language", "email-tz"]
    for el in controls:
        assert el.get("id") in labels, f"{el.tag} #{el.get('id')} has no label"
    assert ("location.hash" in page
            and "/api/v1/me" in page), "the key comes from the fragment; data from the API"
    def options(select_id):
        return [o.get("value") for o in doc.find(f".//select[@id='{select_id}']").iter("option")]
    assert options("mode") == ["move", "digest", "none"]
    assert options("delay") == ["0", "2", "5", "15", "60"], "the wait of a turn email while playing live"
    # the emails' language (docs/i18n.md): each game's own, or one of the service's languages; the time
    # zone's choices (the browser's among them) are put in by the page's script
    assert options("email-language") == ["", "en", "de", "fr"] and options("email-tz") == [""]


# --- the first email, over real SMTP -----------------------------------------------------------

def test_the_first_email_to_an_address_carries_its_dashboard_link_once(redis_server):
    from tests.test_pbem_e2e import Mailboxes
    from mail.transports import SmtpTransport
    from mail.tournament_mail import welcome
    box = Mailboxes()
    box.controller.start()
    try:
        app = make_app(redis_server.url)
        service = app.extensions["tablepost.service"]
        client = app.test_client()
        notifier = Notifier(service, Outbox(service.store.r, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url=PUBLIC))
        me = address()
        g1 = create(client, [{"name": "Me", "email": me}, {"name": "B"}], "first-1")["id"]
        g2 = create(client, [{"name": "Me", "email": me}, {"name": "C"}], "first-2")["id"]
        assert notifier.notify(g1, 1) == 1 and notifier.notify(g1, 1) == 0
        assert notifier.notify(g2, 1) == 1
        box.wait_for(2)
        first, second = (m.get_body(("plain",)).get_content() for m in box.messages[:2])
        link = f"{PUBLIC}/me#key="
        assert "Your private dashboard" in first and f"Your dashboard: {link}" in first
        assert ("Your private dashboard" not in second
                and f"All your games: {link}" in second), "explained once"
        key = next(w for w in first.split() if w.startswith(link)).removeprefix(link)
        rv = client.get("/api/v1/me/games", headers=auth(key))
        assert rv.status_code == 200
        assert sorted(g["game"] for g in rv.get_json()["to_move"]) == sorted([g1, g2])
        opened = next(w for w in first.split() if w.startswith(f"{PUBLIC}/play/{g1}"))
        assert "?" not in opened and client.get(f"/api/v1/games/{g1}/legal-moves",
                                                  headers=auth(token_of(opened))).get_json()["seat"] == 0
        # a player the organizer enters in a tournament learns the link in the welcome instead
        ts = app.extensions["tablepost.tournaments"]
        newcomer = address("new")
        tid = ts.create({"name": "Welcome cup", "format": "round_robin", "table_size": 2,
                         "entries": [{"name": "New", "email": newcomer},
                                     {"name": "O", "email": address("o")}]})["id"]
        assert welcome(notifier, tid) == 2
        box.wait_for(4)
        mail = next(m for m in box.messages if str(m["To"]) == newcomer).get_content()
        assert "Your private dashboard" in mail
        nkey = next(w for w in mail.split() if w.startswith(link)).removeprefix(link)
        assert client.get("/api/v1/me/games", headers=auth(nkey)).get_json()["to_move"] == [], \
            "the key works before the first game"
        g3 = create(client, [{"name": "New", "email": newcomer}, {"name": "D"}], "first-3")["id"]
        assert notifier.notify(g3, 1) == 1
        box.wait_for(5)
        turn = box.messages[4].get_body(("plain",)).get_content()
        assert "Your private dashboard" not in turn and f"All your games: {link}{nkey}" in turn
    finally:
        box.controller.stop()


def test_games_created_before_the_index_are_put_on_it_by_the_command(setup, redis_server, monkeypatch,
                                                                     capsys):
    from api.cli import main
    from application.dashboard import games_key
    from application.players import player_id
    app, client, _, _ = setup
    r = app.extensions["tablepost.service"].store.r
    me = address()
    gid = create(client, [{"name": "Me", "email": me}, {"name": "B"}], "reindex")["id"]
    r.delete(games_key(player_id(r, me)))  # as if it had been created before the index existed
    key = dashboard_key_for(r, me)
    assert client.get("/api/v1/me/games", headers=auth(key)).get_json()["to_move"] == []
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    assert main(["index-dashboards"]) == 0
    assert "indexed" in capsys.readouterr().out
    assert [g["game"] for g in client.get("/api/v1/me/games", headers=auth(key)).get_json()["to_move"]] == [
        gid]


def test_a_finished_game_forgets_its_deadlines(setup):
    from application.finished import on_game_over
    from application.deadline_store import TURNS
    app, client, notifier, _ = setup
    service = app.extensions["tablepost.service"]
    gid = create(client, [{"name": "Me", "email": address()}, {"name": "You", "email": address("you")}],
                 "dash-forget", time_control={"days_per_move": 3})["id"]
    assert notifier.notify(gid, summary(client, gid)["version"]) == 1
    assert service.store.r.hexists(TURNS.key(gid), f"{gid}:0"), "the seat to act has a deadline"
    finish(client, service, gid)
    on_game_over(service, gid)
    assert not any(service.store.r.hexists(TURNS.key(gid), f"{gid}:{seat}") for seat in (0, 1))
