"""The fields, bases and shared pieces of every schema: strict request fields (text without control
characters, whole numbers, booleans), ``Base`` and ``Closed``, the registry's game names and phases,
the problem document, the health report and paging."""
from __future__ import annotations

import unicodedata

import marshmallow as ma
from marshmallow import fields, validate

import games
from tablepost.i18n import N_, said


class Text(fields.String):
    """A string of Unicode text. JSON can carry lone UTF-16 surrogates (``"\\udc80"``), which are
    not text: they could not be stored, hashed or exported, so such a value is a 422."""

    default_error_messages = {"not_text": N_("Not valid Unicode text (a lone surrogate).")}

    def _deserialize(self, value, attr, data, **kwargs):
        out = super()._deserialize(value, attr, data, **kwargs)
        try:
            out.encode("utf-8")
        except UnicodeEncodeError:
            raise self.make_error("not_text") from None
        return out


class TextEmail(fields.Email, Text):
    pass


# Characters no text field of a request may hold (Unicode categories): Cc controls (CR, LF, NUL, ESC,
# TAB, DEL, NEL...), Cf format characters (bidi overrides and isolates such as U+202E and
# U+2066-2069, zero-width characters, the BOM), Zl and Zp line and paragraph separators. They break
# the lines of game records and email headers, or make a name display as something it is not.
FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")
# What a name needs at least one of: a letter, number, punctuation or symbol (not only spaces or marks)...
VISIBLE_CATEGORIES = ("L", "N", "P", "S")
# ...other than these, which are letters or symbols by category but show as nothing: the Hangul
# fillers, the Braille blank, the Khmer inherent vowels, the Mongolian vowel separator.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e")


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be a text field of a request (None if it can): a lone UTF-16 surrogate
    (``"\\udc80"``: not text, it could not be stored, hashed or exported), or a control, format or
    line-separator character. The one check of every text field (:class:`Line`, :class:`Name`)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return N_("Not valid Unicode text (a lone surrogate).")
    for ch in value:
        if unicodedata.category(ch) in FORBIDDEN_CATEGORIES:
            return said("Must not contain control, format or line-separator characters (Unicode Cc, Cf, Zl, "
                        "Zp), found {code}.", code=f"U+{ord(ch):04X}")
    return None


def is_visible(value: str) -> bool:
    """Whether ``value``, normalised (NFKC), shows at least one character: a letter, number,
    punctuation or symbol other than a blank one (:data:`BLANKS`)."""
    return any(unicodedata.category(ch)[0] in VISIBLE_CATEGORIES and ch not in BLANKS
               for ch in unicodedata.normalize("NFKC", value))


class Line(Text):
    """One line of text in a request (an id, a URL, a time zone, a choice): :func:`text_problem`."""

    def _deserialize(self, value, attr, data, **kwargs):
        out = super()._deserialize(value, attr, data, **kwargs)
        problem = text_problem(out)
        if problem is not None:
            raise ma.ValidationError(problem)
        return out


class Name(Line):
    """A name shown to people (a seat, a tournament, an entrant) or written into records and
    emails: any printable text that shows something (not only spaces, fillers or marks)."""

    default_error_messages = {
        "invisible": N_("Must show at least one letter, number, punctuation mark or symbol.")}

    def _deserialize(self, value, attr, data, **kwargs):
        out = super()._deserialize(value, attr, data, **kwargs)
        if not is_visible(out):
            raise self.make_error("invisible")
        return out


# Request schemas use these strict fields (issue 13): marshmallow's own take "2", 2.0, 2.5
# (truncated) and true as integers, and 0 or "yes" as booleans. Response schemas only dump and
# keep marshmallow's fields.

