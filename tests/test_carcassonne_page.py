"""The game page route: /play/<id> serves the page of the game's own game (Carcassonne's for a
Carcassonne game, Tiletum's for Tiletum), an unknown id is a 404 problem; the Carcassonne page is
valid HTML5 with labelled controls, keeps the tile-data attribution and holds no secret; the
tiles' pictures it draws from, and the board picture's cell geometry it marks cells by.
(The page in a real browser: tests/test_carcassonne_browser.py.)"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from conftest import page_code
from test_pages import NS, _parse, _unlabelled

import carcassonne
from carcassonne.svg import board_svg
from carcassonne.tiles import tileset

SVG = "{http://www.w3.org/2000/svg}"


def _create(client, game: str | None, seed: str) -> dict:
    body = {"seats": [{"name": "Ada"}, {"name": "Bob"}], "options": {"seed": seed}}
    if game:
        body["game"] = game
    rv = client.post("/api/v1/games", json=body)
    assert rv.status_code == 201, rv.json
    return rv.json


def test_the_page_of_a_carcassonne_game_is_carcassonnes_and_a_tiletum_game_keeps_its_own(client):
    carc, tile = _create(client, "carcassonne", "page-carc"), _create(client, None, "page-tiletum")
    pages = {}
    for g in (carc, tile):
        rv = client.get(f"/play/{g['id']}")
        assert rv.status_code == 200 and rv.mimetype == "text/html"
        assert rv.headers["Referrer-Policy"] == "no-referrer" and rv.headers["Cache-Control"] == "no-store"
        pages[g["id"]] = rv.get_data(as_text=True)
    c, t = pages[carc["id"]], pages[tile["id"]]
    assert "<title>Carcassonne</title>" in c and "<title>Tiletum</title>" in t
    assert "JCloisterZone" in c and "AGPL-3.0" in c and 'id="attribution"' in c, "the tile data's attribution"
    assert "JCloisterZone" not in t
    for g in (carc, tile):
        page = page_code(client, f"/play/{g['id']}")
        assert "new URLSearchParams(location.hash.slice(1))" in page and "location.search" not in page
    # the page is the same for every Carcassonne game: nothing of a game, no seed, no token
    assert carc["id"] not in c and "page-carc" not in c and carc["seats"][0]["token"] not in c
    other = _create(client, "carcassonne", "page-carc-2")
    assert client.get(f"/play/{other['id']}").get_data(as_text=True) == c


def test_an_unknown_game_is_a_404_problem(client):
    rv = client.get("/play/NoSuchGame123")
    assert rv.status_code == 404
    assert rv.headers["Content-Type"].startswith("application/problem+json")
    assert rv.json["code"] == "game-not-found" and rv.json["status"] == 404
    assert client.get("/play/new").status_code == 200, "the new-game page is not a game id"


def test_the_carcassonne_page_is_valid_html5_with_labelled_controls_and_its_own_csp(client):
    g = _create(client, "carcassonne", "page-html")
    rv = client.get(f"/play/{g['id']}")
    doc = _parse(rv.get_data(as_text=True))
    assert doc.get("lang") == "en" and doc.find(f"{NS}head/{NS}meta[@name='viewport']") is not None
    assert not _unlabelled(doc), _unlabelled(doc)
    csp = rv.headers["Content-Security-Policy"]
    assert "script-src 'sha256-" in csp and "'unsafe-inline'" not in csp and "frame-ancestors 'none'" in csp
    other = client.get(f"/play/{_create(client, None, 'page-html-t')['id']}")
    assert csp != other.headers["Content-Security-Policy"]


def test_the_tiles_pictures_are_every_tile_once_as_valid_svg(client):
    rv = client.get("/play/pieces/carcassonne.svg")
    assert rv.status_code == 200 and rv.mimetype == "image/svg+xml"
    root = ET.fromstring(rv.data)
    ids = [s.get("id") for s in root.iter(f"{SVG}symbol")]
    assert ids == [f"tile-{letter}" for letter in tileset().letters] and len(ids) == 24
    for game in ("tiletum", "chess"):  # Tiletum's page draws no pieces; no such game
        rv = client.get(f"/play/pieces/{game}.svg")
        assert rv.status_code == 404 and rv.headers["Content-Type"].startswith("application/problem+json")


def test_the_board_picture_says_where_its_cells_are():
    state, _ = carcassonne.new_game(2, "cells")
    for move in carcassonne.legal_moves(state)[:1]:
        _, state = carcassonne.play(state, 0, move, seed="cells")
    for _ in range(5):
        _, state = carcassonne.play(state, state.actor, carcassonne.legal_moves(state)[-1], seed="cells")
    root = ET.fromstring(board_svg(state, size=40))
    cell, x0, y0 = (int(root.get(k)) for k in ("data-cell", "data-x0", "data-y0"))
    assert cell == 40
    tiles = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tile"]
    assert len(tiles) == 7
    for g in tiles:  # each tile's square is where the root's geometry puts its cell
        x, y = int(g.get("data-x")), int(g.get("data-y"))
        square = g.find(f"{SVG}rect")
        assert (float(square.get("x")), float(square.get("y"))) == ((x - x0) * cell, (y0 - y) * cell)
