"""Rate limits keyed on what a request proves (issue 13, "Abuse"), over real HTTP and a real Redis.

Each test attacks one way around the limits: a fresh junk token per request, game creation in
bulk, emailing strangers in bulk, a spoofed X-Forwarded-For, and one shared bot login that a
single game could exhaust for every other game.
"""
from __future__ import annotations

import secrets
import time

import pytest
import requests

from tests.conftest import LiveServer, make_app

API = "/api/v1/games"
BOT = "bot-credential-for-limits"


@pytest.fixture()
def limited(redis_server, redis_client):
    """A server with small limits, on a Redis whose counters start empty."""
    servers = []

    def start(**config):
        for k in redis_client.scan_iter("*LIMITER*"):  # limits 4 prefixes its keys with "LIMITS:"
            redis_client.delete(k)
        cfg = {"RATE_LIMIT": 1000, "CREATE_LIMIT": "1000/hour", "ENTRY_LIMIT": "1000/hour",
               "NEW_ADDRESS_LIMIT": "1000/day", "BOT_RATE_LIMIT": "1000/minute", "BOT_TOKEN": BOT}
        cfg.update(config)
        server = LiveServer(make_app(redis_server.url, **cfg)).__enter__()
        servers.append(server)
        return server.url
    yield start
    for s in servers:
        s.__exit__(None, None, None)


def seats(n=2, emails=False):
    return [{"name": f"P{i}", **({"email": f"{secrets.token_hex(4)}@limits.test"} if emails else {})}
            for i in range(n)]


def create(url, body=None, **kw):
    return requests.post(url + API, json=body or {"seats": seats()}, timeout=10, **kw)


def test_a_fresh_junk_token_per_request_gets_no_fresh_budget(limited):
    url = limited(RATE_LIMIT=5)
    gid = create(url).json()["id"]
    codes = [requests.get(f"{url}{API}/{gid}/state", timeout=10,
                          headers={"Authorization": f"Bearer junk-{secrets.token_hex(8)}"}).status_code
             for _ in range(6)]
    assert codes[:5] != [429] * 5 and codes[5] == 429, codes   # all six counted against the address
    r = requests.get(f"{url}{API}/{gid}/state", timeout=10, headers={"Authorization": "Bearer other-junk"})
    assert r.status_code == 429 and r.json()["code"] == "rate-limited" and int(r.headers["Retry-After"]) > 0


def test_a_real_seat_token_has_its_own_budget(limited):
    url = limited(RATE_LIMIT=4)
    game = create(url).json()
    token = game["seats"][0]["token"]
    for _ in range(4):   # the address's budget is spent by anonymous reads
        requests.get(f"{url}{API}/{game['id']}", timeout=10)
    assert requests.get(f"{url}{API}/{game['id']}", timeout=10).status_code == 429
    ok = requests.get(f"{url}{API}/{game['id']}/legal-moves", timeout=10,
                      headers={"Authorization": f"Bearer {token}"})
    assert ok.status_code == 200, "a proven seat is not held to the anonymous address's budget"


def test_creating_games_has_its_own_limit_and_failures_do_not_count(limited):
    url = limited(CREATE_LIMIT="3/hour")
    for _ in range(2):
        assert create(url, {"seats": [{"name": "alone"}]}).status_code == 422   # refused: not counted
    for i in range(3):
        assert create(url, headers={"Authorization": f"Bearer junk{i}"}).status_code == 201
    r = create(url, headers={"Authorization": "Bearer yet-another-junk"})
    assert r.status_code == 429 and r.json()["code"] == "rate-limited"
    assert requests.get(url + "/health", timeout=10).status_code == 200


def test_games_tournaments_and_bots_draw_on_one_creation_budget(limited):
    """docs/bots.md: registering a bot counts against the same limit as creating games (and
    tournaments): not a fresh allowance per kind of thing created."""
    url = limited(CREATE_LIMIT="3/hour")
    assert create(url).status_code == 201
    assert requests.post(url + "/api/v1/bots", json={"name": "Budget", "email": "b@limits.test"},
                         timeout=10).status_code == 201
    tournament = {"name": "Budget", "format": "round_robin", "table_size": 2, "invite": True}
    assert requests.post(url + "/api/v1/tournaments", json=tournament, timeout=10).status_code == 201
    answers = [create(url),
               requests.post(url + "/api/v1/bots", json={"name": "More", "email": "m@limits.test"},
                             timeout=10),
               requests.post(url + "/api/v1/tournaments", json=tournament, timeout=10)]
    assert [r.status_code for r in answers] == [429] * 3
    assert {r.json()["code"] for r in answers} == {"rate-limited"}
    assert requests.get(url + API, timeout=10).status_code != 429, "listing games creates nothing"


