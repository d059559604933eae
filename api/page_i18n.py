"""The web pages in the reader's language (docs/i18n.md, "The pages").

**Which language.** ``?lang=de`` (the footer's switch on every page) chooses it and is remembered in
a cookie ``lang`` (``SameSite=Lax``, ``HttpOnly``, a year; it holds the language and nothing else);
else the cookie; else the browser's ``Accept-Language`` (:func:`tablepost.i18n.choose`); else
English. The tests' pseudo-locale (``?lang=en-XA``) is taken only by an app under test
(``TESTING``), and never remembered. The answer says it: ``<html lang>``, ``Content-Language``,
``Vary: Accept-Language, Cookie``.

**Its words.** A page file is a Jinja template (autoescaped): ``{{ _("...") }}`` in its markup is
the message from the language's catalog (the same catalogs as the emails'), as markup: a page's
messages are the page's own text, written by us, and may carry inline tags (``<strong>``, a link),
which the catalog test checks each translation keeps. Placeholders ``{name}`` are filled escaped.
The page's scripts say their messages as ``t("...")`` and ``tn("one", "many", n)``: the page gets
the table of the messages its scripts use (:func:`tablepost.page_text.script_messages`), in its
language, in an inline script of its head (:func:`head_script`), which the page's
Content-Security-Policy allows by its hash, so each language's page has its own policy. Dates in
the scripts go through ``Intl`` with ``LANG`` (the page's language).

**A game's own page** (``carcassonne.html``) speaks the game's vocabulary from **the game's own
catalog**: it is rendered, and its table made, with a translator that looks in the game's catalog
first (its ``catalogs``: folder and domain, games/base.py) and in the platform's for what the game's
lacks (the shared scripts' messages, :func:`tablepost.i18n.translator_with`); its template declares
it (``{#- catalog: carcassonne -#}``, :func:`tablepost.page_text.own_catalog`) so that its messages are
extracted into the game's catalog and not the platform's.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Iterable

import flask
import jinja2
from markupsafe import Markup

from tablepost import i18n
from tablepost.page_text import CONTEXT, script_messages

COOKIE = "lang"
COOKIE_SECONDS = 365 * 86400


def pseudo_allowed() -> bool:
    return bool(flask.current_app.config.get("TESTING"))


def page_language() -> tuple[str, bool]:
    """The language of the page asked for, and whether to remember it (a ``?lang=`` choice)."""
    asked = flask.request.args.get("lang")
    if asked and i18n.supported(asked, pseudo=pseudo_allowed()):
        return asked, asked in i18n.LANGUAGES
    kept = flask.request.cookies.get(COOKIE)
    if kept in i18n.LANGUAGES:
        return kept, False
    chosen = i18n.choose(flask.request.headers.get("Accept-Language"))
    return (chosen if chosen in i18n.LANGUAGES else i18n.DEFAULT), False


def answer(resp: flask.Response, lang: str, remember: bool) -> flask.Response:
    """A page's answer in ``lang``: its headers, and the cookie when the reader chose it."""
    resp.headers["Content-Language"] = lang
    resp.vary.add("Accept-Language")
    resp.vary.add("Cookie")
    if remember:
        resp.set_cookie(COOKIE, lang, max_age=COOKIE_SECONDS, samesite="Lax", httponly=True,
                        secure=flask.request.is_secure)
    return resp


Catalogs = tuple[str, str] | None   # a game's own catalogs (folder, domain); None: the platform's only


def translator(lang: str, catalogs: Catalogs = None) -> i18n.Translator:
    """The translator of a page in ``lang``: the platform's, or over a game's own ``catalogs``."""
    return i18n.translator(lang) if catalogs is None else i18n.translator_with(lang, *catalogs)


