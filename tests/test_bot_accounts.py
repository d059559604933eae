"""Bot accounts' owners and consent (issue 27, application/bots.py, docs/bots.md): the owner key
from the registration rotates and revokes the bot's token and deletes the account; a bot is
seated only by its owner (the owner key in the seat) or with its consent (an invitation the bot
accepted through the API, used by one game). Through the real API on a real Redis."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import requests

API = "/api/v1"


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def register(client, name="Rita"):
    r = client.post(f"{API}/bots", json={"name": name, "email": f"{name.lower()}@owners.test"})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def game_with(client, bot_seat):
    return client.post(f"{API}/games", json={"seats": [{"name": "Ann"}, {"kind": "bot", **bot_seat}]})


def games_stored(redis_client) -> int:
    return sum(1 for _ in redis_client.scan_iter("g:{*}:meta"))


def test_the_owner_rotates_and_revokes_the_token(client):
    bot = register(client)
    old = bot["token"]
    assert client.get(f"{API}/bot/invitations", headers=bearer(old)).status_code == 200
    for headers in ({}, bearer(old), bearer(register(client, "Other")["owner_key"]), bearer("botowner.x.y")):
        r = client.post(f"{API}/bots/{bot['id']}/token", headers=headers)
        assert r.status_code == 401 and r.get_json()["code"] == "unauthorized", headers
    assert client.post(f"{API}/bots/000000000000/token", headers=bearer(bot["owner_key"])).status_code == 404
    r = client.post(f"{API}/bots/{bot['id']}/token", headers=bearer(bot["owner_key"]))
    assert r.status_code == 201, r.get_json()
    new = r.get_json()
    assert new["id"] == bot["id"] and new["token"] != old and new["token"].startswith(f"bot.{bot['id']}.")
    assert client.get(f"{API}/bot/invitations",
                      headers=bearer(old)).status_code == 401, "the old token still works"
    assert client.get(f"{API}/bot/invitations", headers=bearer(new["token"])).status_code == 200
    # revoked: no token works until the owner gives it a new one
    assert client.delete(f"{API}/bots/{bot['id']}/token", headers=bearer(new["token"])).status_code == 401
    assert client.delete(f"{API}/bots/{bot['id']}/token", headers=bearer(bot["owner_key"])).status_code == 204
    assert client.get(f"{API}/bot/invitations", headers=bearer(new["token"])).status_code == 401
    again = client.post(f"{API}/bots/{bot['id']}/token", headers=bearer(bot["owner_key"])).get_json()
    assert client.get(f"{API}/bot/invitations", headers=bearer(again["token"])).status_code == 200


def test_a_revoked_token_no_longer_plays_the_bots_seat(client):
    bot = register(client)
    g = game_with(client, {"bot": bot["id"], "owner_key": bot["owner_key"]}).get_json()
    path = f"{API}/games/{g['id']}/legal-moves"
    assert client.get(path, headers=bearer(bot["token"])).get_json()["seat"] == 1
    new = client.post(f"{API}/bots/{bot['id']}/token", headers=bearer(bot["owner_key"])).get_json()["token"]
    assert client.get(path, headers=bearer(bot["token"])).status_code == 401
    assert client.get(path, headers=bearer(new)).get_json()["seat"] == 1


def test_deleting_a_bot(client, redis_client):
    bot = register(client)
    g = game_with(client, {"bot": bot["id"], "owner_key": bot["owner_key"]}).get_json()
    hook = client.post(f"{API}/webhooks", headers=bearer(bot["token"]),
                       json={"url": "https://93.184.216.34/hook", "events": ["all"]}).get_json()
    invitation = client.post(f"{API}/bots/{bot['id']}/invitations").get_json()
    assert client.delete(f"{API}/bots/{bot['id']}").status_code == 401
    assert client.delete(f"{API}/bots/{bot['id']}", headers=bearer(bot["token"])).status_code == 401
    assert client.delete(f"{API}/bots/{bot['id']}", headers=bearer(bot["owner_key"])).status_code == 204
    assert client.get(f"{API}/bots/{bot['id']}").status_code == 404
    assert client.get(f"{API}/games/{g['id']}/legal-moves", headers=bearer(bot["token"])).status_code == 401
    assert not redis_client.exists(f"wh:{{{hook['id']}}}"), "its webhook is still there"
    assert client.get(f"{API}/bots/{bot['id']}/invitations/{invitation['id']}").status_code == 404
    stored = redis_client.hgetall(f"bot:{{{bot['id']}}}")
    assert set(stored) == {b"created", b"deleted"}, "the tombstone keeps its address or a hash"
    r = game_with(client, {"bot": bot["id"], "owner_key": bot["owner_key"]})
    assert r.status_code == 422 and r.get_json()["code"] == "unknown-bot"
    assert client.delete(f"{API}/bots/{bot['id']}", headers=bearer(bot["owner_key"])).status_code == 404
    assert client.get(f"{API}/games/{g['id']}").status_code == 200, "the game it played in is untouched"


def test_nobody_seats_someone_elses_bot_without_its_consent(client, redis_client):
    bot, other = register(client), register(client, "Other")
    before = games_stored(redis_client)
    for seat in ({"bot": bot["id"]}, {"bot": bot["id"], "owner_key": other["owner_key"]},
                 {"bot": bot["id"], "owner_key": bot["token"]}, {"bot": bot["id"], "invitation": "0" * 32},
                 {"bot": bot["id"], "invitation": "not an id"}):
        r = game_with(client, seat)
        assert r.status_code == 403 and r.get_json()["code"] == "bot-not-consenting", (seat, r.get_json())
    assert games_stored(redis_client) == before, "a refused creation stored a game"
    assert game_with(client, {"bot": bot["id"], "owner_key": bot["owner_key"]}).status_code == 201


def test_an_invitation_the_bot_accepts_seats_it_in_one_game(client):
    bot, other = register(client), register(client, "Other")
    r = client.post(f"{API}/bots/{bot['id']}/invitations")
    assert r.status_code == 201, r.get_json()
    inv = r.get_json()
    assert inv["status"] == "pending" and inv["bot"] == bot["id"] and inv["expires"] > inv["created"]
    seat = {"bot": bot["id"], "invitation": inv["id"]}
    assert game_with(client, seat).get_json()["code"] == "bot-not-consenting", "seated before it accepted"
    assert client.get(f"{API}/bot/invitations").status_code == 401
    listed = client.get(f"{API}/bot/invitations", headers=bearer(bot["token"])).get_json()["invitations"]
    assert [i["id"] for i in listed] == [inv["id"]]
    assert client.get(f"{API}/bot/invitations",
                      headers=bearer(other["token"])).get_json()["invitations"] == []
    # only the invited bot answers it
    assert client.post(f"{API}/bot/invitations/{inv['id']}/accept",
                       headers=bearer(other["token"])).status_code == 404
    r = client.post(f"{API}/bot/invitations/{inv['id']}/accept", headers=bearer(bot["token"]))
    assert r.status_code == 200 and r.get_json()["status"] == "accepted"
    r = client.post(f"{API}/bot/invitations/{inv['id']}/decline", headers=bearer(bot["token"]))
    assert r.status_code == 422 and r.get_json()["code"] == "invitation-answered"
    assert client.get(f"{API}/bot/invitations", headers=bearer(bot["token"])).get_json()["invitations"] == []
    # an invitation of one bot seats no other
    wrong = game_with(client, {"bot": other["id"], "invitation": inv["id"]})
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "bot-not-consenting"
    # a creation the service refuses after the seats were checked (a solo game needs a Cardinalbot
    # seat) does not use it up
    bad = client.post(f"{API}/games", json={"seats": [{"name": "Ann"}, {"kind": "bot", **seat}],
                                            "options": {"solo": {"level": "deacon"}}})
    assert bad.status_code == 422 and bad.get_json()["code"] == "bad-seats", bad.get_json()
    r = game_with(client, seat)
    assert r.status_code == 201, r.get_json()
    g = r.get_json()
    assert g["seats"][1] == {"seat": 1, "name": "Rita", "kind": "bot", "token": None}
    shown = client.get(f"{API}/bots/{bot['id']}/invitations/{inv['id']}").get_json()
    assert shown["status"] == "used" and shown["game"] == g["id"]
    assert game_with(client, seat).get_json()["code"] == "bot-not-consenting", "one invitation, two games"
    assert client.get(f"{API}/games/{g['id']}/legal-moves",
                      headers=bearer(bot["token"])).get_json()["seat"] == 1


def test_a_declined_invitation_seats_nothing(client):
    bot = register(client)
    inv = client.post(f"{API}/bots/{bot['id']}/invitations").get_json()
    r = client.post(f"{API}/bot/invitations/{inv['id']}/decline", headers=bearer(bot["token"]))
    assert r.status_code == 200 and r.get_json()["status"] == "declined"
    assert client.post(f"{API}/bot/invitations/{inv['id']}/accept",
                       headers=bearer(bot["token"])).get_json()["code"] == "invitation-answered"
    assert game_with(client, {"bot": bot["id"],
                              "invitation": inv["id"]}).get_json()["code"] == "bot-not-consenting"


def test_one_accepted_invitation_seats_one_game_even_at_once(client, live_server):
    bot = register(client)
    inv = client.post(f"{API}/bots/{bot['id']}/invitations").get_json()
    client.post(f"{API}/bot/invitations/{inv['id']}/accept", headers=bearer(bot["token"]))
    barrier = threading.Barrier(8)

    def create(_):
        barrier.wait()
        return requests.post(f"{live_server.url}{API}/games", timeout=30, json={"seats": [
            {"name": "Ann"}, {"kind": "bot", "bot": bot["id"], "invitation": inv["id"]}]}).status_code
    with ThreadPoolExecutor(8) as pool:
        codes = sorted(pool.map(create, range(8)))
    assert codes == [201] + [403] * 7, codes


def test_open_invitations_are_bounded(client):
    from application.bots import MAX_INVITATIONS
    bot = register(client)
    codes = [client.post(f"{API}/bots/{bot['id']}/invitations").status_code for _ in range(
        MAX_INVITATIONS + 1)]
    assert codes == [201] * MAX_INVITATIONS + [422]
    assert client.post(f"{API}/bots/000000000000/invitations").get_json()["code"] == "bot-not-found"
