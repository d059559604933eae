"""The games' declared words in the reader's language (issue 53, docs/i18n.md "The games' declared
words"): each game's spec summary, its options' and choices' titles and descriptions and its automa's
title, description, levels and settings are messages of the game's own catalog, translated in each of
its languages; the catalog API (``GET /api/v1/catalog``, over real HTTP) says them in ``?lang=`` or
``Accept-Language``, with ``Content-Language``; English is unchanged, and a game without catalogs says
its declared words in English whatever the language."""
from __future__ import annotations

import re

import pytest
import requests

import games
from application.catalog import catalog
from games.setup import Automa, Choice, Level, Option
from rules_common.words import PSEUDO
from tests.test_game_words import SPEAKING, game_messages


def declared(game) -> list[str]:
    """Every declared word of a game: its spec's summary, its options', its automa's."""
    spec = games.spec_of(game)
    out = [spec.summary, spec.art_title, *(w for o in game.options for w in o.words())]
    if game.automa is not None:
        out += game.automa.words()
    return [w for w in out if w]


def test_the_declarations_list_their_words():
    o = Option("size", "Size", "how big",
               choices=(Choice("s", "small", "a small one"), Choice("l", "large")))
    assert o.words() == ["Size", "how big", "small", "a small one", "large"]
    a = Automa(kind="robo", title="the Robot", name="Robot",
               levels=(Level("one", "Level one", "easy"),), default_level="one", policy="x:y",
               settings=(o,), description="plays alone")
    assert a.words() == ["the Robot", "plays alone", "Level one", "easy", *o.words()]
    said = a.as_doc("g", say=str.upper)
    assert said["title"] == "THE ROBOT" and said["name"] == "Robot"
    assert said["levels"][0]["title"] == "LEVEL ONE"
    assert said["settings"][0]["choices"][1] == {"value": "l", "title": "LARGE", "description": ""}


@pytest.mark.parametrize("game", SPEAKING, ids=lambda g: g.name)
def test_every_declared_word_is_a_message_of_the_game_s_catalog_translated(game):
    words = declared(game)
    assert words, "a game that speaks more than English declares words (its summary at least)"
    marked = game_messages(game)   # what `make messages` extracts into its catalog
    for text in words:
        assert text in marked or any(isinstance(m, tuple) and m[1] == text for m in marked), (
            f"{game.name}: {text!r} is not marked for its catalog")
        assert games.declared_words(game, "en")(text) == text
        pseudo = games.declared_words(game, PSEUDO)(text)
        assert pseudo.startswith("⟦") and pseudo.endswith("⟧"), (game.name, text)
        for lang in ("de", "fr"):
            said = games.declared_words(game, lang)(text)
            assert said and said != text, f"{game.name}: {text!r} is not translated in {lang}"


def test_a_game_without_catalogs_says_its_declared_words_in_english():
    class EnglishOnly:
        languages = ("en",)

        def declared(self, text, lang=None):   # never asked: the game does not speak the language
            raise AssertionError("asked for a language it does not speak")

    for lang in ("de", "fr", PSEUDO, None):
        assert games.declared_words(EnglishOnly(), lang)("Drop a disc") == "Drop a disc"
    assert games.declared_words(object(), "de")("Drop a disc") == "Drop a disc"   # no `declared` at all
    assert games.declared_words(games.GAMES["tiletum"], "de")("") == ""


def test_english_is_unchanged_and_a_language_not_spoken_is_english():
    english = catalog()
    assert catalog("en") == english and catalog("pl") == english
    for entry, game in zip(english, games.GAMES.values()):
        assert entry["option_specs"] == [o.as_doc() for o in game.options]
        assert entry["automa"] == (game.automa.as_doc(game.name) if game.automa else None)


def _words_of(entry: dict) -> list[str]:
    """The declared words in a catalog entry, in order."""
    out = []
    for o in entry["option_specs"] + (entry["automa"]["settings"] if entry["automa"] else []):
        out += [o["title"], o["description"],
                *(x for c in o["choices"] for x in (c["title"], c["description"]))]
    if entry["automa"]:
        a = entry["automa"]
        out += [a["title"], a["description"],
                *(x for v in a["levels"] for x in (v["title"], v["description"]))]
    return [w for w in out if w]


