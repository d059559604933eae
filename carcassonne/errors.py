"""Errors the Carcassonne engine raises. Each names the rule that was broken with a stable code.

The classes are every hosted game's (``rules_common.errors``): ``NotationError`` is a text that is
not a move in the notation (docs/carcassonne.md, "Notation"), ``IllegalMove`` a well-formed move
the rules forbid here (``code`` names the rule, e.g. ``edges-differ``; ``rule`` cites the rules
text's section), ``PositionError`` a document that is not a valid game state.
"""
from __future__ import annotations

from rules_common.errors import (
    EngineError, IllegalMove, NotationError, NotYourTurn, PositionError, Reason, Term)

__all__ = ["EngineError", "IllegalMove", "NotationError", "NotYourTurn", "PositionError", "Reason", "Term"]
