"""Issue 13, "Bad input": what an adversarial client sends gets a clear 4xx problem document,
never a 500, and never a stored value that breaks a game record. Over real HTTP against a real
Redis, like tests/test_api_errors.py."""
from __future__ import annotations

import html5lib
import pytest

import tiletum
from application.errors import ServiceError
from tiletum.cli import main as engine_cli
from tiletum.record import parse_record, replay_record
from mail.addresses import signed_url
from conftest import LiveServer, make_app
from test_api_errors import API, Http, game_count, new_game, observe, position, problem

BOT_TOKEN = "bot-credential-for-bad-input"
MAIL_SECRET = "bad-input-secret"


@pytest.fixture(scope="module")
def server(redis_server):
    app = make_app(redis_server.url, BOT_TOKEN=BOT_TOKEN, MAIL_SECRET=MAIL_SECRET)
    with LiveServer(app) as live:
        live.app = app
        yield live


@pytest.fixture()
def http(server):
    h = Http(server.url)
    yield h
    h.s.close()


def new_tournament(http: Http, **extra) -> dict:
    body = {"name": "Cup", "format": "round_robin", "table_size": 2, "invite": True,
            "entries": [{"name": "Ann", "email": "ann@example.org"},
                        {"name": "Bob", "email": "bob@example.org"}]}
    body.update(extra)
    return http.ok("POST", "/api/v1/tournaments", json=body, status=201)


# --- JSON nested too deeply ------------------------------------------------------------------

DEEP_LIST = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000
DEEP_FIELD = '{"expected_version": 1, "seats": ' + "[" * 3000 + "]" * 3000 + "}"


@pytest.mark.parametrize("body", [DEEP_LIST, DEEP_OBJECT, DEEP_FIELD], ids=["list", "object", "in-a-field"])
def test_json_nested_a_thousand_levels_deep_is_400_everywhere(http, redis_client, body):
    game = new_game(http)
    gid, token = game["id"], game["tokens"][position(http, game["id"]).actor]
    t = new_tournament(http)
    before, n = observe(http, redis_client, gid), game_count(redis_client)
    json_type = {"Content-Type": "application/json"}
    for method, path, tok in (("POST", API, None), ("POST", f"{API}/{gid}/moves", token),
                              ("POST", f"{API}/{gid}/vacation", token),
                              ("PUT", f"{API}/{gid}/notifications", token),
                              ("POST", "/api/v1/tournaments", None),
                              ("POST", f"/api/v1/tournaments/{t['id']}/entries", None),
                              ("POST", f"/api/v1/tournaments/{t['id']}/withdrawals", t["organizer_token"]),
                              ("PUT", "/api/v1/me/notifications", None),
                              ("PUT", "/api/v1/me/vacation", None)):
        r = http.call(method, path, tok, data=body, headers=json_type)
        p = problem(r, 400, "invalid-request")  # the code of every unreadable JSON body
        assert "json" in p["errors"], p
    assert observe(http, redis_client, gid) == before
    assert game_count(redis_client) == n
    assert len(http.ok("GET", f"/api/v1/tournaments/{t['id']}")["players"]) == 2


def test_json_nested_past_the_limit_but_parseable_is_400_too(http, redis_client):
    n = game_count(redis_client)
    body = '{"seats": [{"name": "A"}, {"name": "B"}], "options": {"solo": ' + "[" * 100 + "]" * 100 + "}}"
    problem(http.post(API, data=body, headers={"Content-Type": "application/json"}), 400, "invalid-request")
    assert game_count(redis_client) == n


# --- non-ASCII Bearer tokens -------------------------------------------------------------------

NON_ASCII = ["\u00e9\u00e9", "tok\u00ff", "\u00e9" * 32]


