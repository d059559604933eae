"""The OpenAPI document (openapi/openapi.json): committed = served, valid, complete; and the
running app honours it (schemathesis, every operation, over real HTTP)."""
from __future__ import annotations

import copy
import json
import zlib
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_headers_conformance,
                                               response_schema_conformance, status_code_conformance)

from api.cli import openapi_document, openapi_text
from api.problems import PROBLEM_CONTENT_TYPE
from conftest import LiveServer, make_app

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "openapi" / "openapi.json"
REGENERATE = ("regenerate it with `make openapi` "
              "(or `.venv/bin/tablepost openapi --output openapi/openapi.json`)")
METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")


def operations(doc: dict):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield path, method, op


def deref(doc: dict, node: dict) -> dict:
    """``node`` with a local ``$ref`` (``#/components/...``) followed."""
    while isinstance(node, dict) and "$ref" in node:
        target = doc
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


@pytest.fixture(scope="module")
def served(redis_server) -> dict:
    app = make_app(redis_server.url)
    resp = app.test_client().get("/api/openapi.json")
    assert resp.status_code == 200
    return resp.get_json()


# --- 1. committed = served ---------------------------------------------------------------------

def differences(a, b, where: str = "") -> list[str]:
    """JSON pointers at which ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            here = f"{where}/{k.replace('~', '~0').replace('/', '~1')}"
            if k not in a or k not in b:
                out.append(f"{here} ({'only served' if k in a else 'only committed'})")
            else:
                out += differences(a[k], b[k], here)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{where}/{i}")]
    return [] if a == b else [where or "/"]


def test_the_served_document_is_the_committed_one(served):
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    diff = differences(served, committed)
    assert not diff, (f"openapi/openapi.json is out of date with the app: {REGENERATE}. "
                      f"It differs at {', '.join(diff[:10])}{' ...' if len(diff) > 10 else ''}")


def test_the_committed_file_is_byte_for_byte_what_the_command_writes():
    """Refactoring the schemas (api/schemas/ split by resource, issue 38) leaves the document as it
    was, byte for byte: a moved field, a reordered enum or a changed description shows here."""
    committed = COMMITTED.read_text(encoding="utf-8")
    assert openapi_text() == committed, f"openapi/openapi.json is not what the app writes now: {REGENERATE}"


def test_the_document_is_built_once_when_first_read_and_whole_for_every_thread(redis_server):
    """The app documents its operations when the document is first read (api/app.py, ProblemApi),
    so building an app is quick; threads that read it at once all get the whole document."""
    from concurrent.futures import ThreadPoolExecutor
    app = make_app(redis_server.url)
    api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    assert api._doc_steps, "building the app documented it already"
    unread = api._spec.to_dict()
    assert not unread["paths"] and set(unread.get("components", {})) <= {"securitySchemes"}, (
        "documented before it was read")   # (API_SPEC_OPTIONS gives the seat token's scheme)
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))

    def read(_):
        resp = app.test_client().get("/api/openapi.json")
        assert resp.status_code == 200
        return resp.get_json()
    with ThreadPoolExecutor(8) as pool:
        docs = list(pool.map(read, range(8)))
    assert all(not differences(doc, committed) for doc in docs)
    assert not api._doc_steps and read(0) == docs[0], "documented twice"


# --- 2. valid OpenAPI --------------------------------------------------------------------------

def test_the_document_is_valid_openapi(served):
    assert served["openapi"].startswith("3.")
    validate(served)


# --- 3. complete -------------------------------------------------------------------------------

def test_every_operation_has_a_unique_operation_id_summary_and_description(served):
    ids = []
    for path, method, op in operations(served):
        where = f"{method.upper()} {path}"
        assert op.get("operationId"), f"{where}: no operationId"
        assert op.get("summary", "").strip(), f"{where}: no summary"
        assert op.get("description", "").strip(), f"{where}: no description"
        ids.append(op["operationId"])
    assert len(ids) == len(set(ids)), f"duplicate operationIds: {sorted(ids)}"
    assert len(ids) >= 9


def test_operation_ids_are_stable(served):
    """Clients are generated from these names: renaming one breaks them (adding one does not)."""
    got = {f"{method.upper()} {path}": op["operationId"] for path, method, op in operations(served)}
    expected = {
        "GET /health": "getHealth",
        "POST /api/v1/games": "createGame",
        "GET /api/v1/games/{game_id}": "getGame",
        "GET /api/v1/games/{game_id}/state": "getGameState",
        "GET /api/v1/games/{game_id}/legal-moves": "getLegalMoves",
        "POST /api/v1/games/{game_id}/moves": "submitMoves",
        "GET /api/v1/games/{game_id}/events": "getEvents",
        "GET /api/v1/games/{game_id}/record": "getRecord",
        "GET /api/v1/games/{game_id}/fairness": "getFairness",
    }
    assert {k: got.get(k) for k in expected} == expected


def _examples(doc: dict, op: dict):
    """(where, example, schema) of every example of the operation's request body and responses."""
    body = deref(doc, op.get("requestBody", {}))
    for ctype, media in body.get("content", {}).items():
        if "example" in media:
            yield f"request {ctype}", media["example"], media.get("schema")
        for name, ex in media.get("examples", {}).items():
            yield f"request {ctype} {name}", deref(doc, ex).get("value"), media.get("schema")
    for status, resp in op.get("responses", {}).items():
        resp = deref(doc, resp)
        for ctype, media in resp.get("content", {}).items():
            if "example" in media:
                yield f"{status} {ctype}", media["example"], media.get("schema")
            for name, ex in media.get("examples", {}).items():
                yield f"{status} {ctype} {name}", deref(doc, ex).get("value"), media.get("schema")


