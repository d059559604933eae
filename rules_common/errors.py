"""The errors a rules engine raises on bad input. Each names the broken rule with a stable code
(``code``) and cites the rules text (``rule``); the service maps them to HTTP in one place
(``application.errors.from_engine``).

An error's message is a :class:`Reason`: the English text as it always was (``e.message``, ``str(e)``),
which also knows its catalog message and the values put into it, so that ``e.said(w)`` says it in the
language of a :class:`rules_common.words.Words` (docs/i18n.md, "A refused move's reason"). An engine
raises ``NotationError(Reason("{text}: unknown verb {verb}", text=repr(text), verb=repr(v)))`` (the
extraction's keyword ``Reason`` marks its message for the game's catalog) and its rules' checks return
``(code, Reason(...), rule)``. A value that is itself a word of the game (a role, a resource, a side)
is a :class:`Term` (said by its context, ``w.pgettext``); a value that is a :class:`Reason` is said in
the language too; every other value (notation, cells, the player's typed text, numbers) is kept.
"""
from __future__ import annotations

from typing import Any

from rules_common.words import Said


class Term(str):
    """A word of the game put into a reason: its English word (as ``str``; ``english`` where the
    English reason has always said it otherwise, e.g. in lower case) and its catalog context, said
    as ``w.pgettext(context, word)``."""

    context: str
    word: str

    def __new__(cls, context: str, word: str, english: str | None = None) -> Term:
        t = super().__new__(cls, word if english is None else english)
        t.context, t.word = context, word
        return t

    def said(self, w: Any) -> str:
        if getattr(w, "english", False):
            return str(self)
        return w.pgettext(self.context, self.word)

    def __reduce__(self):
        return (Term, (self.context, self.word, str(self)))


class Reason(str):
    """A reason in English (this string), with its catalog message (``template``) and the values put
    into it (``params``): ``said(w)`` gives it in ``w``'s language. Plain string operations on it give
    plain English strings (its translation is lost there): keep it whole, or put it into another
    ``Reason`` as a value."""

    template: str | tuple[str, str]
    params: dict[str, Any]

    def __new__(cls, message: str | tuple[str, str], /, **params: Any) -> Reason:
        """``message``: a catalog message, or a message with its plural (``NP_(singular, plural)``,
        chosen by the parameter ``n``; in English both are the text the reason always said)."""
        if isinstance(message, tuple):
            text = (message[0] if params["n"] == 1 else message[1]).format(**params)
        else:
            text = message.format(**params) if params else message
        r = super().__new__(cls, text)
        r.template, r.params = message, params
        return r

    def said(self, w: Any) -> str:
        """The reason in the language of ``w`` (a ``rules_common.words.Words``)."""
        if getattr(w, "english", False):
            return str(self)
        values = {k: said(v, w) for k, v in self.params.items()}
        if isinstance(self.template, tuple):
            values.pop("n")
            return w.ngettext(*self.template, self.params["n"], **values)
        return w._(self.template, **values)

    def __reduce__(self):   # pickled (as a state's or an error's part) with what it is made of
        return (_reason, (self.template, self.params))


def _reason(template: str | tuple[str, str], params: dict) -> Reason:
    return Reason(template, **params)


def said(value: Any, w: Any) -> str:
    """``value`` in ``w``'s language: a :class:`Reason` or :class:`Term` said, anything else as it is
    (a plain string is English: the engine's text that is not yet a catalog message)."""
    if isinstance(value, (Reason, Term)):
        return value.said(w)
    if isinstance(value, Said) and hasattr(w, "said"):   # a reason made as rules_common.words.Said
        return w.said(value)
    return str(value)


class EngineError(Exception):
    """Base class of every error an engine raises on bad input. ``message`` is a :class:`Reason` (or
    a plain English string); with ``params`` it is the catalog message they are put into."""

    code = "engine-error"

    def __init__(self, message: str, code: str | None = None, rule: str | None = None, **params: Any):
        if params:
            message = Reason(message, **params)
        super().__init__(str(message))
        self.reason = message
        self.message = str(message)
        if code is not None:
            self.code = code
        self.rule = rule or ""

    def said(self, w: Any) -> str:
        """The message in the language of ``w`` (a ``rules_common.words.Words``); English where the
        engine's message is not a :class:`Reason`."""
        return said(self.reason, w)

    def __str__(self) -> str:  # one line, suitable for a CLI's stderr
        return f"{self.message} [{self.code}]"


class NotationError(EngineError):
    """The text is not a move in the game's notation."""

    code = "bad-notation"


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid in this position.

    ``code`` is a stable identifier of the broken rule (e.g. ``storehouse-full``) and
    ``rule`` cites the rules text's section it comes from.
    """

    code = "illegal-move"


class NotYourTurn(IllegalMove):
    code = "not-your-turn"


class PositionError(EngineError):
    """A position document that does not describe a valid game state."""

    code = "bad-position"


class RecordError(EngineError):
    """A game record that is not well-formed text (``rules_common.record``)."""

    code = "bad-record"