@pytest.mark.parametrize("token", NON_ASCII)
def test_a_non_ascii_bearer_token_is_401_on_every_bearer_endpoint(http, redis_client, token):
    game = new_game(http)
    gid = game["id"]
    t = new_tournament(http)
    tid, invite = t["id"], t["invite_code"]
    before = observe(http, redis_client, gid)
    move = tiletum.legal_moves(position(http, gid))[0]
    routes = [("GET", f"{API}/{gid}/state", {}), ("GET", f"{API}/{gid}/legal-moves", {}),
              ("POST", f"{API}/{gid}/moves", {"json": {"expected_version": 1, "moves": [move]}}),
              ("POST", f"{API}/{gid}/vacation", {"json": {"on": True}}),
              ("PUT", f"{API}/{gid}/notifications", {"json": {"mode": "none"}}),
              ("GET", "/api/v1/bot/turns", {}),
              ("GET", "/api/v1/me/games", {}), ("GET", "/api/v1/me/notifications", {}),
              ("PUT", "/api/v1/me/notifications", {"json": {"mode": "none"}}),
              ("PUT", "/api/v1/me/vacation", {"json": {"on": True}}),
              ("POST", f"/api/v1/tournaments/{tid}/start", {}),
              ("GET", f"/api/v1/tournaments/{tid}/my-games", {}),
              ("POST", f"/api/v1/tournaments/{tid}/withdrawals", {"json": {}}),
              ("POST", f"/api/v1/tournaments/{tid}/entries",
               {"json": {"name": "Cy", "email": "cy@example.org", "invite": invite}})]
    for method, path, kw in routes:
        r = http.call(method, path, headers={"Authorization": "Bearer " + token}, **kw)
        problem(r, 401, "unauthorized")
        assert "bearer" in r.headers.get("WWW-Authenticate", "").lower(), path
    assert observe(http, redis_client, gid) == before
    view = http.ok("GET", f"/api/v1/tournaments/{tid}")
    assert view["status"] == "open" and len(view["players"]) == 2


def test_a_non_ascii_invitation_code_is_403(http):
    t = new_tournament(http)
    r = http.post(f"/api/v1/tournaments/{t['id']}/entries",
                  json={"name": "Cy", "email": "cy@example.org", "invite": "\u00e9" + t["invite_code"][1:]})
    problem(r, 403, "bad-invitation")


@pytest.mark.parametrize("token", NON_ASCII + ["\ud800x"])
def test_the_core_compares_any_string_token_without_failing(http, server, token):
    """The application core itself (not only the HTTP adapter) refuses any string as a credential."""
    t = new_tournament(http)
    service = server.app.extensions["tablepost.tournaments"]
    games = server.app.extensions["tablepost.service"]
    game = new_game(http)
    with server.app.app_context():
        for call in (lambda: service.my_games(t["id"], token), lambda: service.withdraw(t["id"], token),
                     lambda: service.start(t["id"], token), lambda: games.legal_moves(game["id"], token)):
            with pytest.raises(ServiceError) as e:
                call()
            assert e.value.kind == "unauthorized"
        with pytest.raises(ServiceError) as e:
            service.enter(t["id"], None, {"name": "Cy", "email": "cy@example.org", "invite": token})
        assert e.value.code == "bad-invitation"


# --- control characters in names ---------------------------------------------------------------

BAD_CHARS = {"CR": "\r", "LF": "\n", "CRLF": "\r\n", "NUL": "\x00", "ESC": "\x1b", "DEL": "\x7f",
             "NEL": "\x85", "RLO": "\u202e", "LRI": "\u2066", "PDI": "\u2069", "ZWSP": "\u200b",
             "BOM": "\ufeff", "LS": "\u2028", "PS": "\u2029", "TAB": "\t"}


@pytest.mark.parametrize("char", list(BAD_CHARS.values()), ids=list(BAD_CHARS))
def test_a_name_with_a_control_character_is_422_naming_the_field(http, redis_client, char):
    name = f"Eve{char}[Seed \"x\"]"
    n = game_count(redis_client)
    p = problem(http.post(API, json={"seats": [{"name": "Ann"}, {"name": name}]}), 422, "invalid-request")
    assert "seats" in p["errors"]["json"], p
    assert "control" in str(p["errors"]["json"]["seats"]).lower(), p
    p = problem(http.post(
        API, json={"seats": [{"name": "Ann"}, {"name": "Bob"}], "options": {"seed": "s" + char}}),
                422, "invalid-request")
    assert "options" in p["errors"]["json"], p
    assert game_count(redis_client) == n
    # tournaments: the tournament's name, an entrant's name on creation and on entering
    before = http.ok("GET", "/api/v1/tournaments?limit=200")
    p = problem(http.post("/api/v1/tournaments", json={"name": "Cup" + char + "Bcc: x@example.org",
                                                       "format": "round_robin", "table_size": 2}),
                422, "invalid-request")
    assert "name" in p["errors"]["json"], p
    p = problem(http.post("/api/v1/tournaments",
                          json={"name": "Cup", "format": "round_robin", "table_size": 2,
                                "entries": [{"name": name, "email": "e@example.org"}]}),
                422, "invalid-request")
    assert "entries" in p["errors"]["json"], p
    assert http.ok("GET", "/api/v1/tournaments?limit=200") == before
    t = new_tournament(http)
    p = problem(http.post(f"/api/v1/tournaments/{t['id']}/entries",
                          json={"name": name, "email": "cy@example.org", "invite": t["invite_code"]}),
                422, "invalid-request")
    assert "name" in p["errors"]["json"], p
    assert len(http.ok("GET", f"/api/v1/tournaments/{t['id']}")["players"]) == 2


