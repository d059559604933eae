"""The start of the game and of each round: the Kingsbridge privileges, the round's craftsmen and
the resource cards of the pool."""

from __future__ import annotations

from .basics import C
from .errors import EngineError
from .state import GameState


def setup(players: int, options: dict, chance, version: str) -> GameState:
    if type(players) is not int or not 2 <= players <= 4:
        raise EngineError(
            f"The Pillars of the Earth is for 2 to 4 players, not {players!r}", code="bad-players"
        )
    s = GameState(players, options, rules=version)
    begin_round(s, chance)
    return s


def begin_round(s: GameState, chance) -> None:
    """Beginning each round: 2 privileges at Kingsbridge (the 2 last-round cards in round 6), the
    round's 4 craftsmen (2 at Shiring, 2 in the pool), 7 of the 9 resource cards in the pool."""
    if s.round < 6:
        kb = []
        for _ in range(2):
            p = chance.choice("privilege", s.privilege_deck)
            s.privilege_deck.remove(p)
            kb.append(p)
    else:
        kb = list(C.last_round)
    s.kingsbridge = kb
    stack = [x for x in s.stack if C.craftsmen[x]["round"] == s.round]
    s.stack = [x for x in s.stack if C.craftsmen[x]["round"] != s.round]
    s.shiring = []
    for _ in range(2):
        x = chance.choice("shiring", stack)
        stack.remove(x)
        s.shiring.append(x)
    rcs = sorted(C.rescards)
    for _ in range(2):
        rcs.remove(chance.choice("aside", rcs))
    s.pool = sorted(rcs + stack)
    s.phase = "cards"
    s.passed = [False] * s.players
    s.taken = [[] for _ in range(s.players)]
    s.wool = [0] * s.players
    s.actor = s.start
