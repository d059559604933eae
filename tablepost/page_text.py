"""The messages of the web pages (docs/i18n.md, "The pages"), read from the page files themselves:
what ``pybabel extract`` reads for the catalogs and what the service puts in a page's message table.

A page file (``api/static/*.html``) is a Jinja template: its markup's text is ``{{ _("...") }}``
(and ``{{ ngettext("...", "...", n) }}``); its inline ``<script>`` blocks, and the scripts the pages
share (``api/static/*.js``), say their messages as ``t("...")`` and ``tn("one", "many", n)``. Both
are read here with the ecosystem's own extractors: Jinja's (``jinja2.ext.babel_extract``) for the
template and Babel's JavaScript extractor for the scripts.

:func:`extract_page` is the Babel extractor (babel.cfg names it); :func:`script_messages` is the
messages a script's text uses, for the page's table. Imports nothing of the project.

**A game's own page** (``api/static/carcassonne.html``) says the game's vocabulary, whose place is the
game's own catalog, not the platform's (docs/i18n.md, "A game's own page"): its template starts with
the comment ``{#- catalog: <domain> -#}`` (:func:`own_catalog`), :func:`extract_page` leaves it out of
the platform's catalog, and the game's ``translations/babel.cfg`` names it with
:func:`extract_game_page`, which reads all of it into the game's. The shared scripts stay the
platform's. A script may also say a message with a context, ``tp("spot", "north")`` (one English word
said differently by context, the games' ``pgettext``); its table's key is ``context\x04message``.
"""
from __future__ import annotations

import io
import re
from typing import IO, Iterator

from babel.messages.extract import extract_javascript
from jinja2.ext import babel_extract

# the scripts' functions -> the catalog's keywords they stand for
SCRIPT_KEYWORDS = {"t": None, "tn": (1, 2), "tp": ((1, "c"), 2)}
_AS_KEYWORD = {"t": "_", "tn": "ngettext", "tp": "pgettext"}
TEMPLATE_KEYWORDS = ("_", "ngettext")
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
# a game's own page declares the catalog of its words, first in its template: {#- catalog: carcassonne -#}
_OWN_CATALOG = re.compile(r"\s*\{#-?\s*catalog:\s*([a-z][a-z0-9_-]*)")
CONTEXT = "\x04"   # between a message's context and itself, in a table's key (as gettext's catalogs)


def _script(text: str, first_line: int = 1) -> Iterator[tuple]:
    fileobj = io.BytesIO(text.encode("utf-8"))
    for lineno, funcname, messages, comments in extract_javascript(
            fileobj, SCRIPT_KEYWORDS, [], {"encoding": "utf-8", "template_string": False}):
        yield lineno + first_line - 1, _AS_KEYWORD[str(funcname)], messages, comments


def script_messages(text: str) -> list:
    """The messages a script says (``t``: the message; ``tn``: the pair), in order, once each."""
    out: list = []
    for _line, funcname, messages, _comments in _script(text):
        said = messages if isinstance(messages, tuple) else (messages,)
        if funcname == "pgettext":
            if not (len(said) >= 2 and said[0] and said[1]):
                continue
            key = said[0] + CONTEXT + said[1]
        else:
            key = said[0] if funcname == "_" else tuple(said[:2])
        if not (key[0] if isinstance(key, tuple) else key):
            continue   # not a message written out (t(variable)): nothing to look up
        if key not in out:
            out.append(key)
    return out


def inline_scripts(html: str) -> list[str]:
    """The bodies of a page's inline ``<script>`` blocks."""
    return _SCRIPT.findall(html)


def own_catalog(text: str) -> str | None:
    """The catalog (gettext domain) a page template declares its words are in, where it is a game's
    own page; None: the platform's."""
    m = _OWN_CATALOG.match(text)
    return m.group(1) if m else None


def extract_page(fileobj: IO[bytes], keywords, comment_tags, options) -> Iterator[tuple]:
    """Babel's extractor of a page file for the platform's catalog: a ``.js`` file's ``t``/``tn``
    messages; an ``.html`` template's ``_``/``ngettext`` messages and its inline scripts' ones; nothing
    of a game's own page (:func:`own_catalog`)."""
    data = fileobj.read()
    if own_catalog(data.decode("utf-8")) is None:
        yield from _extract(data, getattr(fileobj, "name", ""), comment_tags, options)


def extract_game_page(fileobj: IO[bytes], keywords, comment_tags, options) -> Iterator[tuple]:
    """Babel's extractor of a game's own page for the game's catalog (its ``translations/babel.cfg``
    names the page): all its messages, its inline scripts' included."""
    yield from _extract(fileobj.read(), getattr(fileobj, "name", ""), comment_tags, options)


def _extract(data: bytes, name: str, comment_tags, options) -> Iterator[tuple]:
    text = data.decode("utf-8")
    if name.endswith(".js"):
        yield from _script(text)
        return
    yield from babel_extract(io.BytesIO(data), TEMPLATE_KEYWORDS, comment_tags, options)
    for m in _SCRIPT.finditer(text):
        yield from _script(m.group(1), text.count("\n", 0, m.start(1)) + 1)
