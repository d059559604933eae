"""The Pillars of the Earth's own words in a language (docs/i18n.md, "The games' own words"): its
catalogs (``pillars/translations/<lang>.po``, domain ``pillars``), through ``rules_common.words``.
``say(lang)`` is the game's :class:`rules_common.words.Words` (English for None or ``en``).

The cards' own texts (a craftsman's name, a privilege's or an event's text) are in the engine's data
(``pillars/data/cards.json``): :func:`extract_cards` gives them to ``make messages`` (the catalog's
``babel.cfg``), and the words modules say them with ``w._(text)``."""
from __future__ import annotations

import json
from pathlib import Path

from rules_common.words import N_, NC_, NP_, Words, catalog_languages, words

DOMAIN = "pillars"
CATALOGS = Path(__file__).parent / "translations"
LANGUAGES = catalog_languages(CATALOGS)   # English, and each language it has a catalog of

# the messages of the shared words (rules_common.words, games/base.py defaults) that its catalogs hold too
SHARED = (N_("{first} and {last}"), N_("VP"), N_("{text} (played by the stand-in)"),
          N_("{text} (played by the {by})"))


def say(lang: str | None = None) -> Words:
    return words(str(CATALOGS), DOMAIN, lang)


def extract_cards(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for the cards' data (``pillars/data/cards.json``): each craftsman's
    name (context ``craftsman``), each privilege's and each event's text, as messages."""
    data = json.load(fileobj)
    seen = set()
    for k in data["craftsmen"]:
        if k["name"] not in seen:
            seen.add(k["name"])
            yield 1, "pgettext", ("craftsman", k["name"]), []
    for c in data["privileges"] + data["events"]:
        yield 1, "_", c["text"], []


__all__ = ["DOMAIN", "CATALOGS", "LANGUAGES", "N_", "NC_", "NP_", "say", "extract_cards"]
