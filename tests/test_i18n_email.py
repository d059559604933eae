"""Every email kind in the pseudo-locale (issue 53, docs/i18n.md): the pseudo-locale transforms
every catalog message (``⟦Ĥéļļö …⟧``), so English words left in an email's own frame are found.

What an email shows that is not the service's words is taken out before the check, explicitly: the
game's own texts (its title, what the decision is, its moves and their words, its position lines,
its reply hint, its example, the past moves' texts; English in this increment, docs/i18n.md) are
marked by a wrapper around the game; the players' names, addresses, links, the table talk's words
and the dates (Babel formats the pseudo-locale's as English) are removed by pattern. Then no
letter word may be left. And every message a rendering asked for is in each language's catalog."""
from __future__ import annotations

import html
import re
from datetime import datetime, timezone

import pytest

import games
from application.deadline_store import DEADLINES, REMINDERS
from application.deadlines import Deadlines
from application.game_service import GameService
from application.links import revoke_dashboard_key, revoke_seat_link
from application.messages import TableTalk
from application.dashboard import remember_address
from application.notifications import DIGEST, set_language
from application.players import player_id
from application.store import EventStore
from application.together import Together
from mail.compose import confirmation_email, error_email
from mail.mailconfig import MailConfig
from mail.messages import TalkMailer
from mail.notify import Notifier
from mail.outbox import Outbox
from tablepost import i18n
from tests.test_i18n import catalog_problems

H, DAY = 3600, 86400
ADA, BOB = "ada@pseudo.test", "bob@pseudo.test"   # their own: the language is kept per address
# what the game says, per method of its email surface (games/base.py EmailTexts): marked «...»
GAME_TEXTS = ("email_what", "email_position_lines", "email_moves", "email_reply_hint", "email_example",
              "email_past", "email_chance", "email_round_end")


def _mark(value):
    if isinstance(value, str):
        return f"«{value}»" if value else value
    if isinstance(value, tuple):
        return tuple(_mark(v) for v in value)
    if isinstance(value, list):
        return [_mark(v) for v in value]
    return value


class MarkedGame:
    """The game, its own texts marked: they are the game's words, not the email's frame."""

    def __init__(self, game):
        self._game = game

    def __getattr__(self, name):
        value = getattr(self._game, name)
        if name in ("title", "score_unit"):
            return f"«{value}»"
        if name in GAME_TEXTS:
            return lambda *a, **k: _mark(value(*a, **k))
        return value


class Clock:
    def __init__(self, t: float):
        self.t = t

    def __call__(self) -> float:
        return self.t


class Transport:
    def __init__(self):
        self.sent = []

    def send(self, msg):
        self.sent.append(msg)


@pytest.fixture()
def world(redis_client, monkeypatch):
    redis_client.delete(*DEADLINES.keys(), *REMINDERS.keys())
    of_meta, email_texts, get = games.of_meta, games.email_texts, games.get
    monkeypatch.setattr(games, "of_meta", lambda meta: MarkedGame(of_meta(meta)))
    monkeypatch.setattr(games, "get", lambda name=None: MarkedGame(get(name)))
    monkeypatch.setattr(games, "email_texts", lambda g: g if isinstance(g, MarkedGame) else email_texts(g))
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    transport = Transport()
    cfg = MailConfig(secret="s", domain="pbem.test", from_addr="pbem@pbem.test", public_url="http://x",
                     pictures=False)
    notifier = Notifier(svc, Outbox(redis_client, transport), cfg)
    clock = Clock(datetime(2026, 11, 18, 9, 0, tzinfo=timezone.utc).timestamp())
    notifier.deadlines = lambda: Deadlines(svc, notifier, clock)
    for who in (ADA, BOB):
        set_language(redis_client, who, i18n.PSEUDO)
    yield svc, notifier, transport, clock
    for who in (ADA, BOB):   # the Redis of the session is shared by the tests of this worker
        set_language(redis_client, who, None)


def texts(msg) -> list[str]:
    """The subject, the plain text and the HTML's text of an email."""
    out = [str(msg["Subject"])]
    for part in msg.walk():
        if part.get_content_type() == "text/plain":
            out.append(part.get_payload(decode=True).decode("utf-8"))
        elif part.get_content_type() == "text/html":
            markup = part.get_payload(decode=True).decode("utf-8")
            out.append(html.unescape(re.sub(r"<[^>]+>", " ", markup)))
    return out


