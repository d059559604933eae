"""The REST API speaks the reader's language (docs/i18n.md, "The API's language"), over real HTTP
(the app behind a threaded server on loopback, a real Redis): ``?lang=``, else ``Accept-Language``,
else English; the games' words (events, legal moves, a refused move) of a game that speaks the
language; every problem ``detail`` from the platform's catalog, its ``code`` unchanged; the answer's
``Content-Language`` and ``Vary``; the OpenAPI document the same in every language."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import requests
from babel.messages.pofile import read_po

from tablepost import i18n

from conftest import LiveServer, make_app

ROOT = Path(__file__).resolve().parent.parent
PSEUDO = i18n.PSEUDO
LANGS = ("de", "fr", PSEUDO)
# a text the pseudo-locale said: every message of the catalog comes out as "⟦...⟧", accented
PSEUDO_TEXT = re.compile(r"⟦[^⟦⟧]*⟧")


@pytest.fixture()
def http(live_server):
    """A ``requests`` session on the live server: ``http.get("/api/v1/...")``."""
    class Http(requests.Session):
        def request(self, method, url, *args, **kwargs):   # type: ignore[override]
            kwargs.setdefault("timeout", 30)
            return super().request(method, live_server.url + url, *args, **kwargs)
    with Http() as s:
        yield s


def _game(http, name: str, **options) -> dict:
    rv = http.post("/api/v1/games", json={"game": name, "seats": [{"name": "Ann"}, {"name": "Bob"}],
                                          "options": {"seed": "apilang", **options}})
    assert rv.status_code == 201, rv.text
    g = rv.json()
    actor = http.get(f"/api/v1/games/{g['id']}").json()["to_act"][0]
    g["auth"] = {"Authorization": f"Bearer {g['seats'][actor]['token']}"}
    g["other"] = {"Authorization": f"Bearer {g['seats'][1 - actor]['token']}"}
    return g


def _said(rv, lang: str) -> None:
    """The answer says its language, and that it varies by Accept-Language."""
    assert rv.headers.get("Content-Language") == lang, rv.headers
    assert "Accept-Language" in rv.headers.get("Vary", ""), rv.headers


# --- which language ----------------------------------------------------------------------------

@pytest.mark.parametrize("query, headers, lang", [
    ("?lang=de", {}, "de"), ("?lang=fr", {"Accept-Language": "de"}, "fr"),
    ("", {"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.5"}, "fr"),
    ("", {"Accept-Language": "pl, de;q=0.5"}, "de"), ("", {"Accept-Language": "pl"}, "en"),
    ("", {}, "en"), ("?lang=xx", {"Accept-Language": "de"}, "de"),
    ("?lang=en", {"Accept-Language": "de"}, "en"),
    ("?lang=" + PSEUDO, {}, PSEUDO), ("", {"Accept-Language": PSEUDO}, PSEUDO),
])
def test_the_language_of_a_request(http, query, headers, lang):
    rv = http.get("/api/v1/games/nosuchgame" + query, headers=headers)
    assert rv.status_code == 404 and rv.json()["code"] == "game-not-found"
    _said(rv, lang)
    english = "no game with this id"
    assert (rv.json()["detail"] == english) == (lang == "en"), rv.json()


def test_the_pseudo_locale_only_under_test(redis_server):
    with LiveServer(make_app(redis_server.url, TESTING=False)) as server:
        rv = requests.get(server.url + "/api/v1/games/nosuchgame?lang=" + PSEUDO,
                          headers={"Accept-Language": PSEUDO}, timeout=30)
    assert rv.headers["Content-Language"] == "en" and rv.json()["detail"] == "no game with this id"


def test_lang_is_no_routes_query_argument(http):
    """Every operation takes ``lang``: a route whose query schema refuses unknown arguments too."""
    g = _game(http, "carcassonne")
    rv = http.get(f"/api/v1/games/{g['id']}/events?after=0&limit=5&lang=de")
    assert rv.status_code == 200, rv.text
    _said(rv, "de")
    assert http.get("/api/v1/games?status=active&lang=fr").status_code == 200


def test_the_openapi_document_stays_english(http):
    english = http.get("/api/openapi.json").json()
    for lang in LANGS:
        assert http.get("/api/openapi.json", headers={"Accept-Language": lang}).json() == english
        assert http.get(f"/api/openapi.json?lang={lang}").json() == english
    assert "Accept-Language" in english["info"]["description"] and "`lang`" in english["info"]["description"]


# --- the games' words ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["carcassonne", "pillars", "tiletum"])
@pytest.mark.parametrize("lang", LANGS)
def test_legal_moves_and_events_in_the_language(http, name, lang):
    g = _game(http, name)
    base = f"/api/v1/games/{g['id']}"
    english = http.get(base + "/legal-moves", headers=g["auth"]).json()
    rv = http.get(base + "/legal-moves", headers={**g["auth"], "Accept-Language": lang})
    _said(rv, lang)
    said = rv.json()
    assert [m["move"] for m in said["moves"]] == [m["move"] for m in english["moves"]], "notation stays"
    for en, m in zip(english["moves"], said["moves"]):
        assert m["description"] != en["description"], (en, m)
        if lang == PSEUDO:
            assert PSEUDO_TEXT.search(m["description"]), m
    # a move played: its event, and the game's start, in words of the language
    move = english["moves"][0]["move"]
    played = http.post(base + "/moves", headers=g["auth"], json={"expected_version": english["version"],
                                                                   "moves": [move]})
    assert played.status_code == 200, played.text
    events_en = http.get(base + "/events").json()["events"]
    rv = http.get(base + f"/events?lang={lang}")
    _said(rv, lang)
    events = rv.json()["events"]
    assert [e["type"] for e in events] == [e["type"] for e in events_en]
    assert [e["text"] for e in events] != [e["text"] for e in events_en]
    moved = [e for e in events if e["type"] == "MovePlayed"]
    assert moved and all(e["text"] != en["text"] for e, en in zip(events, events_en)
                         if e["type"] == "MovePlayed"), (events, events_en)
    if lang == PSEUDO:
        assert all(PSEUDO_TEXT.search(e["text"]) for e in moved), moved
    assert "Ann" in " ".join(e["text"] for e in moved) or "Bob" in " ".join(e["text"] for e in moved)
    # English as before
    assert http.get(base + "/events?lang=en").json()["events"] == events_en


@pytest.mark.parametrize("name", ["carcassonne", "pillars", "tiletum"])
@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_move_in_the_language(http, name, lang):
    g = _game(http, name)
    base = f"/api/v1/games/{g['id']}"
    body = {"expected_version": 1, "moves": ["move it there"]}
    english = http.post(base + "/moves", headers=g["auth"], json=body)
    assert english.status_code == 422 and english.json()["detail"].startswith("'move' is not a move here")
    rv = http.post(base + "/moves", headers={**g["auth"], "Accept-Language": lang}, json=body)
    _said(rv, lang)
    said = rv.json()
    assert said["code"] == english.json()["code"] == "bad-notation"
    assert said["move_index"] == 0 and said["rule"] == english.json()["rule"]
    assert said["detail"] != english.json()["detail"], said
    assert "move" in said["detail"] or lang == PSEUDO, said
    assert "is not a move here" not in said["detail"] and "you can" not in said["detail"]
    if lang == PSEUDO:
        assert PSEUDO_TEXT.search(said["detail"]), said


# a move each game's rules refuse at its start, and the start of the English reason (the rule's own words)
ILLEGAL = {"carcassonne": ("place 0,0 r0", "'place 0,0 r0': there is already a tile at 0,0"),
           "pillars": ("buy wood 1", "'buy wood 1': 'buy' is not a move of phase I"),
           "tiletum": ("end", "'end': take a die before ending your turn")}


@pytest.mark.parametrize("name", ["carcassonne", "pillars", "tiletum"])
@pytest.mark.parametrize("lang", LANGS)
def test_an_illegal_move_is_refused_with_the_rules_reason_in_the_language(http, name, lang):
    g = _game(http, name)
    base = f"/api/v1/games/{g['id']}"
    move, reason = ILLEGAL[name]
    body = {"expected_version": 1, "moves": [move]}
    english = http.post(base + "/moves", headers=g["auth"], json=body)
    assert english.status_code == 422 and english.json()["detail"].startswith(reason), english.json()
    rv = http.post(base + "/moves", headers={**g["auth"], "Accept-Language": lang}, json=body)
    _said(rv, lang)
    said = rv.json()
    assert said["code"] == english.json()["code"] == "illegal-move" and said["rule"] == english.json()["rule"]
    assert said["detail"] != english.json()["detail"] and reason[len(move) + 4:] not in said["detail"], said
    assert move in said["detail"], "the move as typed, in notation"
    if lang == PSEUDO:
        assert said["detail"].startswith("⟦") and said["detail"].endswith("⟧"), said
    elif lang == "de":
        assert said["detail"].startswith(f"„{move}“: "), said


def test_a_game_that_speaks_only_english_answers_in_english(redis_server):
    """A game whose words are English only (the example game, a third party's) is called as it always
    was: its words the same in every language; the service's own words (a problem's detail) are
    translated around them."""
    from tests.examples import hosting

    with hosting("connect-four") as game:
        assert tuple(game.languages or ("en",)) == ("en",)
        app = make_app(redis_server.url)
        created = app.extensions["tablepost.service"].create_game(
            [{"name": "Ann"}, {"name": "Bob"}], {}, game="connect-four")
        gid = created["id"]
        _, state = app.extensions["tablepost.service"].load(gid)
        auth = {"Authorization": f"Bearer {created['seats'][game.actor(state)]['token']}"}
        with LiveServer(app) as server:
            base = server.url + f"/api/v1/games/{gid}"
            english = requests.get(base + "/legal-moves", headers=auth, timeout=30).json()
            said = requests.get(base + "/legal-moves?lang=de", headers=auth, timeout=30).json()
            events = [requests.get(base + f"/events?lang={lang}", timeout=30).json() for lang in ("en", "fr")]
            refused = requests.post(base + "/moves?lang=de", headers=auth, timeout=30,
                                    json={"expected_version": 99, "moves": ["x"]})
    assert english["moves"] and said == english
    assert events[0] == events[1]
    assert refused.status_code == 409 and refused.json()["detail"].startswith("das Spiel ist bei Version")


# --- the problems' details ------------------------------------------------------------------------

def _problems(http, headers: dict) -> dict:
    """One problem of each kind, asked with ``headers``: {kind: response}."""
    g = _game(http, "carcassonne")
    base = f"/api/v1/games/{g['id']}"
    out = {
        "404": http.get("/api/v1/games/nosuchgame", headers=headers),
        "422 bad options": http.post("/api/v1/games", headers=headers, json={
            "game": "carcassonne", "seats": [{"name": "Ann"}, {"name": "Bob"}], "options": {"bogus": 1}}),
        "422 option value": http.post("/api/v1/games", headers=headers, json={
            "game": "tiletum", "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "options": {"action_tiles": "x"}}),
        "422 seats": http.post("/api/v1/games", headers=headers, json={
            "game": "carcassonne", "seats": [{"name": "Ann"}] * 9}),
        "401": http.get(base + "/legal-moves", headers={**headers, "Authorization": "Bearer nosuchtoken"}),
        "401 scheme": http.get(base + "/legal-moves", headers={**headers, "Authorization": "Basic eA=="}),
        "403": http.post(base + "/moves", headers={**headers, **g["other"]},
                         json={"expected_version": 1, "moves": ["x"]}),
        "409": http.post(base + "/moves", headers={**headers, **g["auth"]},
                         json={"expected_version": 7, "moves": ["x"]}),
        "422 webargs": http.post(base + "/moves", headers={**headers, **g["auth"]}, json={"moves": "x"}),
        "404 route": http.get("/api/v1/nosuchthing", headers=headers),
        "422 range": http.get("/api/v1/games?status=active&limit=999", headers=headers),
        "422 schema": http.post("/api/v1/games", headers=headers, json={
            "game": "carcassonne", "seats": [{"name": "Ann"}, {"kind": "bot"}, {"name": "x\u202ey"}]}),
    }
    return out


def _limited(redis_server, lang: str) -> tuple[dict, dict]:
    """Two 429s, in English and in ``lang``: the table talk's budget of a seat (api/limits.py) and the
    rate limiter's own (a game's creation), each with a limit store of its own (in memory)."""
    app = make_app(redis_server.url, RATE_LIMIT=600, RATE_LIMIT_STORAGE="memory://",
                   CREATE_LIMIT="1 per hour", MESSAGE_LIMIT="1 per hour")
    with LiveServer(app) as server:
        url = server.url + "/api/v1/games"
        body = {"game": "carcassonne", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
        first = requests.post(url, json=body, timeout=30)
        assert first.status_code == 201, first.text
        g = first.json()
        auth = {"Authorization": f"Bearer {g['seats'][0]['token']}"}
        talk = server.url + f"/api/v1/games/{g['id']}/messages"
        assert requests.post(talk, json={"text": "hello"}, headers=auth, timeout=30).status_code == 201
        out: tuple[dict, dict] = ({}, {})
        for said, headers in zip(out, ({}, {"Accept-Language": lang})):
            said["429 talk"] = requests.post(talk, json={"text": "again"}, headers={**headers, **auth},
                                             timeout=30)
            said["429 limiter"] = requests.post(url, json=body, headers=headers, timeout=30)
    return out


def _leaves(errors, path=()) -> list[tuple[tuple, str]]:
    """The messages of a 422's ``errors`` with the path of fields to each."""
    if isinstance(errors, dict):
        return [leaf for k in sorted(errors) for leaf in _leaves(errors[k], path + (k,))]
    if isinstance(errors, list):
        return [leaf for i, e in enumerate(errors) for leaf in _leaves(e, path + (i,))]
    return [(path, errors)]


