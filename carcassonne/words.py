"""Carcassonne's own words in a language (docs/i18n.md, "The games' own words"): its catalogs
(``carcassonne/translations/<lang>.po``, domain ``carcassonne``), through ``rules_common.words``.
``say(lang)`` is the game's :class:`rules_common.words.Words` (English for None or ``en``)."""
from __future__ import annotations

from pathlib import Path

from rules_common.words import N_, NC_, NP_, Words, catalog_languages, words

DOMAIN = "carcassonne"
CATALOGS = Path(__file__).parent / "translations"
LANGUAGES = catalog_languages(CATALOGS)   # English, and each language it has a catalog of


# the messages of the shared words (rules_common.words, games/base.py defaults) that its catalogs hold too
SHARED = (N_("{first} and {last}"), N_("points"), N_("{text} (played by the stand-in)"),
          N_("{text} (played by the {by})"))


def say(lang: str | None = None) -> Words:
    return words(str(CATALOGS), DOMAIN, lang)


__all__ = ["DOMAIN", "CATALOGS", "LANGUAGES", "N_", "NC_", "NP_", "say"]
