"""Connect Four's rules: pure, deterministic, event-sourced, in the shape of the platform's engines
(``carcassonne``, ``pillars``; python-chess and OpenSpiel before them).

Seven columns (``a`` to ``g``, left to right) of six cells, two seats. Seat 0 (red) drops first;
the seats take turns dropping one disc into a column that is not full, where it falls to the lowest
empty cell. Four discs of one seat in a line -- across, up, or on either diagonal -- win at once;
a full board with no such line is a draw.

The notation: ``drop <column>`` (``drop d``); a bare column letter (``d``) and capitals are read too,
and written as ``drop d``. Nothing is left to chance: the seed decides nothing (the record's
commitment is checked all the same). Events::

    {"type": "GameStarted", "game": "connect-four", "players": 2, "options": {}, "rules": "1", "chance": []}
    {"type": "MovePlayed", "seat": 0, "move": "drop d", "rules": "1", "chance": []}

``decide`` checks a move and returns its events, raising :class:`IllegalMove` with the broken rule;
``evolve`` folds an event that ``decide`` wrote and never fails on one; ``replay`` folds them all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from rules_common.errors import EngineError, IllegalMove, NotationError, NotYourTurn, PositionError

GAME = "connect-four"
RULES_VERSION = "1"
FORMAT = "connect-four-position/1"
COLUMNS, ROWS = 7, 6
LETTERS = "abcdefg"
COLOURS = ("red", "yellow")   # seat 0, seat 1
WIN = 4
# every line of four cells, as (column, row) with row 0 the bottom
LINES: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((c + i * dc, r + i * dr) for i in range(WIN))
    for c in range(COLUMNS) for r in range(ROWS) for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
    if 0 <= c + (WIN - 1) * dc < COLUMNS and 0 <= r + (WIN - 1) * dr < ROWS)
# the lines through each cell
LINES_AT: dict[tuple[int, int], tuple[tuple[tuple[int, int], ...], ...]] = {
    (c, r): tuple(line for line in LINES if (c, r) in line) for c in range(COLUMNS) for r in range(ROWS)}

_MOVE = re.compile(r"^\s*(?:drop\s+)?([a-g])\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class Move:
    """One move: the column a disc is dropped into (0-6). ``str`` is its notation."""

    column: int

    def __post_init__(self) -> None:
        if type(self.column) is not int or not 0 <= self.column < COLUMNS:
            raise NotationError(f"a column is 0 to {COLUMNS - 1}, not {self.column!r}")

    def __str__(self) -> str:
        return f"drop {LETTERS[self.column]}"


def parse(text: str) -> Move:
    """A move from its notation: ``drop d``, or ``d`` alone (either case)."""
    if not isinstance(text, str):
        raise NotationError("a move is text, such as 'drop d'")
    m = _MOVE.match(text)
    if m is None:
        raise NotationError(f"'{text[:40]}' is not a move: drop a disc with 'drop <column>', "
                            f"a column being a letter from a to g (for example 'drop d')")
    return Move(LETTERS.index(m.group(1).lower()))


class GameState:
    """A position: the columns' discs (bottom first, each the seat whose disc it is), who acts,
    whether it is over and who won (None: nobody, or not yet), and the winning line."""

    __slots__ = ("players", "columns", "actor", "phase", "winner", "line", "version", "rules")

    def __init__(self, players: int = 2, rules: str = RULES_VERSION):
        self.players = players
        self.columns: list[list[int]] = [[] for _ in range(COLUMNS)]
        self.actor: int | None = 0
        self.phase = "play"
        self.winner: int | None = None
        self.line: list[tuple[int, int]] | None = None
        self.version = 1
        self.rules = rules

    @property
    def discs(self) -> int:
        return sum(len(c) for c in self.columns)

    def cell(self, column: int, row: int) -> int | None:
        col = self.columns[column]
        return col[row] if row < len(col) else None

    def clone(self) -> GameState:
        s = GameState.__new__(GameState)
        s.players, s.actor, s.phase, s.winner, s.version, s.rules = (
            self.players, self.actor, self.phase, self.winner, self.version, self.rules)
        s.columns = [list(c) for c in self.columns]
        s.line = list(self.line) if self.line is not None else None
        return s

    def to_doc(self) -> dict:
        """The position document (nothing is hidden in Connect Four)."""
        return {"format": FORMAT, "game": GAME, "rules": self.rules, "players": self.players,
                "version": self.version, "phase": self.phase, "actor": self.actor, "winner": self.winner,
                "columns": [list(c) for c in self.columns],
                "line": [list(p) for p in self.line] if self.line is not None else None}

    @classmethod
    def from_doc(cls, doc: dict) -> GameState:
        """A position document back to a state, checked (:class:`PositionError`); keys it does not
        know (a view's ``viewer`` and ``to_act``) are ignored."""
        try:
            if doc.get("format") != FORMAT:
                raise PositionError(f"not a Connect Four position (format {doc.get('format')!r})")
            s = cls(int(doc.get("players", 2)), str(doc.get("rules", RULES_VERSION)))
            columns = doc["columns"]
            if len(columns) != COLUMNS or any(len(c) > ROWS or set(c) - {0, 1} for c in columns):
                raise PositionError("the columns are seven lists of at most six seats (0 or 1)")
            s.columns = [list(c) for c in columns]
            s.version, s.phase = int(doc["version"]), str(doc["phase"])
            s.actor, s.winner = doc.get("actor"), doc.get("winner")
            s.line = [tuple(p) for p in doc["line"]] if doc.get("line") else None  # type: ignore[misc]
        except (KeyError, TypeError, ValueError) as e:
            raise PositionError(f"not a Connect Four position: {e}") from None
        if s.phase not in ("play", "over") or (s.phase == "play") != (s.actor in (0, 1)):
            raise PositionError("the phase is play (with a seat, 0 or 1, to act) or over (nobody to act)")
        return s


def view_doc(state: GameState, seat: int | None = None) -> dict:
    """What ``seat`` sees: everything (Connect Four hides nothing, and the seed decides nothing)."""
    return state.to_doc()


def new_game(players: int = 2, seed: str = "", options: dict | None = None) -> tuple[GameState, list[dict]]:
    """A new game (seat 0 drops first) and its GameStarted event. The seed decides nothing."""
    if players != 2 or isinstance(players, bool):
        raise EngineError(f"Connect Four is for 2 players, not {players!r}", code="bad-players")
    if options:
        raise EngineError(f"Connect Four takes no options: {', '.join(sorted(options))}", code="bad-options")
    return GameState(), [{"type": "GameStarted", "game": GAME, "players": 2, "options": {},
                          "rules": RULES_VERSION, "chance": []}]


def legal(state: GameState) -> list[Move]:
    """The legal moves of the seat to act, by column (none once the game is over)."""
    if state.phase == "over":
        return []
    return [Move(c) for c in range(COLUMNS) if len(state.columns[c]) < ROWS]


def legal_moves(state: GameState) -> list[str]:
    """The legal moves in notation, sorted and unique (the columns' letters sort as the columns)."""
    return [str(m) for m in legal(state)]


def check(state: GameState, seat: int, move: Move) -> tuple[str, str, str] | None:
    """None if ``seat`` may play ``move`` now, else (code, reason, rule)."""
    if state.phase == "over":
        return ("game-over", "the game is over", "End of the game")
    if seat != state.actor:
        return ("not-your-turn", f"it is seat {state.actor}'s turn, not seat {seat}'s", "Taking turns")
    if len(state.columns[move.column]) >= ROWS:
        return ("column-full", f"column {LETTERS[move.column]} is full", "Dropping a disc")
    return None


def _as_move(move: Move | str) -> Move:
    return move if isinstance(move, Move) else parse(move)


def advance(state: GameState, seat: int, move: Move, seed: str = "") -> dict:
    """Drop ``seat``'s disc in ``move``'s column IN PLACE (the move is legal: no check) and return
    its event. For playouts and the search."""
    col = state.columns[move.column]
    col.append(seat)
    here = (move.column, len(col) - 1)
    for line in LINES_AT[here]:
        if all(state.cell(c, r) == seat for c, r in line):
            state.phase, state.actor, state.winner, state.line = "over", None, seat, list(line)
            break
    else:
        if state.discs == COLUMNS * ROWS:
            state.phase, state.actor = "over", None
        else:
            state.actor = 1 - seat
    state.version += 1
    return {"type": "MovePlayed", "seat": seat, "move": str(move), "rules": state.rules, "chance": []}


def play(state: GameState, seat: int, move: Move | str, seed: str | None = None,
         trusted: bool = False) -> tuple[list[dict], GameState]:
    """Check and apply one move: ``(events, new state)``; ``state`` is not changed. An illegal move
    raises :class:`IllegalMove` (:class:`NotYourTurn` out of turn) naming the broken rule."""
    m = _as_move(move)
    if not trusted:
        err = check(state, seat, m)
        if err is not None:
            cls = NotYourTurn if err[0] == "not-your-turn" else IllegalMove
            raise cls(f"'{m}': {err[1]}", code=err[0], rule=err[2])
    s = state.clone()
    return [advance(s, seat, m)], s


def decide(state: GameState, seat: int, move: Move | str, seed: str | None = None) -> list[dict]:
    """The events of ``seat`` playing ``move``; raises :class:`IllegalMove` or :class:`NotationError`."""
    return play(state, seat, move, seed)[0]


def apply_event(state: GameState | None, event: dict) -> GameState:
    """Fold one event into ``state`` in place (GameStarted makes a new state); return it. It trusts
    ``decide``'s events: a drop into a full column or a finished game changes nothing but the version."""
    if event["type"] == "GameStarted":
        return GameState(int(event.get("players", 2)), str(event.get("rules") or RULES_VERSION))
    if event["type"] != "MovePlayed" or state is None:
        raise ValueError(f"unknown event type {event['type']!r}")
    m = _as_move(event["move"])
    if state.phase == "over" or len(state.columns[m.column]) >= ROWS:   # only a corrupted log
        state.version += 1
        return state
    advance(state, event["seat"], m)
    return state


def evolve(state: GameState | None, event: dict) -> GameState:
    """A new state: ``state`` with ``event`` folded in; ``state`` is not changed."""
    return apply_event(state.clone() if state is not None else None, event)


def replay(events: Iterable[dict], state: GameState | None = None) -> GameState:
    """Fold events (onto a copy of ``state`` when given)."""
    s = state.clone() if state is not None else None
    for ev in events:
        s = apply_event(s, ev)
    assert s is not None, "replay needs a GameStarted event or a state"
    return s


def end_by_resignation(state: GameState, winner: int) -> None:
    state.phase, state.actor, state.winner, state.line = "over", None, winner, None


def scores(state: GameState) -> list[int]:
    """1 for the winner, 0 otherwise (a draw: 0 and 0)."""
    return [int(state.winner == seat) for seat in range(state.players)]


__all__ = ["GAME", "RULES_VERSION", "FORMAT", "COLUMNS", "ROWS", "LETTERS", "COLOURS", "LINES", "Move",
           "parse", "GameState", "view_doc", "new_game", "legal", "legal_moves", "check", "advance", "play",
           "decide", "apply_event", "evolve", "replay", "end_by_resignation", "scores"]