@pytest.mark.parametrize("lang", LANGS)
def test_every_kind_of_problem_in_the_language(http, redis_server, lang):
    english = _problems(http, {})
    said = _problems(http, {"Accept-Language": lang})
    english_limited, limited = _limited(redis_server, lang)
    english.update(english_limited)
    said.update(limited)
    for kind, rv in said.items():
        en = english[kind]
        assert rv.status_code == en.status_code and str(rv.status_code) == kind[:3], (kind, rv.text)
        body, en_body = rv.json(), en.json()
        assert body["code"] == en_body["code"] and body["type"] == en_body["type"], kind
        assert {k for k in body if k != "detail"} == {k for k in en_body if k != "detail"}, kind
        _said(rv, lang)
        assert body["detail"] != en_body["detail"], (kind, body)
        if lang == PSEUDO:
            assert PSEUDO_TEXT.search(body["detail"]), (kind, body)
            # no English left outside the catalog's words: only parameters (names, numbers, notation)
            bare = PSEUDO_TEXT.sub("", body["detail"])
            assert not re.search(r"\b(the|is|a|an|of|not|no|this|send|use)\b", bare), (kind, body["detail"])
        if "errors" in en_body:   # each message of a field (the field names stay)
            said_leaves, en_leaves = _leaves(body["errors"]), _leaves(en_body["errors"])
            assert [k for k, _ in said_leaves] == [k for k, _ in en_leaves] and en_leaves, (kind, body)
            for (_, m), (_, en_m) in zip(said_leaves, en_leaves):
                assert m != en_m and (lang != PSEUDO or PSEUDO_TEXT.search(m)), (kind, m, en_m)
    assert english["409"].json()["current_version"] == said["409"].json()["current_version"]
    assert "Retry-After" in said["429 talk"].headers and "Retry-After" in said["429 limiter"].headers
    # the limit itself in words of the language (CREATE_LIMIT "1 per hour"), not the limiter's English
    assert english["429 limiter"].json()["detail"] == "too many requests: at most 1 request in 1 hour"
    if lang in ("de", "fr"):
        window = {"de": "höchstens 1 Anfrage in 1 Stunde", "fr": "au plus 1 requête en 1 heure"}[lang]
        assert window in said["429 limiter"].json()["detail"], said["429 limiter"].json()


