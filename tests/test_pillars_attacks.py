"""Attacks on The Pillars of the Earth as the service hosts it: the twin games. The hidden
information of a Pillars game is what the seed will reveal next (the master builder drawn from
the bag, the event card, the tax die, the next round's cards) and the seed itself. Two games whose
seeds give the same first position (the same round-1 cards) but a different first master builder
drawn are played to the same position, and everything a player can ask there must be the same for
both (but the game's id and the commitment to its seed): anything that differs is an oracle on
what comes next. Then a finished game archived reads the same, and the stand-in plays a late turn
by the AI from the seat's view. A real Redis, the Flask app of ``make_app``."""
from __future__ import annotations

import pytest

import ai
import pillars
from tests.conftest import make_app
from tests.servers import HintWorker

API = "/api/v1/games"
# seeds whose games start alike (the same privileges, craftsmen and resource cards set aside) and
# whose first master builder drawn (after "pass", "pass") differs: checked by test_the_twins_are_twins
TWINS = ("twin-56", "twin-671")
PREFIX = ["pass"]          # seat 0 passes; seat 1's pass ends phase I and draws a master builder


@pytest.fixture()
def api(redis_server, redis_client, tmp_path):
    for k in redis_client.scan_iter("LIMITER*"):
        redis_client.delete(k)
    with HintWorker(redis_server.url, tmp_path / "hints.log") as worker:   # hints: the real worker
        app = make_app(redis_server.url, HINT_LEVEL="easy", HINT_LIMIT="1000/hour", RATE_LIMIT=0,
                       STREAM_SECONDS=0.3, STREAM_KEEPALIVE=0.1, SEND_TASK=worker.send)
        yield app.test_client()


def bearer(token):
    return {"Authorization": f"Bearer {token}"} if token else {}


def create(api, seed):
    rv = api.post(API, json={"game": "pillars", "seats": [{"name": "P0"}, {"name": "P1"}],
                             "options": {"seed": seed}})
    assert rv.status_code == 201, rv.json
    return rv.json["id"], [s["token"] for s in rv.json["seats"]]


def test_the_twins_are_twins():
    a, ea = pillars.new_game(2, TWINS[0])
    b, eb = pillars.new_game(2, TWINS[1])
    assert a.to_doc() == b.to_doc() and ea == eb
    a = pillars.play(a, 0, "pass", seed=TWINS[0])[1]
    b = pillars.play(b, 0, "pass", seed=TWINS[1])[1]
    assert a.to_doc() == b.to_doc()
    drawn = [pillars.play(s, 1, "pass", seed=seed)[1].drawn for s, seed in ((a, TWINS[0]), (b, TWINS[1]))]
    assert drawn[0] != drawn[1]


def _everything_a_player_sees(api, gid, tokens, version):
    """Every answer a seat or a spectator gets about the game, and its errors, and the page."""
    out = {}
    for who, tok in (("spectator", None), ("seat0", tokens[0]), ("seat1", tokens[1])):
        for path in ("", "/state", "/legal-moves", "/events", "/events?after=1", "/record", "/fairness",
                     "/hint", "/board.svg", "/board.png", "/stream", "/rematch",
                     # the replay: every step so far, and one past it (issue 41)
                     *(f"/state?version={k}" for k in range(version + 2)),
                     *(f"/board.svg?version={k}" for k in range(version + 2))):
            rv = api.get(f"{API}/{gid}{path}", headers=bearer(tok))
            data = rv.get_data()
            text = data.hex() if path == "/board.png" else data.decode("utf-8")
            out[(who, path)] = (rv.status_code, text.replace(": keep-alive\n\n", ""))
        for moves, v in ((["take C24"], version), (["place priory"], version), (["pass"], version + 5),
                         (["gibberish"], version), (["take wood9"], version)):
            rv = api.post(f"{API}/{gid}/moves", headers=bearer(tok),
                          json={"expected_version": v, "moves": moves})
            out[(who, "POST", tuple(moves), v)] = (rv.status_code, rv.get_data(as_text=True))
        rv = api.post(f"{API}/{gid}/rematch", headers=bearer(tok))
        out[(who, "POST", "rematch")] = (rv.status_code, rv.get_data(as_text=True))
    out["page"] = (200, api.get(f"/play/{gid}").get_data(as_text=True))
    return out


