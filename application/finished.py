"""What follows the end of a game, apart from the results email: its rating, then its
tournament moves on (docs/tournaments.md). The dispatcher puts a finished game in ``games:over``
and sends ``workers.game_over``; the task (and, for a lost message, the sweep) calls
:func:`on_game_over`, which is idempotent, then sends the results and takes the game out of the
index (:func:`done`)."""
from __future__ import annotations

import logging
import time

from . import errors
from .archive import schedule as schedule_archive
from .indexes import GAMES_OVER, forget_game, games_in_indexes
from .rating_service import RatingService
from .tournament_service import TournamentService

log = logging.getLogger("tiletum.finished")


def on_game_over(games, game_id: str) -> dict:
    rated = RatingService(games).record_game(game_id)
    meta = games.meta(game_id)
    forget_game(games.store.r, game_id)  # no deadline, reminder or due entry outlives the game
    tournament = (meta.get("tournament") or {}).get("id")
    advanced = TournamentService(games).advance(tournament) if tournament else 0
    return {"rated": rated, "tournament": tournament, "tournament_events": advanced}


def done(r, game_id: str) -> None:
    r.zrem(GAMES_OVER.key(game_id), game_id)
    schedule_archive(r, game_id)  # compacted after the grace period (application/archive.py)


def pending(r, older_than: float) -> list[str]:
    return [m.decode() for m in GAMES_OVER.due(r, time.time() - older_than)]


def purge_finished(games) -> int:
    """Maintenance (beat, hourly): take the games that are over or gone out of every index of due
    work, whatever the entries' due times -- e.g. entries left by games that finished before
    finished games were cleaned up. Returns how many games were purged."""
    purged = 0
    for game_id in sorted(games_in_indexes(games.store.r)):
        try:
            _, state = games.load(game_id)
            over = state.phase == "over"
        except errors.ServiceError as e:
            over = e.kind == "not-found"
        except Exception:
            log.warning("purge: could not read %s; left alone", game_id, exc_info=True)
            continue
        if over:
            forget_game(games.store.r, game_id, scan=True)
            purged += 1
    return purged
