"""Issue 51: actions one client can repeat are charged to it. Over real HTTP, a real Redis and, for
the emails, a real SMTP server on loopback.

* A rematch chain (the creator holds every seat's token: resign, rematch with both tokens, go on in
  the new game) draws on the client's create budget, and is limited per lineage whoever asks, so
  fresh client addresses do not help.
* Re-issuing a seat's link with the seat token (which the re-issue does not revoke) emails the seat
  each time: limited per seat, and per client over every seat.

A refusal is 429 ``rate-limited`` with Retry-After and changes nothing: no proposal, no game, the
seat's current link still works.
"""
from __future__ import annotations

import re
import secrets
from urllib.parse import unquote

import pytest
import requests

from application import links
from application.game_service import GameService
from application.store import EventStore
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SmtpTransport
from tests.conftest import LiveServer, make_app
from tests.test_pbem_e2e import Mailboxes

API = "/api/v1/games"
ROOMY = {"RATE_LIMIT": 1000, "CREATE_LIMIT": "1000/hour", "ENTRY_LIMIT": "1000/hour",
         "NEW_ADDRESS_LIMIT": "1000/day", "REMATCH_LIMIT": "1000/day", "SEAT_LINK_LIMIT": "1000/hour",
         "SEAT_LINK_CLIENT_LIMIT": "1000/hour"}


@pytest.fixture()
def mailbox(redis_client):
    box = Mailboxes()
    box.controller.start()
    box.notifier = Notifier(GameService(EventStore(redis_client)),
                            Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url="http://pbem.test"))
    yield box
    box.controller.stop()


@pytest.fixture()
def limited(redis_server, redis_client, mailbox):
    """A server with the given limits (the others roomy), on a Redis whose counters start empty. A
    seat link's email task runs at once, on the real SMTP server of ``mailbox``."""
    servers = []

    def send(name, args, queue):
        if name == "workers.send_seat_link":
            return mailbox.notifier.send_seat_link(*args)
        return True

    def start(**config):
        for k in redis_client.scan_iter("*LIMITER*"):
            redis_client.delete(k)
        server = LiveServer(make_app(redis_server.url, SEND_TASK=send, **{**ROOMY, **config})).__enter__()
        servers.append(server)
        return server.url
    yield start
    for s in servers:
        s.__exit__(None, None, None)


def post(url, path, token=None, **kw):
    headers = kw.pop("headers", {})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.post(url + API + path, headers=headers, timeout=10, **kw)


def a_game_naming(url, victim: str, **kw) -> tuple[str, list[str]]:
    """The attack's start: a game with a real player's address in seat 1; the creator holds both tokens."""
    r = post(url, "", json={"seats": [{"name": "Creator"}, {"name": "Victim", "email": victim}]}, **kw)
    assert r.status_code == 201, r.text
    return r.json()["id"], [s["token"] for s in r.json()["seats"]]


def games_count(redis_client) -> int:
    return sum(1 for _ in redis_client.scan_iter("g:{*}:meta"))


def refused(r) -> int:
    assert r.status_code == 429, r.text
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == "rate-limited"
    retry = int(r.headers["Retry-After"])
    assert retry > 0
    return retry


def rematch_chain(url, gid, tokens, rounds, headers=lambda: {}):
    """Resign and rematch with both tokens, ``rounds`` times or until refused: the games started
    and the refused answer (None)."""
    started = []
    for _ in range(rounds):
        assert post(url, f"/{gid}/resign", tokens[0], headers=headers()).status_code == 200
        for t in tokens:
            r = post(url, f"/{gid}/rematch", t, headers=headers())
            if r.status_code != 200:
                return started, r, gid
        assert r.json()["status"] == "started"
        gid = r.json()["new_game"]
        started.append(gid)
    return started, None, gid


