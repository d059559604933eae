"""The table talk (issue 41; application/messages.py, api/resources/messages.py, mail/messages.py)
against a real Redis, over the app: who reads and writes (spectators, other games' tokens and the
machines' credentials do not), hostile input (over-long, HTML, addresses, rate), mute and report,
the game's versions untouched, the data export and the deletion of an account; the email rule
(``Message:`` lines, the talk address) through the inbound webhook, and a property test that no
reply without the rule posts a message and no move line ever becomes one."""
from __future__ import annotations

import email.utils
import re
import time
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from application.dashboard import dashboard_key_for
from application.errors import ServiceError
from application.messages import MAX_CHARS, PER_HOUR, TableTalk
from mail.addresses import reply_address, talk_address
from mail.messages import split_reply
from mail.mailin import extract_moves
from mail.reply_text import is_marker
from tests.conftest import INBOUND_SECRET, LiveServer, make_app, post_inbound

API = "/api/v1/games"
AI_TOKEN = "ai-credential-for-talk-tests"
BOT_TOKEN = "bot-credential-for-talk-tests"


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture()
def world(redis_server, monkeypatch, tmp_path):
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "talk-secret")
    monkeypatch.setenv("TABLEPOST_MAIL_DOMAIN", "pbem.test")
    monkeypatch.delenv("TABLEPOST_SMTP_URL", raising=False)
    monkeypatch.setenv("TABLEPOST_DATA_DIR", str(tmp_path))   # the local sink writes here
    app = make_app(redis_server.url, MAIL_SECRET="talk-secret", INBOUND_SECRET=INBOUND_SECRET,
                   AI_TOKEN=AI_TOKEN, BOT_TOKEN=BOT_TOKEN)
    return app, app.test_client()


def two(c, game: str = "carcassonne", emails=("ada@talk.test", "bob@talk.test")) -> tuple[str, list[dict]]:
    rv = c.post(API, json={"game": game, "seats": [{"name": "Ada", "email": emails[0]},
                                                   {"name": "Bob", "email": emails[1]}]})
    assert rv.status_code == 201, rv.json
    return rv.json["id"], [bearer(s["token"]) for s in rv.json["seats"]]


def test_seats_write_and_read_spectators_and_strangers_neither(world):
    app, c = world
    gid, (ada, bob) = two(c)
    other, (stranger, _) = two(c, emails=("cy@talk.test", "di@talk.test"))
    before = c.get(f"{API}/{gid}").json["version"]
    rv = c.post(f"{API}/{gid}/messages", json={"text": "Good luck, Bob!"}, headers=ada)
    assert rv.status_code == 201, rv.json
    assert rv.json["id"] == 1 and rv.json["name"] == "Ada" and rv.json["mine"] is True
    page = c.get(f"{API}/{gid}/messages", headers=bob).json
    assert [(m["name"], m["text"], m["mine"]) for m in page["messages"]] == [
        ("Ada", "Good luck, Bob!", False)]
    assert page["open"] is True and page["closes"] is None and page["last"] == 1
    # spectators read nothing and post nothing; another game's seat token is no seat here
    for headers in ({}, stranger, bearer("not-a-token")):
        assert c.get(f"{API}/{gid}/messages", headers=headers).status_code == 401
        rv = c.post(f"{API}/{gid}/messages", json={"text": "hi"}, headers=headers)
        assert rv.status_code == 401 and rv.content_type == "application/problem+json"
    assert c.get(f"{API}/nosuchgame0/messages", headers=ada).status_code == 404
    # the thread is apart from the game: its version, events and stream ids are untouched
    assert c.get(f"{API}/{gid}").json["version"] == before
    assert [e["type"] for e in c.get(f"{API}/{gid}/events").json["events"]] == ["GameStarted"]
    assert len(c.get(f"{API}/{other}/messages", headers=stranger).json["messages"]) == 0
    # its keys share the game's hash tag (one Redis Cluster slot with the game)
    r = app.extensions["tablepost.service"].store.r
    assert {k.decode() for k in r.scan_iter(match=f"*{gid}*talk*")} >= {f"g:{{{gid}}}:talk"}
    assert all(k.decode().startswith(f"g:{{{gid}}}:") for k in r.scan_iter(match=f"*{gid}*talk*"))