def template_functions(lang: str, catalogs: Catalogs = None) -> dict:
    """``_`` and ``ngettext`` as a page template calls them: the message in ``lang`` as markup,
    its ``{placeholders}`` filled escaped."""
    tr = translator(lang, catalogs)

    def gettext(message: str, **values) -> Markup:
        text = Markup(tr.gettext(message))
        return text.format(**values) if values else text

    def ngettext(singular: str, plural: str, n: int, **values) -> Markup:
        # the count as the language writes numbers; the other placeholders filled escaped after
        text = Markup(tr.ngettext(singular, plural, n, **{k: "{" + k + "}" for k in values}))
        return text.format(**values) if values else text

    return {"_": gettext, "ngettext": ngettext}


_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


@lru_cache(maxsize=None)
def template(text: str) -> jinja2.Template:
    return _ENV.from_string(text)


def render_template(text: str, lang: str, catalogs: Catalogs = None, **values) -> str:
    """A page file rendered in ``lang`` (``values``: what the service puts in, as markup; ``catalogs``:
    a game's own page's)."""
    return template(text).render(lang=lang, **values, **template_functions(lang, catalogs))


@lru_cache(maxsize=None)
def table(lang: str, messages: tuple, catalogs: Catalogs = None) -> tuple[str, dict]:
    """The scripts' messages in ``lang``: the plural expression and message -> its text (a plural
    message -> its forms, by the singular; a message with a context by ``context\x04message``)."""
    tr = translator(lang, catalogs)
    expr = "(n != 1)"
    out: dict = {}
    if lang == i18n.DEFAULT:
        return expr, out   # English is the messages themselves
    for m in messages:
        if isinstance(m, tuple):
            expr, forms = tr.plural_forms(*m)
            out[m[0]] = forms
        elif CONTEXT in m:
            out[m] = tr.pgettext(*m.split(CONTEXT, 1))
        else:
            out[m] = tr.gettext(m)
    return expr, out


# The page's own script, first in its head: its language (LANG, for Intl; ASK, what it asks the API's
# words in: the same but for the tests' pseudo-locale, which Intl does not know), its scripts' messages,
# t() and tn(), and the footer's language links taking the page's fragment along (a seat's token stays
# in the browser).
_RUNTIME = """\
"use strict";
const LANG = %(lang)s, ASK = %(ask)s, T = %(table)s;
(function () {
  const plural = n => Number(%(plural)s);
  const fill = (s, v) => v ? s.replace(/\\{(\\w+)\\}/g, (m, k) => k in v ? String(v[k]) : m) : s;
  window.t = (message, values) => fill(typeof T[message] === "string" ? T[message] : message, values);
  window.tp = (context, message, values) => {
    const said = T[context + "\\u0004" + message];
    return fill(typeof said === "string" ? said : message, values);
  };
  window.tn = (one, many, n, values) => {
    const forms = T[one];
    const said = Array.isArray(forms) ? forms[Math.min(plural(n), forms.length - 1)] : (n === 1 ? one : many);
    return fill(said, Object.assign({n: Number(n).toLocaleString(LANG)}, values));
  };
  document.addEventListener("click", ev => {
    const a = ev.target.closest ? ev.target.closest("a[data-lang]") : null;
    if (a && location.hash) a.hash = location.hash;
  });
})();
"""


def head_script(lang: str, scripts: Iterable[str], catalogs: Catalogs = None) -> str:
    """The inline script of a page in ``lang`` whose scripts are ``scripts`` (their texts; ``catalogs``:
    a game's own page's)."""
    messages: list = []
    for text in scripts:
        for m in script_messages(text):
            if m not in messages:
                messages.append(m)
    expr, said = table(lang, tuple(messages), catalogs)
    intl = "en" if lang == i18n.PSEUDO else lang
    body = _RUNTIME % {"lang": json.dumps(intl), "ask": json.dumps(lang), "table": _json(said),
                       "plural": expr}
    return f"<script>\n{body}</script>"


def _json(value) -> str:
    """JSON safe inside a ``<script>`` block."""
    return (json.dumps(value, ensure_ascii=False, sort_keys=True)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
