"""The stand-in (docs/pbem.md, "Deadlines"; docs/ai.md): the AI player plays a late or dropped
seat's decision from the seat's own view, or the game's fixed rule should the AI fail."""
from __future__ import annotations

import logging
import os
import time

import ai
import games

from .queues import STAND_IN
from .seats import AI_LEVELS

log = logging.getLogger("tablepost.deadlines")


STAND_IN_LEVEL = "medium"   # TABLEPOST_STAND_IN_LEVEL: any AI level (master thinks
                            # TABLEPOST_AI_MASTER_SECONDS a decision, on the AI worker)
QUICK_LEVEL = "medium"      # a turn's decisions after the stand-in's thinking time is spent
FAST_LEVELS = ("easy", "medium")
STAND_IN_TASK, STAND_IN_QUEUE = "workers.stand_in_turn", STAND_IN   # the AI worker's (workers/app.py)


def stand_in_level() -> str:
    level = os.environ.get("TABLEPOST_STAND_IN_LEVEL") or STAND_IN_LEVEL
    if level not in AI_LEVELS:
        raise ValueError(f"TABLEPOST_STAND_IN_LEVEL is one of {', '.join(AI_LEVELS)}, not {level!r}")
    return level


def stand_in_plan(view: dict, rng_seed: str, state, game: games.Game,
                  level: str | None = None) -> list:
    """The stand-in's moves for the seat's current decision: the AI's at ``level`` (None: the
    stand-in's level), from the seat's ``view`` (``state`` is used only by the fallback rule, should
    the AI fail: the game's own, ``games.Game.fallback_move``)."""
    try:
        return ai.decide(view, level or stand_in_level(), rng_seed)
    except Exception:  # never leave a late turn unplayed
        log.exception("the AI failed to play a stand-in turn; the fixed rule plays it")
        return [game.fallback_move(state)]


def play_stand_in(service, game_id: str, seat: int, think: float | None = None) -> int:
    """Play the seat's current decision with the stand-in (the AI at ``STAND_IN_LEVEL``, for
    any game: ``ai.decide`` routes by the view's game). Once ``think`` seconds are spent (None:
    no limit), the turn's later decisions are played at ``medium`` (:data:`QUICK_LEVEL`), so
    that a turn of many decisions at ``master`` ends within its task's time limit. Returns 1
    if it moved."""
    started = time.monotonic()
    level = stand_in_level()
    meta, state = service.load(game_id)
    game = games.of_meta(meta)
    seed = service.store.seed(game_id)
    decided_at = state.version   # the moves are chosen for this position, and played only on it
    moves: list[str] = []
    while game.actor(state) == seat and not game.is_over(state) and len(moves) < 200:
        if think is not None and time.monotonic() - started >= think and level not in FAST_LEVELS:
            level = QUICK_LEVEL
        for m in stand_in_plan(game.view(state, seat), f"{game_id}:{state.version}", state, game, level):
            if game.actor(state) != seat or game.is_over(state):
                break
            _, state = game.play(state, seat, str(m), seed)
            moves.append(str(m))
    if not moves:
        return 0
    # at the version decided at: if the player moved meanwhile, a 409 (the sweep looks again),
    # never the stand-in's moves played on a position they were not chosen for
    service.submit_for_seat(game_id, seat, decided_at, moves, by="stand-in", stop_at_reveal=False)
    log.info("stand-in played %s for seat %s in %s", moves, seat, game_id)
    return 1