@pytest.mark.parametrize("prefix", [[], PREFIX], ids=["at-the-start", "before-the-first-draw"])
def test_nothing_tells_what_the_seed_will_reveal(api, prefix):
    seen = []
    for seed in TWINS:
        gid, tokens = create(api, seed)
        for i, move in enumerate(prefix):
            rv = api.post(f"{API}/{gid}/moves", headers=bearer(tokens[i % 2]),
                          json={"expected_version": i + 1, "moves": [move]})
            assert rv.status_code == 200, rv.json
        commitment = api.get(f"{API}/{gid}/fairness").json["seed_commitment"]
        before = api.get(f"{API}/{gid}/events").json
        answers = _everything_a_player_sees(api, gid, tokens, len(prefix) + 1)
        assert all(answers[("seat0", f"/state?version={k}")][0] == 200 for k in range(1, len(prefix) + 2))
        assert api.get(f"{API}/{gid}/events").json == before, "probing played something"
        for key, (status, text) in answers.items():
            assert status < 500 and seed not in text, (key, text[:300])
        seen.append({k: (s, t.replace(gid, "<id>").replace(commitment, "<commitment>"))
                     for k, (s, t) in answers.items()})
    a, b = seen
    # the hint is seeded by the game's id and version: checked below to read the public view only
    differ = [k for k in a if a[k] != b[k] and k[1:2] != ("/hint",)]
    assert not differ, f"these answers differ with what comes next: {differ}"
    assert any(k[1:2] == ("/hint",) and v[0] == 200 for k, v in a.items()), "no hint was answered"



@pytest.mark.parametrize("prefix", [[], PREFIX], ids=["at-the-start", "before-the-first-draw"])
def test_the_turn_email_does_not_tell_what_the_seed_will_reveal(redis_client, prefix):
    """The turn email of the twin games (the seat to act, in the same position, a different master
    builder next from the bag) says the same, text and board picture, but for the game's id and
    the signed or secret parts of its links."""
    import re

    from application.game_service import GameService
    from application.store import EventStore
    from mail.mailconfig import MailConfig
    from mail.notify import Notifier
    from mail.outbox import Outbox
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x")
    notifier = Notifier(svc, Outbox(redis_client, None), cfg)
    seen = []
    for seed in TWINS:
        g = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob", "email": "bob@x.test"}],
                            {"seed": seed}, game="pillars")
        gid = g["id"]
        for i, move in enumerate(prefix):
            svc.submit_for_seat(gid, i % 2, i + 1, [move])
        meta, state = svc.load(gid)
        msg = notifier.turn_message(gid, meta, state, state.actor)
        text = "\n".join(f"{k}: {v}" for k, v in msg.items() if k not in ("Message-ID", "Date"))
        text += "".join(p.get_payload(decode=True).decode() for p in msg.walk()
                        if p.get_content_maintype() == "text")
        pictures = [p.get_payload(decode=True) for p in msg.walk() if p.get_content_type() == "image/png"]
        assert seed not in text and pictures, "the email carries its board"
        text = re.sub(r"play\+[^@\s\"'<>]+@", "play+<signed>@", text)
        text = re.sub(r"=_tiletum_[0-9a-f]+", "<boundary>", text.replace(gid, "<id>"))   # a random boundary
        text = re.sub(r"([?&#;](?:sig|token|t|key|e|email|exp|s)=)[^&\"'\s<>]+", r"\1<secret>", text)
        seen.append((text, pictures))
    assert seen[0][0] == seen[1][0], "the turn emails' texts differ"
    assert seen[0][1] == seen[1][1], "the turn emails' board pictures differ"