NOT_OURS = [re.compile(p) for p in (
    r"«[^«»]*»",                                  # the game's own texts (marked)
    r"⟦[^⟦⟧]*⟧",                                  # the catalog's messages (the pseudo-locale)
    r"\b(Ada|Bob)\b",                              # the players' names
    r"\w{3} \d\d \w{3} \d{4} \d\d:\d\d (UTC|CET)",  # dates (Babel: the pseudo-locale formats as English)
    r"^Re: ",                                      # the answer's prefix
)]


def leftover(text: str, known: list[str] = ()) -> list[str]:
    """The letter words left once what is not the email's frame is taken out (``known``: the game's
    texts stored with its events, the past moves in words)."""
    text = re.sub(r"https?://[^\s⟦⟧«»]+|[\w.+-]+@[\w.-]+", " ", text)   # links and addresses first
    for said in sorted(known, key=len, reverse=True):
        text = text.replace(said, " ")
    while True:   # a message inside a message (innermost first), a game's text inside a message
        shorter = re.sub(r"«[^«»]*»", " ", re.sub(r"⟦[^⟦⟧]*⟧", " ", text))
        if shorter == text:
            break
        text = shorter
    for pattern in NOT_OURS:
        text = pattern.sub(" ", text) if pattern.pattern != "^Re: " else re.sub(r"(?m)^Re: ", " ", text)
    return re.findall(r"[A-Za-z]{2,}", text)


def test_every_email_kind_in_the_pseudo_locale_leaves_no_english_in_its_frame(world, redis_client):
    svc, notifier, transport, clock = world
    # the messages asked of the pseudo-locale from here on: the emails' (the translator is shared with
    # the process's other renderings, a game page's own messages among them, asked of it before)
    i18n.translator(i18n.PSEUDO).used.clear()
    g = svc.create_game([{"name": "Ada", "email": ADA, "tz": "Europe/Berlin"}, {"name": "Bob", "email": BOB}],
                        {"seed": "pseudo", "time_control": {"days_per_move": 1, "reminders_hours": [2]},
                         "timeout": {"mode": "drop", "drop_after": 2}},
                        game="tiletum")
    gid, tokens = g["id"], [s["token"] for s in g["seats"]]
    kinds: dict[str, object] = {}

    def took(kind: str, before: int):
        assert len(transport.sent) > before, f"no {kind} email was sent"
        kinds[kind] = transport.sent[-1]

    n = len(transport.sent)
    notifier.notify(gid, 1)
    took("turn (first email, deadline)", n)
    n = len(transport.sent)
    clock.t += DAY - 2 * H + 60
    notifier.deadlines().sweep()
    took("reminder", n)
    n = len(transport.sent)
    clock.t += 2 * H
    notifier.deadlines().sweep()                                   # the stand-in plays Ada's turn
    stand_in = [m for m in transport.sent[n:] if str(m["To"]) == ADA]
    assert stand_in, "the stand-in notice"
    kinds["stand-in notice"] = stand_in[0]
    # Bob's turn with what Ada's stand-in did since, and a message at the table
    TableTalk(svc).post_for_seat(gid, 0, "«Gut gespielt»")
    meta, state = svc.load(gid)
    kinds["turn (since, talk)"] = notifier.turn_message(gid, meta, state, games.of_meta(meta).actor(state))
    kinds["invitation (consent pending)"] = notifier.turn_message(gid, meta, state, 1, pending=True)
    said = [{"name": "Ada", "text": "«Gut gespielt»"}]
    kinds["message email"] = TalkMailer(notifier, 0).message(gid, meta, 1, said, 1)
    # the links again, the digest
    n = len(transport.sent)
    notifier.send_seat_link(gid, 1, revoke_seat_link(redis_client, gid, 1))
    took("new seat link", n)
    n = len(transport.sent)
    pid = player_id(redis_client, BOB)
    remember_address(redis_client, BOB)
    notifier.send_dashboard_link(pid, revoke_dashboard_key(redis_client, pid))
    took("new dashboard link", n)
    redis_client.sadd(DIGEST.key(BOB), f"{BOB}|{gid}|1|{state.version}")
    n = len(transport.sent)
    notifier.send_digests("2026-11-19")
    # Bob's: the day's digests go to every address the worker's shared Redis has one for (other tests')
    mine = [m for m in transport.sent[n:] if str(m["To"]) == BOB]
    assert mine, "no digest email was sent"
    kinds["digest"] = mine[-1]
    # the answers to replies (mail/mailin_runtime.py composes them with the seat's language)
    tr = i18n.translator(i18n.PSEUDO)
    kinds["confirmation"] = confirmation_email(to=BOB, from_addr="p@x", game_id=gid, seat_name="Bob",
                                               moves=["«take G1»"], next_to_act="Ada", tr=tr,
                                               ignored=["«thanks»"], unplayed=["«end»"], open_url="http://x/p")
    kinds["refusal"] = error_email(to=BOB, from_addr="p@x", reason="«the game's rule»", game_id=gid,
                                   seat_name="Bob", failing_line="«end»", code="bad-notation", hint="«hint»",
                                   legal_moves=[("«take G1»", "«Take»")], open_url="http://x/p", tr=tr)
    kinds["refusal (nothing read)"] = error_email(to=BOB, from_addr="p@x", reason="", game_id=gid, tr=tr)
    # the lobby's cancellation; the results
    n = len(transport.sent)
    notifier.lobby_cancelled("waiting1", {"game": "tiletum", "waiting_days": 3, "seats": [
        {"kind": "human", "name": "Bob", "email": BOB}]}, 0)
    took("lobby cancelled", n)
    n = len(transport.sent)
    Together(svc).resign(gid, token=tokens[1])
    notifier.notify(gid, svc.load(gid)[1].version)
    took("results", n)

    # the past moves in words, as the game said them when they were played (stored with the events)
    known = [e["text"] for e in svc.events_after(gid, 0) if e.get("text")]
    known += [t.removesuffix(" (played by the stand-in)") for t in known] + [gid, "waiting1"]   # the ids
    found = {kind: sorted({w for t in texts(msg) for w in leftover(t, known)})
             for kind, msg in kinds.items()}
    assert len(found) >= 14 and {k: v for k, v in found.items() if v} == {}, "English in an email's frame"
    assert {k: m["Content-Language"] for k, m in kinds.items() if m["Content-Language"] != i18n.PSEUDO} == {}
    # every message the emails used is in each language's catalog, translated
    for lang in set(i18n.LANGUAGES) - {i18n.DEFAULT}:
        assert catalog_problems(lang, tr.used) == []


