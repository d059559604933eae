"""Seats of kind "ai" (docs/ai.md): created with a level, scheduled like the Cardinalbot's turns
and played through the public API with the AI credential, which acts only for AI seats.

In-process (a real Redis and HTTP server, the scheduler's messages captured and run by hand),
then end to end through `tablepost serve` with its own workers: one human and two AI seats to the
end, and a game of four AI seats."""
from __future__ import annotations

import random
import time

import pytest
import requests

import ai
from application.seats import AI_LEVELS
from seats.ai_runner import play_ai_turn
from seats.client import ApiClient
from tests.conftest import LiveServer, make_app
from tests.servers import Serve

API = "/api/v1/games"
AI_TOKEN = "ai-credential-for-tests"


def test_the_service_knows_the_ai_levels():
    assert AI_LEVELS == tuple(ai.LEVELS)


@pytest.fixture()
def live(redis_server):
    sent: list[tuple] = []
    app = make_app(redis_server.url, AI_TOKEN=AI_TOKEN, BOT_TOKEN="bot-credential-for-ai-tests",
                   SEND_TASK=lambda name, args, queue: sent.append((name, args, queue)))
    with LiveServer(app) as server:
        yield server.url, sent


def test_ai_seats_are_created_scheduled_and_played_with_their_own_credential(live):
    url, sent = live
    http = requests.Session()
    rv = http.post(url + API, timeout=10, json={"seats": [
        {"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "easy"}, {"name": "Tron", "kind": "ai"}],
        "options": {"seed": "ai-seats-1"}})
    assert rv.status_code == 201, rv.text
    game = rv.json()
    gid = game["id"]
    assert [s["kind"] for s in game["seats"]] == ["human", "ai", "ai"]
    assert game["seats"][1]["token"] is None and game["seats"][2]["token"] is None
    me = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    ai_auth = {"Authorization": f"Bearer {AI_TOKEN}"}
    # the AI credential may not play the human seat
    to_act = http.get(f"{url}{API}/{gid}", timeout=10).json()["to_act"]
    assert to_act == [0]
    legal = http.get(f"{url}{API}/{gid}/legal-moves", headers=me, timeout=10).json()
    rv = http.post(f"{url}{API}/{gid}/moves", headers=ai_auth, timeout=10,
                   json={"expected_version": legal["version"], "moves": [legal["moves"][0]["move"]]})
    assert rv.status_code == 403 and rv.json()["code"] == "not-your-turn"
    client = ApiClient(url, AI_TOKEN)
    rng = random.Random(1)
    ran = {1: 0, 2: 0}
    for _ in range(5000):
        summary = http.get(f"{url}{API}/{gid}", timeout=10).json()
        if summary["status"] == "finished":
            break
        if summary["to_act"] == [0]:
            legal = http.get(f"{url}{API}/{gid}/legal-moves", headers=me, timeout=10).json()
            moves = [m["move"] for m in legal["moves"]]
            move = "end" if "end" in moves and rng.random() < 0.3 else rng.choice(moves)
            rv = http.post(f"{url}{API}/{gid}/moves", headers=me, timeout=10,
                           json={"expected_version": legal["version"], "moves": [move]})
            assert rv.status_code == 200, rv.text
            continue
        tasks = [t for t in sent if t[0] == "seats.play_ai_turn"]
        assert tasks, f"no AI task sent while seat {summary['to_act']} is to act"
        _, (task_gid, seat, version, level), queue = tasks[-1]
        assert task_gid == gid and queue == "seats" and [seat] == summary["to_act"]
        assert level == {1: "easy", 2: "medium"}[seat]
        sent.clear()
        assert play_ai_turn(client, gid, seat, level, version) >= 1
        ran[seat] += 1
    assert summary["status"] == "finished"
    assert ran[1] >= 10 and ran[2] >= 10            # a run may play two turns in a row (a King phase between)
    events = http.get(f"{url}{API}/{gid}/events", timeout=10).json()["events"]
    takes = [e for e in events if e["type"] == "MovePlayed" and e["move"].startswith("take ")]
    assert [sum(1 for e in takes if e["seat"] == s) for s in range(3)] == [12, 12, 12]


def test_the_ai_credential_acts_only_for_ai_seats_and_levels_are_checked(live):
    url, _ = live
    http = requests.Session()
    game = http.post(url + API, timeout=10, json={"seats": [{"name": "A"}, {"name": "B"}]}).json()
    rv = http.get(f"{url}{API}/{game['id']}/legal-moves", headers={"Authorization": f"Bearer {AI_TOKEN}"},
                  timeout=10)
    assert rv.status_code == 403 and rv.json()["code"] == "not-an-ai-seat"
    rv = http.post(url + API, timeout=10,
                   json={"seats": [{"name": "A"}, {"name": "B", "kind": "ai", "level": "god"}]})
    assert rv.status_code == 422
    # the human seat of a solo game may be an AI seat
    rv = http.post(url + API, timeout=10, json={"seats": [{"name": "C", "kind": "cardinalbot"},
                                                          {"name": "R", "kind": "ai", "level": "easy"}],
                                                "options": {"solo": {"level": "bishop"}}})
    assert rv.status_code == 201, rv.text
    assert [s["kind"] for s in rv.json()["seats"]] == ["cardinalbot", "ai"]


# --- end to end through `tablepost serve` ------------------------------------------------------------

@pytest.fixture(scope="module")
def service(tmp_path_factory):
    # four AI seats make one game's moves as fast as the worker can: the credential's budget per
    # game (TABLEPOST_BOT_RATE_LIMIT, 300 a minute by default) would pace the test, not the AI
    with Serve(tmp_path_factory.mktemp("serve-ai"), "--workers", "2", "--allow-seeded-games",
               env={"TABLEPOST_SWEEP_SECONDS": "2", "TABLEPOST_BOT_DUE_SECONDS": "3",
                    "TABLEPOST_BOT_RATE_LIMIT": "5000/minute"}) as server:
        yield server.url


def run_to_the_end(url: str, gid: str, humans: dict[int, str], seconds: float = 240) -> dict:
    http = requests.Session()
    rng = random.Random(gid)
    deadline = time.monotonic() + seconds
    while True:
        rv = http.get(f"{url}{API}/{gid}", timeout=10)
        if rv.status_code == 429:  # the poll's own budget (600 a minute per address): wait
            time.sleep(float(rv.headers.get("Retry-After", 1)))
            continue
        summary = rv.json()
        if summary["status"] == "finished":
            return summary
        assert time.monotonic() < deadline, f"the game stalled at version {summary['version']}: {summary}"
        seat = summary["to_act"][0] if summary["to_act"] else None
        if seat in humans:
            me = {"Authorization": f"Bearer {humans[seat]}"}
            legal = http.get(f"{url}{API}/{gid}/legal-moves", headers=me, timeout=10).json()
            moves = [m["move"] for m in legal["moves"]]
            if moves:
                move = "end" if "end" in moves and rng.random() < 0.3 else rng.choice(moves)
                rv = http.post(f"{url}{API}/{gid}/moves", headers=me, timeout=10,
                               json={"expected_version": legal["version"], "moves": [move]})
                assert rv.status_code in (200, 409), rv.text
        else:
            time.sleep(0.2)


def test_one_human_and_two_ai_seats_to_the_end_through_tiletum_serve(service):
    rv = requests.post(service + API, timeout=10, json={"seats": [
        {"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "easy"},
        {"name": "Tron", "kind": "ai", "level": "easy"}], "options": {"seed": "ai-e2e-3"}})
    assert rv.status_code == 201, rv.text
    game = rv.json()
    summary = run_to_the_end(service, game["id"], {0: game["seats"][0]["token"]})
    assert summary["phase"] == "over" and summary["winner"] in (0, 1, 2)


def test_four_ai_seats_to_the_end_through_tiletum_serve(service):
    rv = requests.post(service + API, timeout=10, json={
        "seats": [{"name": f"AI{i}", "kind": "ai", "level": "easy"} for i in range(4)],
        "options": {"seed": "ai-e2e-4"}})
    assert rv.status_code == 201, rv.text
    summary = run_to_the_end(service, rv.json()["id"], {})
    assert summary["phase"] == "over" and summary["winner"] in (0, 1, 2, 3)
    events = requests.get(f"{service}{API}/{rv.json()['id']}/events", timeout=10).json()["events"]
    assert len([e for e in events if e["type"] == "MovePlayed" and e["move"].startswith("take ")]) == 48


def test_a_carcassonne_game_of_one_human_and_two_ai_seats_to_the_end_through_tiletum_serve(service):
    """The AI's search works over the game interface: Carcassonne's AI seats are played by the
    same bot service, woken by the same scheduling (tests/test_carcassonne_ai.py has the rest)."""
    rv = requests.post(service + API, timeout=10, json={"game": "carcassonne", "seats": [
        {"name": "Ada"}, {"name": "Robo", "kind": "ai", "level": "easy"},
        {"name": "Tron", "kind": "ai", "level": "easy"}], "options": {"seed": "cai-e2e-3"}})
    assert rv.status_code == 201, rv.text
    game = rv.json()
    summary = run_to_the_end(service, game["id"], {0: game["seats"][0]["token"]})
    assert summary["phase"] == "over"
    events = requests.get(f"{service}{API}/{game['id']}/events", timeout=10).json()["events"]
    placed = [e for e in events if e["type"] == "MovePlayed"]
    assert {e["seat"] for e in placed} == {0, 1, 2} and len(placed) >= 60


def test_a_carcassonne_game_of_five_ai_seats_to_the_end_through_tiletum_serve(service):
    rv = requests.post(service + API, timeout=10, json={
        "game": "carcassonne", "seats": [{"name": f"AI{i}", "kind": "ai", "level": "easy"} for i in range(5)],
        "options": {"seed": "cai-e2e-5"}})
    assert rv.status_code == 201, rv.text
    summary = run_to_the_end(service, rv.json()["id"], {})
    assert summary["phase"] == "over"


# --- the stand-in --------------------------------------------------------------------------------

def test_the_stand_in_plays_a_late_turn_with_the_ai_from_the_seats_view(redis_client):
    """The deadline passes: the stand-in plays the seat's whole turn, labelled, and its moves are
    the AI's at the stand-in level from the seat's view (not the fixed rule it used before)."""
    from datetime import datetime, timezone

    import tiletum
    from application.deadline_store import DEADLINES, REMINDERS
    from application.deadlines import Deadlines
    from application.stand_in import STAND_IN_LEVEL
    from application.game_service import GameService
    from games.tiletum import view_doc
    from application.store import EventStore

    redis_client.delete(*DEADLINES.keys(), *REMINDERS.keys())
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    t = [datetime(2026, 11, 18, 9, 0, tzinfo=timezone.utc).timestamp()]
    gid = svc.create_game([{"name": "Ada"}, {"name": "Bob"}],
                          {"seed": "ai-stand-in", "time_control": {"days_per_move": 1}}, game="tiletum")["id"]
    _, before = svc.load(gid)
    seat = before.actor
    dl = Deadlines(svc, None, lambda: t[0])
    dl.start_turn(gid, svc.meta(gid), seat, before.version)   # what the turn email does
    t[0] += 25 * 3600
    assert dl.sweep()["stand_in_turns"] == 1
    _, after = svc.load(gid)
    assert after.actor != seat
    played = [e for e in svc.store.events(gid) if e.get("by") == "stand-in"]
    assert played and all(e["seat"] == seat for e in played) and played[-1]["move"] == "end"
    # the same moves again: the AI from the seat's view, re-read after each reveal
    state, seed, expected = before, svc.store.seed(gid), []
    while state.actor == seat:
        for m in ai.decide(view_doc(state, seat), STAND_IN_LEVEL, f"{gid}:{state.version}"):
            if state.actor != seat:
                break
            _, state = tiletum.play(state, seat, m, seed=seed)
            expected.append(m)
    assert [e["move"] for e in played] == expected
    assert "[stand-in]" in svc.record(gid)


# --- emails -------------------------------------------------------------------------------------

def test_emails_name_ai_seats_as_such(redis_client):
    """The turn email after an AI seat's turn says who moved: the AI seat by its name and level."""
    from application.game_service import GameService
    from games.tiletum import view_doc
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox

    class Transport:
        def __init__(self):
            self.sent = []

        def send(self, msg):
            self.sent.append(msg)

    svc = GameService(EventStore(redis_client), allow_seeded_games=True, ai_token=AI_TOKEN)
    gid = svc.create_game(
        [{"name": "Robo", "kind": "ai", "level": "easy"}, {"name": "Ada", "email": "ada@ai.test"}],
        {"seed": "ai-mail"}, game="tiletum")["id"]
    _, state = svc.load(gid)
    assert state.actor == 0
    while state.actor == 0:
        svc.submit(gid, AI_TOKEN, state.version, ai.decide(view_doc(state, 0), "easy", state.version))
        _, state = svc.load(gid)
    transport = Transport()
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
    notifier = Notifier(svc, Outbox(redis_client, transport), cfg)
    assert notifier.notify(gid, state.version) == 1
    msg = transport.sent[-1]
    text = next(p for p in msg.walk()
                if p.get_content_type() == "text/plain").get_payload(decode=True).decode()
    assert "Robo (AI, easy)" in text and "Hello Ada" in text


# --- scheduling ---------------------------------------------------------------------------------

def test_a_lost_ai_turn_is_sent_again_by_the_sweep_and_is_not_a_cardinalbot_turn(redis_server, redis_client):
    from application.indexes import DUE, DUE_AT

    redis_client.delete(*DUE.keys(), *DUE_AT.keys())
    sent: list[tuple] = []
    broken = [True]

    def send(name, args, queue):
        if broken[0]:
            raise ConnectionError("the broker is down")
        sent.append((name, args, queue))

    app = make_app(redis_server.url, AI_TOKEN=AI_TOKEN, BOT_TOKEN="bot-for-sweep", SEND_TASK=send)
    c = app.test_client()
    rv = c.post(API, json={"seats": [{"name": "R", "kind": "ai", "level": "hard"}, {"name": "A"}],
                           "options": {"seed": "ai-sweep"}})
    assert rv.status_code == 201
    gid = rv.get_json()["id"]
    assert sent == []                                   # the message was lost
    broken[0] = False
    assert app.extensions["tablepost.scheduler"].sweep(older_than=0) == 1
    assert sent == [("seats.play_ai_turn", [gid, 0, 1, "hard"], "seats")]
    turns = c.get("/api/v1/bot/turns", headers={"Authorization": "Bearer bot-for-sweep"}).get_json()["turns"]
    assert all(t["game_id"] != gid for t in turns), "an AI turn is not the Cardinalbot's to poll"


def test_master_is_a_level_of_seats_and_of_the_stand_in(live, monkeypatch):
    """The correspondence level (issue 31) is accepted wherever a level is: an AI seat, the
    stand-in (TABLEPOST_STAND_IN_LEVEL); its budget per decision is TABLEPOST_AI_MASTER_SECONDS."""
    from ai.settings import master_seconds
    from application.stand_in import stand_in_level
    url, _ = live
    rv = requests.post(url + API, timeout=10, json={"seats": [{"name": "A"}, {"name": "M", "kind": "ai",
                                                                              "level": "master"}]})
    assert rv.status_code == 201, rv.text
    summary = requests.get(f"{url}{API}/{rv.json()['id']}", timeout=10).json()
    assert summary["seats"][1]["level"] == "master"
    monkeypatch.setenv("TABLEPOST_STAND_IN_LEVEL", "master")
    assert stand_in_level() == "master"
    monkeypatch.setenv("TABLEPOST_STAND_IN_LEVEL", "grandmaster")
    with pytest.raises(ValueError, match="TABLEPOST_STAND_IN_LEVEL"):
        stand_in_level()
    monkeypatch.setenv("TABLEPOST_AI_MASTER_SECONDS", "2.5")
    assert master_seconds() == 2.5
    monkeypatch.setenv("TABLEPOST_AI_MASTER_SECONDS", "soon")
    with pytest.raises(ValueError, match="TABLEPOST_AI_MASTER_SECONDS"):
        master_seconds()
