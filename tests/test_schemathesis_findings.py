"""What schemathesis's full checks find, and why each stays (issue 39). tests/test_openapi.py runs
schemathesis on every operation with the checks that must always pass; its full set (``st run
http://HOST/api/openapi.json --checks all``, and ``--mode negative``: positive_data_acceptance,
negative_data_rejection, missing_required_header, allow_header_conformance...) also reports the
answers below (5,500 cases against `tablepost serve`, 0 server errors). Each is the
API doing what it promises in a way OpenAPI 3.0 cannot state: the schema describes one field at a
time, and these are rules across fields, across items, about which characters text may hold, or
about what a credential or a configuration allows. Each test pins the behaviour and its reason, so
that a change to it is a decision, not an accident."""
from __future__ import annotations

import pytest

from tests.conftest import make_app

PROBLEM = "application/problem+json"


def problem(rv, status: int, code: str) -> dict:
    assert rv.status_code == status, rv.get_data(as_text=True)
    assert rv.mimetype == PROBLEM
    body = rv.get_json()
    assert body["code"] == code, body
    return body


def new_game(client) -> tuple[str, list[str]]:
    rv = client.post("/api/v1/games", json={"seats": [{"name": "Ann"}, {"name": "Bob"}]})
    assert rv.status_code == 201, rv.get_data(as_text=True)
    g = rv.get_json()
    return g["id"], [s["token"] for s in g["seats"]]


@pytest.mark.parametrize("path, body, field", [
    ("/api/v1/bots", {"email": "bot@example.org", "name": "A\u0093B"}, "name"),               # Cc
    ("/api/v1/games", {"seats": [{"name": "\u202eevil"}, {"name": "Bob"}]}, "seats"),         # Cf: bidi
    ("/api/v1/games", {"seats": [{"name": "Ann\u2028"}, {"name": "Bob"}]}, "seats"),          # Zl
])
def test_text_with_control_or_format_characters_is_refused(client, path, body, field):
    """positive_data_acceptance (ST202, 6 of the 12): a string field's schema is ``type: string``,
    and a control, format or line-separator character in it is refused (422). Such text reaches
    other players' pages, emails and records, where a right-to-left override or a line break
    rewrites what they read. OpenAPI 3.0's ``pattern`` is an ECMA-262 regex without the ``u``
    flag, so it cannot name Unicode categories (Cc, Cf, Zl, Zp) portably: the rule is in each
    field's description of the code (api/schemas/common.py ``text_problem``) and here."""
    body_out = problem(client.post(path, json=body), 422, "invalid-request")
    assert field in body_out["errors"]["json"], body_out


def test_a_name_that_shows_nothing_is_refused(client):
    """positive_data_acceptance (ST202, ``PUT /me/handle`` with ""): names must show something
    (``Name``: a letter, number, punctuation mark or symbol after NFKC), which ``minLength`` cannot
    say (a space, a Hangul filler or a Braille blank is one character long)."""
    body = problem(client.post("/api/v1/games", json={"seats": [{"name": "\u3164"}, {"name": "Bob"}]}),
                   422, "invalid-request")
    assert "show at least one" in str(body["errors"]), body


def test_an_owner_key_on_a_seat_that_is_not_a_bot_is_refused(client):
    """positive_data_acceptance (ST202, ``POST /games``): ``owner_key`` belongs to ``kind: bot``
    seats only, a rule across two fields of one item."""
    rv = client.post("/api/v1/games", json={"seats": [{"name": "Ann", "owner_key": "k"}, {"name": "Bob"}]})
    body = problem(rv, 422, "invalid-request")
    assert "owner_key" in str(body["errors"]), body


