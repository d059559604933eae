"""Webhooks (application/webhooks.py, docs/bots.md): registration and its auth, the URL rules
(no private-network targets), the Dispatcher scheduling deliveries only for games with hooks,
and deliveries to a real HTTP receiver on loopback: signed, retried after a failure, switched
off after repeated failures, never carrying hidden information. The last test runs it all
through `tablepost serve` with its Celery worker, including the email to the owner."""
from __future__ import annotations

import email
import email.policy
import json
import random
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from application.dashboard import dashboard_key_for
from application.webhooks import Webhooks, verify
from tests.conftest import make_app

API = "/api/v1"
SEED = "webhook-seed-51c2"


class Receiver:
    """A real HTTP server on 127.0.0.1 that records each POST; it answers ``fail_with`` for the
    next ``fail`` requests, then 200."""

    def __init__(self):
        self.got: list[dict] = []
        self.fail, self.fail_with = 0, 500
        rec = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                rec.got.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                status = 200
                if rec.fail > 0:
                    rec.fail -= 1
                    status = rec.fail_with
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture()
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture()
def sent():
    return []


@pytest.fixture()
def app(redis_server, sent):
    return make_app(redis_server.url, SEND_TASK=lambda name, args, queue: sent.append((name, args)),
                    WEBHOOK_ALLOW_LOOPBACK=True)  # the receiver is on 127.0.0.1


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def new_game(client, seats=None) -> dict:
    r = client.post(f"{API}/games", json={"seats": seats or [{"name": "Ann", "email": "ann@example.org"},
                                                              {"name": "Ben"}], "options": {"seed": SEED}})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def move(client, game, seat=None, rng=random.Random(2)):
    s = client.get(f"{API}/games/{game['id']}").get_json()
    seat = s["to_act"][0] if seat is None else seat
    token = game["seats"][seat]["token"]
    lm = client.get(f"{API}/games/{game['id']}/legal-moves", headers=bearer(token)).get_json()
    mv = rng.choice([m["move"] for m in lm["moves"] if m["move"] != "undo"])
    r = client.post(f"{API}/games/{game['id']}/moves", headers=bearer(token),
                    json={"expected_version": lm["version"], "moves": [mv]})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["version"]


def subscribe(client, token, url, events=("all",), game=None):
    body = {"url": url, "events": list(events)}
    if game is not None:
        body["game"] = game
    return client.post(f"{API}/webhooks", headers=bearer(token) if token else {}, json=body)


def test_registration_auth_and_url_rules(client, receiver):
    g, other = new_game(client), new_game(client)
    ann = g["seats"][0]["token"]
    assert subscribe(client, None, receiver.url, game=g["id"]).status_code == 401
    assert subscribe(client, ann, receiver.url).get_json()["code"] == "game-required"
    # a seat token subscribes only to its own game's events
    r = subscribe(client, ann, receiver.url, game=other["id"])
    assert r.status_code == 401 and r.mimetype == "application/problem+json"
    for url in ("http://example.org/hook", "ftp://127.0.0.1/x", "https://10.1.2.3/x", "https://192.168.0.9/x",
                "https://169.254.169.254/latest", "https://[fd00::1]/x", "https://0.0.0.0/x", "https://user:pw@example.org/",
                "not a url"):
        r = subscribe(client, ann, url, game=g["id"])
        assert r.status_code == 422 and r.get_json()["code"] == "bad-webhook-url", (url, r.get_json())
    r = subscribe(client, ann, receiver.url, events=("sometimes",), game=g["id"])
    assert r.status_code == 422
    r = subscribe(client, ann, receiver.url + "/ann", events=("your-turn", "game-over"), game=g["id"])
    assert r.status_code == 201, r.get_json()
    hook = r.get_json()
    assert (hook["secret"].startswith("whsec_") and hook["game"] == g["id"] and hook["seat"] == 0
            and hook["active"])
    # only its owner sees or deletes it
    ben = g["seats"][1]["token"]
    assert client.get(f"{API}/webhooks/{hook['id']}", headers=bearer(ben)).status_code == 404
    assert client.delete(f"{API}/webhooks/{hook['id']}", headers=bearer(ben)).status_code == 404
    shown = client.get(f"{API}/webhooks/{hook['id']}", headers=bearer(ann)).get_json()
    assert ("secret" not in shown and shown["deliveries"] == []
            and shown["events"] == ["game-over", "your-turn"])
    assert client.delete(f"{API}/webhooks/{hook['id']}", headers=bearer(ann)).status_code == 204
    assert client.get(f"{API}/webhooks/{hook['id']}", headers=bearer(ann)).status_code == 404