# --- every detail the service says is a message of the catalog --------------------------------------

# the refusals of application/errors.py and api/problems.py's ApiError, by name: the index of their detail
DETAIL_ARG = {"invalid": 1, "forbidden": 1, "missing": 1, "refused": 1, "limited": 1, "failed": 1,
              "unauthorized": 0, "not_found": 0, "ApiError": 2, "BadSetup": 1, "OptionError": 0,
              "ValidationError": 0}
OWNERS = ("errors", "games", "_errors", "ma")   # errors.invalid(...), ma.ValidationError(...)
PLATFORM = ("application", "tournaments", "api", "mail", "workers", "games/setup.py", "games/__init__.py")


# where a detail is the engine's own reason, handed on as it says it (the game's words)
ENGINE_WORDS = {"application/game_create.py"}


def _sites():
    for part in PLATFORM:
        path = ROOT / part
        for p in sorted([path] if path.is_file() else path.rglob("*.py")):
            tree = ast.parse(p.read_text())
            for n in ast.walk(tree):
                if not isinstance(n, ast.Call):
                    continue
                f = n.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
                owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
                if name not in DETAIL_ARG or (isinstance(f, ast.Attribute) and owner not in OWNERS):
                    continue
                i = DETAIL_ARG[name]
                if len(n.args) > i:
                    yield f"{p.relative_to(ROOT)}:{n.lineno}", n.args[i]


