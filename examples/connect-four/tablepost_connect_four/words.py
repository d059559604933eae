"""Connect Four's moves and events in words (for the API's history, the pages and the emails)."""
from __future__ import annotations

from rules_common.texts import fold_texts

from .rules import COLOURS, COLUMNS, LETTERS, ROWS, GameState, Move, apply_event, parse

ROW_WORDS = ("bottom row", "second row", "third row", "fourth row", "fifth row", "top row")


def _who(seat: int, names: list[str] | None) -> str:
    if names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"seat {seat}"


def describe(state: GameState, move: Move | str) -> str:
    """A legal move in words: 'Drop a disc in column d (it lands on the bottom row)'."""
    m = move if isinstance(move, Move) else parse(move)
    height = len(state.columns[m.column])
    where = f" (it lands on the {ROW_WORDS[height]})" if height < ROWS else ""
    return f"Drop a disc in column {LETTERS[m.column]}{where}"


def _outcome(after: GameState, names: list[str] | None) -> str:
    if after.phase != "over":
        return ""
    if after.winner is None:
        return "; the board is full: a draw"
    return f"; four in a row: {_who(after.winner, names)} wins"


def event_text(before: GameState | None, event: dict, names: list[str] | None = None) -> str:
    """One event in words, in the position ``before`` it: the imperative without ``names``, who did
    it with them. ``before`` is only read."""
    if event["type"] == "GameStarted":
        return f"A game of Connect Four begins: {COLOURS[0]} drops first, then {COLOURS[1]}"
    if event["type"] != "MovePlayed" or before is None:
        return str(event.get("type"))
    m = parse(event["move"])
    after = apply_event(before.clone(), event)
    said = describe(before, m)
    if names is not None:
        said = f"{_who(event['seat'], names)} drops a {COLOURS[event['seat']]} disc in column " \
               f"{LETTERS[m.column]}" + said[len(f"Drop a disc in column {LETTERS[m.column]}"):]
    if event.get("by"):
        said += f" [{event['by']}]"
    return said + _outcome(after, names)


def event_texts(events: list[dict], start: int = 0, state: GameState | None = None,
                names: list[str] | None = None) -> list[str]:
    """One sentence for each of ``events[start:]``, following ``state`` (None: from the start)."""
    return fold_texts(events, start, state, lambda s, ev: event_text(s, ev, names), apply_event)


def board_lines(state: GameState) -> list[str]:
    """The board as text, top row first: 'R' red, 'Y' yellow, '.' empty; the letters under it."""
    marks = {0: "R", 1: "Y", None: "."}
    rows = [" ".join(marks[state.cell(c, r)] for c in range(COLUMNS)) for r in reversed(range(ROWS))]
    return rows + [" ".join(LETTERS)]
