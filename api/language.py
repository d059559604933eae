"""The language an API request is answered in (docs/i18n.md, "The API's language"): ``?lang=`` (``en``,
``de``, ``fr``), else the request's ``Accept-Language`` (:func:`tablepost.i18n.choose`: the best
supported by quality), else English. The tests' pseudo-locale (``en-XA``) only for an app under test
(``TESTING``). An answer with text in that language (a game's words, a problem's ``detail``) says
so: ``Content-Language`` and ``Vary: Accept-Language`` (:func:`said_headers`). The OpenAPI document
and the problems' ``code``s stay English; no cookie: the API remembers nothing."""
from __future__ import annotations

from urllib.parse import parse_qs

import flask

from tablepost import i18n

PARAM = "lang"   # the query parameter (read by no route's schema: the parser leaves it out, api/blueprint.py)
DOC = ("**Language.** Every answer with words for people (a game's words: events, legal moves, "
       "progress, the review; a problem's `detail`) is in the language asked for by the query "
       "parameter `lang` (`en`, `de`, `fr`, on any operation), else by the `Accept-Language` header "
       "(the best supported by quality), else English; such an answer carries `Content-Language` and "
       "`Vary: Accept-Language`. A game that speaks only English answers in English. The document, "
       "the problems' `code`s, the notation of moves and every other field stay as they are.")


def language_of(asked: str | None, accept: str | None, pseudo: bool = False) -> str:
    """The language of a request that asks ``?lang=asked`` and sends ``Accept-Language: accept``
    (the pseudo-locale only with ``pseudo``)."""
    if asked and i18n.supported(asked, pseudo=pseudo):
        return asked
    lang = i18n.choose(accept)
    return lang if i18n.supported(lang, pseudo=pseudo) else i18n.DEFAULT


def request_language() -> str:
    """The language of the current API request (English outside one), noted for the answer's headers."""
    if not flask.has_request_context():
        return i18n.DEFAULT
    lang = language_of(flask.request.args.get(PARAM), flask.request.headers.get("Accept-Language"),
                       pseudo=bool(flask.current_app.config.get("TESTING")))
    flask.g.api_language = lang
    return lang


def environ_language(environ: dict, pseudo: bool = False) -> str:
    """The language of a request as a WSGI middleware sees it (before Flask: no request context)."""
    asked = parse_qs(environ.get("QUERY_STRING", "")).get(PARAM, [None])[0]
    return language_of(asked, environ.get("HTTP_ACCEPT_LANGUAGE"), pseudo)


def translator() -> i18n.Translator:
    return i18n.translator(request_language())


def said_headers(resp: flask.Response) -> flask.Response:
    """``Content-Language`` and ``Vary: Accept-Language`` on an API answer that said words in the
    request's language (:func:`request_language` was asked); the pages set their own."""
    lang = flask.g.get("api_language")
    if lang is not None and flask.request.path.startswith("/api/"):
        resp.headers["Content-Language"] = lang
        resp.vary.add("Accept-Language")
    return resp
