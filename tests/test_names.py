"""Issue 39, names: a player's name is plain text to everyone (pages and emails), so a name that holds
a URL, a domain-like word or an email address is refused with ``422 name-not-allowed`` at every place
a name is set, and changes nothing; a join with a dashboard key and no name takes the name last used
(docs/lobby.md). Real Redis, real HTTP, real SMTP on loopback."""
from __future__ import annotations

import pathlib
import re
import secrets

import pytest
from conftest import LiveServer, make_app
from test_api_errors import Http, problem

from application import waiting
from application.dashboard import dashboard_key_for
from application.names import link_like
from tests.test_lobby_oracle import mailbox  # noqa: F401 (a fixture)

SENT: list = []
BAD = ["Your account is locked, log in at https://evil.example", "evil.example", "www.evil",
       "kim@example.org", "Dr.Who", "evil\u3002com", "evil\uff0ecom", "10.0.0.1", "javascript:alert(1)",
       "see HTTP://X", "Prize at https://evil.example/claim"]
GOOD = ["Ann", "J.R.R. Tolkien", "Dr. Who", "Bot v1.2", "Zoë", "李雷", "Ann: best", "U.S.A.",
        "<b>Bo</b> & \"x\""]
NOT_ALLOWED = (422, "name-not-allowed")


def addr(who: str) -> str:
    return f"{who}-{secrets.token_hex(4)}@names.test"


@pytest.fixture(scope="module")
def live(redis_server):
    app = make_app(redis_server.url,
                   SEND_TASK=lambda name, args, queue: SENT.append((name, list(args))) or True)
    with LiveServer(app) as server:
        h = Http(server.url)
        yield h
        h.s.close()


def waiting_game(h) -> str:
    seats = [{"name": "Host", "email": addr("h")}, {"kind": "open"}, {"kind": "open"}]
    return h.ok("POST", "/api/v1/games", json={"seats": seats}, status=201)["id"]


def test_the_rule(live):
    assert [n for n in BAD if not link_like(n)] == []
    assert [n for n in GOOD if link_like(n)] == []


def stored_games(r) -> int:
    return sum(1 for _ in r.scan_iter(match="g:*:meta", count=1000)) + sum(
        1 for _ in r.scan_iter(match="g:*:waiting", count=1000))


@pytest.mark.parametrize("bad", BAD)
def test_a_link_like_name_is_refused_everywhere_a_name_is_set(live, redis_client, bad):
    before = stored_games(redis_client)
    h = live
    # a game's seats (a person's, an AI's), and a game posted to the lobby
    for seats in ([{"name": bad, "email": addr("a")}, {"name": "B"}],
                  [{"name": "A"}, {"name": bad, "kind": "ai", "level": "easy"}],
                  [{"name": bad, "email": addr("a")}, {"kind": "open"}]):
        p = problem(h.post("/api/v1/games", json={"game": "tiletum", "seats": seats}), *NOT_ALLOWED)
        assert "web address" in p["detail"]
    assert stored_games(redis_client) == before, "nothing was created"
    # a lobby join, by email and with a dashboard key
    host = addr("host")
    gid = h.ok("POST", "/api/v1/games", json={"seats": [{"name": "Host", "email": host}, {"kind": "open"}]},
               status=201)["id"]
    SENT.clear()
    problem(h.post(f"/api/v1/lobby/{gid}/join", json={"name": bad, "email": addr("j")}), *NOT_ALLOWED)
    problem(h.post(f"/api/v1/lobby/{gid}/join", dashboard_key_for(redis_client, host), json={"name": bad}),
            *NOT_ALLOWED)
    assert SENT == [] and not list(redis_client.scan_iter(match=f"g:{{{gid}}}:join:*"))
    assert waiting.load(redis_client, gid)["seats"][1] == {"kind": "open"}
    # a tournament's entrants, and a bot account
    cup = {"name": "Cup", "format": "round_robin", "table_size": 2}
    problem(h.post("/api/v1/tournaments", json={**cup, "entries": [{"name": bad, "email": addr("e")}]}), 422,
            "name-not-allowed")
    made = h.ok("POST", "/api/v1/tournaments", json=cup, status=201)
    problem(h.post(f"/api/v1/tournaments/{made['id']}/entries", made["organizer_token"],
                   json={"name": bad, "email": addr("e")}), 422, "name-not-allowed")
    assert h.ok("GET", f"/api/v1/tournaments/{made['id']}")["players"] == []
    problem(h.post("/api/v1/bots", json={"name": bad, "email": addr("o")}), 422, "name-not-allowed")
    # a tournament's own name (its emails' subjects carry it): refused, no tournament made
    made_before = sum(1 for _ in redis_client.scan_iter(match="t:*", count=1000))
    p = problem(h.post("/api/v1/tournaments", json={**cup, "name": bad}), 422, "name-not-allowed")
    assert "tournament name" in p["detail"]
    assert sum(1 for _ in redis_client.scan_iter(match="t:*", count=1000)) == made_before, "nothing made"