def test_paging(world):
    _, c = world
    gid, (ada, bob) = two(c)
    for i in range(7):
        assert c.post(f"{API}/{gid}/messages", json={"text": f"m{i}"}, headers=ada if i % 2 else bob
                      ).status_code == 201
    first = c.get(f"{API}/{gid}/messages?limit=3", headers=ada).json
    assert [m["text"] for m in first["messages"]] == ["m0", "m1", "m2"] and first["more"]
    rest = c.get(f"{API}/{gid}/messages?after={first['last']}&limit=10", headers=ada).json
    assert [m["text"] for m in rest["messages"]] == ["m3", "m4", "m5", "m6"] and not rest["more"]
    for bad in ("-1", "x", "1.5", "0&limit=0", "0&limit=201"):
        rv = c.get(f"{API}/{gid}/messages?after={bad}", headers=ada)
        assert rv.status_code == 422, bad


def test_machines_neither_read_nor_write(world):
    _, c = world
    rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": "Ada", "email": "ada@talk.test"},
                                                            {"name": "Robo", "kind": "ai", "level": "easy"}]})
    gid = rv.json["id"]
    for token in (AI_TOKEN, BOT_TOKEN):
        rv = c.post(f"{API}/{gid}/messages", json={"text": "beep"}, headers=bearer(token))
        assert rv.status_code == 403, rv.json
        assert c.get(f"{API}/{gid}/messages", headers=bearer(token)).status_code == 403


def test_hostile_text(world):
    app, c = world
    gid, (ada, bob) = two(c)
    n = lambda: c.get(f"{API}/{gid}/messages", headers=bob).json["last"]  # noqa: E731
    for body in ({"text": "x" * (MAX_CHARS + 1)}, {"text": "a\n" * 40}, {"text": "   \n\t "}, {"text": 5},
                 {}, {"text": "hi", "html": True}, {"text": "\ud800"}):
        rv = c.post(f"{API}/{gid}/messages", json=body, headers=ada)
        assert rv.status_code == 422, (body, rv.json)
        assert rv.content_type == "application/problem+json"
    assert n() == 0, "bad input changes nothing"
    evil = '<script>alert(1)</script><img src=x onerror=alert(2)> https://evil.example \u202eRTL\x07'
    rv = c.post(f"{API}/{gid}/messages", json={"text": evil}, headers=ada)
    assert rv.status_code == 201
    kept = rv.json["text"]
    assert kept.startswith("<script>alert(1)</script>"), "plain text, kept as written (shown as text)"
    assert "\u202e" not in kept and "\x07" not in kept, "no direction overrides or controls"
    # no address ever shows: one a player types is replaced, and none is served with a message
    rv = c.post(f"{API}/{gid}/messages", json={"text": "write me: ada@talk.test or bob@talk.test"},
                headers=ada)
    assert rv.json["text"] == "write me: [an address] or [an address]"
    raw = c.get(f"{API}/{gid}/messages", headers=bob).get_data(as_text=True)
    assert "@talk.test" not in raw and "token" not in raw


def test_rate_limits(world, redis_server):
    _, c = world
    gid, (ada, bob) = two(c)
    for i in range(PER_HOUR):
        assert c.post(f"{API}/{gid}/messages", json={"text": f"{i}"}, headers=ada).status_code == 201
    rv = c.post(f"{API}/{gid}/messages", json={"text": "one too many"}, headers=ada)
    assert rv.status_code == 429 and rv.json["code"] == "too-many-messages"
    assert int(rv.headers["Retry-After"]) > 0
    assert c.post(f"{API}/{gid}/messages", json={"text": "mine"}, headers=bob).status_code == 201, "per seat"
    # the API's own budget per seat (Flask-Limiter, TABLEPOST_MESSAGE_LIMIT)
    limited = make_app(redis_server.url, RATE_LIMIT=600, MESSAGE_LIMIT="2/minute").test_client()
    gid, (ada, _) = two(limited)
    codes = [limited.post(f"{API}/{gid}/messages", json={"text": "x"}, headers=ada).status_code
             for _ in range(3)]
    assert codes == [201, 201, 429]


