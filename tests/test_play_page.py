"""The game page and the board picture (the page itself is tested in a browser in issue 6)."""
from __future__ import annotations

import xml.etree.ElementTree as ET


def test_the_page_is_served_and_uses_only_the_public_api(client):
    g = client.post("/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}], "options": {"seed": "page"}}).json
    rv = client.get(f"/play/{g['id']}")
    assert rv.status_code == 200 and rv.mimetype == "text/html"
    page = rv.get_data(as_text=True)
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
