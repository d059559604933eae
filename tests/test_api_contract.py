"""The typed contract (issue 17): what the service serves is what its OpenAPI document says,
field for field. Seeded games of 2, 3 and 4 players and a solo game against the Cardinalbot are
played over real HTTP to the end; at many points the position (as a seat and as a spectator),
the summary, the legal moves and the events are validated against the schemas of the served
document, whose objects are closed (``additionalProperties: false``): a field added or renamed
on either side, a value outside an enumeration or a wrong type fails here."""
from __future__ import annotations

import json
import random

import pytest
import requests
from openapi_schema_validator import OAS30Validator

from seats.client import ApiClient
from seats.runner import play_turn
from conftest import LiveServer, make_app

BOT_TOKEN = "bot-credential-for-the-contract-test"


@pytest.fixture(scope="module")
def server(redis_server):
    app = make_app(redis_server.url, BOT_TOKEN=BOT_TOKEN)
    with LiveServer(app) as live:
        live.app = app
        live.document = requests.get(live.url + "/api/openapi.json", timeout=10).json()
        yield live


class Contract:
    """Validators of the 200 answers of the served document's operations."""

    def __init__(self, document: dict):
        self.document = document
        self.validators: dict[str, OAS30Validator] = {}

    def validator(self, path: str) -> OAS30Validator:
        if path not in self.validators:
            ok = self.document["paths"][path]["get"]["responses"]["200"]
            schema = ok["content"]["application/json"]["schema"]
            self.validators[path] = OAS30Validator({**schema, "components": self.document["components"]})
        return self.validators[path]

    def check(self, path: str, answer: dict, where: str) -> None:
        errors = sorted(self.validator(path).iter_errors(answer), key=lambda e: list(e.absolute_path))
        assert not errors, f"{where}: the answer of {path} breaks its schema: " + "; ".join(
            f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5])


def schema_of(document: dict, name: str) -> dict:
    return document["components"]["schemas"][name]


def test_the_position_and_its_parts_are_typed_closed_objects(server):
    doc = server.document
    for name in ("TiletumPosition", "SeatState", "Turn", "KingMarker", "AgendaEntry", "FinalScore",
                 "SoloBoard",
                 "EngineOptions", "Piles", "Event", "GameSummary", "LegalMoves"):
        schema = schema_of(doc, name)
        assert schema.get("additionalProperties") is False and schema["properties"], name
    position = schema_of(doc, "TiletumPosition")["properties"]
    for field, ref in (("turn", "Turn"), ("solo", "SoloBoard"), ("options", "EngineOptions")):
        assert f"#/components/schemas/{ref}" in json.dumps(position[field]), field
    assert position["seats"]["items"] == {"$ref": "#/components/schemas/SeatState"}
    assert position["agenda"]["items"] == {"$ref": "#/components/schemas/AgendaEntry"}
    assert position["final"]["additionalProperties"] == {"$ref": "#/components/schemas/FinalScore"}
    chance = schema_of(doc, "Event")["properties"]["chance"]["items"]
    assert (chance["type"], chance["minItems"], chance["maxItems"]) == ("array", 2, 2)


def test_closed_value_sets_are_enumerations(server):
    doc = server.document
    enum = lambda schema, field: schema_of(doc, schema)["properties"][field].get("enum")  # noqa: E731
    assert enum("Event", "type") == ["GameStarted", "MovePlayed", "MoveUndone", "SeatResigned"]
    assert enum("Resigned", "status") == ["finished", "active"]
    assert enum("Rematch", "status") == ["proposed", "started"]
    assert enum("TiletumPosition", "phase") == ["action", "king", "over"]
    # play: Carcassonne's; cards to actions: Pillars'; waiting: a game with open seats before it
    # starts (docs/lobby.md)
    # (the registry's order: the games by name)
    assert enum("GameSummary", "phase") == ["play", "over", "cards", "builders", "placing", "actions",
                                            "action", "king", "waiting"]
    assert enum("CarcassonnePosition", "phase") == ["play", "over"]
    assert enum("PillarsPosition", "phase") == ["cards", "builders", "placing", "actions", "over"]
    assert enum("SeatSummary", "kind") == ["human", "cardinalbot", "bot", "ai", "open"]
    assert schema_of(doc, "SeatIn")["properties"]["kind"]["enum"] == ["human", "cardinalbot", "bot", "ai",
                                                                      "open"]
    assert enum("GameSummary", "status") == ["active", "finished", "waiting", "cancelled"]
    assert enum("SoloBoard", "level") == ["priest", "deacon", "bishop"]
    assert set(enum("AgendaEntry", "t")) == {"frame", "fx", "choice"}