def test_every_operation_has_an_example_and_every_example_fits_its_schema(served):
    from openapi_schema_validator import OAS30Validator
    for path, method, op in operations(served):
        examples = list(_examples(served, op))
        assert examples, f"{method.upper()} {path}: no example (request body or response)"
        for where, example, schema in examples:
            if schema is None:
                continue
            # the schema with the document's components, so that its $refs resolve
            validator = OAS30Validator({**schema, "components": served["components"]})
            errors = [e.message for e in validator.iter_errors(example)]
            assert not errors, f"{method.upper()} {path} example {where} does not fit its schema: {errors}"


HTML_ERROR_OPERATIONS = {"confirmEmailMove", "playEmailMove", "confirmUnsubscribe", "unsubscribe"}


def test_every_operation_documents_its_errors_as_problem_json(served):
    for path, method, op in operations(served):
        where = f"{method.upper()} {path}"
        errors = {s: deref(served, r) for s, r in op["responses"].items() if s == "default" or int(s) >= 400}
        assert any(s != "default" for s in errors), f"{where}: no documented error response"
        for status, resp in errors.items():
            content = resp.get("content", {})
            # email links are opened in a browser: their errors are also an HTML page (per Accept),
            # except the 405 of a method the path does not have, answered before any page is chosen
            expected = {PROBLEM_CONTENT_TYPE, "text/html"} if (
                op["operationId"] in HTML_ERROR_OPERATIONS and status not in ("default", "405")) else {
                    PROBLEM_CONTENT_TYPE}
            assert set(content) == expected, f"{where} {status}: content types {list(content)}"
            schema = content[PROBLEM_CONTENT_TYPE].get("schema", {})
            assert schema.get("$ref") == "#/components/schemas/Problem", f"{where} {status}: schema {schema}"
        for status, resp in op["responses"].items():
            if status != "default" and int(status) < 400:
                assert PROBLEM_CONTENT_TYPE not in deref(served, resp).get("content", {}), where


def test_authenticated_operations_declare_the_bearer_scheme(served):
    assert served["components"]["securitySchemes"]["seatToken"] == {
        "type": "http", "scheme": "bearer",
        "description": "the seat token returned once by POST /api/v1/games"}
    for path, method, op in operations(served):
        if op["operationId"] in ("getLegalMoves", "submitMoves", "getGameState"):
            assert {"seatToken": []} in op.get("security", []), f"{method.upper()} {path}"
            assert "401" in op["responses"], f"{method.upper()} {path}: 401 undocumented"


@pytest.mark.parametrize("path, marker", [("/api/docs", "swagger-ui")])  # ReDoc is not served (issue 13)
def test_the_api_docs_are_served(client, path, marker):
    resp = client.get(path)
    assert resp.status_code == 200
    assert resp.mimetype == "text/html"
    html = resp.get_data(as_text=True).lower()
    assert marker in html and "openapi.json" in html