def test_mute_and_report(world):
    app, c = world
    rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": n, "email": f"{n}@talk.test"}
                                                            for n in ("ada", "bob", "cy")]})
    gid, (ada, bob, cy) = rv.json["id"], [bearer(s["token"]) for s in rv.json["seats"]]
    c.post(f"{API}/{gid}/messages", json={"text": "from bob"}, headers=bob)
    c.post(f"{API}/{gid}/messages", json={"text": "from cy"}, headers=cy)
    assert c.put(f"{API}/{gid}/messages/mute", json={"seats": [1]}, headers=ada).json == {
        "all": False, "seats": [1]}
    assert [m["text"] for m in c.get(f"{API}/{gid}/messages", headers=ada).json["messages"]] == ["from cy"]
    assert c.put(f"{API}/{gid}/messages/mute", json={"all": True}, headers=ada).json["all"] is True
    assert c.get(f"{API}/{gid}/messages", headers=ada).json["messages"] == []
    assert len(c.get(f"{API}/{gid}/messages", headers=cy).json["messages"]) == 2, "muting is one seat's own"
    for bad in ({"seats": [0]}, {"seats": [7]}, {"seats": "1"}, {"all": "yes"}):
        assert c.put(f"{API}/{gid}/messages/mute", json=bad, headers=ada).status_code == 422, bad
    c.put(f"{API}/{gid}/messages/mute", json={"all": False, "seats": []}, headers=ada)
    assert len(c.get(f"{API}/{gid}/messages", headers=ada).json["messages"]) == 2
    # a report keeps the message for the operator; not one's own, not one that does not exist
    rv = c.post(f"{API}/{gid}/messages/1/report", json={"reason": "rude"}, headers=ada)
    assert rv.status_code == 202 and rv.json["reported"] is True
    assert c.post(f"{API}/{gid}/messages/1/report", json={}, headers=bob).status_code == 422
    assert c.post(f"{API}/{gid}/messages/99/report", json={}, headers=ada).status_code == 404
    assert c.post(f"{API}/{gid}/messages/1/report", json={}).status_code == 401
    reports = TableTalk(app.extensions["tablepost.service"]).reports()
    mine = [x for x in reports if x["game"] == gid]
    assert len(mine) == 1 and mine[0]["text"] == "from bob" and mine[0]["reason"] == "rude"
    assert "@" not in str(mine[0]), "no address kept with it"


def test_export_and_deletion(world, redis_server):
    app, c = world
    gid, (ada, bob) = two(c, emails=("gone@talk.test", "bob@talk.test"))
    c.post(f"{API}/{gid}/messages", json={"text": "see you"}, headers=ada)
    r = app.extensions["tablepost.service"].store.r
    key = bearer(dashboard_key_for(r, "gone@talk.test"))
    export = c.get("/api/v1/me/export", headers=key)
    assert export.status_code == 200, export.json
    assert [m["text"] for g in export.json["games"] for m in g["messages"]] == ["see you"]
    assert c.delete("/api/v1/me", json={"confirm": "DELETE"}, headers=key).status_code == 200
    said = c.get(f"{API}/{gid}/messages", headers=bob).json["messages"]
    assert [(m["name"], m["seat"]) for m in said] == [("a former player", 0)]


def test_a_finished_game_keeps_its_thread_open_a_while(world):
    app, c = world
    gid, (ada, bob) = two(c)
    assert c.post(f"{API}/{gid}/resign", headers=ada).status_code == 200
    rv = c.post(f"{API}/{gid}/messages", json={"text": "gg"}, headers=ada)
    assert rv.status_code == 201
    page = c.get(f"{API}/{gid}/messages", headers=bob).json
    assert page["open"] and page["closes"]
    talk = TableTalk(app.extensions["tablepost.service"], clock=lambda: 10 ** 11)
    with pytest.raises(ServiceError) as e:
        talk.post_for_seat(gid, 1, "too late")
    assert e.value.code == "talk-closed"


def current_talk(app, gid: str, seat: int, upto: int = 1) -> str:
    """The seat's talk address as its latest message email (one that told the thread up to ``upto``)
    carries it (mail/messages.py)."""
    TableTalk(app.extensions["tablepost.service"]).talk_address_sent(gid, seat, upto)
    return talk_address("talk-secret", "pbem.test", gid, seat, upto)


