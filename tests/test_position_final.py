"""A finished game's position, as the state endpoint serves it, validates against the documented
schema, its `final` field included: for Tiletum (multiplayer and solo, where the Cardinalbot's final
scoring has fields of its own) and for Carcassonne. The games are played out by the engines with
random legal moves (well under a second each), the documents are the ones the endpoint answers
(``Game.view``), and the schema is the committed OpenAPI document's (tests/test_openapi.py keeps it
equal to the served one)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from openapi_schema_validator import OAS30Validator

import games
from carcassonne.playout import random_game as carcassonne_game
from tiletum.playout import random_game as tiletum_game

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text("utf-8"))
STATE = "/api/v1/games/{game_id}/state"


def errors_of(doc: dict, component: str | None = None) -> list[str]:
    """What breaks the state endpoint's schema (one of the two position documents), or, to see
    where, the schema ``component``."""
    schema = ({"$ref": f"#/components/schemas/{component}"} if component else
              DOCUMENT["paths"][STATE]["get"]["responses"]["200"]["content"]["application/json"]["schema"])
    validator = OAS30Validator({**schema, "components": DOCUMENT["components"]})
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(doc)]


FINISHED = {
    "tiletum-2p": lambda: (games.TILETUM, tiletum_game(2, "final-schema-2").state),
    "tiletum-4p": lambda: (games.TILETUM, tiletum_game(4, "final-schema-4").state),
    "tiletum-solo": lambda: (games.TILETUM, tiletum_game(2, "final-schema-solo", options={"solo": {}}).state),
    "carcassonne-3p": lambda: (games.CARCASSONNE, carcassonne_game(3, "final-schema-3").state),
}


@pytest.fixture(scope="module", params=sorted(FINISHED))
def finished(request):
    game, state = FINISHED[request.param]()
    assert game.is_over(state)
    return request.param, game, state


@pytest.mark.parametrize("viewer", [None, 0, 1])
def test_a_finished_games_state_validates_against_the_documented_schema(finished, viewer):
    name, game, state = finished
    doc = json.loads(json.dumps(game.view(state, viewer)))  # as the endpoint sends it
    assert doc["phase"] == "over" and doc["final"], name
    assert errors_of(doc) == [], name


def test_the_final_field_is_typed_closed_and_checked(finished):
    """`final` is not a free-form object: an unknown key, a missing one or a wrong type in it is a
    breach of the schema (what makes the test above able to fail)."""
    name, game, state = finished
    doc = json.loads(json.dumps(game.view(state, None)))
    if name.startswith("tiletum"):
        schema = DOCUMENT["components"]["schemas"]["TiletumPosition"]["properties"]["final"]
        assert schema["additionalProperties"] == {"$ref": "#/components/schemas/FinalScore"}
        some = next(iter(doc["final"]))
        breaches = [("unknown key", lambda f: f[some].update(tie_break=1)),
                    ("missing key", lambda f: f[some].pop("total")),
                    ("wrong type", lambda f: f[some].update(houses="four"))]
    else:
        schema = DOCUMENT["components"]["schemas"]["CarcassonnePosition"]["properties"]["final"]
        assert {"$ref": "#/components/schemas/CarcassonneFinal"} in schema["anyOf"]
        breaches = [("unknown key", lambda f: f.update(winners=[0])),
                    ("missing key", lambda f: f.pop("scorings")),
                    ("wrong type", lambda f: f["breakdown"][0].update(farm="none"))]
    component = "TiletumPosition" if name.startswith("tiletum") else "CarcassonnePosition"
    assert errors_of(doc, component) == []
    for what, breach in breaches:
        bad = copy.deepcopy(doc)
        breach(bad["final"])
        assert errors_of(bad), f"{name}: {what} in final went unnoticed"
        where = errors_of(bad, component)
        assert where and all(e.startswith("/final") for e in where), (name, what, where)
