"""Errors the Carcassonne engine raises. Each names the rule that was broken with a stable code
(the same classes and attributes as the Tiletum engine's ``engine.errors``)."""
from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on bad input."""

    code = "engine-error"

    def __init__(self, message: str, code: str | None = None, rule: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.rule = rule or ""

    def __str__(self) -> str:  # one line, suitable for a CLI's stderr
        return f"{self.message} [{self.code}]"


class NotationError(EngineError):
    """The text is not a move in the notation (see docs/carcassonne.md, "Notation")."""

    code = "bad-notation"


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid in this position. ``code`` names the rule
    (e.g. ``edges-differ``) and ``rule`` cites the rules text's section."""

    code = "illegal-move"


class NotYourTurn(IllegalMove):
    code = "not-your-turn"


class PositionError(EngineError):
    """A position document that does not describe a valid game state."""

    code = "bad-position"