@pytest.mark.parametrize(
    "name", ["Zoë", "李小龍", "O'Brien \"Ace\" [x] {y} | z", "🎲 Dice", "a\\b", "عمر", "Ann  Lee"])
def test_names_in_any_script_with_any_printable_character_are_accepted(http, name):
    created = http.ok("POST", API, json={"seats": [{"name": name}, {"name": "Bob"}]}, status=201)
    headers, _ = parse_record(http.get(f"{API}/{created['id']}/record").text)
    assert headers["Seat0"] == name


WEIRD_NAMES = ['Eve\r\n[Seed "forged"]', '"]\n1. s0: end', "\u2028line\u2029para\x85nel\x0bvt\x0cff\x1c",
               "back\\slash\\", "nul\x00esc\x1b[31m", "\u202eevil\u2066", "\\n not a newline \\u0041"]


def test_a_record_with_any_stored_name_still_parses_replays_and_verifies(http, server, tmp_path):
    """Names stored before names were checked (or by any other path) cannot break a record."""
    games = server.app.extensions["tablepost.service"]
    seed = "weird-names-seed"
    created = games.create_game([{"name": WEIRD_NAMES[0]}, {"name": WEIRD_NAMES[1]}], {"seed": seed},
                                game="tiletum")
    gid = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    state = position(http, gid)
    for _ in range(12):  # some moves with chance outcomes
        move = tiletum.legal_moves(state)[0]
        http.ok("POST", f"{API}/{gid}/moves", tokens[state.actor], json={"expected_version": state.version,
                                                                          "moves": [move]})
        state = position(http, gid)
    text = http.get(f"{API}/{gid}/record").text
    headers, events = parse_record(text)
    assert headers["Seat0"] == WEIRD_NAMES[0] and headers["Seat1"] == WEIRD_NAMES[1]
    assert "Seed" not in headers  # a forged header did not get in
    assert len(text.splitlines()) == len(text.split("\n")) - 1  # no line break but the record's own
    _, _, replayed = replay_record(text)
    assert replayed.to_doc() == state.to_doc()
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    assert engine_cli(["replay", str(path)]) == 0
    assert engine_cli(["verify", str(path), "--seed", seed]) == 0
    # every other weird name round-trips through the record too
    for name in WEIRD_NAMES[2:]:
        other = games.create_game([{"name": name}, {"name": "x"}], {}, game="tiletum")
        assert parse_record(http.get(f"{API}/{other['id']}/record").text)[0]["Seat0"] == name


# --- strict numbers and booleans ---------------------------------------------------------------

@pytest.mark.parametrize("version", ["1", 1.0, 1.5, 1e308, True, "1e0", None, [1], {"v": 1}],
                         ids=["string", "float-1.0", "float-1.5", "1e308", "true", "string-exp", "null",
                              "list", "object"])
def test_expected_version_must_be_a_json_integer(http, redis_client, version):
    game = new_game(http)
    gid = game["id"]
    token = game["tokens"][position(http, gid).actor]
    move = tiletum.legal_moves(position(http, gid))[0]
    before = observe(http, redis_client, gid)
    p = problem(http.post(f"{API}/{gid}/moves", token, json={"expected_version": version, "moves": [move]}),
                422, "invalid-request")
    assert "expected_version" in p["errors"]["json"], p
    assert observe(http, redis_client, gid) == before


def test_a_large_integer_version_is_a_409_not_a_500(http, redis_client):
    game = new_game(http)
    gid = game["id"]
    token = game["tokens"][position(http, gid).actor]
    move = tiletum.legal_moves(position(http, gid))[0]
    for version in (2, 10**20):
        r = http.post(f"{API}/{gid}/moves", token, json={"expected_version": version, "moves": [move]})
        assert r.status_code in (409, 422), r.text
        assert r.headers["Content-Type"].startswith("application/problem+json")


@pytest.mark.parametrize("value", [0, 1, "true", "yes", "on", 0.0, None, "1"])
def test_booleans_must_be_json_booleans(http, redis_client, value):
    game = new_game(http)
    gid, token = game["id"], game["tokens"][0]
    before = observe(http, redis_client, gid)
    p = problem(http.post(f"{API}/{gid}/vacation", token, json={"on": value}), 422, "invalid-request")
    assert "on" in p["errors"]["json"], p
    p = problem(http.post(API, json={"seats": [{"name": "A"}, {"name": "B"}], "options": {"rated": value}}),
                422, "invalid-request")
    assert "options" in p["errors"]["json"], p
    p = problem(http.post("/api/v1/tournaments",
                          json={"name": "Cup", "format": "round_robin", "table_size": 2,
                                "invite": value}), 422, "invalid-request")
    assert "invite" in p["errors"]["json"], p
    assert observe(http, redis_client, gid) == before