@pytest.mark.parametrize("lang, how, said", [
    ("de", "query", {"option": "Aktionsplättchen", "automa": "Cardinalbot", "level": "Kardinaldiakon",
                     "pool": "Tiletum-Solo: Kardinaldiakon"}),
    ("fr", "header", {"option": "Tuiles Action", "automa": "le Cardinalbot", "level": "Cardinal-diacre",
                      "pool": "Tiletum en solo : Cardinal-diacre"}),
])
def test_the_catalog_api_answers_in_the_request_s_language(live_server, lang, how, said):
    url = live_server.url + "/api/v1/catalog"
    english = requests.get(url, timeout=10)
    assert english.status_code == 200 and english.headers["Content-Language"] == "en"
    if how == "query":
        rv = requests.get(url, params={"lang": lang}, headers={"Accept-Language": "en"}, timeout=10)
    else:
        rv = requests.get(url, headers={"Accept-Language": f"{lang}-CH, {lang};q=0.9, en;q=0.5"}, timeout=10)
    assert rv.status_code == 200 and rv.headers["Content-Language"] == lang
    assert "Accept-Language" in rv.headers["Vary"]
    by_name = {g["name"]: g for g in rv.json()["games"]}
    assert by_name["pillars"]["title"] == {"de": "Die Säulen der Erde", "fr": "Les Piliers de la Terre"}[lang]
    assert by_name["tiletum"]["title"] == "Tiletum" and by_name["carcassonne"]["title"] == "Carcassonne"
    tiletum = by_name["tiletum"]
    assert tiletum["option_specs"][0]["title"] == said["option"]
    assert tiletum["automa"]["title"] == said["automa"] and tiletum["automa"]["name"] == "Cardinalbot"
    assert [v["title"] for v in tiletum["automa"]["levels"] if v["name"] == "deacon"] == [said["level"]]
    # the rating pools by their names in words (the leaderboards' and profiles' links), the pool ids as
    # they are
    assert [p["title"] for p in tiletum["pools"] if p["pool"].endswith("deacon")] == [said["pool"]]
    assert [p["pool"] for p in tiletum["pools"]] == [
        p["pool"] for g in english.json()["games"] if g["name"] == "tiletum" for p in g["pools"]]
    # every declared word said otherwise than in English; names, values and everything else as they are
    for entry, en in zip(rv.json()["games"], english.json()["games"]):
        if len(games.GAMES[entry["name"]].languages) > 1:
            assert all(a != b for a, b in zip(_words_of(entry), _words_of(en))), entry["name"]
        assert entry["title"] == games.title_in(games.GAMES[entry["name"]], lang)   # its edition's
        assert entry["options"] == en["options"]
        assert [c["value"] for o in entry["option_specs"] for c in o["choices"]] == [
            c["value"] for o in en["option_specs"] for c in o["choices"]]
    # a language the service lacks, and the pseudo-locale outside the tests' app: English
    rv = requests.get(url, headers={"Accept-Language": "pl"}, timeout=10)
    assert rv.headers["Content-Language"] == "en" and rv.json() == english.json()


def test_the_home_page_cards_pictures_say_what_they_show_in_the_page_s_language(live_server):
    """Each card's picture is labelled by its spec's ``art_title`` in the page's language (no English
    marked ``lang="en"`` where the game speaks the language)."""
    english = requests.get(live_server.url + "/?lang=en", timeout=10).text
    german = requests.get(live_server.url + "/?lang=de", timeout=10).text
    for name, spec in games.specs().items():
        if not spec.art_title:
            continue
        said = games.declared_words(spec.game, "de")(spec.art_title)
        assert said != spec.art_title, name
        assert f'<title id="art-{name}">{spec.art_title}</title>' in english, name
        assert f'<title id="art-{name}">{said}</title>' in german, name
        svg = re.search(rf'<svg class="game-art"[^>]*aria-labelledby="art-{name}"[^>]*>', german).group(0)
        assert 'lang="en"' not in svg, svg