def raw_reply(to: str, body: str, frm: str = "ada@talk.test") -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, to, "Re: your turn"
    m["Message-ID"] = email.utils.make_msgid(domain="talk.test")
    m.set_content(body + "\n\nOn Monday the server wrote:\n> Your legal moves:\n> Message: quoted\n")
    return bytes(m)


def test_the_email_rule(world):
    _, c = world
    gid, (ada, bob) = two(c)
    first = c.get(f"{API}/{gid}/legal-moves", headers=ada).json["moves"][0]["move"]
    turn = reply_address("talk-secret", "pbem.test", gid, 0, 1)
    said = lambda: [m["text"] for m in c.get(f"{API}/{gid}/messages", headers=bob).json["messages"]]  # noqa: E731
    # a mistyped move with no Message: line is refused as a move, never posted
    rv = post_inbound(c, raw_reply(turn, "plaec 0,1 r0\nnice game so far"))
    assert rv.json["status"] == "rejected" and said() == []
    # a mistyped move above a Message: line: refused, and the message is not posted either
    rv = post_inbound(c, raw_reply(turn, "plaec 0,1 r0\nMessage: hello"))
    assert rv.json["status"] == "rejected" and said() == [] and c.get(f"{API}/{gid}").json["version"] == 1
    # a move and a message: the move is played, the message posted
    rv = post_inbound(c, raw_reply(turn, f"Hi Bob,\n{first}\nMessage: Your turn!\nHave fun.\n-- \nAda"))
    assert rv.json["status"] == "applied", rv.json
    assert c.get(f"{API}/{gid}").json["version"] > 1
    assert said() == ["Your turn!\nHave fun."], "up to the signature; the quoted Message: line never"
    # a message alone, to an old turn's address: posted, nothing played
    v = c.get(f"{API}/{gid}").json["version"]
    rv = post_inbound(c, raw_reply(turn, "message:\n<b>bold</b> & co"))
    assert rv.json["status"] == "applied" and c.get(f"{API}/{gid}").json["version"] == v
    assert said()[-1] == "<b>bold</b> & co"
    # a reply to a message email (the talk address): all of it is the message, nothing is a move
    talk = current_talk(world[0], gid, 0)
    rv = post_inbound(c, raw_reply(talk, first))
    assert rv.json["status"] == "applied" and said()[-1] == first
    assert c.get(f"{API}/{gid}").json["version"] == v
    # from another address: nothing posted
    rv = post_inbound(c, raw_reply(talk, "forged words", frm="mallory@evil.test"))
    assert rv.json["status"] == "rejected" and "forged words" not in said()
    # too long: refused whole
    rv = post_inbound(c, raw_reply(talk, "y" * (MAX_CHARS + 10)))
    assert rv.json["status"] == "rejected" and len(said()) == 3


BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"   # what str.splitlines breaks at
lines = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=BREAKS),
                         max_size=40), max_size=12)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(lines)
def test_no_reply_without_the_rule_posts_a_message(body):
    """Property: a reply to a turn email whose lines (above the quote) have no line that begins
    ``Message:`` carries no message and its moves read exactly as before the table talk."""
    text = "\n".join(body)
    kept, said = split_reply(text, 5, is_marker)
    has_rule = any(line.strip("\u200b\u200c\u200d\u2060\ufeff").strip().lower().lstrip("*")
                   .startswith("message")
                   and ":" in line for line in body)
    if not has_rule:
        assert said is None and kept == text


@settings(max_examples=300, deadline=None)
@given(lines, lines)
def test_no_move_line_becomes_a_message(moves, words):
    """Property: the lines above the ``Message:`` line are read as moves, and never reach the message."""
    moves = [m for m in moves if "message" not in m.lower()]
    text = "\n".join(moves + ["Message: hi"] + words)
    kept, said = split_reply(text, 5, is_marker)
    if said is not None and not any(is_marker(moves, i) for i in range(len(moves))):
        assert kept == "\n".join(moves)
        assert extract_moves(kept) == extract_moves("\n".join(moves))
        assert said.startswith("hi")