def test_every_detail_is_a_catalog_message():
    """A detail is a literal (extracted by its function's name: the Makefile's DETAIL_KEYWORDS) or
    ``said("...", ...)`` with a literal message, both in the catalog, or a value handed on (an
    exception's message, a variable marked where it is set); never an f-string or a ``.format``,
    which the catalog cannot hold."""
    with open(ROOT / "tablepost" / "translations" / "messages.pot", "rb") as fp:
        ids = {m.id for m in read_po(fp) if m.id}
    sites = list(_sites())
    assert len(sites) > 150, "the error sites were not found"
    bad = []
    for where, arg in sites:
        formatted = (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute)
                     and arg.func.attr == "format")
        if isinstance(arg, ast.JoinedStr) or formatted:
            bad.append(f"{where}: an f-string or .format: use said(...)")
        elif isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value not in ids:
            bad.append(f"{where}: {arg.value!r} is not in the catalog (make messages)")
        elif isinstance(arg, ast.Call) and getattr(arg.func, "attr", getattr(arg.func, "id", None)) == "said":
            msg = arg.args[0] if arg.args else None
            if not (isinstance(msg, ast.Name) or (isinstance(msg, ast.Constant) and msg.value in ids)):
                bad.append(f"{where}: said()'s message is not in the catalog")
        elif (isinstance(arg, ast.Call) and getattr(arg.func, "id", None) == "str"
              and where.split(":")[0] not in ENGINE_WORDS):
            bad.append(f"{where}: str(...) loses a said() message: hand on e.args[0]")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("lang", ["de", PSEUDO])
