"""Replies as people write them: a greeting line before the moves ("Hi,", "Hello Ben,", "Hallo,",
"Bonjour,") is skipped, never played and never refused; a greeting rule never takes a move of any
game for a greeting; a reply whose every line fails is answered with why in words, Carcassonne's
way of writing a move in words too (mail/mailin.py ``greeting_split``)."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
import tiletum
from mail.addresses import reply_address
from mail.reply_text import greeting_split, is_greeting, normalize_move
from tests.conftest import INBOUND_SECRET, make_app, post_inbound
from tests.test_mail_integration import html_of, mail_env, raw_reply, sink, text_of  # noqa: F401
from tests.test_pbem_e2e import headline

GREETINGS = ["Hi,", "Hello Ben,", "Hallo,", "Bonjour,", "Dear all,", "Hey Ann", "Hi there!", "Hello!",
             "Bonjour à tous,", "Guten Morgen zusammen!", "Hola amigos,", "Ciao Ada!", "Hej,",
             "Good morning Ada,", "Liebe Ada,", "Hoi allemaal,", "Olá,", "Dear Ben and Cid,"]
NOT_GREETINGS = ["Thanks for the game!", "take C01", "end", "Hi, take C01", "Hi Bob, I take G4 this time",
                 "please make a nice move for me", "Hello 3,4", "Hi " + "x" * 60]


@pytest.mark.parametrize("line", GREETINGS)
def test_greetings_in_several_languages_are_greetings(line):
    assert is_greeting(line)
    skipped, rest = greeting_split([line, "take G1", "Cheers,"], lambda x: x.startswith("take"))
    assert (skipped, rest) == ([line], ["take G1", "Cheers,"])


@pytest.mark.parametrize("line", NOT_GREETINGS)
def test_other_first_lines_are_kept_to_be_played_or_refused(line):
    assert greeting_split([line, "take G1"], lambda x: x.startswith("take") or x == "end")[0] == []


def test_a_greeting_that_ends_in_a_move_is_not_skipped():
    """"Hi, end" reads as a greeting word and a name, but what follows the greeting is a move of the
    game: it is kept (and refused with its reason), never dropped unplayed."""
    def parses(line):
        try:
            games.TILETUM.parse(line)
            return True
        except Exception:
            return False
    assert is_greeting("Hi, end")
    assert greeting_split(["Hi, end", "take G1"], parses) == ([], ["Hi, end", "take G1"])
    assert greeting_split(["Hi,", "Hello Ben,", "Hi again", "take G1"], parses)[0] == ["Hi,", "Hello Ben,"]


def _legal_lines(game, seed: int, steps: int) -> list[str]:
    """Every legal move of a random position of ``game``, as the turn email lists it: the notation, and
    the line ``<notation> — <words>``."""
    rng = random.Random(seed)
    players = rng.choice(range(game.min_players, min(game.max_players, 4) + 1))
    state, _ = game.new_game(players, f"g{seed}", {})
    for _ in range(steps):
        if game.is_over(state):
            break
        move = rng.choice(game.legal_moves(state))[0]
        _, state = game.play(state, game.actor(state), move, f"g{seed}")
    if game.is_over(state):
        return []
    out = [m for m, _ in game.legal_moves(state)]
    email = games.email_texts(game)
    if email is not None:
        out += [f"{m} — {d}" for m, d in email.email_moves(state, game.actor(state))]
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(games.GAMES)), seed=st.integers(0, 10**6), steps=st.integers(0, 80))
def test_no_legal_move_of_any_game_is_taken_for_a_greeting(name, seed, steps):
    """A property: whatever the game and the position, no legal move (nor a line copied from the turn
    email's list) is a greeting, and a reply of a greeting and that move plays the move."""
    game = games.get(name)

    def parses(line):
        try:
            game.parse(line)
            return True
        except Exception:
            return False
    for line in _legal_lines(game, seed, steps):
        assert not is_greeting(line), line
        assert not is_greeting(normalize_move(line)), line
        move = normalize_move(line)
        assert greeting_split(["Hi,", move], parses) == (["Hi,"], [move])
        assert greeting_split([move, "Hi,"], parses) == ([], [move, "Hi,"])


def _game(c, seed: str) -> str:
    return c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}],
                                         "options": {"seed": seed}}).json["id"]