# --- 4. the running app honours its document (schemathesis) ------------------------------------

# The document the app serves (built without a Redis; equal to the committed one, see above).
DOCUMENT = openapi_document()
SCHEMA = schemathesis.openapi.from_dict(copy.deepcopy(DOCUMENT))


def status_code_explicitly_documented(ctx, response, case) -> None:
    """Stricter than schemathesis's status_code_conformance, which a ``default`` response
    satisfies for every status: the status must be listed for the operation itself. That holds
    for schemathesis's probes with a method the path does not have too (OPTIONS, TRACE, QUERY...):
    the app answers them 405 with Allow, and every operation documents that 405."""
    documented = DOCUMENT["paths"][case.operation.path][case.operation.method.lower()]["responses"]
    assert str(response.status_code) in documented, (
        f"{case.method.upper()} {case.operation.path} ({case.operation.label}): status "
        f"{response.status_code} is not documented (only {sorted(documented)}): {response.text[:300]}")
    if response.status_code == 405:  # (schemathesis's response headers: lower-case names, lists of values)
        assert response.headers.get("allow"), (f"{case.method.upper()} {case.operation.path}: 405 without "
                                               "Allow")


CHECKS = [not_a_server_error, status_code_conformance, status_code_explicitly_documented,
          content_type_conformance, response_headers_conformance, response_schema_conformance]


class Live:
    """The app over real HTTP on a real Redis, with one game whose id and seat tokens the
    generated requests borrow."""

    def __init__(self, url: str):
        self.url = url
        self.session = requests.Session()
        created = self.session.post(url + "/api/v1/games", json={
            "seats": [{"name": "Ann"}, {"name": "Ben"}], "options": {"seed": "openapi-schemathesis"}})
        assert created.status_code == 201, created.text
        game = created.json()
        self.game_id = game["id"]
        self.tokens = [s["token"] for s in game["seats"]]

    def summary(self) -> dict:
        return self.session.get(f"{self.url}/api/v1/games/{self.game_id}").json()

    def legal_move(self, seat: int) -> str | None:
        resp = self.session.get(f"{self.url}/api/v1/games/{self.game_id}/legal-moves",
                                headers={"Authorization": f"Bearer {self.tokens[seat]}"})
        # none once a generated request renewed the seat's token (POST .../seats/{seat}/token): the
        # operations after it (the lobby's join, a POST with the game's id) are steered without a move
        moves = resp.json().get("moves") or []
        return moves[0]["move"] if moves else None


@pytest.fixture(scope="module")
def live(redis_server):
    # event streams end at once here (a generated request reads a stream to its end)
    with LiveServer(make_app(redis_server.url, STREAM_SECONDS=0.2)) as server:
        yield Live(server.url)


# How a generated request is steered towards the real game: the real id, a real token (of the
# seat to act, or of the other seat), the current version, a legal move; each knob on or off,
# chosen from a hash of the generated data (so that a case always gets the same knobs).
def knobs(case) -> dict:
    raw = json.dumps([case.path_parameters, case.headers, case.query, case.body], sort_keys=True,
                     default=repr)
    h = zlib.crc32(raw.encode("utf-8", "surrogatepass"))
    return {"game": h % 4 != 0, "seat": [None, "actor", "other"][(h >> 2) % 3], "version": (h >> 4) % 2 == 0,
            "move": (h >> 5) % 3 != 0}


def steer(case, live: Live) -> None:
    k = knobs(case)
    if "game_id" not in (case.path_parameters or {}) or not k["game"]:
        return
    if case.operation.path.endswith("/resign"):   # it ends a 2-seat game: one of its own, not the shared one
        g = live.session.post(f"{live.url}/api/v1/games",
                              json={"seats": [{"name": "A"}, {"name": "B"}]}).json()
        case.path_parameters = {**case.path_parameters, "game_id": g["id"]}
        if k["seat"] is not None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {g['seats'][0]['token']}"}
        return
    case.path_parameters = {**case.path_parameters, "game_id": live.game_id}
    summary = live.summary()
    actor = summary["to_act"][0] if summary["to_act"] else 0
    if k["seat"] is not None:
        seat = actor if k["seat"] == "actor" else 1 - actor
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {live.tokens[seat]}"}
    if case.operation.method.lower() == "post" and isinstance(case.body, dict):
        body = dict(case.body)
        if k["version"]:
            body["expected_version"] = summary["version"]
            if k["move"] and k["seat"] == "actor":
                move = live.legal_move(actor)
                if move is not None:
                    body["moves"] = [move]
        case.body = body