class Integer(fields.Integer):
    """A JSON integer, nothing else: not ``"2"``, ``2.0``, ``2.5``, ``1e308`` or ``true``."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _validated(self, value):
        if isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class Float(fields.Float):
    """A JSON number (integer or not), nothing else: not ``"2"`` or ``true``; no NaN or infinity."""

    def _validated(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class Boolean(fields.Boolean):
    """``true`` or ``false``, nothing else: not ``0``, ``1``, ``"true"`` or ``"yes"``."""

    def _deserialize(self, value, attr, data, **kwargs):
        if value is True or value is False:
            return value
        raise self.make_error("invalid", input=value)


class QueryInteger(fields.Integer):
    """An integer query argument: plain ASCII decimal digits (not ``+1``, `` 1``, ``1_0``, ``1.0``,
    ``1e3`` or other scripts' digits, all of which Python's ``int`` would take or round)."""

    def _validated(self, value):
        if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


# The largest version a client may name: Redis stream ids (and so versions) stop below 2**64.
MAX_VERSION = 2**63 - 1


class Base(ma.Schema):
    class Meta:
        ordered = True


def raise_tz(value):
    raise ma.ValidationError(said("{tz} is not an IANA time zone name (e.g. Europe/Berlin)", tz=repr(value)))


# Closed objects (``additionalProperties: false`` in the document; said explicitly here, not left to
# marshmallow's default ``unknown``): a field the engine adds without a schema here fails
# tests/test_api_contract.py, which validates served documents against the served document and
# checks that dumping through these schemas drops nothing.
class Closed(Base):
    class Meta:
        ordered = True
        unknown = ma.RAISE


GAMES = list(games.NAMES)   # every registered game (games.GAMES), by name
# any game's phase, each once, in the registry's order
ANY_PHASE = list(dict.fromkeys(p for game in games.GAMES.values() for p in game.phases))
# what the API says of each game's seats, from the registry ("tiletum (2-4 seats), ...")
GAME_SEATS = ", ".join(f"{g.name} ({g.min_players}-{g.max_players} seats)" for g in games.GAMES.values())
TO_ACT: dict[str, object] = {
    "description": "the seats whose decision it is now (one seat, or none when the game is over); "
                   "the same name and shape in the game summary, the position and the legal moves "
                   "(docs/api-changes.md)", "example": [0]}
TO_ACT_WORDS = str(TO_ACT["description"])   # the description alone, for the schemas that add to it
DEPRECATED_ACTOR = {"deprecated": True, "description": "deprecated since API 2.0 (docs/api-changes.md): use "
                                                       "`to_act`; the seat whose decision it is, null when "
                                                       "over"}


def seat_list(**kw):
    return fields.List(fields.Integer(), **kw)


def id_or_null(**kw):
    return fields.String(allow_none=True, **kw)


class Health(Base):
    status = fields.String(required=True, metadata={
        "description": "'ok', or 'degraded' while outbound SMTP is failing (the service works; emails wait)"})
    redis = fields.String(required=True)
    smtp = fields.String(required=True, metadata={
        "description": "outbound SMTP: 'ok', or 'failing' when deliveries have failed for want of the SMTP "
                       "server for TABLEPOST_HEALTH_SMTP_SECONDS (300) and emails wait for it"})
    parts = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "each part this deployment has: worker:<name> and mailin, 'ok' or 'down'; scheduler "
                       "(beat, by its sweeps' heartbeat): 'ok', 'starting' (just after the API started) or "
                       "'down' (no sweep ran for 3 of its intervals)"})


class Problem(Base):
    """An RFC 9457 problem document."""
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    code = fields.String(required=True, metadata={"description": "stable machine-readable error code"})
    detail = fields.String()
    current_version = fields.Integer(metadata={"description": "409: the game's version now"})
    move_index = fields.Integer(metadata={"description": "422/403: index of the failing move"})
    rule = fields.String(metadata={"description": "422: the broken rule's code"})
    errors = fields.Dict(metadata={"description": "422: request validation errors by field"})


class QueryBoolean(fields.Boolean):
    """A boolean query argument: ``true`` or ``false``, nothing else (not ``1``, ``yes`` or ``True``)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if value in ("true", "false"):
            return value == "true"
        raise self.make_error("invalid", input=value)


class PageQuery(Base):
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 10**6))
    limit = QueryInteger(load_default=50, validate=validate.Range(1, 200))