def test_deliveries_are_scheduled_only_for_games_with_hooks(client, receiver, sent):
    plain, hooked = new_game(client), new_game(client)
    subscribe(client, hooked["seats"][1]["token"], receiver.url, game=hooked["id"])
    sent.clear()
    move(client, plain)
    assert not [s for s in sent if s[0] == "workers.deliver_webhooks"]
    v = move(client, hooked)
    assert ("workers.deliver_webhooks", [hooked["id"], v]) in sent


def test_signed_delivery_retry_and_switch_off(app, client, receiver):
    # an address of this test's own: whether it acted on our email is what is checked (another test of
    # the worker may have verified the shared ann@example.org in the same Redis)
    ann_email = f"ann-{secrets.token_hex(6)}@example.org"
    g = new_game(client, [{"name": "Ann", "email": ann_email}, {"name": "Ben"}])
    hooks = Webhooks(app.extensions["tablepost.service"], max_failures=3, allow_loopback=True)
    ann, ben = g["seats"][0]["token"], g["seats"][1]["token"]
    h = subscribe(client, ben, receiver.url + "/ben", events=("your-turn",), game=g["id"]).get_json()
    every = subscribe(client, ann, receiver.url + "/all", events=("all",), game=g["id"]).get_json()
    assert hooks.subscriptions_of(g["id"]) == sorted([h["id"], every["id"]])
    # play until Ben is to act
    skipped = 0
    while True:
        s = client.get(f"{API}/games/{g['id']}").get_json()
        if s["to_act"] == [1]:
            break
        v = move(client, g)
        if client.get(f"{API}/games/{g['id']}").get_json()["to_act"] != [1]:
            # not Ben's turn: nothing for a your-turn hook
            assert hooks.deliver(h["id"], g["id"], v) == "skipped"
            skipped += 1
    v = s["version"]
    assert skipped, "Ben was to act at once: the skip is not checked"
    receiver.fail = 1
    assert hooks.deliver(h["id"], g["id"], v) == "retry"
    assert hooks.deliver(h["id"], g["id"], v, attempt=1) == "sent"
    assert hooks.deliver(h["id"], g["id"], v, attempt=2) == "skipped", "delivered twice"
    first, second = receiver.got[-2:]
    assert first["body"] == second["body"]
    body = json.loads(second["body"])
    assert verify(h["secret"], second["body"], second["headers"]["X-Tablepost-Signature"])
    assert not verify(h["secret"], second["body"] + b" ", second["headers"]["X-Tablepost-Signature"])
    assert not verify(every["secret"], second["body"], second["headers"]["X-Tablepost-Signature"])
    t = int(second["headers"]["X-Tablepost-Signature"].split(",")[0][2:])
    assert not verify(h["secret"], second["body"], second["headers"]["X-Tablepost-Signature"],
                      now=t + 3600), "replayable"
    # for one release the service's old names carry the same values (docs/bots.md)
    assert second["headers"]["X-Tiletum-Signature"] == second["headers"]["X-Tablepost-Signature"]
    assert second["headers"]["X-Tiletum-Delivery"] == second["headers"]["X-Tablepost-Delivery"]
    assert second["headers"]["User-Agent"] == "tablepost-webhooks/1"
    assert (body["type"] == "your-turn" and body["seat"] == 1 and body["to_act"] == [1]
            and body["version"] == v)
    public = client.get(f"{API}/games/{g['id']}/events").get_json()["events"]
    assert body["events"] == public[:v], "the payload is not the public event log"
    log = client.get(f"{API}/webhooks/{h['id']}", headers=bearer(ben)).get_json()["deliveries"]
    assert [(d["ok"], d.get("status"), d["attempt"]) for d in log] == [(True, 200, 2), (False, 500, 1)]
    # the all-events hook: switched off after 3 failed attempts in a row
    receiver.fail = 10
    assert [hooks.deliver(every["id"], g["id"], v, attempt=i) for i in range(3)] == ["retry", "retry", "off"]
    assert hooks.deliver(every["id"], g["id"], v) == "skipped"
    shown = client.get(f"{API}/webhooks/{every['id']}", headers=bearer(ann)).get_json()
    assert shown["active"] is False and shown["failures"] == 3 and len(shown["deliveries"]) == 3
    # the switch-off email goes only to an address that has acted on an email of ours: typing an
    # address into a seat makes it no place to write to about a URL the typist chose
    assert hooks.owner_email(every["id"]) is None
    r = app.extensions["tablepost.service"].store.r
    key = dashboard_key_for(r, ann_email)  # what Ann's turn email carries
    assert client.get(f"{API}/me/games", headers=bearer(key)).status_code == 200
    assert hooks.owner_email(every["id"]) == ann_email
    assert hooks.owner_email(h["id"]) is None, "Ben has no address; nothing to verify"


