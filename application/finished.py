"""What follows the end of a game, apart from the results email: its rating, then its
tournament moves on (docs/tournaments.md). The dispatcher puts a finished game in ``games:over``
and sends ``workers.game_over``; the task (and, for a lost message, the sweep) calls
:func:`on_game_over`, which is idempotent, then sends the results and takes the game out of the
index (:func:`done`)."""
from __future__ import annotations

import time

from .deadlines import TURNS
from .rating_service import RatingService
from .tournament_service import TournamentService

GAMES_OVER = "games:over"   # zset: game id -> when it ended, until its follow-up is done


def on_game_over(games, game_id: str) -> dict:
    rated = RatingService(games).record_game(game_id)
    meta = games.meta(game_id)
    forget_deadlines(games.store.r, game_id, len(meta["seats"]))
    tournament = (meta.get("tournament") or {}).get("id")
    advanced = TournamentService(games).advance(tournament) if tournament else 0
    return {"rated": rated, "tournament": tournament, "tournament_events": advanced}


def forget_deadlines(r, game_id: str, seats: int) -> None:
    """A finished game has no deadlines: drop which turn each seat's last one was for."""
    r.hdel(TURNS, *[f"{game_id}:{seat}" for seat in range(seats)])


def done(r, game_id: str) -> None:
    r.zrem(GAMES_OVER, game_id)


def pending(r, older_than: float) -> list[str]:
    return [m.decode() for m in r.zrangebyscore(GAMES_OVER, "-inf", time.time() - older_than)]
