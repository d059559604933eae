"""The game page and the board picture (the page itself is tested in a browser in issue 6)."""
from __future__ import annotations

import re

import xml.etree.ElementTree as ET

from conftest import page_code
from tiletum import pieces


def test_the_page_is_served_and_uses_only_the_public_api(client):
    g = client.post("/api/v1/games",
                    json={"seats": [{"name": "A"}, {"name": "B"}], "options": {"seed": "page"}}).json
    rv = client.get(f"/play/{g['id']}")
    assert rv.status_code == 200 and rv.mimetype == "text/html"
    page = page_code(client, f"/play/{g['id']}")
    assert "/api/v1/games/" in page and "location.hash" in page, "the token comes from the URL fragment"
    assert rv.headers["Referrer-Policy"] == "no-referrer"
    assert 'lang="en"' in page and "aria-label" in page and 'role="status"' in page


def test_the_board_picture_is_valid_svg_with_no_secret(client, app):
    g = client.post("/api/v1/games", json={"seats": [{"name": "<Ada>"}, {"name": "Bob"}],
                                           "options": {"seed": "board-secret"}}).json
    rv = client.get(f"/api/v1/games/{g['id']}/board.svg")
    assert rv.status_code == 200 and rv.mimetype == "image/svg+xml"
    root = ET.fromstring(rv.data)
    assert root.tag.endswith("svg")
    text = rv.get_data(as_text=True)
    assert "board-secret" not in text and g["seats"][0]["token"] not in text
    assert client.get("/api/v1/games/nope/board.svg").status_code == 404


def _svg_texts(svg: bytes) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_the_board_picture_shows_every_players_board(client):
    g = client.post("/api/v1/games", json={"seats": [{"name": "Ada"}, {"name": "Bob"}, {"name": "Cy"}],
                                           "options": {"seed": "boards"}}).json
    gid = g["id"]
    # play one whole turn so a die, resources and a Storehouse change show
    for _ in range(12):
        s = client.get(f"/api/v1/games/{gid}").json
        token = g["seats"][s["to_act"][0]]["token"]
        legal = client.get(f"/api/v1/games/{gid}/legal-moves",
                           headers={"Authorization": f"Bearer {token}"}).json
        moves = [m["move"] for m in legal["moves"]]
        move = "end" if "end" in moves else moves[0]
        rv = client.post(f"/api/v1/games/{gid}/moves", headers={"Authorization": f"Bearer {token}"},
                         json={"expected_version": legal["version"], "moves": [move]})
        assert rv.status_code == 200, rv.json
    rv = client.get(f"/api/v1/games/{gid}/board.svg")
    root = ET.fromstring(rv.data)
    boards = [el for el in root.iter("{http://www.w3.org/2000/svg}g") if el.get("class") == "player-board"]
    assert [b.get("data-seat") for b in boards] == ["0", "1", "2"]
    state = client.get(f"/api/v1/games/{gid}/state").json
    for board, seat in zip(boards, state["seats"]):
        texts = ["".join(t.itertext()) for t in board.iter("{http://www.w3.org/2000/svg}text")]
        name = g["seats"][seat["seat"]]["name"]
        assert any(t.startswith(name) for t in texts), (name, texts)
        assert f"{seat['score']} VP" in texts
        for res, n in seat["resources"].items():
            assert f"{res.title()} {n}" in texts
        # a Storehouse tile is drawn as what it is, its full text its title; never its id (issue 42)
        for tile in seat["storehouse"]:
            group = next(el for el in board.iter("{http://www.w3.org/2000/svg}g")
                         if el.get("data-tile") == tile)
            titles = ["".join(x.itertext()) for x in group.iter("{http://www.w3.org/2000/svg}title")]
            assert pieces.full(tile) in titles
        assert not [x for x in texts if re.search(r"\b[BKCTZ]\d\d?\b", x)], texts
        assert "Storehouse" in texts and "Buildings" in texts
        assert (any(t.startswith("Building 1") for t in texts)
                and any(t.startswith("Contracts fulfilled:") for t in texts))
        assert sum(el.get("class") == "crest" for el in board.iter("{http://www.w3.org/2000/svg}g")) == 6
        for b, building in enumerate(seat["buildings"]):
            for f, who in enumerate(building["rooms"]):
                # a Character by its type in full; an empty Room has no "1.2" (its number is notation)
                if who:
                    assert pieces.type_word(who) in texts
                assert f"{b + 1}.{f + 1}" not in texts


def test_the_board_picture_hides_piles_and_face_down_tokens(client, app):
    g = client.post("/api/v1/games",
                    json={"seats": [{"name": "Ada"}, {"name": "Cardinal", "kind": "cardinalbot"}],
                          "options": {"seed": "hidden", "solo": {"level": "bishop"}}}).json
    _, state = app.extensions["tablepost.service"].load(g["id"])
    texts = _svg_texts(client.get(f"/api/v1/games/{g['id']}/board.svg").data)
    words = {w.strip("(),.:\u2713\u25b6") for t in texts for w in t.split()}
    hidden = {t for pile in state.piles.values() for t in pile} | set(state.corruption_pool)
    assert hidden and not hidden & words, hidden & words
    assert any(t.startswith("Cardinalbot (Cardinal), level bishop") for t in texts)