def test_the_check_finds_english_left_in_a_frame():
    assert leftover("⟦Ŷöûŕ ţûŕñ⟧ Your deadline: «take G1» http://x/a Ada") == ["Your", "deadline"]


@pytest.mark.parametrize("lang, said", [("de", "höchstens 100 Züge pro Anfrage"),
                                        ("fr", None)])
def test_a_service_refusal_of_a_reply_is_said_in_the_seat_s_language(redis_client, monkeypatch, lang, said):
    """A reply the service refuses (not the game's rule, not the email pipeline's own reason: a detail of
    application/errors.py, said with its catalog message) is answered with that reason in the seat's
    language, as the API says it in the request's."""
    from application import errors
    from mail.mailin_runtime import InboundReplies

    monkeypatch.setenv("TABLEPOST_SMTP_URL", "smtp://127.0.0.1:9")   # composed only, never sent
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "s")
    svc = GameService(EventStore(redis_client), allow_seeded_games=True)
    g = svc.create_game([{"name": "Ada", "email": "ada-refused@i18n.test", "language": lang},
                         {"name": "Bob", "email": "bob-refused@i18n.test"}], {"seed": "refused"},
                        game="carcassonne")
    reason = errors.said("at most {n} moves per request", n=100)
    answer = InboundReplies(svc).error(to="ada-refused@i18n.test", from_addr="p@x", game_id=g["id"], seat=0,
                                       code="too-many-moves", reason=reason, failing_line="place 1,0 r0")
    expected = said or i18n.translator(lang)._("at most {n} moves per request", n=100)
    text = " ".join(" ".join(texts(answer)).split())
    assert expected in text and str(reason) not in text, text
    assert answer["Content-Language"] == lang
