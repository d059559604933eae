"""The languages (issue 53, docs/i18n.md): choosing one, Babel's dates and plurals per locale and
time zone, and the catalogs: every message of the code is in each language's catalog, translated,
not fuzzy, with the same placeholders (a catalog that misses one fails here)."""
from __future__ import annotations

import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from tablepost import i18n
from tests import po

ROOT = Path(__file__).resolve().parent.parent
CATALOGS = ROOT / "tablepost" / "translations"
PAGE_EXTRACTOR = "tablepost.page_text:extract_page"   # babel.cfg's `page`
WEDNESDAY = datetime(2026, 11, 18, 9, 0, tzinfo=timezone.utc).timestamp()


def test_choose_reads_a_stated_preference():
    assert i18n.choose("de") == "de" and i18n.choose("de-AT") == "de" and i18n.choose("fr_CH") == "fr"
    assert i18n.choose("pl, fr;q=0.9, en;q=0.8") == "fr", "the best supported one by quality"
    assert i18n.choose("en;q=0.5, de") == "de"
    assert i18n.choose("pl") == "en" and i18n.choose(None) == "en" and i18n.choose("de;q=0") == "en"
    assert i18n.choose(i18n.PSEUDO) == i18n.PSEUDO
    assert set(i18n.LANGUAGES) >= {"en", "de", "fr"}


@pytest.mark.parametrize("lang, tz, said", [
    ("en", None, "Wed 18 Nov 2026 09:00 UTC"),
    ("en", "Europe/Berlin", "Wed 18 Nov 2026 10:00 CET"),
    ("de", "Europe/Berlin", "Mi., 18. Nov. 2026, 10:00 MEZ"),
    ("de", None, "Mi., 18. Nov. 2026, 09:00 UTC"),
    ("fr", "Europe/Paris", "mer. 18 nov. 2026, 10:00 CET"),
    ("fr", "America/Montreal", "mer. 18 nov. 2026, 04:00 EST"),
    ("de", "Not/AZone", "Mi., 18. Nov. 2026, 09:00 UTC"),
])
def test_dates_in_the_language_and_time_zone(lang, tz, said):
    assert i18n.translator(lang).datetime(WEDNESDAY, tz) == said


@pytest.mark.parametrize("lang, seconds, said", [
    ("en", 3 * 86400 + 3600, "3 days 1 hour"), ("en", 60, "1 minute"), ("en", 90 * 60, "1 hour 30 minutes"),
    ("de", 3 * 86400 + 3600, "3 Tagen und 1 Stunde"), ("de", 60, "1 Minute"), ("de", 2 * 3600, "2 Stunden"),
    ("fr", 3 * 86400, "3 jours"), ("fr", 3600 + 60, "1 heure et 1 minute"), ("fr", 0, "0 minute"),
])
def test_durations_by_the_languages_plural_forms(lang, seconds, said):
    assert i18n.translator(lang).duration(seconds) == said


def test_the_pseudo_locale_transforms_every_message_and_keeps_placeholders():
    tr = i18n.translator(i18n.PSEUDO)
    said = tr._("Hello {name},", name="Ann")
    assert said.startswith("⟦") and said.endswith("⟧") and "Ann" in said and "Hello" not in said
    assert "Hello {name}," in tr.used
    days = tr.ngettext("{n} day", "{n} days", 3)
    assert re.fullmatch(r"⟦.+⟧", days) and "3" in days and ("{n} day", "{n} days") in tr.used


def test_english_reads_no_catalog_and_an_unknown_language_is_english():
    assert i18n.translator("xx") is i18n.ENGLISH and i18n.ENGLISH._("Hello {name},", name="A") == "Hello A,"


def code_messages() -> set:
    """Every message the code marks for the catalog (babel.cfg's method map), as pybabel extract reads it."""
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map=[("tablepost/**.py", "python"), ("application/**.py", "python"),
                                   ("mail/**.py", "python"), ("api/pages.py", "python"),
                                   ("api/email_pages.py", "python"),
                                   ("api/static/**.html", PAGE_EXTRACTOR),
                                   ("api/static/**.js", PAGE_EXTRACTOR)],
            keywords={"_": None, "ngettext": (1, 2), "N_": None}):
        found.add(message if isinstance(message, str) else tuple(message))
    return found


def catalog_problems(lang: str, wanted: set) -> list[str]:
    """What is wrong with ``lang``'s catalog for the messages ``wanted`` (tests/po.py: missing,
    untranslated, fuzzy, its plural forms, its placeholders, a page message's tags)."""
    return po.problems(CATALOGS / f"{lang}.po", lang, wanted)


@pytest.mark.parametrize("lang", sorted(set(i18n.LANGUAGES) - {i18n.DEFAULT}))
def test_every_message_of_the_code_is_translated(lang):
    wanted = code_messages()
    assert len(wanted) > 150, "the extraction found the messages"
    assert catalog_problems(lang, wanted) == []


def test_the_catalog_check_fails_on_a_message_without_a_translation():
    assert catalog_problems("de", {"A message nobody translated, {name}"}) == [
        "de: missing 'A message nobody translated, {name}'"]


def test_the_pages_messages_are_in_the_check_and_their_tags_are_checked(tmp_path, monkeypatch):
    wanted = code_messages()
    # the markup's, the inline scripts' and the shared scripts' messages (tablepost/page_text.py)
    assert {"Board games at your own pace", "Loading the games…", "Since your last turn",
            ("{n} point", "{n} points")} <= wanted
    with open(CATALOGS / "de.po", "rb") as fp:
        catalog = read_po(fp, locale="de")
    m = catalog["Board games by correspondence: play in the browser, by email or through the "
                '<a href="/api/docs">API</a>. Every die roll and tile draw can be checked when the game '
                "ends."]
    m.string = m.string.replace('<a href="/api/docs">', '<a href="/evil">')   # a translation's link changed
    with open(tmp_path / "de.po", "wb") as fp:
        write_po(fp, catalog)
    monkeypatch.setattr(sys.modules[__name__], "CATALOGS", tmp_path)
    assert [p for p in catalog_problems("de", wanted) if "tags of" in p] != []


def test_a_catalog_not_compiled_is_read_from_its_po(tmp_path, monkeypatch, caplog):
    (tmp_path / "de.po").write_bytes((CATALOGS / "de.po").read_bytes())
    monkeypatch.setattr(i18n, "CATALOGS", tmp_path)
    assert i18n._read("de").gettext("Hello {name},") == "Hallo {name},"
    assert "not compiled" in caplog.text
    with pytest.raises(LookupError, match="no catalog"):
        i18n._read("fr")
