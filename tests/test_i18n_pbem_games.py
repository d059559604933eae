"""Whole games by email in German and in French, to the final score (issue 53), with real parts: a
real SMTP server on loopback for the players' mailboxes, a real Celery worker and beat that send the
emails, and the inbound SMTP listener that takes the replies (tests/test_pbem_e2e.py's ``pbem``).

A Carcassonne game in German and a game of The Pillars of the Earth in French, their seats created
with ``"language"`` (Ada's with a time zone, Bob's in UTC): every turn email is read and answered by a
reply that opens with a greeting in the language and ends with a sign-off; a line that is no move and
a well-formed illegal move are refused in the language (the frame, and the game's reason in its own
words); a reminder comes by the deadlines' clock; the results give the final scores in the language.
Every email of the game is checked: ``Content-Language``, its subject, its greeting, and no English of
the platform's catalog or the game's left in it (each message's words that its translation does not
say itself)."""
from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import games
from mail.compose import thread_subject
from tablepost.i18n import translator

from tests.test_pbem_e2e import legal_moves_in, own_redis, pbem, reply, text_of  # noqa: F401 (fixtures)
from tests.test_pbem_e2e import headline as first_line

ROOT = Path(__file__).resolve().parent.parent
H = 3600
ADA, BOB = "ada@players.test", "bob@players.test"

PLAY = {
    # the game, Ada's time zone and its zone's names in her emails, a greeting and a sign-off, a line
    # that is no move of the notation, a well-formed move that is illegal at the start
    "de": {"game": "carcassonne", "tz": "Europe/Berlin", "zone": re.compile(r"\d\d:\d\d MES?Z"),
           "greeting": "Hallo zusammen,", "bye": "Viele Grüße", "no_move": "lege 1,0 r0",
           "illegal": "place 40,40 r0", "subject": "Carcassonne mit Bob (Spiel {gid})", "unit": "Punkte",
           "colon": ":"},
    "fr": {"game": "pillars", "tz": "Europe/Paris", "zone": re.compile(r"\d\d:\d\d CES?T"),
           "greeting": "Bonjour à tous,", "bye": "Amitiés", "no_move": "prendre 1",
           "illegal": "keep", "subject": "Les Piliers de la Terre avec Bob (partie {gid})",
           "unit": "PV", "colon": " :"},
}


def headline(msg) -> str:
    """An email's first line (a part sent as base64 keeps the CRLF line ends it was written with)."""
    return first_line(msg).rstrip("\r")


def _catalog(path: Path):
    with open(path, "rb") as f:
        return read_po(f)


def english_of(lang: str, game: str) -> list[str]:
    """The English that an email in ``lang`` must not say: the words of each message of the platform's
    catalog and of the game's, between its placeholders (two words or more), that no translation of
    the language says itself ("Carcassonne" or "Kingsbridge" stay as they are)."""
    catalogs = [_catalog(ROOT / "tablepost" / "translations" / f"{lang}.po"),
                _catalog(ROOT / game / "translations" / f"{lang}.po")]

    def each(text) -> tuple[str, ...]:
        return text if isinstance(text, tuple) else (text,)
    said = "\n".join(s for c in catalogs for m in c if m.id for s in each(m.string))
    english = set()
    for c in catalogs:
        for m in c:
            for text in each(m.id) if m.id else ():
                for piece in re.split(r"\{[^}]*\}", text):
                    piece = piece.strip(" .,:;()'\"“”\n")
                    if len(piece.split()) >= 2 and piece not in said:
                        english.add(piece)
    return sorted(english)


def text_in(msg) -> str:
    """An email's plain text, its line ends LF (a part sent as base64 keeps the CRLF it was written with)."""
    return text_of(msg).replace("\r\n", "\n")


def english_in(text: str, english: list[str]) -> list[str]:
    """The English words found in ``text``, each with the text around it."""
    return [text[max(0, i - 60):i + len(e) + 20] for e in english if (i := text.find(e)) >= 0]


