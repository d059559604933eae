"""Who plays each seat of a game, from its meta: people, a game's own automa (a seat of the kind its
game declares, ``games.Game.automa``), and the AI player (seats of kind ``ai`` with a ``level``,
docs/ai.md). Names as players see them in pages and emails: an AI seat's name says so."""
from __future__ import annotations

import games

# the seat kinds of the games' own automata (each game declares its own): the bot credential plays
# them (application/seat_auth.py) and they have no token of their own
AUTOMA_KINDS = frozenset(g.automa.kind for g in games.GAMES.values() if g.automa is not None)

AI_LEVELS = ("easy", "medium", "hard", "master")   # the levels of ai.LEVELS (docs/ai.md;
                                                   # a test keeps them equal)


def ai_seats(meta: dict) -> dict[int, str]:
    """The game's seats of kind ``ai``, with their level."""
    return {i: s.get("level") or "medium" for i, s in enumerate(meta["seats"]) if s.get("kind") == "ai"}


def seat_label(seat: dict) -> str:
    """A seat's name as shown to players: ``Robo (AI, easy)`` for an AI seat."""
    if seat.get("kind") == "ai":
        return f"{seat['name']} (AI, {seat.get('level') or 'medium'})"
    return seat["name"]


def seat_names(meta: dict) -> list[str]:
    return [seat_label(s) for s in meta["seats"]]
