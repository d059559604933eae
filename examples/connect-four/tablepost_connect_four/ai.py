"""Connect Four's evaluation for the platform's generic search (``ai.generic``).

``value(state, seat)``: a finished game is +1000 won, -1000 lost, 0 drawn. A position whose seat to
move can complete four at once (a line of three with its fourth cell playable now) is as good as
won for that seat (+-900), and one where the other seat has two such cells (it cannot block both)
nearly so (+-800): the one-ply search (level easy) then blocks a threat and sees a fork. Otherwise
each line of four that only one seat holds discs in counts for that seat, by how many (1, 8, 60 for
one, two or three), and the centre column's discs a little (they sit in the most lines); the seat's
total less the other seat's.
"""
from __future__ import annotations

from .rules import COLUMNS, LINES, GameState

WEIGHTS = (0.0, 1.0, 8.0, 60.0, 1000.0)
CENTRE = 3.0
WON = 1000.0
WINS_NEXT = 900.0     # the seat to move completes four now
FORK = 800.0          # the other seat has two cells to complete four: one block is not enough


def value(state: GameState, seat: int) -> float:
    if state.phase == "over":
        return 0.0 if state.winner is None else (WON if state.winner == seat else -WON)
    total = [0.0, 0.0]
    wins: list[set] = [set(), set()]   # per seat, the cells where a disc dropped now completes four
    cell, heights = state.cell, [len(c) for c in state.columns]
    for line in LINES:
        held = [cell(c, r) for c, r in line]
        mine, theirs = held.count(0), held.count(1)
        if mine and not theirs:
            total[0] += WEIGHTS[mine]
        elif theirs and not mine:
            total[1] += WEIGHTS[theirs]
        if mine + theirs == 3 and (mine == 3 or theirs == 3):
            c, r = line[held.index(None)]
            if heights[c] == r:
                wins[0 if mine == 3 else 1].add((c, r))
    mover = state.actor
    if mover is not None:
        sign = 1.0 if mover == seat else -1.0
        if wins[mover]:
            return sign * WINS_NEXT
        if len(wins[1 - mover]) >= 2:
            return -sign * FORK
    for who in state.columns[COLUMNS // 2]:
        total[who] += CENTRE
    return total[seat] - total[1 - seat]