@pytest.mark.long(40)
@pytest.mark.mail_env(TABLEPOST_MAIL_PICTURES="0", TABLEPOST_TEST_CLOCK="1")
@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_whole_game_by_email_in_the_players_language(pbem, lang):  # noqa: F811
    app, boxes, mailin_port = pbem
    say, tr = PLAY[lang], translator(lang)
    english = english_of(lang, say["game"])
    assert english_in("Hello Ada,\n\nthe game is over. The final scores:", english), "the check can fail"
    c = app.test_client()
    rv = c.post("/api/v1/games", json={
        "game": say["game"],
        "seats": [{"name": "Ada", "email": ADA, "language": lang, "tz": say["tz"]},
                  {"name": "Bob", "email": BOB, "language": lang}],
        "options": {"seed": f"whole-{lang}", "time_control": {"days_per_move": 1, "reminders_hours": [1]}}})
    assert rv.status_code == 201, rv.json
    gid = rv.json["id"]
    svc = app.extensions["tablepost.service"]
    game = games.get(say["game"])
    names = ["Ada", "Bob"]
    seat_of = {ADA: 0, BOB: 1}
    subjects = {ADA: say["subject"].format(gid=gid),
                BOB: say["subject"].replace("Bob", "Ada").format(gid=gid)}
    # the title of the game's edition in the language ("Les Piliers de la Terre")
    assert subjects[ADA] == thread_subject(games.title_in(game, lang), names, 0, gid, tr)
    over_prefix = tr._("Game over: {outcome}.", outcome="").rstrip(".")
    reminder = re.compile(re.escape(tr._("Reminder: your move is due in {left}.", left="@"))
                          .replace("@", ".+"))

    rng = random.Random(lang)
    answered: set[int] = set()   # the refusals and the reminder: checked where they were asked for
    over: dict[str, object] = {}
    handled = replies = 0
    refused = reminded = False
    turns = {ADA: 0, BOB: 0}
    started = time.monotonic()
    while len(over) < 2:
        boxes.wait_for(handled + 1, timeout=60)
        msg = boxes.messages[handled]
        handled += 1
        to, body = str(msg["To"]), text_in(msg)
        # every email of the game: in the language, its subject, its greeting, no English words left
        assert to in seat_of and msg["Content-Language"] == lang, (to, msg["Content-Language"])
        assert str(msg["Subject"]).removeprefix("Re: ") == subjects[to], str(msg["Subject"])
        assert f'<html lang="{lang}">' in msg.get_body(("html",)).get_content()
        assert tr._("Hello {name},", name=names[seat_of[to]]) in body, body
        # the game's title is its edition's in the language (the subject's "Les Piliers de la Terre avec Bob")
        said = (str(msg["Subject"]) + "\n" + body).replace(games.title_in(game, lang), "")
        # its links open the pages in the language of the email (the footer's switch: ?lang=)
        pages = re.findall(r"https?://\S+/(?:play|me)\b[^\s#]*", body)
        assert all(p.endswith(f"?lang={lang}") for p in pages), (pages, body)
        assert not english_in(said, english), (english_in(said, english), body)
        if headline(msg).startswith(over_prefix):
            over[to] = msg
            continue
        if id(msg) in answered:
            continue
        moves = legal_moves_in(msg)
        if not moves:
            continue   # a confirmation: it asks nothing
        assert pages, body   # a turn email links to the game's page
        assert not reminder.match(headline(msg)), "a reminder before the deadlines' clock was moved"
        # Ada's turn emails state the deadline in her time zone, Bob's in UTC
        assert (say["zone"].search(body) is not None) == (to == ADA), body
        assert (re.search(r"\d\d:\d\d UTC", body) is not None) == (to == BOB), body
        if to == ADA and not refused:
            refused = True
            answered |= refusals(boxes, mailin_port, svc, game, gid, msg, say, tr)
        if to == ADA and turns[ADA] == 1 and not reminded:
            reminded = True
            # the deadlines' clock a day on, less 59 minutes: the reminder an hour before the deadline
            svc.store.r.set("clock:offset", 23 * H + 60)
            late = boxes.wait_until(lambda m: str(m["To"]) == ADA and reminder.match(headline(m)) is not None)
            assert len(late) == 1 and late[0]["Content-Language"] == lang
            assert say["zone"].search(text_of(late[0])), text_of(late[0])
            assert legal_moves_in(late[0]) == moves, "the reminder says the same decision"
            answered.add(id(late[0]))
        turns[to] += 1
        move = choose(rng, svc, game, gid, moves)
        reply(mailin_port, msg, to, f"{say['greeting']}\n{move}\n{say['bye']}\n{names[seat_of[to]]}")
        replies += 1
        assert time.monotonic() - started < 240, "the game by email did not finish in time"
    assert refused and reminded
    meta, state = svc.load(gid)
    assert game.is_over(state) and c.get(f"/api/v1/games/{gid}").json["status"] == "finished"
    events = c.get(f"/api/v1/games/{gid}/events").json["events"]
    played = [e for e in events if e["type"] == "MovePlayed"]
    assert len(played) == replies and not any(e.get("by") for e in played), "every move came by email"
    # the results, to both: the final scores in the language's own unit, who won in its words
    scores = game.scores(state)
    ranked = sorted(enumerate(scores), key=lambda x: -x[1])
    lines = [f"  {names[i]}{say['colon']} {v} {say['unit']}" for i, v in ranked]
    top = [names[i] for i, place in enumerate(game.places(state)) if place == 1]
    outcome = (tr._("{name} wins", name=top[0]) if len(top) == 1
               else tr._("{names} share the victory", names=tr.list(top)))
    assert max(scores) > 0, "a game with points"
    for to, msg in over.items():
        text = text_in(msg)
        assert headline(msg) == tr._("Game over: {outcome}.", outcome=outcome)
        assert tr._("the game is over. The final scores:") + "\n" + "\n".join(lines) in text, text


