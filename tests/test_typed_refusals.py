"""Issue 42, "Words everywhere": a typed move the notation refuses says, in words, what the seat can
type now ("'move' is not a move here: you can take a die, buy a resource or end your turn"), for
every game, through the API; a move after a draw in the same request is refused without that
(the kinds of move after a draw would tell what was drawn)."""
from __future__ import annotations

import pytest

import games


def _game(client, name: str, players: int = 2) -> dict:
    rv = client.post("/api/v1/games", json={"game": name, "seats": [{"name": n} for n in "AB"[:players]]})
    assert rv.status_code == 201, rv.json
    return rv.json


@pytest.mark.parametrize("name", sorted(games.GAMES))
def test_an_unknown_word_is_answered_with_what_can_be_typed(client, name):
    g = _game(client, name)
    s = client.get(f"/api/v1/games/{g['id']}").json
    token = g["seats"][s["to_act"][0]]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    legal = client.get(f"/api/v1/games/{g['id']}/legal-moves", headers=auth).json
    rv = client.post(f"/api/v1/games/{g['id']}/moves", headers=auth,
                     json={"expected_version": legal["version"], "moves": ["move it there"]})
    assert rv.status_code == 422 and rv.json["code"] == "bad-notation"
    detail = rv.json["detail"]
    assert detail.startswith("'move' is not a move here: you can "), detail
    game = games.GAMES[name]
    verbs = {m["move"].split()[0] for m in legal["moves"]} - {"undo"}
    for verb in verbs:   # each kind of move the seat has, in the game's words
        assert game.verb_words.get(verb, verb) in detail, (verb, detail)
    assert "unknown verb" not in detail
    after = client.get(f"/api/v1/games/{g['id']}").json
    assert after["version"] == legal["version"], "nothing changed"


def test_a_known_word_keeps_the_parsers_reason_and_adds_the_kinds(client):
    g = _game(client, "tiletum")
    auth = {"Authorization": f"Bearer {g['seats'][0]['token']}"}
    rv = client.post(f"/api/v1/games/{g['id']}/moves", headers=auth,
                     json={"expected_version": 1, "moves": ["take X9"]})
    detail = rv.json["detail"]
    assert "a die is a resource letter and a value" in detail and "You can take a die" in detail, detail


def test_the_second_move_of_a_request_gets_no_list(client):
    """The kinds of move after the first move of a batch are not told: the first may have drawn
    or rolled something the seat has not seen yet (the batch is refused whole)."""
    g = _game(client, "tiletum")
    auth = {"Authorization": f"Bearer {g['seats'][0]['token']}"}
    first = client.get(f"/api/v1/games/{g['id']}/legal-moves", headers=auth).json["moves"][0]["move"]
    rv = client.post(f"/api/v1/games/{g['id']}/moves", headers=auth,
                     json={"expected_version": 1, "moves": [first, "move it"]})
    assert rv.status_code == 422 and rv.json["move_index"] == 1
    assert "You can" not in rv.json["detail"] and "you can" not in rv.json["detail"]
