"""Resign and rematch by email (issue 41), end to end with real parts: a real SMTP server on
loopback (aiosmtpd) for the players' mailboxes, a real Celery worker that sends the emails, and
the inbound SMTP listener that takes the replies. A player resigns by replying ``resign``; both
get the results with a signed rematch link; the link shows a button (opening it accepts nothing),
its button accepts, and once both accepted the rematch starts and its first turn email arrives."""
from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import pytest

from tests.test_pbem_e2e import headline, own_redis, pbem, reply, text_of  # noqa: F401 (fixtures)

LINK = re.compile(r"(http://\S+/email-rematch\?\S+)")


def _wait(boxes, predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [m for m in list(boxes.messages) if predicate(m)]
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("no such email arrived: " + "; ".join(f"{m['To']}: {headline(m)}"
                                                                for m in boxes.messages))


@pytest.mark.mail_env(TILETUM_MAIL_PICTURES="0")
def test_resign_by_reply_then_a_rematch_accepted_by_the_email_links_starts_the_new_game(pbem):  # noqa: F811
    app, boxes, mailin_port = pbem
    c = app.test_client()
    rv = c.post("/api/v1/games", json={"game": "carcassonne", "seats": [
        {"name": "Ada", "email": "ada@players.test"}, {"name": "Bob", "email": "bob@players.test"}]})
    assert rv.status_code == 201, rv.json
    gid = rv.json["id"]
    turn = _wait(boxes, lambda m: str(m["To"]) == "ada@players.test" and gid in str(m["Subject"]))[0]
    reply(mailin_port, turn, "ada@players.test", "resign")
    told = _wait(boxes, lambda m: str(m["To"]) == "ada@players.test"
                 and headline(m).startswith("You resigned"))
    assert len(told) == 1
    over = lambda m: headline(m).startswith("Game over")  # noqa: E731
    _wait(boxes, lambda m: over(m) and sum(map(over, boxes.messages)) >= 2)
    results = {str(m["To"]): m for m in boxes.messages if over(m)}
    assert sorted(results) == ["ada@players.test", "bob@players.test"]
    assert all(headline(m).startswith("Game over: Bob wins.") for m in results.values())
    assert "Ada resigned." in text_of(results["bob@players.test"])
    summary = c.get(f"/api/v1/games/{gid}").json
    assert summary["status"] == "finished" and summary["winner"] == 1
    links = {to: LINK.search(text_of(m)).group(1) for to, m in results.items()}
    html = {"Accept": "text/html"}

    def local(url: str) -> str:
        u = urlsplit(url)
        return f"{u.path}?{u.query}"
    # opening the link accepts nothing; an altered link is refused
    page = c.get(local(links["ada@players.test"]), headers=html)
    assert page.status_code == 200 and "Accept the rematch" in page.get_data(as_text=True)
    assert c.get(f"/api/v1/games/{gid}/rematch").status_code == 404
    forged = local(links["ada@players.test"]).replace("seat=0", "seat=1")
    assert c.post(forged, headers=html).status_code == 403
    # Ada accepts (she asks), then Bob: the new game starts
    first = c.post(local(links["ada@players.test"]), headers=html)
    assert first.status_code == 200 and "Bob accepted too" in first.get_data(as_text=True)
    second = c.post(local(links["bob@players.test"]), headers=html)
    assert second.status_code == 200 and "has started" in second.get_data(as_text=True)
    new = c.get(f"/api/v1/games/{gid}/rematch").json["new_game"]
    assert new and c.get(f"/api/v1/games/{new}").json["seats"][0]["name"] == "Bob", "the seats turned"
    # the new game's first turn email reaches Bob, who now sits first
    first_turn = _wait(boxes, lambda m: new in str(m["Subject"]))
    assert [str(m["To"]) for m in first_turn] == ["bob@players.test"]
    assert "Your tile to place" in text_of(first_turn[0])
