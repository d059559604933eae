"""What follows the end of a game, apart from the results email: its rating, then its
tournament moves on (docs/tournaments.md). The dispatcher puts a finished game in ``games:over``
and sends ``workers.game_over``; the task (and, for a lost message, the sweep) calls
:func:`on_game_over`, which is idempotent, then sends the results and takes the game out of the
index (:func:`done`)."""
from __future__ import annotations

import logging
import time

import games as hosted

from . import errors, reliability
from .archive import schedule as schedule_archive
from .indexes import GAMES_OVER, begin_attempt, end_attempt, forget_game, games_in_indexes
from .deadlines import Deadlines
from .rating_service import RatingService
from .resigned import resigned_of
from .tournament_service import TournamentService

log = logging.getLogger("tablepost.finished")


def on_game_over(games, game_id: str) -> dict:
    meta = games.meta(game_id)
    # before the indexes are forgotten: who left the game (resigned, or dropped for missed
    # deadlines) counts it as abandoned, the others as finished (once: application/reliability.py)
    deadlines = Deadlines(games, None)
    dropped = [s for s in range(len(meta["seats"])) if deadlines.is_dropped(game_id, s)]
    reliability.game_over(games.store.r, game_id, meta, resigned_of(games.store.events(game_id)), dropped)
    rated = RatingService(games).record_game(game_id)
    forget_game(games.store.r, game_id)  # no deadline, reminder or due entry outlives the game
    tournament = (meta.get("tournament") or {}).get("id")
    advanced = TournamentService(games).advance(tournament) if tournament else 0
    return {"rated": rated, "tournament": tournament, "tournament_events": advanced}


def done(r, game_id: str) -> None:
    r.zrem(GAMES_OVER.key(game_id), game_id)
    schedule_archive(r, game_id)  # compacted after the grace period (application/archive.py)


def pending(r, older_than: float) -> list[str]:
    return [m.decode() for m in GAMES_OVER.due(r, time.time() - older_than)]


def follow_up_pending(r, older_than: float, handle, max_attempts: int = 10,
                      budget: float | None = None) -> int:
    """The sweep's part for finished games whose follow-up message was lost: ``handle(game_id)``
    for each, one game's failure never stopping the others. Each attempt is counted before it is
    made, so a game whose follow-up fails, or never finishes (its task killed at the time limit),
    ``max_attempts`` times is given up: logged at ERROR and taken out of ``games:over`` instead of
    being tried at every sweep for ever. Stops taking games after ``budget`` seconds (the rest
    wait for the next sweep). Returns how many were handled."""
    t0, n = time.monotonic(), 0
    for game_id in pending(r, older_than):
        if budget is not None and time.monotonic() - t0 > budget:
            break
        tries = begin_attempt(r, GAMES_OVER, game_id)
        if tries > max_attempts:
            log.error("giving up the follow-up of finished game %s: %d attempts failed or did not finish",
                      game_id, tries - 1)
            r.zrem(GAMES_OVER.key(game_id), game_id)
            end_attempt(r, GAMES_OVER, game_id)
            continue
        try:
            handle(game_id)
        except Exception:  # it stays pending, for the next sweep
            log.warning("the follow-up of finished game %s failed (attempt %d of %d); tried again later",
                        game_id, tries, max_attempts, exc_info=True)
        else:
            end_attempt(r, GAMES_OVER, game_id)
            n += 1
    return n


def purge_finished(games) -> int:
    """Maintenance (beat, hourly): take the games that are over or gone out of every index of due
    work, whatever the entries' due times -- e.g. entries left by games that finished before
    finished games were cleaned up. Returns how many games were purged."""
    purged = 0
    for game_id in sorted(games_in_indexes(games.store.r)):
        try:
            _, state = games.load(game_id)
            over = hosted.is_over(state)
        except errors.ServiceError as e:
            over = e.kind == "not-found"
        except Exception:
            log.warning("purge: could not read %s; left alone", game_id, exc_info=True)
            continue
        if over:
            forget_game(games.store.r, game_id, scan=True)
            purged += 1
    return purged
