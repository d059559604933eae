"""Tiletum's own words in a language (docs/i18n.md, "The games' own words"): its catalogs
(``tiletum/translations/<lang>.po``, domain ``tiletum``), through ``rules_common.words``.
``say(lang)`` is the game's :class:`rules_common.words.Words` (English for None or ``en``).

The map's towns are named as the map prints them (Köln, Milano): the names are in the engine's data
(``tiletum/data/map.json``), which :func:`extract_towns` gives to ``make messages`` (the catalog's
``babel.cfg``); the words modules say them with ``w.pgettext("town", name)``, and the catalogs keep
the printed names. So are the solo game's Challenge and Decree cards' names and the Challenge cards'
texts (:func:`extract_solo`: the new-game form offers the cards, the Cardinalbot's declared setting)."""
from __future__ import annotations

import json
from pathlib import Path

from rules_common.words import N_, NC_, NP_, Words, catalog_languages, words

DOMAIN = "tiletum"
CATALOGS = Path(__file__).parent / "translations"
LANGUAGES = catalog_languages(CATALOGS)   # English, and each language it has a catalog of

# the messages of the shared words (rules_common.words, games/base.py defaults) that its catalogs hold too
SHARED = (N_("{first} and {last}"), N_("VP"), N_("{text} (played by the stand-in)"),
          N_("{text} (played by the {by})"))


def say(lang: str | None = None) -> Words:
    return words(str(CATALOGS), DOMAIN, lang)


def extract_towns(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for the map's data (``tiletum/data/map.json``): each town's printed
    name (context ``town``), as messages."""
    data = json.load(fileobj)
    for spot, name in data["display_names"].items():
        if "_" not in spot:
            yield 1, "pgettext", ("town", name), []


def extract_solo(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for the solo game's data (``tiletum/data/solo.json``): the names of
    the Challenge cards (context ``challenge``) and of the Decree cards (context ``decree``), which
    the board of a solo game shows in another language than English (tiletum/svg.py ``solo_name``),
    and the Challenge cards' texts, which the new-game form shows (games/tiletum.py ``declared``)."""
    data = json.load(fileobj)
    for kind, cards in (("challenge", data["challenges"]), ("decree", data["decrees"])):
        for card in cards:
            yield 1, "pgettext", (kind, card["name"]), []
    for card in data["challenges"]:   # the new-game form's choice of cards says what each does
        yield 1, "_", card["text"], []


__all__ = ["DOMAIN", "CATALOGS", "LANGUAGES", "N_", "NC_", "NP_", "say", "extract_solo", "extract_towns"]
