"""Issue 42, "One service": the site is named for no one game, the home page presents the three
games with a picture each, every public page carries a meta description, and `make run` takes a
port (the console's first line is the home page: tests/test_serve.py)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import html5lib
import pytest

import games

ROOT = Path(__file__).resolve().parents[1]
# the pages anyone may open (a game page is reached through a game: see test_game_pages_too)
PUBLIC = ["/", "/play/lobby", "/play/new", "/tournaments", "/me", "/leaderboards/tiletum:multiplayer"]


def _doc(client, path: str):
    rv = client.get(path)
    assert rv.status_code == 200, path
    return html5lib.parse(rv.get_data(as_text=True), namespaceHTMLElements=False)


def _description(doc) -> str:
    metas = [m for m in doc.iter("meta") if m.get("name") == "description"]
    assert len(metas) == 1, "one meta description"
    return metas[0].get("content") or ""


@pytest.mark.parametrize("path", PUBLIC)
def test_every_public_page_has_a_meta_description_and_the_site_name(client, path):
    doc = _doc(client, path)
    desc = _description(doc)
    assert 40 <= len(desc) <= 160, desc           # what a search result shows, in words
    brand = next(a for a in doc.iter("a") if a.get("class") == "site-brand")
    name = "".join(brand.itertext())
    assert name == "Table Post"
    assert not any(g.title.lower() in name.lower() for g in games.GAMES.values()), \
        "the site is named for no one game"
    title = doc.find(".//title").text
    assert "Table Post" in title and "PBEM" not in title


def test_game_pages_too():
    # each game's own page as served (its file is a template: api/page_i18n.py), in every language
    from api.pages import GAME_PAGES, render
    from tablepost import i18n
    assert GAME_PAGES
    for name, page in GAME_PAGES.items():
        for lang in i18n.LANGUAGES:
            text = render(page, lang)
            assert re.search(r'<meta name="description" content="[^"]{40,160}">', text), (name, lang)


def test_the_home_page_presents_every_game_with_a_picture(client):
    doc = _doc(client, "/")
    cards = [li for li in doc.iter("li") if "game-card" in (li.get("class") or "")]
    titles = ["".join(c.find("h3").itertext()).strip() for c in cards]
    assert sorted(titles) == sorted(g.title for g in games.GAMES.values())
    for card in cards:
        art = next((e for e in card.iter() if str(e.tag).endswith("svg")), None)
        assert art is not None and art.get("role") == "img"
        label = next((e for e in art.iter() if str(e.tag).endswith("title")
                      and e.get("id") == art.get("aria-labelledby")), None)
        assert label is not None and len(label.text) > 10, "the picture is described for screen readers"
    lead = "".join(next(p for p in doc.iter("p") if p.get("class") == "lead").itertext())
    assert all(g.title in " ".join(lead.split()) for g in games.GAMES.values())


def test_make_run_takes_a_port_and_a_host():
    def dry(*args: str) -> str:
        out = subprocess.run(["make", "-n", "run", *args], cwd=ROOT, capture_output=True, text=True,
                             check=True)
        return next(line for line in out.stdout.splitlines() if "tablepost serve" in line)
    assert dry().endswith("tablepost serve")
    assert dry("PORT=8080").endswith("tablepost serve --port 8080")
    assert dry("PORT=8080", "HOST=0.0.0.0").endswith("tablepost serve --port 8080 --host 0.0.0.0")


def test_the_dashboard_says_how_far_each_game_is_in_its_own_terms(redis_server):
    """Issue 42: a player's list of games says which game and how far in that game's terms (not
    "Round 10" for Carcassonne, which has no rounds), for every registered game."""
    import uuid

    from application.dashboard import dashboard_key_for, remember_address
    from tests.conftest import make_app

    app = make_app(redis_server.url)
    client = app.test_client()
    me = f"me-{uuid.uuid4().hex[:10]}@players.test"
    made = {}
    for name in games.GAMES:
        rv = client.post("/api/v1/games", json={"game": name, "seats": [{"name": "Me", "email": me},
                                                                        {"name": "Opp"}]})
        assert rv.status_code == 201, rv.get_json()
        made[rv.get_json()["id"]] = name
    r = app.extensions["tablepost.service"].store.r
    remember_address(r, me)
    out = client.get("/api/v1/me/games", headers={"Authorization": f"Bearer {dashboard_key_for(r, me)}"})
    assert out.status_code == 200, out.get_json()
    listed = {g["game"]: g for part in ("to_move", "waiting") for g in out.get_json()[part]}
    assert set(listed) == set(made)
    for gid, name in made.items():
        game = games.GAMES[name]
        _, state = app.extensions["tablepost.service"].load(gid)
        assert listed[gid]["progress"] == game.progress(state)
        assert listed[gid]["game_name"] == name and listed[gid]["opponents"] == ["Opp"]
    words = {made[g]: listed[g]["progress"] for g in listed}
    assert re.fullmatch(r"\d+ tiles? left", words["carcassonne"]), words
    assert re.fullmatch(r"Round 1 of \d", words["tiletum"]) and words["pillars"] == "Round 1 of 6", words
    # the page shows it
    page = (ROOT / "api" / "static" / "me.html").read_text(encoding="utf-8")
    assert "g.progress" in page
