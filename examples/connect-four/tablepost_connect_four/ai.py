"""Connect Four's evaluation for the platform's generic search (``ai.generic``).

``value(state, seat)``: a finished game is +1000 won, -1000 lost, 0 drawn. Otherwise each line of
four that only one seat holds discs in counts for that seat, by how many (1, 8, 60 for one, two or
three), and the centre column's discs a little (they sit in the most lines); the seat's total less
the other seat's.
"""
from __future__ import annotations

from .rules import COLUMNS, LINES, GameState

WEIGHTS = (0.0, 1.0, 8.0, 60.0, 1000.0)
CENTRE = 3.0
WON = 1000.0


def value(state: GameState, seat: int) -> float:
    if state.phase == "over":
        return 0.0 if state.winner is None else (WON if state.winner == seat else -WON)
    total = [0.0, 0.0]
    cell = state.cell
    for line in LINES:
        held = [cell(c, r) for c, r in line]
        mine, theirs = held.count(0), held.count(1)
        if mine and not theirs:
            total[0] += WEIGHTS[mine]
        elif theirs and not mine:
            total[1] += WEIGHTS[theirs]
    for who in state.columns[COLUMNS // 2]:
        total[who] += CENTRE
    return total[seat] - total[1 - seat]