def test_no_hidden_information_in_payloads(app, client, receiver):
    g = new_game(client, [{"name": "A"}, {"name": "B"}, {"name": "C"}])
    svc = app.extensions["tablepost.service"]
    hooks = Webhooks(svc, allow_loopback=True)
    h = subscribe(client, g["seats"][0]["token"], receiver.url, game=g["id"]).get_json()
    for _ in range(20):
        v = move(client, g, rng=random.Random(7))
    assert hooks.deliver(h["id"], g["id"], v) == "sent"
    text = receiver.got[-1]["body"].decode()
    _, state = svc.load(g["id"])
    log = client.get(f"{API}/games/{g['id']}/events").get_data(as_text=True)
    face_down = {t for pile in state.piles.values() for t in pile} | set(state.corruption_pool)
    secret = {t for t in face_down if f'"{t}"' not in log}
    assert len(secret) > 10
    assert not {t for t in secret if f'"{t}"' in text} and SEED not in text and "token" not in text


def test_a_bot_subscription_covers_its_seat_in_every_game(client, receiver):
    bot = client.post(f"{API}/bots", json={"name": "Hooky", "email": "hooky-owner@example.org"}).get_json()
    r = subscribe(client, bot["token"], receiver.url, events=("your-turn",), game="x")
    assert r.get_json()["code"] == "game-not-for-bots"
    h = subscribe(client, bot["token"], receiver.url, events=("your-turn",)).get_json()
    assert h["bot"] == bot["id"] and h["game"] is None
    games = [new_game(
        client, [{"name": "Ann"}, {"kind": "bot", "bot": bot["id"], "owner_key": bot["owner_key"]}])
             for _ in range(2)]
    hooks = Webhooks(client.application.extensions["tablepost.service"], allow_loopback=True)
    for g in games:
        assert hooks.subscriptions_of(g["id"]) == [h["id"]]
        while client.get(f"{API}/games/{g['id']}").get_json()["to_act"] != [1]:
            v = move(client, g, seat=0)
        assert hooks.deliver(h["id"], g["id"], v) == "sent"
        assert json.loads(receiver.got[-1]["body"])["game"] == g["id"]
    assert hooks.owner_email(h["id"]) is None, "a bot owner's address that never read our email"


@pytest.mark.long(15)
def test_webhooks_through_tablepost_serve_and_its_celery_worker(tmp_path, receiver):
    """The real path: a move saved by the API, the Dispatcher's task, the worker's delivery with
    a retry after a failure, and a hook that keeps failing switched off with an email to its owner."""
    from api.redis_server import free_port
    from tests.servers import Serve, wait_for
    with Serve(tmp_path, "--workers", "1", "--threads", "12", "--allow-seeded-games", "--mailin-port",
               str(free_port()), env={"TABLEPOST_RATE_LIMIT": "0", "TABLEPOST_WEBHOOK_BACKOFF": "0.5",
                                      "TABLEPOST_WEBHOOK_ALLOW_LOOPBACK": "1",
                    "TABLEPOST_WEBHOOK_MAX_FAILURES": "2"}) as srv:
        s = requests.Session()
        g = s.post(srv.url + f"{API}/games", json={"seats": [{"name": "Ann", "email": "ann@example.org"},
                                                             {"name": "Ben",
                                                              "email": "ben@example.org"}]}).json()
        ann, ben = g["seats"][0]["token"], g["seats"][1]["token"]

        def texts_to_ann():
            for path in (tmp_path / "mail").glob("*"):
                msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                if "ann@example.org" in str(msg["To"]):
                    yield msg.get_body(("plain",)).get_content()
        # Ann's first turn email, before she moves: an email for a turn she already began is no
        # longer due (the worker re-reads the game), so on a busy machine it might never come
        keys = wait_for(
            lambda: [m.group(1) for t in texts_to_ann() for m in [re.search(r"/me#key=([a-z0-9.]+)", t)]
                     if m], 90, "Ann's first email")
        key = keys[0]
        good = s.post(srv.url + f"{API}/webhooks", headers=bearer(ben),
                      json={"url": receiver.url + "/ben", "events": ["all"], "game": g["id"]}).json()
        receiver.fail = 1  # the first attempt fails; the worker retries
        lm = s.get(srv.url + f"{API}/games/{g['id']}/legal-moves", headers=bearer(ann)).json()
        r = s.post(srv.url + f"{API}/games/{g['id']}/moves", headers=bearer(ann),
                   json={"expected_version": lm["version"], "moves": [lm["moves"][0]["move"]]})
        assert r.status_code == 200, r.text
        v = r.json()["version"]
        wait_for(lambda: len(receiver.got) >= 2, 60, "the retried delivery")
        assert verify(good["secret"], receiver.got[1]["body"],
                      receiver.got[1]["headers"]["X-Tablepost-Signature"])
        assert json.loads(receiver.got[1]["body"])["version"] == v
        # the worker records a delivery once the receiver has answered: a moment after it got it

        def deliveries():
            out = s.get(srv.url + f"{API}/webhooks/{good['id']}", headers=bearer(ben)).json()["deliveries"]
            return out if len(out) >= 2 else None
        log = wait_for(deliveries, 30, "both deliveries in the hook's log")
        assert [d["ok"] for d in log] == [True, False]
        # a hook whose receiver keeps failing: off after 2 attempts, and Ann is told by email, once
        # she has shown she reads ours (her dashboard key, from her first turn email, read above)
        assert s.get(srv.url + f"{API}/me/games", headers=bearer(key)).status_code == 200
        bad = s.post(srv.url + f"{API}/webhooks", headers=bearer(ann),
                     json={"url": receiver.url + "/ann-secret-path", "events": ["all"],
                           "game": g["id"]}).json()
        receiver.fail, receiver.fail_with = 100, 503
        lm = s.get(srv.url + f"{API}/games/{g['id']}/legal-moves", headers=bearer(ann)).json()
        s.post(srv.url + f"{API}/games/{g['id']}/moves", headers=bearer(ann),
               json={"expected_version": lm["version"], "moves": [lm["moves"][0]["move"]]})
        wait_for(lambda: not s.get(srv.url + f"{API}/webhooks/{bad['id']}",
                                   headers=bearer(ann)).json()["active"],
                 60, "the switch-off")
        mails = wait_for(
            lambda: [p for p in (tmp_path / "mail").glob("*") if bad["id"].encode() in p.read_bytes()],
            60, "the email to the owner")
        text = mails[0].read_bytes()
        assert b"ann@example.org" in text and b"127.0.0.1" in text and b"ann-secret-path" not in text