def test_a_rematch_chain_from_one_client_stops_at_the_create_limit(limited, redis_client):
    url = limited(CREATE_LIMIT="5/hour")
    gid, tokens = a_game_naming(url, f"victim-{secrets.token_hex(3)}@flood.test")   # 1 of 5
    started, refusal, last = rematch_chain(url, gid, tokens, 10)
    # each ask that proposes or accepts costs one: two a rematch
    assert len(started) == 2, started
    refused(refusal)
    before = games_count(redis_client)
    assert requests.get(f"{url}{API}/{last}/rematch", timeout=10).status_code == 404, "no proposal made"
    assert post(url, f"/{last}/rematch", tokens[1]).status_code == 429
    assert games_count(redis_client) == before, "no game made"
    assert post(url, "", json={"seats": [{"name": "A"}, {"name": "B"}]}).status_code == 429, \
        "one budget with POST /games"
    # asking again for a rematch that started only reads it: free, even with the budget spent
    again = post(url, f"/{started[0]}/rematch", tokens[0])
    assert again.status_code == 200 and again.json()["new_game"] == started[1]


def test_a_rematch_chain_is_limited_per_lineage_from_any_address(limited, redis_client):
    url = limited(TRUSTED_PROXIES=1, CREATE_LIMIT="3/hour", REMATCH_LIMIT="2/day")
    fresh = iter(range(1, 250))

    def new_address():
        return {"X-Forwarded-For": f"10.51.0.{next(fresh)}"}
    gid, tokens = a_game_naming(url, f"victim-{secrets.token_hex(3)}@flood.test", headers=new_address())
    started, refusal, last = rematch_chain(url, gid, tokens, 10, headers=new_address)
    assert len(started) == 2, "a fresh client address per request does not make the chain longer"
    retry = refused(refusal)
    assert 86000 < retry <= 86401, retry
    before = games_count(redis_client)
    assert requests.get(f"{url}{API}/{last}/rematch", timeout=10).status_code == 404, "no proposal made"
    assert games_count(redis_client) == before
    # another game of the same players is a lineage of its own (and on the create budget)
    other, other_tokens = a_game_naming(url, f"victim-{secrets.token_hex(3)}@flood.test",
                                        headers=new_address())
    assert len(rematch_chain(url, other, other_tokens, 1, headers=new_address)[0]) == 1


def new_link_of(mailbox, gid: str, to: str, n: int) -> str:
    mailbox.wait_for(n)
    mine = [m for m in mailbox.messages if str(m["To"]) == to]
    return unquote(re.search(r"/play/" + gid + r"#token=(\S+)", mine[-1].get_content()).group(1))


def works(url, gid, token) -> bool:
    return requests.get(f"{url}{API}/{gid}/legal-moves", timeout=10,
                        headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_a_seat_link_reissue_loop_stops_at_the_seats_limit(limited, mailbox, redis_client):
    url = limited(SEAT_LINK_LIMIT="3/hour;10/day")
    victim = f"victim-{secrets.token_hex(3)}@flood.test"
    gid, tokens = a_game_naming(url, victim)
    # another seat's token and junk are refused, and spend nothing of the seat's budget
    assert post(url, f"/{gid}/seats/1/link", tokens[0]).status_code == 403
    assert post(url, f"/{gid}/seats/1/link", "junk").status_code == 401
    answers = [post(url, f"/{gid}/seats/1/link", tokens[1]) for _ in range(12)]
    assert [r.status_code for r in answers] == [202] * 3 + [429] * 9
    assert 0 < refused(answers[-1]) <= 3600
    current = new_link_of(mailbox, gid, victim, 3)
    assert sum(str(m["To"]) == victim for m in mailbox.messages) == 3, "one email a re-issue, three in all"
    assert links.seat_token(redis_client, gid, 1) == current
    assert works(url, gid, current), "a refused re-issue revokes nothing"
    assert sum(str(m["To"]) == victim for m in mailbox.messages) == 3, "and emails nothing"
    # the seat's own link token is held to the same budget: it is the seat's, whoever holds it
    assert post(url, f"/{gid}/seats/1/link", current).status_code == 429 and works(url, gid, current)


def test_seat_link_reissues_are_limited_per_client_over_every_seat(limited, mailbox):
    url = limited(SEAT_LINK_CLIENT_LIMIT="4/hour")
    victims = [f"victim-{secrets.token_hex(3)}@flood.test" for _ in range(3)]
    seats = [a_game_naming(url, v) for v in victims]
    codes = [post(url, f"/{gid}/seats/1/link", tokens[1]).status_code
             for gid, tokens in seats for _ in range(2)]
    assert codes == [202] * 4 + [429] * 2
    mailbox.wait_for(4)
    assert sorted(str(m["To"]) for m in mailbox.messages) == sorted(victims[:2] * 2)