# --- the operator reads the reports (tablepost talk-reports, talk-report-handled) ---------------------

def test_the_operator_lists_reports_and_marks_them_handled(world, redis_server, monkeypatch, capsys):
    from api.cli import main
    _, c = world
    gid, (ada, bob) = two(c)
    c.post(f"{API}/{gid}/messages", json={"text": "you play like a potato\nsecond line"}, headers=bob)
    c.post(f"{API}/{gid}/messages", json={"text": "fair enough"}, headers=ada)
    assert c.post(f"{API}/{gid}/messages/1/report", json={"reason": "rude"}, headers=ada).status_code == 202
    # reported again by the same seat: still one report (no flood pushes the others' out of the list)
    for _ in range(3):
        assert c.post(f"{API}/{gid}/messages/1/report", json={}, headers=ada).status_code == 202
    assert c.post(f"{API}/{gid}/messages/2/report", json={}, headers=bob).status_code == 202
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(["talk-reports"]) == 2, "no Redis named"
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    assert main(["talk-reports", "--limit", "500"]) == 0
    out = capsys.readouterr().out
    blocks = [b for b in out.split("\n\n") if f"game {gid}," in b]
    assert len(blocks) == 2, out
    rude = next(b for b in blocks if "message 1 " in b)
    assert "Ada reported Bob: rude" in rude
    assert "  > you play like a potato\n  > second line" in rude
    assert "Bob reported Ada" in next(b for b in blocks if "message 2 " in b)
    assert "@" not in "".join(blocks), "no address shows"
    number = int(re.match(r"report (\d+) ", rude).group(1))
    assert main(["talk-report-handled", str(number)]) == 0
    assert f"report {number} marked handled" in capsys.readouterr().out
    main(["talk-reports", "--limit", "500"])
    out = capsys.readouterr().out
    assert f"report {number} " not in out and "Bob reported Ada" in out
    main(["talk-reports", "--all", "--limit", "500"])
    out = capsys.readouterr().out
    assert f"report {number} " in out and "(handled " in out
    assert main(["talk-report-handled", "999999999"]) == 1
    assert "no report 999999999" in capsys.readouterr().err


# --- the thread closes 7 days after the game's end, by the test clock ----------------------------------

def test_the_thread_closes_seven_days_after_the_end_not_after_it_was_first_seen(redis_server, monkeypatch):
    monkeypatch.setenv("TABLEPOST_TEST_CLOCK", "1")   # application/clock.py: clock:offset shifts every clock
    r = redis_from(redis_server)
    r.delete("clock:offset")
    try:
        app = make_app(redis_server.url)
        c = app.test_client()
        gid, (ada, bob) = two(c)
        assert c.post(f"{API}/{gid}/resign", headers=ada).status_code == 200   # the game ends now
        ended = app.extensions["tablepost.service"].ended_at(gid)
        assert ended is not None
        r.set("clock:offset", 6 * 86400)   # nobody looked at the thread for six days
        page = c.get(f"{API}/{gid}/messages", headers=bob).json
        assert page["open"] and page["closes"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                time.gmtime(ended + 7 * 86400))
        assert c.post(f"{API}/{gid}/messages", json={"text": "gg"}, headers=bob).status_code == 201
        r.set("clock:offset", 7 * 86400 + 60)   # 7 days after the end, not after it was first seen over
        rv = c.post(f"{API}/{gid}/messages", json={"text": "too late"}, headers=ada)
        assert rv.status_code == 409 and rv.json["code"] == "talk-closed"
        page = c.get(f"{API}/{gid}/messages", headers=ada).json
        assert not page["open"] and [m["text"] for m in page["messages"]] == ["gg"], "still read"
    finally:
        r.delete("clock:offset")


def redis_from(redis_server):
    import redis
    return redis.Redis.from_url(redis_server.url)


# --- an attacker's review ---------------------------------------------------------------------------