def test_a_hint_is_a_function_of_the_seats_public_view_only(api):
    for seed in TWINS:
        gid, tokens = create(api, seed)
        view = api.get(f"{API}/{gid}/state", headers=bearer(tokens[0])).json
        hint = api.get(f"{API}/{gid}/hint", headers=bearer(tokens[0])).json
        assert hint["moves"] == ai.decide(view, "easy", rng_seed=f"{gid}:{view['version']}")
        assert api.get(f"{API}/{gid}/hint", headers=bearer(tokens[1])).status_code == 403


def _play_to_the_end(svc, gid: str, tokens: list[str], seed: str) -> None:
    """The engine picks random legal moves (fast); the service plays each as the seat's player."""
    import random
    state, _ = pillars.new_game(len(tokens), seed)
    rng = random.Random(seed)
    while state.phase != "over":
        move = rng.choice(pillars.legal_moves(state))
        svc.submit(gid, tokens[state.actor], state.version, [move])
        _, state = pillars.play(state, state.actor, move, seed=seed)


def test_a_finished_pillars_game_reads_the_same_after_archiving(redis_server):
    """The operator's archive sweep over a finished Pillars game: every read answers the same from
    this process and from a fresh one, and a move is still refused as game-over."""
    import time

    from application import archive
    from application.finished import done, on_game_over
    app = make_app(redis_server.url)
    api, svc = app.test_client(), app.extensions["tablepost.service"]
    seed = f"pil-archive-{time.time_ns()}"
    created = svc.create_game([{"name": "Ada", "email": "ada-pil-arch@x.test"}, {"name": "Bob"}],
                              {"seed": seed}, game="pillars")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    _play_to_the_end(svc, gid, tokens, seed)
    on_game_over(svc, gid)
    done(svc.store.r, gid)
    paths = ["", "/state", "/events", "/events?after=7", "/record", "/fairness", "/board.svg", "/legal-moves"]

    def reads(client):
        answers = {p: client.get(f"{API}/{gid}{p}", headers=bearer(tokens[0])) for p in paths}
        answers["page"] = client.get(f"/play/{gid}")
        return {p: (r.status_code, r.get_data(as_text=True)) for p, r in answers.items()}
    before = reads(api)
    assert all(s == 200 for s, _ in before.values()), {k: v[0] for k, v in before.items()}
    assert archive.archive_game(svc, gid, time.time() + 30 * 86400) == "archived"
    assert reads(api) == before
    fresh = make_app(redis_server.url).test_client()
    assert reads(fresh) == before
    rv = fresh.post(f"{API}/{gid}/moves", headers=bearer(tokens[0]),
                    json={"expected_version": svc.store.version(gid), "moves": ["pass"]})
    assert rv.status_code == 422 and rv.json["code"] == "game-over", rv.json


def test_the_stand_in_plays_a_late_pillars_turn_with_the_ai(redis_client):
    """The deadline passes in a Pillars game: the stand-in plays the seat's decision with the AI
    at the stand-in level from the seat's view, labelled in the log and the record."""
    from datetime import datetime, timezone

    import games
    from application.deadline_store import DEADLINES, REMINDERS
    from application.deadlines import Deadlines
    from application.stand_in import STAND_IN_LEVEL
    from application.game_service import GameService
    from application.store import EventStore

    redis_client.delete(*DEADLINES.keys(), *REMINDERS.keys())
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    t = [datetime(2026, 11, 18, 9, 0, tzinfo=timezone.utc).timestamp()]
    gid = svc.create_game([{"name": "Ada"}, {"name": "Bob"}],
                          {"seed": "pil-stand-in", "time_control": {"days_per_move": 1}},
                          game="pillars")["id"]
    _, before = svc.load(gid)
    seat = before.actor
    dl = Deadlines(svc, None, lambda: t[0])
    dl.start_turn(gid, svc.meta(gid), seat, before.version)
    t[0] += 25 * 3600
    assert dl.sweep()["stand_in_turns"] == 1
    _, after = svc.load(gid)
    assert after.version == before.version + 1
    played = [e for e in svc.store.events(gid) if e.get("by") == "stand-in"]
    assert [e["move"] for e in played] == ai.decide(games.PILLARS.view(before, seat), STAND_IN_LEVEL,
                                                    f"{gid}:{before.version}")
    assert "[stand-in]" in svc.record(gid)