@pytest.mark.parametrize("body", [
    "Hi,\n\n{move}\n\nCheers,\nAda",
    "Hello Bob,\n{move}\nThanks",
    "Hallo,\n\n{move}\n\nViele Grüße\nAda",
    "Bonjour,\n\n{move}\n\nBonne journée",
    "Dear all,\n\n{move}",
    "Hola amigos,\n{move}",
    "Hi there!\n\n{move}.",
])
def test_a_greeting_first_reply_plays_its_move(redis_server, mail_env, body):  # noqa: F811
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    gid = _game(c, "greeting")
    _, state = app.extensions["tablepost.service"].load(gid)
    move = next(m for m in tiletum.legal_moves(state) if m.startswith("take"))
    to = reply_address("int-secret", "pbem.test", gid, 0, 1)
    rv = post_inbound(c, raw_reply(to, body.format(move=move)))
    assert rv.json["status"] == "applied", rv.json
    assert c.get(f"/api/v1/games/{gid}/events").json["events"][-1]["move"] == move
    answer = sink(mail_env)[-1]
    assert headline(answer).startswith(f"Played {move}.")
    first = body.split("\n", 1)[0]
    assert f"\u201c{first}\u201d" not in text_of(answer), "a greeting is skipped, not reported as ignored"


def test_a_reply_of_only_words_is_answered_in_words(redis_server, mail_env):  # noqa: F811
    """Every line fails: nothing is played, and the answer says why and how a move is written, in words
    (Carcassonne's too: no ``<x>,<y> r<0|90|180|270>`` template)."""
    app = make_app(redis_server.url, MAIL_SECRET="int-secret", INBOUND_SECRET=INBOUND_SECRET)
    c = app.test_client()
    seats = [{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}]
    gid = c.post("/api/v1/games", json={"game": "carcassonne", "seats": seats,
                                        "options": {"seed": "words"}}).json["id"]
    version = c.get(f"/api/v1/games/{gid}").json["version"]
    rv = post_inbound(c, raw_reply(reply_address("int-secret", "pbem.test", gid, 0, version),
                                   "Hi,\n\nI'd like to put it next to the city please\n\nAda"))
    assert rv.json["status"] == "rejected"
    assert c.get(f"/api/v1/games/{gid}").json["version"] == version, "nothing played"
    answer = sink(mail_env)[-1]
    text = text_of(answer)
    assert headline(answer) == ("Not played: \u201cI'd like to put it next to the city please\u201d is not a "
                                "move you can play now.")
    assert "Why: " in text and "How to write a move:" in text and "column,row" in text
    assert "<x>" not in text and "r<0" not in text and "<role>" not in text
    assert "<x>" not in html_of(answer)


@pytest.mark.long(12)
def test_a_greeting_first_reply_by_real_smtp(pbem):  # noqa: F811
    """End to end: the turn email from the real worker through a real SMTP server on loopback, a reply
    that starts with "Hello Bob," through the inbound SMTP listener, and the move is played."""
    from tests.test_pbem_e2e import legal_moves_in, reply
    app, boxes, mailin_port = pbem
    c = app.test_client()
    gid = c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@players.test"},
                                                  {"name": "Bob", "email": "bob@players.test"}],
                                        "options": {"seed": "hello-smtp"}}).json["id"]
    boxes.wait_for(1)
    turn = boxes.messages[0]
    move = next(m for m in legal_moves_in(turn) if m.startswith("take"))
    reply(mailin_port, turn, "ada@players.test", f"Hello Bob,\n\n{move}\n\nBest,\nAda")
    boxes.wait_for(2)
    answers = [m for m in boxes.messages if str(m["To"]) == "ada@players.test" and m is not turn]
    assert headline(answers[0]).startswith(f"Played {move}."), headline(answers[0])
    assert c.get(f"/api/v1/games/{gid}/events").json["events"][-1]["move"] == move


from tests.test_pbem_e2e import own_redis, pbem  # noqa: E402,F401  (the real worker, SMTP and listener)