def test_who_is_to_act_has_one_name_and_one_shape(server):
    doc = server.document
    for name in ("GameSummary", "TiletumPosition", "LegalMoves"):
        to_act = schema_of(doc, name)["properties"]["to_act"]
        assert to_act["type"] == "array" and to_act["items"] == {"type": "integer"}, name
    for name in ("TiletumPosition", "LegalMoves"):
        actor = schema_of(doc, name)["properties"]["actor"]
        assert actor["deprecated"] is True and actor["nullable"] is True, name


def _play(server, contract: Contract, seats: list[dict], options: dict, seed: str) -> dict:
    """Plays a game to its end over HTTP (the Cardinalbot's turns by the Cardinalbot itself),
    validating every few versions what is served against the document. Returns counts."""
    s, url = requests.Session(), server.url
    created = s.post(url + "/api/v1/games", json={"seats": seats, "options": {**options, "seed": seed}},
                     timeout=10)
    assert created.status_code == 201, created.text
    game = created.json()
    gid, tokens = game["id"], [x["token"] for x in game["seats"]]
    bot = ApiClient(url, BOT_TOKEN, backoff=0.01)
    rng = random.Random(seed)
    checked = moves = 0
    while True:
        summary = s.get(f"{url}/api/v1/games/{gid}", timeout=10).json()
        sample = summary["status"] == "finished" or rng.random() < 0.15
        if sample:
            where = f"{seed} v{summary['version']}"
            contract.check("/api/v1/games/{game_id}", summary, where)
            humans = [t for t in tokens if t]
            for token in (None, humans[checked % len(humans)]):  # a spectator and, in turn, each seat
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                state = s.get(f"{url}/api/v1/games/{gid}/state", headers=headers, timeout=10).json()
                contract.check("/api/v1/games/{game_id}/state", state, where)
                # nothing the engine and the core put in the position is dropped on the way out
                _, expected = server.app.extensions["tablepost.service"].state(gid, token)
                assert state == json.loads(json.dumps(expected)), where
                assert state["to_act"] == summary["to_act"] == ([] if state["actor"] is None
                                                                else [state["actor"]])
                if token:
                    legal = s.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=headers, timeout=10).json()
                    contract.check("/api/v1/games/{game_id}/legal-moves", legal, where)
                    assert legal["to_act"] == summary["to_act"], where
            checked += 1
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        if tokens[seat] is None:
            assert play_turn(bot, gid) >= 1
            continue
        me = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = s.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=me, timeout=10).json()
        names = [m["move"] for m in legal["moves"]]
        move = "end" if "end" in names and rng.random() < 0.8 else rng.choice(names)
        if legal["can_undo"] and rng.random() < 0.03:
            move = "undo"
        answer = s.post(f"{url}/api/v1/games/{gid}/moves", headers=me, timeout=10,
                        json={"expected_version": legal["version"], "moves": [move]})
        assert answer.status_code == 200, answer.text
        moves += 1
    events = s.get(f"{url}/api/v1/games/{gid}/events", timeout=10).json()
    contract.check("/api/v1/games/{game_id}/events", events, seed)
    final = s.get(f"{url}/api/v1/games/{gid}/state", timeout=10).json()
    assert final["phase"] == "over" and final["final"] is not None and final["to_act"] == []
    return {"checked": checked, "moves": moves, "types": {e["type"] for e in events["events"]}}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_served_multiplayer_documents_match_the_served_contract(server, players):
    contract = Contract(server.document)
    seats = [{"name": f"P{i}"} for i in range(players)]
    got = _play(server, contract, seats, {"action_tiles": "shuffled"} if players == 3 else {},
                f"contract-{players}")
    assert got["checked"] >= 8 and got["moves"] >= 50
    assert {"GameStarted", "MovePlayed"} <= got["types"]


def test_served_solo_documents_match_the_served_contract(server):
    contract = Contract(server.document)
    seats = [{"name": "Cardinal", "kind": "cardinalbot"}, {"name": "Ada"}]
    got = _play(server, contract, seats, {"solo": {"level": "bishop"}}, "contract-solo")
    assert got["checked"] >= 8


def test_a_field_the_contract_does_not_know_fails_the_check(server):
    """The check can fail: a served position with one extra field, a wrong enum value, or a
    nested object with an unknown key is refused."""
    contract = Contract(server.document)
    s, url = requests.Session(), server.url
    gid = s.post(url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}],
                                               "options": {"seed": "contract-negative"}},
                                               timeout=10).json()["id"]
    state = s.get(f"{url}/api/v1/games/{gid}/state", timeout=10).json()
    contract.check("/api/v1/games/{game_id}/state", state, "as served")
    for broken in ({**state, "surprise": 1}, {**state, "phase": "lunch"},
                   {**state, "turn": {**state["turn"], "extra": True}},
                   {**state, "seats": [{**state["seats"][0], "resources": {"gold": 1}}] + state["seats"][1:]},
                   {**state, "to_act": 0}):
        with pytest.raises(AssertionError, match="breaks its schema"):
            contract.check("/api/v1/games/{game_id}/state", broken, "broken")