def choose(rng: random.Random, svc, game, gid: str, listed: list[str]) -> str:
    """A legal move now (the service's list: with a follower or a card's choice) whose first words are
    one of the email's moves: the quick ones (pass) more often than not."""
    state = svc.load(gid)[1]
    legal = [m for m, _ in game.legal_moves(state) if any(m == x or m.startswith(x + " ") for x in listed)]
    assert legal, (listed, game.legal_moves(state))
    quick = [m for m in legal if m.split()[0] in ("pass", "end")]
    return rng.choice(quick if quick and rng.random() < 0.7 else legal)


def refusals(boxes, port: int, svc, game, gid: str, turn, say: dict, tr) -> set[int]:
    """Two replies to Ada's first turn email that play nothing, answered in her language: a line that is
    no move of the notation (its reason: the game's words for what she can do) and a well-formed move
    that is illegal now (its reason: the rule it breaks, the engine's reason in the game's words).
    Returns the answers' ids."""
    state = svc.load(gid)[1]
    seed = svc.store.seed(gid)
    out = set()
    for bad in (say["no_move"], say["illegal"]):
        n = len(boxes.messages)
        reply(port, turn, ADA, f"{say['greeting']}\n{bad}\n{say['bye']}\nAda")
        answer = boxes.wait_until(lambda m: boxes.messages.index(m) >= n and str(m["To"]) == ADA)[0]
        text = " ".join(text_in(answer).split())
        frame = tr._("Not played: “{line}” is not a move you can play now.", line=bad)
        assert headline(answer) == frame, text
        assert f"> {bad}" in text and answer["Content-Language"] == tr.lang
        assert tr._("None of the moves in your email were played.") in text, text
        out.add(id(answer))
        assert svc.load(gid)[1].version == state.version, "nothing was played"
        with pytest.raises(games.ERRORS["EngineError"]) as refused:
            game.play(state, 0, bad, seed)
        message = refused.value.message
        if bad == say["no_move"]:
            assert isinstance(refused.value, games.ERRORS["NotationError"])
            reason = game.refusal(state, 0, bad, message, lang=tr.lang)
            assert reason != game.refusal(state, 0, bad, message), "the game's words, in the language"
        else:
            assert isinstance(refused.value, games.ERRORS["IllegalMove"])
            reason = game.reason(refused.value, lang=tr.lang)
            assert reason != game.reason(refused.value) == message, "the rule, in the language"
        why = tr._("Why: {reason}", reason=reason)
        assert " ".join(why.split()) in text, text
    return out
