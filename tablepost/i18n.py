"""The languages the service speaks (docs/i18n.md): which ones, choosing one, and speaking it.

- :data:`LANGUAGES`: the supported languages, English first (the default). Adding a language is
  its catalog (``tablepost/translations/<code>.po``) and one line here.
- :data:`PSEUDO`: a pseudo-locale for the tests, never offered to players: every catalog message
  comes out transformed (``⟦Ŷöûŕ ţûŕñ.⟧``), so English left over in a rendering is found.
- :func:`choose`: a supported language from a stated preference (``de-AT``, ``fr_CH``, an
  ``Accept-Language`` value), else English.
- :func:`translator`: a :class:`Translator` of a language, over its gettext catalog (plural forms
  included), with dates, times, durations and numbers by Babel for its locale and in a time zone.

The catalogs are compiled (``.mo``) at build: ``make`` (the virtual environment's step) and the
Dockerfile run ``pybabel compile``. A catalog found without its ``.mo``, or with one older than
its ``.po``, is read from the ``.po`` (a warning in the log): a checkout that was not built still
speaks every language. It imports nothing of the project, and no I/O but reading its catalogs.
"""
from __future__ import annotations

import functools
import io
import logging
import re
from datetime import datetime as Moment, timezone
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale
from babel.dates import format_datetime, format_skeleton
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

log = logging.getLogger("tablepost.i18n")

DEFAULT = "en"
# The supported languages, by code (the catalog's folder) with their own names. Adding one: its
# catalog and its line here (docs/i18n.md).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
}
PSEUDO = "en-XA"   # the tests' pseudo-locale (Android's name for it): every message transformed
DOMAIN = "messages"
CATALOGS = Path(__file__).parent / "translations"

# A date and time as English emails always wrote it ("Sun 22 Nov 2026 09:00 UTC"); the other
# languages take theirs from their locale's data (CLDR, by Babel).
_ENGLISH_DATETIME = "EEE dd MMM y HH:mm"


def N_(message: str) -> str:
    """Marks a message for the catalog where it is defined; it is translated where it is used."""
    return message


class Said(str):
    """A message said in English with its parameters filled in (it *is* that English text), which
    keeps its catalog message (``msgid``) and ``params`` so that a reader in another language gets
    it in theirs: :meth:`Translator.say` (the API's problem ``detail``s, docs/i18n.md)."""

    msgid: str
    params: dict


def said(message: str, **params) -> Said:
    """``message`` (a catalog message, extracted where it is written: ``said("no game {id}",
    id=...)``) with ``params`` filled in, as a :class:`Said`. A parameter that is itself a
    :class:`Said` is translated with it; any other stays as given (a game's words, a name)."""
    out = Said(message.format(**params) if params else message)
    out.msgid, out.params = message, params
    return out


def supported(lang: str | None, pseudo: bool = False) -> bool:
    """Whether ``lang`` is a supported language's code (the pseudo-locale only with ``pseudo``)."""
    return lang in LANGUAGES or (pseudo and lang == PSEUDO)


_TAG = re.compile(r"\s*([A-Za-z]{1,8})(?:[-_][A-Za-z0-9]{1,8})*\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$")


def choose(preference: str | None, default: str = DEFAULT) -> str:
    """The supported language a stated preference asks for: a code (``de``), a locale (``de-AT``,
    ``fr_CH``), or an ``Accept-Language`` list by quality (``fr-CH, fr;q=0.9, en;q=0.8``); the
    pseudo-locale as itself; else ``default``."""
    if not preference:
        return default
    if preference.strip() == PSEUDO:
        return PSEUDO
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(preference.split(",")):
        m = _TAG.match(part)
        if not m:
            continue
        try:
            q = float(m.group(2)) if m.group(2) is not None else 1.0
        except ValueError:
            continue
        if q > 0:
            ranked.append((-q, i, m.group(1).lower()))
    for _q, _i, lang in sorted(ranked):
        if lang in LANGUAGES:
            return lang
    return default


def _pseudo(text: str) -> str:
    """A message as the pseudo-locale says it: its letters accented outside ``{placeholders}``
    (and a page message's ``<tags>`` and ``&entities;``), wrapped in ``⟦ ⟧``, so that a rendering
    shows which text went through the catalog."""
    table = str.maketrans("aceinostuyACEINOSTUY", "àçéîñöšţûýÀÇÉÎÑÖŠŢÛÝ")
    out = [p if p[:1] in ("{", "<", "&") else p.translate(table)
           for p in re.split(r"(\{[^{}]*\}|<[^<>]*>|&#?\w+;)", text)]
    return "⟦" + "".join(out) + "⟧"