def test_no_token_is_a_401_on_every_webhook_route(client):
    """Without a credential the answer never says whether a webhook id exists."""
    g = new_game(client)
    ann = g["seats"][0]["token"]
    hook = subscribe(client, ann, "http://127.0.0.1:9/x", game=g["id"]).get_json()
    for method, path in (("get", f"{API}/webhooks"), ("get", f"{API}/webhooks/{hook['id']}"),
                         ("delete", f"{API}/webhooks/{hook['id']}"),
                         ("get", f"{API}/webhooks/0123456789abcdef"),
                         ("delete", f"{API}/webhooks/0123456789abcdef"), ("get", f"{API}/webhooks/nonsense")):
        r = getattr(client, method)(path)
        assert (r.status_code == 401 and r.mimetype == "application/problem+json"), (method, path,
                                                                                     r.status_code)
        assert r.headers.get("WWW-Authenticate", "").startswith("Bearer"), (method, path)
    listed = client.get(f"{API}/webhooks", headers=bearer(ann), query_string={"game": g["id"]}).get_json()
    assert [h["id"] for h in listed["webhooks"]] == [hook["id"]] and "secret" not in listed["webhooks"][0]
    assert client.get(f"{API}/webhooks", headers=bearer(g["seats"][1]["token"]),
                      query_string={"game": g["id"]}).get_json() == {"webhooks": []}


def test_the_cap_holds_under_simultaneous_registrations(app, live_server):
    """15 registrations at once for one seat: exactly 5 are made (the check and the add are one step)."""
    from concurrent.futures import ThreadPoolExecutor
    g = new_game(app.test_client())
    ann = g["seats"][0]["token"]
    barrier = threading.Barrier(15)

    def register(i):
        barrier.wait()
        return requests.post(f"{live_server.url}{API}/webhooks", headers=bearer(ann), timeout=30,
                             json={"url": f"http://127.0.0.1:9/{i}", "events": ["all"], "game": g["id"]})
    with ThreadPoolExecutor(15) as pool:
        answers = list(pool.map(register, range(15)))
    codes = sorted(r.status_code for r in answers)
    assert codes == [201] * 5 + [422] * 10, codes
    assert {r.json()["code"] for r in answers if r.status_code == 422} == {"too-many-webhooks"}
    listed = requests.get(f"{live_server.url}{API}/webhooks", headers=bearer(ann), params={"game": g["id"]},
                          timeout=10).json()["webhooks"]
    assert len(listed) == 5
    # deleting one frees its place
    requests.delete(f"{live_server.url}{API}/webhooks/{listed[0]['id']}", headers=bearer(ann), timeout=10)
    again = requests.post(f"{live_server.url}{API}/webhooks", headers=bearer(ann), timeout=10,
                          json={"url": "http://127.0.0.1:9/again", "events": ["all"], "game": g["id"]})
    assert again.status_code == 201, again.json()
