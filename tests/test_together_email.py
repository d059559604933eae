"""Resign and rematch by email (issue 41), end to end with real parts: a real SMTP server on
loopback (aiosmtpd) for the players' mailboxes, a real Celery worker that sends the emails, and
the inbound SMTP listener that takes the replies. A player resigns by replying ``resign``; both
get the results with a rematch link: the game page as the seat (its link token in the fragment),
which opens at the "Play again" button (tests/test_together_browser.py clicks it) and asks with the
link's token, as the API does here; once both accepted, the rematch starts and its first turn
email arrives once its first player has left the page (issue 51)."""
from __future__ import annotations

import re
import time

import pytest

from tests.test_pbem_e2e import headline, own_redis, pbem, reply, text_of  # noqa: F401 (fixtures)

LINK = re.compile(r"http://\S+(/play/[^#\s]+)#token=([^&\s]+)&rematch=1")


@pytest.mark.mail_env(TABLEPOST_MAIL_PICTURES="0", TABLEPOST_TEST_CLOCK="1")
def test_resign_by_reply_then_a_rematch_accepted_by_the_email_links_starts_the_new_game(pbem):  # noqa: F811
    app, boxes, mailin_port = pbem
    c = app.test_client()
    rv = c.post("/api/v1/games", json={"game": "carcassonne", "seats": [
        {"name": "Ada", "email": "ada@players.test"}, {"name": "Bob", "email": "bob@players.test"}]})
    assert rv.status_code == 201, rv.json
    gid = rv.json["id"]
    turn = boxes.wait_until(lambda m: str(m["To"]) == "ada@players.test" and gid in str(m["Subject"]))[0]
    assert "To resign, reply with the one line: resign." in text_of(turn), "every turn email says how"
    reply(mailin_port, turn, "ada@players.test", "resign")
    told = boxes.wait_until(lambda m: str(m["To"]) == "ada@players.test"
                 and headline(m).startswith("You resigned"))
    assert len(told) == 1
    over = lambda m: headline(m).startswith("Game over")  # noqa: E731
    boxes.wait_until(lambda m: over(m) and sum(map(over, boxes.messages)) >= 2)
    results = {str(m["To"]): m for m in boxes.messages if over(m)}
    assert sorted(results) == ["ada@players.test", "bob@players.test"]
    assert all(headline(m).startswith("Game over: Bob wins.") for m in results.values())
    assert "Ada resigned." in text_of(results["bob@players.test"])
    summary = c.get(f"/api/v1/games/{gid}").json
    assert summary["status"] == "finished" and summary["winner"] == 1
    links = {to: LINK.search(text_of(m)).groups() for to, m in results.items()}
    assert all(path == f"/play/{gid}" for path, _ in links.values())
    assert "?" not in "".join(LINK.search(text_of(m)).group(0) for m in results.values()), \
        "nothing of the seat in a query string"
    # the link opens the game page (a page like any other: it accepts nothing by itself)
    assert c.get(f"/play/{gid}").status_code == 200
    assert c.get(f"/api/v1/games/{gid}/rematch").status_code == 404
    auth = {to: {"Authorization": f"Bearer {token}"} for to, (_, token) in links.items()}
    forged = {"Authorization": f"Bearer {links['ada@players.test'][1][:-2]}xx"}
    assert c.post(f"/api/v1/games/{gid}/rematch", headers=forged).status_code == 401
    # Ada asks (the page's button with her link's token), then Bob accepts: the new game starts
    first = c.post(f"/api/v1/games/{gid}/rematch", headers=auth["ada@players.test"]).json
    assert first["status"] == "proposed" and [s["accepted"] for s in first["seats"]] == [True, False]
    second = c.post(f"/api/v1/games/{gid}/rematch", headers=auth["bob@players.test"]).json
    assert second["status"] == "started"
    new = c.get(f"/api/v1/games/{gid}/rematch").json["new_game"]
    assert new and c.get(f"/api/v1/games/{new}").json["seats"][0]["name"] == "Bob", "the seats turned"
    # the new game's first turn email reaches Bob, who now sits first, once he has left the page
    # where he accepted (issue 51: not while he is there)
    time.sleep(4)
    assert [m for m in boxes.messages if new in str(m["Subject"])] == [], "Bob is on the page"
    r = app.extensions["tablepost.service"].store.r
    r.set("clock:offset", 6 * 60)   # the worker's clock: past the grace
    try:
        first_turn = boxes.wait_until(lambda m: new in str(m["Subject"]))
    finally:
        r.delete("clock:offset")
    assert [str(m["To"]) for m in first_turn] == ["bob@players.test"]
    assert "Your tile to place" in text_of(first_turn[0])