def test_the_review_in_the_language(redis_server, lang):
    """A finished game of The Pillars of the Earth (played at random through the service), its review
    computed: read in the language, each decision's moves and position are the game's words in it at
    the decision's version; the figures as stored; English as stored."""
    import random

    import games
    from application.review import Reviews

    app = make_app(redis_server.url)
    service = app.extensions["tablepost.service"]
    created = service.create_game([{"name": "Ann"}, {"name": "Bob"}], {"rated": False}, game="pillars")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(lang)
    while True:
        meta, state = service.load(gid)
        game = games.of_meta(meta)
        if game.is_over(state):
            break
        seat = game.actor(state)
        service.submit(gid, tokens[seat], state.version, [rng.choice(game.legal_moves(state))[0]])
    english = Reviews(service, level=1).compute(gid, 0)
    with LiveServer(app) as server:
        url = server.url + f"/api/v1/games/{gid}/review?seat=0"
        assert requests.get(url, timeout=30).json() == english
        rv = requests.get(url, headers={"Accept-Language": lang}, timeout=60)
    _said(rv, lang)
    said = rv.json()
    assert [(d["version"], d["played"], d["preferred"], d["loss"]) for d in said["decisions"]] == [
        (d["version"], d["played"], d["preferred"], d["loss"]) for d in english["decisions"]]
    assert said["total_loss"] == english["total_loss"] and said["costliest"] == english["costliest"]
    for d, en in list(zip(said["decisions"], english["decisions"]))[:8]:
        _, at = service.state_at(gid, d["version"])
        words = dict(game.legal_moves(at, lang=lang))
        assert d["played_words"] == words[d["played"]] != en["played_words"], d
        assert d["preferred_words"] == words[d["preferred"]]
        assert d["position"] == game.review_position(at, 0, lang=lang) != en["position"]