def test_the_email_links_carry_exactly_the_documented_query_parameters(redis_server):
    """The links the notifier writes into emails (mail/notify.py) open pages (api/email_pages.py), and
    the same actions' API endpoints, which older emails link to, take the query parameters the
    document lists for them and answer the documented text/html."""
    from types import SimpleNamespace
    from urllib.parse import parse_qs, urlsplit

    from mail.mailconfig import MailConfig
    from mail.notify import Notifier

    secret = "mail-secret-for-the-contract-test"
    app = make_app(redis_server.url, MAIL_SECRET=secret)
    document = app.test_client().get("/api/openapi.json").get_json()
    with LiveServer(app) as live:
        cfg = MailConfig(secret=secret, domain="pbem.localhost", from_addr="x@pbem.localhost",
                         public_url=live.url)
        notifier = SimpleNamespace(cfg=cfg)
        gid = requests.post(live.url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]},
                            timeout=10).json()["id"]
        for link in (Notifier.move_url(notifier, gid, 0, 1, "take G4"),
                     Notifier.unsubscribe_url(notifier, "ann@example.org")):
            assert "/api/" not in link, "an email links to a page"
            page = requests.get(link, headers={"Accept": "text/html"}, timeout=10)
            assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html"), page.text
        from mail.addresses import signed_url
        move_path = f"/api/v1/games/{gid}/email-move"
        links = {"/api/v1/games/{game_id}/email-move": signed_url(secret, live.url, move_path, seat="0",
                                                                   version="1", move="take G4"),
                 "/api/v1/email/unsubscribe": signed_url(secret, live.url, "/api/v1/email/unsubscribe",
                                                         email="ann@example.org")}
        for path, link in links.items():
            for method in ("get", "post"):
                params = {p["name"]: p for p in document["paths"][path][method]["parameters"]
                          if p["in"] == "query"}
                sent = set(parse_qs(urlsplit(link).query))
                assert sent <= set(params), (f"{method} {path}: undocumented link parameters "
                                             f"{sent - set(params)}")
                required = {n for n, p in params.items() if p["required"]}
                assert required <= sent, (f"{method} {path}: documented as required but not in links: "
                                          f"{required - sent}")
                assert "text/html" in document["paths"][path][method]["responses"]["200"]["content"]
            page = requests.get(link, headers={"Accept": "text/html"}, timeout=10)
            assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html"), page.text


def test_the_board_picture_is_svg_or_the_same_bytes_as_octet_stream(server):
    s, url = requests.Session(), server.url
    gid = s.post(url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]},
                 timeout=10).json()["id"]
    svg = s.get(f"{url}/api/v1/games/{gid}/board.svg", timeout=10)
    assert svg.status_code == 200 and svg.headers["Content-Type"].startswith("image/svg+xml")
    raw = s.get(f"{url}/api/v1/games/{gid}/board.svg", headers={"Accept": "application/octet-stream"},
                timeout=10)
    assert raw.headers["Content-Type"] == "application/octet-stream" and raw.content == svg.content
    assert "Accept" in raw.headers["Vary"]
    board = server.document["paths"]["/api/v1/games/{game_id}/board.svg"]
    documented = board["get"]["responses"]["200"]["content"]
    assert set(documented) == {"image/svg+xml", "application/octet-stream"}


def test_the_served_position_is_the_seats_view_unchanged(redis_server):
    """The schema serializes; it must not drop what it does not declare. Every effect atom of an
    ``fx`` agenda entry came out as ``{}`` (a Nested schema dumps only declared fields), which made
    the AI player, reading the served position, fail on "unknown effect {}"."""
    import tiletum
    from games.tiletum import view_doc
    app = make_app(redis_server.url)
    client = app.test_client()
    created = client.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}],
                                                  "options": {"seed": "served-view"}}).get_json()
    tokens = [s["token"] for s in created["seats"]]
    state = tiletum.new_game(2, seed="served-view")[0]
    rng = random.Random(11)
    atoms_seen = 0
    while state.phase != "over":
        seat = state.actor
        served = client.get(f"/api/v1/games/{created['id']}/state",
                            headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
        mine = view_doc(state, seat)
        for doc in (served, mine):
            doc.pop("options", None)   # the served one names the defaults
        assert served == mine, f"the served position differs from the seat's view at version {state.version}"
        atoms_seen += sum(len(e.get("atoms") or ()) for e in mine["agenda"])
        move = rng.choice(tiletum.legal_moves(state))
        rv = client.post(f"/api/v1/games/{created['id']}/moves",
                         headers={"Authorization": f"Bearer {tokens[seat]}"},
                         json={"expected_version": state.version, "moves": [move]})
        assert rv.status_code == 200, rv.get_json()
        _, state = tiletum.play(state, seat, tiletum.parse(move), seed="served-view")
    assert atoms_seen > 0, "the game passed through positions with effect atoms on the agenda"