def test_attack_posting_as_another_seat_or_reading_another_game(world):
    _, c = world
    gid, (ada, bob) = two(c)
    other, (mallory, _) = two(c, emails=("m@talk.test", "n@talk.test"))
    c.post(f"{API}/{gid}/messages", json={"text": "secret plan"}, headers=bob)
    # a seat field in the body is no way to speak for another seat
    rv = c.post(f"{API}/{gid}/messages", json={"text": "I resign, Ada wins", "seat": 1}, headers=ada)
    assert rv.status_code == 422
    # another game's token: the same answer whether the message exists or not (no oracle), no words
    answers = [c.post(f"{API}/{gid}/messages/{n}/report", json={}, headers=mallory) for n in (1, 99)]
    answers += [c.get(f"{API}/{gid}/messages", headers=mallory),
                c.post(f"{API}/{gid}/messages", json={"text": "hi"}, headers=mallory),
                c.put(f"{API}/{gid}/messages/mute", json={"all": True}, headers=mallory)]
    assert {(a.status_code, a.json["code"]) for a in answers} == {(401, "unauthorized")}
    assert answers[0].json == answers[1].json
    assert not any("secret" in a.get_data(as_text=True) for a in answers)
    page = c.get(f"{API}/{gid}/messages", headers=ada).json
    assert [(m["seat"], m["text"]) for m in page["messages"]] == [(1, "secret plan")]
    assert set(page["messages"][0]) == {"id", "seat", "name", "text", "at", "mine"}, "nothing more"
    assert c.get(f"{API}/{other}/messages", headers=mallory).json["messages"] == []


def test_attack_the_spectators_stream_tells_no_words(world):
    import http.client
    app, c = world
    gid, (ada, _) = two(c)
    with LiveServer(app) as server:
        conn = http.client.HTTPConnection(server.url.removeprefix("http://"), timeout=20)
        conn.request("GET", f"{API}/{gid}/stream")   # a spectator: no token
        resp = conn.getresponse()
        assert resp.status == 200
        seen = b""
        while b"event: turn" not in seen:
            seen += resp.fp.readline()
        rv = c.post(f"{API}/{gid}/messages", json={"text": "whisper to Bob"}, headers=ada)
        assert rv.status_code == 201
        while b"event: talk" not in seen:
            seen += resp.fp.readline()
        seen += resp.fp.readline()
        conn.close()
    told = seen.split(b"event: talk", 1)[1]
    assert told.strip() == b"data: {}", told
    assert b"whisper" not in seen and b"Ada" not in told


def test_a_seat_is_not_emailed_what_its_page_read(world):
    app, c = world
    gid, (ada, bob) = two(c)
    talk = TableTalk(app.extensions["tablepost.service"])
    c.post(f"{API}/{gid}/messages", json={"text": "one"}, headers=bob)
    meta = app.extensions["tablepost.service"].meta(gid)
    assert [m["text"] for m in talk.unread_for_email(gid, meta, 0)[0]] == ["one"]
    c.get(f"{API}/{gid}/messages", headers=ada)   # Ada's page read it
    assert talk.unread_for_email(gid, meta, 0)[0] == []
    c.post(f"{API}/{gid}/messages", json={"text": "two"}, headers=bob)
    assert [m["text"] for m in talk.unread_for_email(gid, meta, 0)[0]] == ["two"]


def test_attack_the_email_rule_never_turns_a_move_into_a_message_or_back(world):
    _, c = world
    gid, (ada, bob) = two(c)
    first = c.get(f"{API}/{gid}/legal-moves", headers=ada).json["moves"][0]["move"]
    turn = reply_address("talk-secret", "pbem.test", gid, 0, 1)
    said = lambda: [m["text"] for m in c.get(f"{API}/{gid}/messages", headers=bob).json["messages"]]  # noqa: E731
    # a move written after the Message: line is words, never played
    rv = post_inbound(c, raw_reply(turn, f"Message: I would play\n{first}"))
    assert rv.json["status"] == "applied" and said() == [f"I would play\n{first}"]
    assert c.get(f"{API}/{gid}").json["version"] == 1
    # Bob cannot talk (nor play) through Ada's turn address, even with her name on it
    rv = post_inbound(c, raw_reply(turn, "Message: Ada resigns", frm="Ada <bob@talk.test>"))
    assert rv.json["status"] == "rejected" and "Ada resigns" not in said()
    # a message that is only a move's words to the talk address: posted, the game untouched
    talk = current_talk(world[0], gid, 0)
    rv = post_inbound(c, raw_reply(talk, f"Message:\n{first}"))
    assert rv.json["status"] == "applied" and c.get(f"{API}/{gid}").json["version"] == 1
    # a move then words with no Message: line: the words are no message, the move is played
    rv = post_inbound(c, raw_reply(turn, f"{first}\nthanks for the game"))
    assert rv.json["status"] == "applied" and "thanks for the game" not in " ".join(said())
    assert c.get(f"{API}/{gid}").json["version"] > 1