def test_the_event_stream_in_the_language(redis_server):
    """``GET /stream?lang=de`` (an EventSource sends no headers of its own) tells the events with their
    texts as ``GET /events?lang=de`` has them; without it, in English."""
    from tests.test_push_stream import read_sse

    app = make_app(redis_server.url, STREAM_SECONDS=3, STREAM_KEEPALIVE=0.5)
    with LiveServer(app) as server:
        rv = requests.post(server.url + "/api/v1/games", timeout=30, json={
            "game": "carcassonne", "seats": [{"name": "Ann"}, {"name": "Bob"}]})
        g = rv.json()
        base = server.url + f"/api/v1/games/{g['id']}"
        texts = {lang: [e["text"] for e in
                        requests.get(base + f"/events?lang={lang}", timeout=30).json()["events"]]
                 for lang in ("en", "de")}
        assert texts["de"] != texts["en"]
        for lang in ("en", "de"):
            with requests.get(base + f"/stream?lang={lang}", stream=True, timeout=30) as r:
                assert r.headers["Content-Language"] == lang
                msgs = read_sse(r, stop=lambda m: sum("data" in x and "text" in x["data"] for x in m)
                                >= len(texts[lang]))
            told = [m["data"]["text"] for m in msgs if "data" in m and "text" in m["data"]]
            assert told == texts[lang], (lang, msgs)


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_the_dashboards_progress_in_the_language(http, app, lang):
    from application.dashboard import dashboard_key_for

    rv = http.post("/api/v1/games", json={"game": "carcassonne", "seats": [
        {"name": "Ann", "email": f"ann-{lang}@example.org"}, {"name": "Bob"}]})
    assert rv.status_code == 201, rv.text
    key = dashboard_key_for(app.extensions["tablepost.service"].store.r, f"ann-{lang}@example.org")
    auth = {"Authorization": f"Bearer {key}"}
    english = http.get("/api/v1/me/games", headers=auth).json()
    rv = http.get("/api/v1/me/games", headers={**auth, "Accept-Language": lang})
    _said(rv, lang)
    mine = [g for part in ("to_move", "waiting") for g in rv.json()[part]]
    theirs = [g for part in ("to_move", "waiting") for g in english[part]]
    assert len(mine) == len(theirs) == 1
    assert mine[0]["progress"] != theirs[0]["progress"] and "70" in mine[0]["progress"], mine


@pytest.mark.parametrize("lang", LANGS)
def test_a_chunked_body_too_large_in_the_language(redis_server, lang):
    """The 413 of a chunked body is answered before Flask (api/app.py LimitChunkedBodies): in the
    request's language too."""
    def body():
        yield b'{"seats": []}'
        for _ in range(20):
            yield b" " * 1000

    with LiveServer(make_app(redis_server.url, MAX_CONTENT_LENGTH=1024)) as server:
        out = {said: requests.post(server.url + "/api/v1/games", data=body(), timeout=30,
                                   headers={"Content-Type": "application/json", **headers})
               for said, headers in (("en", {}), (lang, {"Accept-Language": lang}))}
    assert out["en"].json()["detail"] == "the body is larger than 1024 bytes"
    rv = out[lang]
    assert rv.status_code == 413 and rv.json()["code"] == "payload-too-large"
    _said(rv, lang)
    assert rv.json()["detail"] != out["en"].json()["detail"] and "1024" in rv.json()["detail"]
    if lang == PSEUDO:
        assert PSEUDO_TEXT.fullmatch(rv.json()["detail"]), rv.json()


@pytest.mark.parametrize("lang", ["de", PSEUDO])
def test_the_position_in_words_in_the_language(redis_server, lang):
    """The Pillars of the Earth's position says the last round's end in words (``round_summary``):
    ``GET /state`` (and the replay's ``?version=``) in the language, with an ETag of its own; the
    rest of the document as in English."""
    import random

    import games

    app = make_app(redis_server.url)
    service = app.extensions["tablepost.service"]
    created = service.create_game([{"name": "Ann"}, {"name": "Bob"}], {}, game="pillars")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(lang)
    while True:   # to the second round: the first round's end is told
        meta, state = service.load(gid)
        game = games.of_meta(meta)
        if state.round >= 2:
            break
        seat = game.actor(state)
        service.submit(gid, tokens[seat], state.version, [rng.choice(game.legal_moves(state))[0]])
    with LiveServer(app) as server:
        url = server.url + f"/api/v1/games/{gid}/state"
        english = requests.get(url, timeout=30)
        rv = requests.get(url, headers={"Accept-Language": lang}, timeout=30)
        then = requests.get(url + f"?version={state.version}&lang={lang}", timeout=30)
        again = requests.get(url, headers={"Accept-Language": lang, "If-None-Match": rv.headers["ETag"]},
                             timeout=30)
        other = requests.get(url, headers={"Accept-Language": "fr" if lang == "de" else "de",
                                           "If-None-Match": rv.headers["ETag"]}, timeout=30)
    _said(rv, lang)
    doc, en = rv.json(), english.json()
    assert en["round_summary"] and doc["round_summary"] != en["round_summary"], doc["round_summary"]
    assert {k: v for k, v in doc.items() if k != "round_summary"} == {
        k: v for k, v in en.items() if k != "round_summary"}
    assert then.json() == doc
    assert rv.headers["ETag"] != english.headers["ETag"] == f'"v{state.version}"'
    assert again.status_code == 304 and other.status_code == 200
