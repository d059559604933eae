"""The errors a rules engine raises on bad input. Each names the broken rule with a stable code
(``code``) and cites the rules text (``rule``); the service maps them to HTTP in one place
(``application.errors.from_engine``)."""
from __future__ import annotations


class EngineError(Exception):
    """Base class of every error an engine raises on bad input."""

    code = "engine-error"

    def __init__(self, message: str, code: str | None = None, rule: str | None = None,
                 said: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.rule = rule or ""
        # the reason alone, where the engine gives it as a ``rules_common.words.Said`` that the game's
        # words can say in a language (games/base.py ``reason``); None: ``message`` is all there is
        self.said = said

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