class _PseudoTranslations(NullTranslations):
    """The pseudo-locale's catalog: every message transformed; each one asked for is kept in
    ``used`` (the tests check that the catalogs hold every message a rendering used)."""

    def __init__(self):
        super().__init__()
        self.used: set = set()

    def gettext(self, message):
        self.used.add(message)
        return _pseudo(message)

    def ngettext(self, singular, plural, n):
        self.used.add((singular, plural))
        return _pseudo(singular if n == 1 else plural)

    def pgettext(self, context, message):
        self.used.add((context, message))
        return _pseudo(message)


def _read(lang: str, folder: Path | None = None, domain: str = DOMAIN) -> NullTranslations:
    """The compiled catalog of ``lang`` (the platform's, or ``domain``'s in ``folder``); its ``.po``
    when the ``.mo`` is missing or older."""
    folder = CATALOGS if folder is None else folder
    po, mo = folder / f"{lang}.po", folder / f"{lang}.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fp:
            return Translations(fp, domain=domain)
    if not po.exists():
        raise LookupError(f"no catalog for the language {lang!r}: {po} is missing (docs/i18n.md)")
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    log.warning("the %s catalog is not compiled (or older than its .po): read from %s; run "
                "`make` or pybabel compile", lang, po)
    with po.open("rb") as fp:
        catalog = read_po(fp, locale=lang, domain=domain)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=domain)


def valid_tz(name: str | None) -> bool:
    if not name:
        return False
    try:
        ZoneInfo(name)
        return True
    except (ZoneInfoNotFoundError, ValueError):
        return False


class Translator:
    """One language's words and formats: ``tr._("Hello {name},", name=...)`` (the message from
    the catalog, then its placeholders filled), ``tr.ngettext("{n} day", "{n} days", n)`` (by the
    language's plural forms; ``{n}`` is the count as the locale writes numbers), dates and
    durations in the language and a time zone."""

    def __init__(self, lang: str, catalog: NullTranslations):
        self.lang = lang
        self.locale = Locale.parse("en" if lang in (DEFAULT, PSEUDO) else lang.replace("-", "_"))
        self._catalog = catalog

    @property
    def used(self) -> set:
        """The messages asked of the pseudo-locale so far (its ids; a plural as a pair); empty else."""
        return getattr(self._catalog, "used", set())

    @property
    def content_language(self) -> str:
        """The ``Content-Language`` of what is written in it (RFC 3282)."""
        return self.lang

    def gettext(self, message: str) -> str:
        """The message in the language, its placeholders left as they are."""
        return self._catalog.gettext(message)

    def plural_forms(self, singular: str, plural: str) -> tuple[str, list[str]]:
        """A plural message's forms in the language, by the index its catalog's ``Plural-Forms``
        expression gives (a C expression of ``n``, which reads the same in JavaScript), with that
        expression: what a page's script needs to choose a form itself."""
        info = getattr(self._catalog, "_info", {})
        header = info.get("plural-forms", "nplurals=2; plural=(n != 1);")
        m = re.search(r"nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;]+)", header)
        nplurals, expr = (int(m.group(1)), m.group(2).strip()) if m else (2, "(n != 1)")
        catalog: object = self._catalog
        while catalog is not None:   # the catalog that holds it: an own catalog's, else its fallback's
            held = getattr(catalog, "_catalog", None)   # a compiled catalog's (msgid, index) -> form
            if held is not None and (singular, 0) in held:
                return expr, [held.get((singular, i), plural) for i in range(nplurals)]
            catalog = getattr(catalog, "_fallback", None)
        return "(n != 1)", [self._catalog.ngettext(singular, plural, n) for n in (1, 2)]

    def pgettext(self, context: str, message: str) -> str:
        """A message said differently by context, its placeholders left as they are."""
        return str(self._catalog.pgettext(context, message))

    def _(self, message: str, **values) -> str:
        text = self._catalog.gettext(message)
        return text.format(**values) if values else text

    def say(self, text: str) -> str:
        """A text in the language: a :class:`Said` by its message and parameters; any other text
        by the catalog, itself the message (a plain message marked where it was written); a text
        the catalog lacks (a game's words, an engine's reason) stays as it is, in the pseudo-locale
        too, so that a test in it sees what was not the catalog's."""
        if isinstance(text, Said):
            params = {k: self.say(v) if isinstance(v, Said) else v for k, v in text.params.items()}
            return self._(text.msgid, **params)
        if not text or (self.lang == PSEUDO and not _known(text)):
            return text
        return self.gettext(text)

    def ngettext(self, singular: str, plural: str, n: int, **values) -> str:
        return self._catalog.ngettext(singular, plural, n).format(n=self.number(n), **values)

    def number(self, n: float) -> str:
        return format_decimal(n, locale=self.locale)

    def list(self, items: list[str]) -> str:
        """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cid`` in the language."""
        items = list(items)
        if len(items) <= 1:
            return "".join(items)
        return self._("{first} and {last}", first=", ".join(items[:-1]), last=items[-1])

    def datetime(self, ts: float, tz_name: str | None = None) -> str:
        """A moment as a player reads it, in their time zone when known (else UTC):
        ``Sun 22 Nov 2026 10:00 CET``, ``So., 22. Nov. 2026, 10:00 MEZ``."""
        tz = ZoneInfo(tz_name) if tz_name and valid_tz(tz_name) else timezone.utc
        dt = Moment.fromtimestamp(ts, tz=tz)
        if self.locale.language == "en":
            when = format_datetime(dt, _ENGLISH_DATETIME, locale=self.locale)
        else:
            date = format_skeleton("yMMMEd", dt, locale=self.locale, fuzzy=True)
            time = format_skeleton("Hm", dt, locale=self.locale, fuzzy=True)
            when = self.locale.datetime_formats["medium"].replace("{1}", date).replace("{0}", time)
        return f"{when} {self.zone(dt, tz_name)}"

    def zone(self, dt: Moment, tz_name: str | None) -> str:
        """``UTC``; else the zone's short name in the language (``MEZ``), else its abbreviation
        (``CET``), else its offset."""
        if dt.tzinfo is timezone.utc:
            return "UTC"   # the one name every language's readers know (French CLDR says "TU")
        written = format_datetime(dt, "zzz", locale=self.locale)
        if written[:1] not in "+-":
            return written
        abbr = dt.tzname() or ""
        return abbr if abbr and abbr[:1] not in "+-" else format_datetime(dt, "O", locale=self.locale)

    def duration(self, seconds: float) -> str:
        """The time left before a deadline in words: ``3 days``, ``2 days 4 hours``, ``1 hour 30
        minutes``, ``12 minutes``; never negative. Rounded to the nearest of the smallest unit shown
        (hours from two days on, minutes below), not down."""
        seconds = max(0.0, float(seconds))
        # (each unit a message of its own: its plural forms are the language's)
        if seconds >= (48 * 60 - 30) * 60:
            days, hours = divmod(int(seconds / 3600 + 0.5), 24)
            out = self.ngettext("{n} day", "{n} days", days)
            return self._("{larger} {smaller}", larger=out,
                          smaller=self.ngettext("{n} hour", "{n} hours", hours)) if hours else out
        minutes = int(seconds / 60 + 0.5)
        hours, mins = divmod(minutes, 60)
        if hours == 24 and not mins:
            return self.ngettext("{n} day", "{n} days", 1)
        if hours:
            out = self.ngettext("{n} hour", "{n} hours", hours)
            return self._("{larger} {smaller}", larger=out,
                          smaller=self.ngettext("{n} minute", "{n} minutes", mins)) if mins else out
        return self.ngettext("{n} minute", "{n} minutes", mins)