def test_fine_names_are_taken_and_shown_as_text_in_the_emails(live, redis_client, mailbox):  # noqa: F811
    h = live
    host = addr("host")
    gid = h.ok("POST", "/api/v1/games", json={"seats": [{"name": GOOD[-1], "email": host}, {"kind": "open"},
                                                        {"kind": "open"}]}, status=201)["id"]
    SENT.clear()
    h.ok("POST", f"/api/v1/lobby/{gid}/join", json={"name": "J.R.R. Tolkien", "email": addr("t")}, status=202)
    (_, (_, nonce)), = SENT
    assert mailbox.notifier.send_lobby_join(gid, nonce) == 1
    mailbox.wait_for(1)
    msg = mailbox.messages[-1]
    html = msg.get_body(("html",)).get_content()
    assert "&lt;b&gt;Bo&lt;/b&gt; &amp; &quot;x&quot;" in html, "escaped"
    assert "<b>Bo</b>" not in html, "not markup"
    assert "J.R.R. Tolkien" in msg.get_body(("plain",)).get_content()
    links = re.findall(r'href="([^"]*)"', html)
    assert all(u.startswith("http://pbem.test/") for u in links), links   # only our own links
    assert h.ok("GET", f"/api/v1/lobby/{gid}")["seats_taken"] == [GOOD[-1]]


def test_the_pages_write_names_as_text():
    """The pages build their content with textContent and elements, never from markup: a name is
    never read as HTML, so it can never become a link."""
    static = pathlib.Path(__file__).resolve().parent.parent / "api" / "static"
    for page in sorted(static.glob("*.html")) + sorted(static.glob("*.js")):
        text = page.read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
            assert sink not in text, f"{page.name} uses {sink}"


def test_a_dashboard_key_joins_under_the_name_last_used(live, redis_client):
    h = live
    ann = addr("ann")
    h.ok("POST", "/api/v1/games", json={"seats": [{"name": "Ann Lee", "email": ann}, {"name": "Bob"}]},
         status=201)   # the address's first game: its name is "Ann Lee"
    h.ok("POST", "/api/v1/games", json={"seats": [{"name": "Mallory", "email": addr("m")},
                                                  {"name": "Loser", "email": ann}]},
         status=201)   # a name someone else gives it later does not replace it
    gid = waiting_game(h)
    seated = h.ok("POST", f"/api/v1/lobby/{gid}/join", dashboard_key_for(redis_client, ann), json={})
    assert seated["status"] == "seated" and seated["name"] == "Ann Lee"
    assert h.ok("GET", f"/api/v1/lobby/{gid}")["seats_taken"] == ["Host", "Ann Lee"]
    # a name given wins, and is the one used next time
    other = waiting_game(h)
    key = dashboard_key_for(redis_client, ann)
    assert h.ok("POST", f"/api/v1/lobby/{other}/join", key, json={"name": "Annie"})["name"] == "Annie"
    third = waiting_game(h)
    assert h.ok("POST", f"/api/v1/lobby/{third}/join", key, json={})["name"] == "Annie"