@SCHEMA.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_app_honours_its_document(case, live):
    steer(case, live)
    response = case.call(base_url=live.url, session=live.session, timeout=10)
    case.validate_response(response, checks=CHECKS)


# --- edge cases the generated requests seldom reach ----------------------------------------------

def test_out_of_range_and_non_text_input_is_a_422_not_a_5xx(live):
    """Found while fuzzing: ``after`` beyond Redis's stream ids reached Redis (503), and a lone
    UTF-16 surrogate (valid JSON, not text) in a seed or a seat name failed at hashing or at the
    record export (500)."""
    s, url = live.session, live.url
    resp = s.get(f"{url}/api/v1/games/{live.game_id}/events", params={"after": 2**64})
    assert resp.status_code == 422 and resp.headers["Content-Type"] == PROBLEM_CONTENT_TYPE, resp.text
    resp = s.get(f"{url}/api/v1/games/{live.game_id}/events", params={"after": 2**63 - 1})
    assert resp.json()["events"] == []
    for body in ('{"seats": [{"name": "A"}, {"name": "B"}], "options": {"seed": "\\udc80"}}',
                 '{"seats": [{"name": "\\ud800"}, {"name": "B"}]}',
                 '{"seats": [{"name": "A", "email": "\\udc80@example.org"}, {"name": "B"}]}'):
        resp = s.post(f"{url}/api/v1/games", data=body, headers={"Content-Type": "application/json"})
        assert resp.status_code == 422 and resp.json()["code"] == "invalid-request", (body, resp.text)
    token = live.tokens[live.summary()["to_act"][0]]
    resp = s.post(f"{url}/api/v1/games/{live.game_id}/moves",
                  data='{"expected_version": 1, "moves": ["\\udc80"]}',
                  headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    assert (resp.status_code, resp.json()["code"]) == (422, "invalid-request"), resp.text


def test_a_body_that_is_not_json_or_too_large_is_a_documented_problem(live):
    s, url = live.session, live.url
    resp = s.post(f"{url}/api/v1/games", data="{not json", headers={"Content-Type": "application/json"})
    assert (resp.status_code, resp.headers["Content-Type"]) == (400, PROBLEM_CONTENT_TYPE), resp.text
    resp = s.post(f"{url}/api/v1/games", data="[" + "1," * 40000 + "1]",
                  headers={"Content-Type": "application/json"})
    assert (resp.status_code, resp.json()["code"]) == (413, "payload-too-large"), resp.text
    for op in ("/api/v1/games", "/api/v1/games/{game_id}/moves"):
        assert {"400", "413"} <= set(DOCUMENT["paths"][op]["post"]["responses"]), op


def test_a_method_the_path_does_not_have_is_a_documented_405(live):
    """OPTIONS included (the app answers none itself; no CORS preflight is served): a 405
    problem+json with Allow, and every operation documents that 405, so the probes of schemathesis
    with undocumented methods need no special case above."""
    for method, path, allow in (("OPTIONS", "/api/v1/games", {"GET", "HEAD", "POST"}),
                                ("TRACE", "/health", {"GET", "HEAD"}),
                                ("DELETE", f"/api/v1/games/{live.game_id}/events", {"GET", "HEAD"})):
        resp = live.session.request(method, live.url + path)
        assert (resp.status_code == 405 and resp.headers["Content-Type"] == PROBLEM_CONTENT_TYPE), (
            method, path)
        assert resp.json()["code"] == "method-not-allowed"
        assert {m.strip() for m in resp.headers["Allow"].split(",")} == allow, resp.headers["Allow"]
    for path, method, op in operations(DOCUMENT):
        assert "405" in op["responses"], f"{method.upper()} {path}: 405 undocumented"