def test_a_seat_token_must_name_its_game_for_webhooks(client):
    """positive_data_acceptance (ST202, ``GET`` and ``POST /webhooks``): ``game`` is optional for a
    dashboard key or a bot's token and required with a seat token, whose webhooks are one game's:
    a rule between the credential and a parameter."""
    gid, tokens = new_game(client)
    rv = client.get("/api/v1/webhooks", headers={"Authorization": f"Bearer {tokens[0]}"})
    problem(rv, 422, "game-required")
    rv = client.get(f"/api/v1/webhooks?game={gid}", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert rv.status_code == 200, rv.get_data(as_text=True)


def test_a_join_token_not_issued_by_the_server_is_refused(client):
    """positive_data_acceptance (ST202, ``POST /lobby/confirm``): the token is any string to the
    schema; only the server's own signed tokens are join links (422 ``bad-join-link``)."""
    problem(client.post("/api/v1/lobby/confirm", json={"token": "not-a-link"}), 422, "bad-join-link")


def test_an_address_entered_twice_in_a_tournament_is_refused(client):
    """positive_data_acceptance (ST202, ``POST /tournaments``): each entry's address must be
    unique; ``uniqueItems`` compares whole items, so two entries with different names and one
    address pass it."""
    rv = client.post("/api/v1/tournaments", json={
        "name": "Twice", "format": "swiss", "table_size": 3, "rounds": 2,
        "entries": [{"email": "ann@example.org", "name": "Ann"},
                    {"email": "ANN@example.org", "name": "Ann B"},
                    {"email": "bob@example.org", "name": "Bob"}]})
    problem(rv, 422, "duplicate-entry")


def test_the_inbound_webhook_is_404_when_off_and_401_without_its_signature(redis_server):
    """missing_required_header (ST203, ``POST /inbound-email`` without ``X-Tablepost-Signature``:
    404): a service without TABLEPOST_INBOUND_SECRET has no inbound webhook, and says so (404
    ``email-disabled``) whatever the request holds; with the secret, the missing header is 401."""
    off = make_app(redis_server.url).test_client()
    problem(off.post("/api/v1/inbound-email", data=b"x"), 404, "email-disabled")
    on = make_app(redis_server.url, INBOUND_SECRET="s3cret", MAIL_SECRET="m").test_client()
    rv = on.post("/api/v1/inbound-email", data=b"From: a@example.org\r\n\r\nhi",
                 content_type="message/rfc822")
    assert rv.status_code == 401 and rv.mimetype == PROBLEM, rv.get_data(as_text=True)


def test_allow_on_lobby_confirm_names_every_method_the_server_routes_there(client):
    """allow_header_conformance (ST205, ``OPTIONS /lobby/confirm``: Allow GET, POST, DELETE,
    HEAD): ``/api/v1/lobby/confirm`` is also ``/api/v1/lobby/{game_id}`` with the game id
    ``confirm`` (GET and DELETE), so Allow says exactly what the server does with that URL; no
    game has that id (ids are 12 letters and digits), so those answer 404 ``game-not-found``."""
    rv = client.open("/api/v1/lobby/confirm", method="OPTIONS")
    assert rv.status_code == 405
    assert {m.strip() for m in rv.headers["Allow"].split(",")} == {"GET", "HEAD", "POST", "DELETE"}
    problem(client.get("/api/v1/lobby/confirm"), 404, "game-not-found")


def test_a_body_over_the_size_limit_is_413_before_its_schema_is_read(client):
    """negative_data_rejection (ST201, ``POST /tournaments`` with more entries than ``maxItems``:
    413): a body over TABLEPOST_MAX_BODY (64 KiB) is refused before it is parsed, so the answer is
    413 ``payload-too-large``, not 422; either way nothing is created."""
    entries = [{"email": f"p{i}@example.org", "name": "P" * 80} for i in range(600)]
    rv = client.post("/api/v1/tournaments", json={"name": "Big", "format": "swiss", "table_size": 3,
                                                  "rounds": 2, "entries": entries})
    problem(rv, 413, "payload-too-large")
    listed = client.get("/api/v1/tournaments").get_json()["tournaments"]   # (other tests' are there too)
    assert not [t for t in listed if t["name"] == "Big"], "nothing was created"


def test_a_malformed_query_is_422_before_the_credential_is_asked_for(client):
    """missing_required_header (ST203, ``GET /webhooks?game=`` without Authorization: 422, not
    401): the request's parameters are read before its credential (flask-smorest parses them
    before the view runs), and it is refused either way; the 422 says only what is wrong with the
    query, nothing about any webhook or game."""
    body = problem(client.get("/api/v1/webhooks?game="), 422, "invalid-request")
    assert list(body["errors"]) == ["query"], body
    problem(client.get("/api/v1/webhooks"), 401, "unauthorized")