# --- one client holding every seat of a game cannot flush the others' reports (issue 51) ------------

def test_a_flood_of_reports_from_one_game_leaves_the_other_games_reports(world, redis_server, monkeypatch,
                                                                          capsys):
    import application.messages as messages
    from api.cli import main
    app, c = world
    per_seat = getattr(messages, "OPEN_PER_SEAT", 5)   # reports a seat keeps waiting
    r = app.extensions["tablepost.service"].store.r
    r.delete(messages.REPORTS, messages.HANDLED)
    talk = TableTalk(app.extensions["tablepost.service"])
    gid, (ada, bob) = two(c)
    c.post(f"{API}/{gid}/messages", json={"text": "an honest insult"}, headers=bob)
    assert c.post(f"{API}/{gid}/messages/1/report", json={"reason": "first"}, headers=ada).status_code == 202
    done, (ada2, bob2) = two(c)   # another game's report, handled: it may go when the list is full
    c.post(f"{API}/{done}/messages", json={"text": "meh"}, headers=bob2)
    c.post(f"{API}/{done}/messages/1/report", json={}, headers=ada2)
    assert talk.handle(talk.reports()[0]["id"])
    # the list's cap, small enough to flood here: one over the waiting reports, with the handled one
    monkeypatch.setattr(messages, "REPORTS_KEPT", 1 + 5 * per_seat)
    # one client holds all five seats of a game: each seat writes, every other seat reports each message
    rv = c.post(API, json={"game": "carcassonne", "seats": [{"name": f"S{i}", "email": f"s{i}@flood.test"}
                                                            for i in range(5)]})
    flood, seats = rv.json["id"], [bearer(s["token"]) for s in rv.json["seats"]]
    for i, seat in enumerate(seats):
        for k in range(6):
            rv = c.post(f"{API}/{flood}/messages", json={"text": f"m{i}.{k}"}, headers=seat)
            assert rv.status_code == 201
    filed = 0
    for n in range(1, 31):
        author = (n - 1) // 6
        for s, seat in enumerate(seats):
            if s != author:
                assert c.post(f"{API}/{flood}/messages/{n}/report", json={}, headers=seat).status_code == 202
                filed += 1
    assert filed == 120
    listed = talk.reports(limit=500)
    assert [x["reason"] for x in listed if x["game"] == gid] == ["first"], "the earlier report is listed"
    mine = [x for x in listed if x["game"] == flood]
    assert len(mine) == 5 * per_seat, "a few waiting a seat; the rest counted"
    assert sum(x.get("more", 0) for x in mine) == 120 - 5 * per_seat
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    assert main(["talk-reports", "--limit", "500"]) == 0
    out = capsys.readouterr().out
    assert any(f"game {gid}," in b and "Ada reported Bob: first" in b for b in out.split("\n\n")), out
    assert f"and {120 // 5 - per_seat} more reports by S0 in this game, counted, not kept" in out
    # handling a seat's report lets it file one more; the handled go first when the list is full
    number = next(x["id"] for x in mine if x["reporter_seat"] == 0)
    assert main(["talk-report-handled", str(number)]) == 0
    c.post(f"{API}/{flood}/messages", json={"text": "one more"}, headers=seats[1])
    assert c.post(f"{API}/{flood}/messages/31/report", json={}, headers=seats[0]).status_code == 202
    kept = talk.reports(limit=500, handled=True)
    assert any(x["game"] == gid for x in kept) and not any(x["game"] == done for x in kept), \
        "the handled report went first"
    assert len([x for x in talk.reports(limit=500) if x["game"] == flood and x["reporter_seat"] == 0]) == \
        per_seat