@pytest.fixture()
def sink_env(monkeypatch, tmp_path):
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "together-secret")
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", "pbem.test")
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))        # the local sink writes here
    return tmp_path


def test_resign_must_stand_alone_in_a_reply_and_a_finished_game_says_so(redis_server, sink_env):
    """A reply with ``resign`` and a move plays nothing and resigns nothing (never both by one
    reply); ``resign`` alone resigns, from the reply address of an old turn too; after the end it
    is refused as such, not as an old turn."""
    import email.utils
    from email.message import EmailMessage

    from mail.addresses import reply_address
    from tests.conftest import INBOUND_SECRET, make_app, post_inbound

    def raw(to: str, body: str) -> bytes:
        m = EmailMessage()
        m["From"], m["To"], m["Subject"] = "ada@x.test", to, "Re: your turn"
        m["Message-ID"] = email.utils.make_msgid(domain="x.test")
        m.set_content(body + "\n\n> quoted\n")
        return bytes(m)
    app = make_app(redis_server.url, MAIL_SECRET="together-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    g = c.post("/api/v1/games", json={"game": "carcassonne", "seats": [
        {"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"}]}).json
    gid = g["id"]
    to = reply_address("together-secret", "pbem.test", gid, 0, 1)
    move = c.get(f"/api/v1/games/{gid}/legal-moves",
                 headers={"Authorization": f"Bearer {g['seats'][0]['token']}"}).json["moves"][0]["move"]
    both = post_inbound(c, raw(to, f"{move}\nresign"))
    assert both.json["status"] == "rejected" and both.json["code"] == "resign-alone", both.json
    assert c.get(f"/api/v1/games/{gid}").json["version"] == 1, "nothing played, nothing resigned"
    assert post_inbound(c, raw(to, move)).json["status"] == "applied"
    done = post_inbound(c, raw(to, "Resign"))          # the old turn's address: still her seat
    assert done.json["status"] == "applied", done.json
    summary = c.get(f"/api/v1/games/{gid}").json
    assert summary["status"] == "finished" and summary["winner"] == 1
    after = post_inbound(c, raw(reply_address("together-secret", "pbem.test", gid, 0, 2), "resign"))
    assert after.json["code"] == "game-over", after.json


@pytest.mark.mail_env(TABLEPOST_MAIL_PICTURES="0")
def test_a_resignation_in_a_three_player_game_sends_no_second_turn_email_and_is_told(pbem):  # noqa: F811
    """Issue 51: Cy resigns while Ada is to move. Ada gets no second "Your turn" email for the same
    decision, and her reply to the first one (its address names the version the decision began at)
    still plays. Bob's turn email tells "Cy resigned" in what happened, not "the game started", and
    its players' lines mark Cy."""
    from application.dashboard import dashboard_key_for
    from tests.test_pbem_e2e import legal_moves_in

    app, boxes, mailin_port = pbem
    c = app.test_client()
    people = ["ada@players.test", "bob@players.test", "cy@players.test"]
    rv = c.post("/api/v1/games", json={"game": "carcassonne", "options": {"seed": "resign-3"}, "seats": [
        {"name": n, "email": e} for n, e in zip(["Ada", "Bob", "Cy"], people)]})
    assert rv.status_code == 201, rv.json
    gid, tokens = rv.json["id"], [s["token"] for s in rv.json["seats"]]
    assert c.get(f"/api/v1/games/{gid}").json["to_act"] == [0]
    turn = lambda to: lambda m: str(m["To"]) == to and headline(m).startswith("Your ")  # noqa: E731
    first = boxes.wait_until(turn(people[0]))[0]
    # Ada opens her dashboard (its key came by email): an address that reads ours, with no cap of one
    # email a game (a second turn email would reach her)
    key = dashboard_key_for(app.extensions["tablepost.service"].store.r, people[0])
    assert c.get("/api/v1/me/notifications", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    rv = c.post(f"/api/v1/games/{gid}/resign", headers={"Authorization": f"Bearer {tokens[2]}"})
    assert rv.status_code == 200 and rv.json["status"] == "active", rv.json
    # Ada answers her only turn email: its moves are played though the game's version moved on
    reply(mailin_port, first, people[0], legal_moves_in(first)[0])
    bobs = boxes.wait_until(turn(people[1]))
    assert [headline(m) for m in boxes.messages if turn(people[0])(m)] == [headline(first)], \
        "one turn email for Ada's decision"
    assert len(bobs) == 1
    body = text_of(bobs[0])
    since = body.split("Since your last turn:", 1)[1].split("\n\n", 1)[0]
    assert "Cy resigned" in since and "the game started" not in since, since
    assert "Cy (resigned)" in body, "the players' lines mark the seat that resigned"
