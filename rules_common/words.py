"""A game's own words in a language (docs/i18n.md, "The games' own words"): the gettext catalog of
the game (``<engine>/translations/<lang>.po``, domain the engine's name), read by the engine's words
modules (``describe``, ``pieces``, ``effects``) so that the engines stay pure and import nothing but
this package.

- :func:`words` -- the :class:`Words` of a game's domain in a language (``"en"``: the messages
  themselves, no catalog read; the pseudo-locale ``en-XA``: every message transformed, for tests);
- :class:`Words` -- ``w._("{n} points to {who}", n=3, who="Ada")`` (the message from the catalog,
  then its named placeholders filled), ``w.ngettext("{n} tile", "{n} tiles", n)``,
  ``w.pgettext("side, with its article", "north")`` (one English word said differently by context);
- :func:`N_` -- marks a message defined apart from where it is translated;
- :class:`Said` -- an engine's reason for refusing a move, English as ever, that keeps its message
  for ``w.said(reason)``.

The catalogs are compiled (``.mo``) at build, as the platform's are (Makefile, Dockerfile); a
catalog found without its ``.mo`` (or with an older one) is read from its ``.po`` through Babel. A
language without a catalog is English. No I/O but reading a catalog.
"""
from __future__ import annotations

import functools
import gettext
import io
import re
from pathlib import Path

ENGLISH = "en"
PSEUDO = "en-XA"   # the tests' pseudo-locale, as tablepost.i18n names it


def N_(message: str) -> str:
    """Marks a message for the catalog where it is defined; it is translated where it is used."""
    return message


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with its plural, defined apart from ``w.ngettext(*pair, n)`` where used."""
    return singular, plural


def NC_(context: str, message: str) -> str:
    """Marks a message said differently by context (``w.pgettext(context, message)`` where used)."""
    return message


class Said(str):
    """A reason an engine gives (an illegal move's), in English (the string itself), that keeps its
    message and values so that the game's words can say it in a language (:meth:`Words.said`): a
    value that is a :class:`Said` (a word of the game's, ``context`` its ``pgettext`` context) is
    said in the language too. The engine raises it as before: a ``str`` to every reader."""

    message: str | tuple[str, str]
    context: str | None
    values: dict

    def __new__(cls, message: str | tuple[str, str], /, context: str | None = None, **values) -> "Said":
        """``message``: a message, or a message and its plural (:func:`NP_`), said by the value ``n``."""
        text = message if isinstance(message, str) else message[values["n"] != 1]
        said = super().__new__(cls, text.format(**values) if values else text)
        said.message, said.context, said.values = message, context, values
        return said


def catalog_languages(folder: str | Path) -> tuple[str, ...]:
    """The languages a game's words speak: English (the messages themselves), then each language with
    a catalog in ``folder`` (``<lang>.po``), so that giving a game a language is its catalog."""
    return (ENGLISH,) + tuple(sorted(p.stem for p in Path(folder).glob("*.po")))


def pseudo(text: str) -> str:
    """A message as the pseudo-locale says it: letters accented outside ``{placeholders}``, wrapped
    in ``⟦ ⟧`` (the same transformation as ``tablepost.i18n``'s), so English left over is found."""
    table = str.maketrans("aceinostuyACEINOSTUY", "àçéîñöšţûýÀÇÉÎÑÖŠŢÛÝ")
    out = [p if p.startswith("{") else p.translate(table) for p in re.split(r"(\{[^{}]*\})", text)]
    return "⟦" + "".join(out) + "⟧"


class _Pseudo(gettext.NullTranslations):
    def __init__(self):
        super().__init__()
        self.used: set = set()

    def gettext(self, message):
        self.used.add(message)
        return pseudo(message)

    def ngettext(self, singular, plural, n):
        self.used.add((singular, plural))
        return pseudo(singular if n == 1 else plural)

    def pgettext(self, context, message):
        self.used.add((context, message))
        return pseudo(message)


class Words:
    """One game's words in one language (:func:`words`)."""

    def __init__(self, lang: str, catalog: gettext.NullTranslations):
        self.lang = lang
        self._catalog = catalog

    @property
    def english(self) -> bool:
        return self.lang == ENGLISH

    @property
    def used(self) -> set:
        """The messages asked of the pseudo-locale so far (a plural as a pair, a message with a
        context as (context, message)); empty in a real language."""
        return getattr(self._catalog, "used", set())

    def _(self, message: str, /, **values) -> str:
        text = self._catalog.gettext(message)
        return text.format(**values) if values else text

    def ngettext(self, singular: str, plural: str, n: int, /, **values) -> str:
        return self._catalog.ngettext(singular, plural, n).format(n=n, **values)

    def pgettext(self, context: str, message: str, /, **values) -> str:
        text = self._catalog.pgettext(context, message)
        return text.format(**values) if values else text

    def said(self, reason: str) -> str:
        """An engine's reason (:class:`Said`) in this language; any other text as it is."""
        if not isinstance(reason, Said):
            return str(reason)
        values = {k: self.said(v) if isinstance(v, Said) else v for k, v in reason.values.items()}
        if not isinstance(reason.message, str):   # a message and its plural, by the count n
            n = int(reason.values["n"])
            del values["n"]
            return self.ngettext(*reason.message, n, **values)
        if reason.context is not None:
            return self.pgettext(reason.context, reason.message, **values)
        return self._(reason.message, **values)

    def played_by(self, text: str, by: str | None) -> str:
        """A move's text with who played it for its seat (the stand-in, when its player did not); its
        messages are in each game's catalog (its words module's ``SHARED``)."""
        if not by:
            return text
        if by == "stand-in":
            return self._("{text} (played by the stand-in)", text=text)
        return self._("{text} (played by the {by})", text=text, by=by)

    def list(self, items: list[str]) -> str:
        """``a``, ``a and b``, ``a, b and c`` in the language (its message ``{first} and {last}``)."""
        items = [str(i) for i in items]
        if len(items) <= 1:
            return "".join(items)
        return self._("{first} and {last}", first=", ".join(items[:-1]), last=items[-1])


def _read(folder: Path, domain: str, lang: str) -> gettext.NullTranslations:
    po, mo = folder / f"{lang}.po", folder / f"{lang}.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fp:
            return gettext.GNUTranslations(fp)
    if not po.exists():
        return gettext.NullTranslations()   # a language the game has no catalog for: English
    from babel.messages.mofile import write_mo   # only for a checkout that was not built
    from babel.messages.pofile import read_po
    with po.open("rb") as fp:
        catalog = read_po(fp, locale=lang, domain=domain)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


@functools.lru_cache(maxsize=None)
def words(folder: str, domain: str, lang: str | None = None) -> Words:
    """The :class:`Words` of the catalogs in ``folder`` (a game's ``translations``) for ``lang``:
    English for None, ``en`` or a language without a catalog; the pseudo-locale's transformation
    for :data:`PSEUDO` (a fresh record of the messages used for each call of ``words.cache_clear``)."""
    if lang == PSEUDO:
        return Words(PSEUDO, _Pseudo())
    if not lang or lang == ENGLISH:
        return Words(ENGLISH, gettext.NullTranslations())
    catalog = _read(Path(folder), domain, lang)
    return Words(lang if isinstance(catalog, gettext.GNUTranslations) else ENGLISH, catalog)


__all__ = ["ENGLISH", "PSEUDO", "N_", "NC_", "NP_", "Said", "Words", "words", "pseudo"]
