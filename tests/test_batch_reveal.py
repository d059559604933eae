"""A batch of moves is no oracle on chance (issue 13, "Peeking through a failed batch").

The attack: send a move that reveals chance (a die rolled, a tile or token drawn), then a probe
whose legality depends on the outcome, then a move that fails. If nothing were stored and the
422's ``move_index`` said how far the batch got, the seat would learn the draw for free and could
try again until it liked it. Now a move that reveals ends the batch: it and the moves before it
are applied (the outcome is committed with them), the rest come back ``unplayed``, unread.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import random
from email.message import EmailMessage

import pytest

import tiletum
from tests.conftest import INBOUND_SECRET, make_app, post_inbound
from tests.test_pbem_e2e import headline


def reveal_point(players: int, seed: str, solo: bool = False, max_moves: int = 400):
    """Play a seeded random game locally until the actor has a move that reveals chance and is
    still the actor afterwards. Returns (prefix [(seat, move)], seat, reveal, a probe legal
    after the reveal, a probe illegal after it)."""
    options = {"solo": {"level": "deacon"}} if solo else {}
    state, _ = tiletum.new_game(players, seed, options)
    rng = random.Random(seed)
    prefix = []
    for _ in range(max_moves):
        if state.phase == "over":
            break
        seat = state.actor
        moves = [m for m in tiletum.legal_moves(state) if m != "undo"]
        human = not solo or seat != state.solo["bot"]
        if human:
            for m in moves:
                evs, after = tiletum.play(state, seat, m, seed=seed)
                if evs[-1].get("chance") and after.actor == seat and after.phase != "over":
                    legal_after = [x for x in tiletum.legal_moves(after) if x != "undo"]
                    illegal = next(x for x in tiletum.legal_moves(state) + ["take Y9"]
                                   if x not in legal_after)
                    return prefix, seat, m, legal_after[0], illegal
        m = rng.choice(moves)
        prefix.append((seat, m))
        _, state = tiletum.play(state, seat, m, seed=seed)
    raise AssertionError(f"no reveal point in {max_moves} moves (seed {seed!r})")


BOT = "bot-credential"


@pytest.fixture()
def api(redis_server):
    return make_app(redis_server.url, BOT_TOKEN=BOT).test_client()


def new_game(api, players: int, seed: str, solo: bool = False):
    if solo:
        body = {"seats": [{"name": "Cardinal", "kind": "cardinalbot"}, {"name": "Ada"}],
                "options": {"seed": seed, "solo": {"level": "deacon"}}}
    else:
        body = {"seats": [{"name": f"P{i}"} for i in range(players)], "options": {"seed": seed}}
    g = api.post("/api/v1/games", json=body).json
    return g["id"], {s["seat"]: s["token"] or BOT for s in g["seats"]}


def post(api, gid, token, version, moves, key=None):
    headers = {"Authorization": f"Bearer {token}"}
    if key:
        headers["Idempotency-Key"] = key
    return api.post(f"/api/v1/games/{gid}/moves", json={"expected_version": version, "moves": moves},
                    headers=headers)


def drive(api, gid, tokens, prefix):
    """Play the prefix one move at a time, each seat with its token (the Cardinalbot's seat with
    the bot credential)."""
    for seat, move in prefix:
        version = api.get(f"/api/v1/games/{gid}").json["version"]
        rv = post(api, gid, tokens[seat], version, [move])
        assert rv.status_code == 200, rv.json
    return api.get(f"/api/v1/games/{gid}").json["version"]


CASES = [(2, "peek-2", False), (3, "peek-3", False), (4, "peek-4", False), (2, "peek-solo", True)]


@pytest.mark.parametrize("players, seed, solo", CASES)
def test_probes_after_a_reveal_cannot_tell_draws_apart(api, players, seed, solo):
    prefix, seat, reveal, legal_probe, illegal_probe = reveal_point(players, seed, solo)
    answers = []
    for probe in (legal_probe, illegal_probe):
        gid, tokens = new_game(api, players, seed, solo)
        version = drive(api, gid, tokens, prefix)
        before = api.get(f"/api/v1/games/{gid}/events").json["events"]
        rv = post(api, gid, tokens[seat], version, [reveal, probe, "no such move"])
        assert rv.status_code == 200, rv.json
        answers.append(rv.json)
        # the outcome is committed with the answer: the log holds exactly the reveal, no probe
        after = api.get(f"/api/v1/games/{gid}/events").json["events"]
        assert len(after) == len(before) + 1 and after[-1]["move"] == reveal and after[-1]["chance"]
    legal_answer, illegal_answer = answers
    assert legal_answer["applied"] == illegal_answer["applied"] == 1
    assert legal_answer["unplayed"] == [legal_probe, "no such move"]
    assert illegal_answer["unplayed"] == [illegal_probe, "no such move"]
    # apart from echoing the unplayed moves, the two answers are the same
    assert (legal_answer["events"] == illegal_answer["events"]
            and legal_answer["version"] == illegal_answer["version"])


def test_an_error_before_the_reveal_still_plays_nothing(api):
    prefix, seat, reveal, legal_probe, _ = reveal_point(2, "peek-2")
    gid, tokens = new_game(api, 2, "peek-2")
    version = drive(api, gid, tokens, prefix)
    rv = post(api, gid, tokens[seat], version, ["no such move", reveal, legal_probe])
    assert rv.status_code == 422 and rv.json["move_index"] == 0
    assert api.get(f"/api/v1/games/{gid}").json["version"] == version, "nothing stored, nothing drawn"


def test_a_batch_without_a_reveal_is_played_whole(api):
    gid, tokens = new_game(api, 2, "no-reveal")
    state, _ = tiletum.new_game(2, "no-reveal")
    seat = state.actor
    batch = []
    for _ in range(6):  # moves that draw nothing, while the same seat acts
        cand = [m for m in tiletum.legal_moves(state) if m != "undo"]
        quiet = [m for m in cand if not tiletum.play(state, seat, m, seed="no-reveal")[0][-1].get("chance")
                 and tiletum.play(state, seat, m, seed="no-reveal")[1].actor == seat]
        if not quiet:
            break
        batch.append(quiet[0])
        _, state = tiletum.play(state, seat, quiet[0], seed="no-reveal")
    assert batch, "the game opens with moves that draw nothing"
    rv = post(api, gid, tokens[seat], 1, batch)
    assert rv.status_code == 200 and rv.json["applied"] == len(batch) and rv.json["unplayed"] == []
    assert rv.json["version"] == 1 + len(batch)


def test_a_replayed_batch_answers_the_same(api):
    prefix, seat, reveal, legal_probe, _ = reveal_point(2, "peek-2")
    gid, tokens = new_game(api, 2, "peek-2")
    version = drive(api, gid, tokens, prefix)
    first = post(api, gid, tokens[seat], version, [reveal, legal_probe], key="k-reveal")
    again = post(api, gid, tokens[seat], version, [reveal, legal_probe], key="k-reveal")
    assert first.status_code == again.status_code == 200
    assert again.json == first.json and first.json["unplayed"] == [legal_probe]


def test_the_same_attack_by_email_plays_up_to_the_reveal(redis_server, monkeypatch, tmp_path):
    from mail.addresses import reply_address
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "peek-secret")
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", "pbem.test")
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))
    app = make_app(redis_server.url, MAIL_SECRET="peek-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    prefix, seat, reveal, legal_probe, _ = reveal_point(2, "peek-mail")
    g = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"},
                                                {"name": "Bob", "email": "bob@x.test"}],
                                      "options": {"seed": "peek-mail"}}).json
    tokens = {s["seat"]: s["token"] for s in g["seats"]}
    version = drive(c, g["id"], tokens, prefix)
    m = EmailMessage()
    m["From"], m["Subject"] = ("ada@x.test" if seat == 0 else "bob@x.test"), "Re: your turn"
    m["To"] = reply_address("peek-secret", "pbem.test", g["id"], seat, version)
    m["Message-ID"] = email.utils.make_msgid(domain="x.test")
    m.set_content(f"{reveal}\n{legal_probe}\nno such move\n\n> quoted\n")
    rv = post_inbound(c, bytes(m))
    assert rv.status_code == 200 and rv.json["status"] == "applied"
    assert c.get(f"/api/v1/games/{g['id']}").json["version"] == version + 1
    answers = [email.message_from_bytes(f.read_bytes(), policy=email.policy.default)
               for f in (tmp_path / "mail").glob("*.eml")]
    confirmation = next(a for a in answers if headline(a).startswith("Played"))
    text = confirmation.get_body(("plain",)).get_content()
    assert (f"Not played: {legal_probe}." in text
            and "\u201cno such move\u201d" in text), "the sign-off is ignored"
    assert headline(confirmation) == f"Played {reveal}. Your move again.", "only the reveal was played"