def _known(message: str) -> bool:
    """Whether ``message`` is one of the catalog's (by the first other language's catalog)."""
    other = next((lang for lang in LANGUAGES if lang != DEFAULT), None)
    held = getattr(translator(other)._catalog, "_catalog", {}) if other else {}
    return message in held


ENGLISH = Translator(DEFAULT, NullTranslations())   # the one English: code may ask ``tr is ENGLISH``


@functools.lru_cache(maxsize=None)
def translator(lang: str | None = None) -> Translator:
    """The :class:`Translator` of ``lang`` (a supported code or :data:`PSEUDO`; anything else is
    English). English is the messages themselves: it reads no catalog."""
    if lang == PSEUDO:
        return Translator(PSEUDO, _PseudoTranslations())
    if lang not in LANGUAGES or lang == DEFAULT:
        return ENGLISH
    return Translator(lang, _read(lang))


@functools.lru_cache(maxsize=None)
def translator_with(lang: str | None, folder: str, domain: str) -> Translator:
    """The :class:`Translator` of ``lang`` over a catalog of its own (``<folder>/<lang>.po``, gettext
    ``domain``: a game's, for its own page), falling back to the platform's for a message it lacks;
    English and the pseudo-locale as :func:`translator` (a language the own catalog lacks: the
    platform's alone)."""
    platform = translator(lang)
    if platform.lang in (DEFAULT, PSEUDO):
        return platform
    try:
        own = _read(platform.lang, Path(folder), domain)
    except LookupError:
        return platform
    own.add_fallback(platform._catalog)
    return Translator(platform.lang, own)
