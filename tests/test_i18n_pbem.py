"""A game by email in German and one in French, end to end with real parts (issue 53): a real SMTP
server on loopback for the players' mailboxes, a real Celery worker and beat that send the emails,
and the inbound SMTP listener that takes the replies. The seats are created with ``"language"``;
every email of the game is in it (``Content-Language``, the greeting, the frame), dates in the
player's locale and time zone; replies open with a greeting and close with a sign-off in the
language; a refused move is answered in it; the reminder, the resignation in the language's word
and the results too. The game's own words (its moves, its position) stay English in this
increment (docs/i18n.md), and its notation is the same in every language."""
from __future__ import annotations

import re

import pytest

from tests.test_pbem_e2e import legal_moves_in, own_redis, pbem, reply, text_of  # noqa: F401
from tests.test_pbem_e2e import headline as first_line

H = 3600


def headline(msg) -> str:
    """An email's first line (a part sent as base64 keeps the CRLF line ends it was written with)."""
    return first_line(msg).rstrip("\r")

SAYS = {
    "de": {"tz": "Europe/Berlin", "hello": "Hallo Ada,", "greeting": "Hallo zusammen,", "bye": "Viele Grüße",
           "deadline": re.compile(r"Deine Frist: \w\w\., \d{1,2}\. \w+\.? \d{4}, \d\d:\d\d MES?Z \(in 1 Tag\)\."),  # noqa: E501
           "refused": "Nicht gespielt: „end“ ist kein Zug, den du jetzt spielen kannst.",
           "again": "Du bist wieder am Zug.", "ignored": "Nicht als Züge gelesen und ignoriert: „Viele Grüße“, „Ada“",  # noqa: E501
           "reminder": re.compile(r"Erinnerung: dein Zug ist in \d+ (Minuten?|Stunden?)( und \d+ Minuten?)? fällig\."),  # noqa: E501
           "resign": "aufgeben", "resigned": "Du hast aufgegeben.", "over": "Spielende: Bob gewinnt.",
           "told": "Ada hat aufgegeben.", "subject": "Tiletum mit Bob (Spiel {gid})"},
    "fr": {"tz": "Europe/Paris", "hello": "Bonjour Ada,", "greeting": "Bonjour à tous,", "bye": "Amitiés",
           "deadline": re.compile(r"Votre délai : \w+\. \d{1,2} \w+\.? \d{4}, \d\d:\d\d CES?T \(dans 1 jour\)\."),  # noqa: E501
           "refused": "Non joué : « end » n’est pas un coup que vous pouvez jouer maintenant.",
           "again": "De nouveau à vous de jouer.", "ignored": "Non lu comme des coups, et ignoré : « Amitiés », « Ada »",  # noqa: E501
           "reminder": re.compile(r"Rappel : votre coup est attendu dans \d+ (minutes?|heures?)( et \d+ minutes?)?\."),  # noqa: E501
           "resign": "abandonner", "resigned": "Vous avez abandonné.", "over": "Partie terminée : Bob gagne.",
           "told": "Ada a abandonné.", "subject": "Tiletum avec Bob (partie {gid})"},
}


@pytest.mark.mail_env(TABLEPOST_MAIL_PICTURES="0", TABLEPOST_TEST_CLOCK="1")
@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_game_by_email_in_the_players_language(pbem, lang):  # noqa: F811
    app, boxes, mailin_port = pbem
    say = SAYS[lang]
    ada, bob = "ada@players.test", "bob@players.test"
    c = app.test_client()
    assert c.post("/api/v1/games", json={"seats": [{"name": "Ada", "email": ada, "language": "pl"},
                                                   {"name": "Bob"}]}).status_code == 422, "a language we lack"
    rv = c.post("/api/v1/games", json={
        "seats": [{"name": "Ada", "email": ada, "language": lang, "tz": say["tz"]},
                  {"name": "Bob", "email": bob, "language": lang}],
        "options": {"seed": f"i18n-{lang}", "time_control": {"days_per_move": 1, "reminders_hours": [1]}}})
    assert rv.status_code == 201, rv.json
    gid = rv.json["id"]
    r = app.extensions["tablepost.service"].store.r

    def to_ada(pred):
        return boxes.wait_until(lambda m: str(m["To"]) == ada and pred(m))[-1]

    turn = to_ada(lambda m: True)
    text = text_of(turn)
    assert turn["Content-Language"] == lang and str(turn["Subject"]) == say["subject"].format(gid=gid)
    assert say["hello"] in text and say["deadline"].search(text), text
    assert f'<html lang="{lang}">' in turn.get_body(("html",)).get_content()
    moves = legal_moves_in(turn)
    assert moves and all(m.startswith("take ") for m in moves), "the notation is the same in every language"
    # a greeting, then a move that is not legal now: refused, in the language
    n = len(boxes.messages)
    reply(mailin_port, turn, ada, f"{say['greeting']}\nend")
    refused = to_ada(lambda m: boxes.messages.index(m) >= n and headline(m).startswith(say["refused"][:8]))
    assert headline(refused) == say["refused"] and refused["Content-Language"] == lang
    assert say["hello"] in text_of(refused) and "> end" in text_of(refused)
    assert c.get(f"/api/v1/games/{gid}").json["version"] == 1, "nothing was played"
    # a greeting, a legal move and a sign-off: played, the sign-off said to be ignored, in the language
    n = len(boxes.messages)
    reply(mailin_port, turn, ada, f"{say['greeting']}\n{moves[0]}\n{say['bye']}\nAda")
    again = to_ada(lambda m: boxes.messages.index(m) >= n and say["again"] in headline(m))
    assert headline(again).endswith(say["again"]) and moves[0] in headline(again)
    assert say["ignored"] in text_of(again) and again["Content-Language"] == lang
    # the reminder an hour before the deadline, in the language and the player's time zone
    r.set("clock:offset", 23 * H + 60)
    reminder = to_ada(lambda m: say["reminder"].match(headline(m)) is not None)
    assert reminder["Content-Language"] == lang and say["deadline"].pattern[:6] in text_of(reminder)
    # resigning by the language's word, after a greeting: the game ends; the results in the language
    reply(mailin_port, again, ada, f"{say['greeting']}\n{say['resign']}")
    assert headline(to_ada(lambda m: headline(m) == say["resigned"])) == say["resigned"]
    results = boxes.wait_until(lambda m: headline(m) == say["over"] and sum(
        headline(x) == say["over"] for x in boxes.messages) >= 2)
    over = {str(m["To"]): m for m in results if headline(m) == say["over"]}
    assert sorted(over) == [ada, bob] and all(m["Content-Language"] == lang for m in over.values())
    assert say["told"] in text_of(over[bob])
    assert c.get(f"/api/v1/games/{gid}").json["status"] == "finished"
    # every email of the game to either player was in the language
    mine = [m for m in boxes.messages if gid in str(m["Subject"]) or str(m["To"]) in (ada, bob)]
    assert mine and {m["Content-Language"] for m in mine} == {lang}