def test_new_addresses_are_one_budget_over_games_and_bots(limited):
    url = limited(NEW_ADDRESS_LIMIT="2/day")
    assert create(url, {"seats": seats(2, emails=True)}).status_code == 201      # 2 new addresses
    r = requests.post(url + "/api/v1/bots", json={"name": "New", "email": "never-seen@limits.test"},
                      timeout=10)
    assert r.status_code == 429, "a bot's owner address is one more new address for the same client"


def test_emailing_addresses_that_never_played_is_limited_per_client(limited):
    url = limited(NEW_ADDRESS_LIMIT="3/day")
    first = {"seats": seats(2, emails=True)}
    assert create(url, first).status_code == 201                       # 2 new addresses
    assert create(url, {"seats": seats(2, emails=True)}).status_code == 429   # 2 more: over 3
    assert create(url, first).status_code == 201, "addresses this client named lately cost nothing"
    assert create(url, {"seats": seats(2)}).status_code == 201, "no address, no cost"
    one_more = {"seats": [{"name": "A", "email": "solo-new@limits.test"}, {"name": "B"}]}
    assert create(url, one_more).status_code == 201                   # the third new address
    assert create(url, {"seats": [{"name": "C", "email": "x-new@limits.test"},
                                  {"name": "D"}]}).status_code == 429


def test_entering_tournaments_has_its_own_limit(limited):
    url = limited(ENTRY_LIMIT="2/hour")
    t = requests.post(url + "/api/v1/tournaments",
                      json={"name": "Limits", "format": "round_robin", "table_size": 2,
                            "invite": True}, timeout=10).json()
    codes = [requests.post(f"{url}/api/v1/tournaments/{t['id']}/entries", timeout=10,
                           json={"name": f"E{i}", "email": f"e{i}@limits.test",
                                 "invite": t["invite_code"]}).status_code
             for i in range(3)]
    assert codes == [202, 202, 429]   # asked with the code: the owner confirms by email


def test_x_forwarded_for_counts_only_from_trusted_proxies(limited):
    url = limited(RATE_LIMIT=3)
    gid = create(url).json()["id"]
    spoofed = [requests.get(f"{url}{API}/{gid}", timeout=10,
                            headers={"X-Forwarded-For": f"10.9.0.{i}"}).status_code for i in range(4)]
    assert spoofed[-1] == 429, "a client's own X-Forwarded-For earns no fresh budget"
    url = limited(RATE_LIMIT=3, TRUSTED_PROXIES=1)
    gid = create(url, headers={"X-Forwarded-For": "10.8.0.1"}).json()["id"]
    per_client = [
        requests.get(f"{url}{API}/{gid}", timeout=10, headers={"X-Forwarded-For": f"10.8.1.{i}"}).status_code
        for i in range(6)]
    assert per_client == [200] * 6, "behind a trusted proxy every client has its own budget"
    same = [requests.get(f"{url}{API}/{gid}", timeout=10, headers={"X-Forwarded-For": "10.8.2.1"}).status_code
            for _ in range(4)]
    assert same[-1] == 429


def solo_game(url) -> str:
    g = requests.post(url + API, timeout=10, json={"seats": [{"name": "Cardinal", "kind": "cardinalbot"},
                                                             {"name": "Ada"}],
                                                   "options": {"solo": {"level": "priest"}}}).json()
    return g["id"]


def test_a_throttled_game_does_not_delay_another_games_bot_turn(limited, monkeypatch):
    from seats.client import ApiClient, RateLimited
    from seats.runner import play_turn
    # a bot turn is up to 3 batches (a state read and a move post each) and a last read: 7
    # requests; at 6 a minute the other game's own turn ran short in about 1 game in 9 (unseeded)
    url = limited(BOT_RATE_LIMIT="20/minute")
    busy, other = solo_game(url), solo_game(url)
    bot = ApiClient(url, BOT, backoff=0.01)
    for _ in range(20):   # the busy game's bot budget is spent
        bot.state(busy)
    slept = []
    monkeypatch.setattr(time, "sleep", lambda s: slept.append(s))
    with pytest.raises(RateLimited) as e:
        play_turn(bot, busy, 0)
    assert e.value.retry_after > 0
    batches = play_turn(bot, other, 0)   # the other game's turn is played at once, nothing waits
    assert batches >= 1 and slept == []
    assert requests.get(f"{url}{API}/{other}", timeout=10).json()["to_act"] == [1], "the bot's turn is over"


def test_the_bot_task_reschedules_instead_of_sleeping(monkeypatch):
    from seats import worker
    from seats.client import RateLimited

    def throttled(*a, **kw):
        raise RateLimited({"code": "rate-limited"}, 17.0)
    monkeypatch.setattr(worker, "run_automa_turn", throttled)
    monkeypatch.setattr(worker, "client", lambda: None)
    retried = {}

    def fake_retry(**kw):
        retried.update(kw)
        return RuntimeError("retry")
    monkeypatch.setattr(worker.play_turn, "retry", fake_retry)
    with pytest.raises(RuntimeError):
        worker.play_turn.run("g", 0, 1)
    assert retried["countdown"] == 17.0 and retried["max_retries"] is None