@pytest.mark.parametrize("field,value", [("table_size", "2"), ("table_size", 2.0), ("table_size", 2.5),
                                         ("table_size", True), ("rounds", 1e308), ("rounds", "3"),
                                         ("round_days", "2"), ("round_days", True)])
def test_tournament_numbers_are_strict(http, field, value):
    body = {"name": "Cup", "format": "swiss", "rounds": 3, "table_size": 2, field: value}
    p = problem(http.post("/api/v1/tournaments", json=body), 422, "invalid-request")
    assert field in p["errors"]["json"], p


@pytest.mark.parametrize("options", [{"time_control": {"days_per_move": "3"}},
                                     {"time_control": {"days_per_move": True}},
                                     {"time_control": {"quiet_hours": [22.5, 7]}},
                                     {"time_control": {"quiet_hours": ["22", 7]}},
                                     {"time_control": {"pause_weekends": 1}},
                                     {"timeout": {"drop_after": 2.0}}, {"timeout": {"drop_after": "2"}}])
def test_game_option_numbers_are_strict(http, redis_client, options):
    n = game_count(redis_client)
    p = problem(http.post(API, json={"seats": [{"name": "A"}, {"name": "B"}], "options": options}),
                422, "invalid-request")
    assert "options" in p["errors"]["json"], p
    assert game_count(redis_client) == n


@pytest.mark.parametrize("query", ["after=1.0", "after=1e3", "after=%2B1", "after=%201", "after=\u0663",
                                   "after=0x1", "after=1_0"])
def test_integer_query_arguments_are_plain_decimal_digits(http, query):
    game = new_game(http)
    p = problem(http.get(f"{API}/{game['id']}/events?{query}"), 422, "invalid-request")
    assert "after" in p["errors"]["query"], p
    p = problem(http.get("/api/v1/tournaments?" + query.replace("after", "limit")), 422, "invalid-request")
    assert "limit" in p["errors"]["query"], p
    assert http.get(f"{API}/{game['id']}/events?after=1").status_code == 200


# --- email-move errors: what the document says ---------------------------------------------------

def _email_move_url(http, gid: str, seat: int, version: int, move: str) -> str:
    return signed_url(MAIL_SECRET, http.base, f"/api/v1/games/{gid}/email-move", seat=str(seat),
                      version=str(version), move=move)


def test_email_move_errors_answer_html_to_a_browser_and_problem_json_otherwise(http, redis_client):
    game = new_game(http)
    gid = game["id"]
    state = position(http, gid)
    move = tiletum.legal_moves(state)[0]
    stale = _email_move_url(http, gid, state.actor, state.version + 5, move)
    before = observe(http, redis_client, gid)
    browser = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    r = http.s.post(stale, headers=browser, timeout=30)
    assert r.status_code == 409 and r.headers["Content-Type"].startswith("text/html"), r.text
    html5lib.parse(r.text)
    for accept in (None, "application/problem+json", "application/json", "*/*"):
        r = http.s.post(stale, headers={"Accept": accept} if accept else {}, timeout=30)
        problem(r, 409, "version-conflict")
    # a forged link: the same choice
    forged = stale.replace("version=", "version=1")
    problem(http.s.post(forged, timeout=30), 403, "bad-signature")
    r = http.s.post(forged, headers=browser, timeout=30)
    assert r.status_code == 403 and r.headers["Content-Type"].startswith("text/html")
    r = http.s.get(forged, headers=browser, timeout=30)
    assert r.status_code == 403 and r.headers["Content-Type"].startswith("text/html")
    assert observe(http, redis_client, gid) == before


def test_the_openapi_document_says_what_email_links_answer(http):
    spec = http.ok("GET", "/api/openapi.json")
    for path, method in (("/api/v1/games/{game_id}/email-move", "post"),
                         ("/api/v1/games/{game_id}/email-move", "get"),
                         ("/api/v1/email/unsubscribe", "post"), ("/api/v1/email/unsubscribe", "get")):
        responses = spec["paths"][path][method]["responses"]
        for status, response in responses.items():
            if status == "405":  # a method the link does not have: no browser sends it; problem+json
                assert response == {"$ref": "#/components/responses/METHOD_NOT_ALLOWED"}, (path, response)
                continue
            if status.startswith(("4", "5")):
                assert set(response["content"]) == {"text/html", "application/problem+json"}, (path, status)
    assert "409" in spec["paths"]["/api/v1/games/{game_id}/email-move"]["post"]["responses"]
