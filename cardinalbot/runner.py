"""Playing the Cardinalbot's turn in one game through the API: read the view, decide with the
pure policy, submit at the version read, repeat while the bot is to act. Idempotent: a stale
or finished game does nothing, and every batch is sent with an Idempotency-Key derived from the
game and version, so a retried task never plays twice. The policy's random picks are seeded by the
game and the position without its version (``bot_rng``), so the player cannot re-roll them with
moves played and taken back before the bot's turn (issue 13)."""
from __future__ import annotations

import hashlib
import json
import logging
import random

from .client import ApiClient, ApiError

log = logging.getLogger("cardinalbot.runner")
MAX_BATCHES = 200  # one bot turn is a few dozen moves at most


def position_digest(game_id: str, view: dict, leave_out: tuple[str, ...] = ("version", "to_act")) -> str:
    """``<game>:<sha256 of the view without leave_out>``: what seeds a player's random picks at a
    position. ``X``, ``undo`` pairs change only the version, which is left out, so they cannot
    change the choices."""
    position = {k: v for k, v in view.items() if k not in leave_out}
    digest = hashlib.sha256(json.dumps(position, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return f"{game_id}:{digest}"


def bot_rng(game_id: str, view: dict) -> random.Random:
    """The randomness of the bot's picks at this position. ``to_act`` (API 2.0) is left out too:
    it repeats ``actor``, and the bot chooses as it did before the field came."""
    return random.Random(position_digest(game_id, view))


def play_while(client: ApiClient, game_id: str, version: int | None, choose, who: str, key: str,
               max_batches: int | None = None) -> int:
    """Read the view, ``choose(view)`` the moves (None or []: not this player's decision), submit
    them at the version read with an Idempotency-Key ``<key>-<game>-<version>``, and repeat.
    Returns the number of batches submitted."""
    batches = 0
    for _ in range(max_batches or MAX_BATCHES):
        view = client.state(game_id)
        if version is not None and view["version"] < version:
            return batches  # the task is ahead of what the API serves: nothing to do yet
        moves = choose(view)
        if not moves:
            return batches
        try:
            client.submit(game_id, view["version"], moves, key=f"{key}-{game_id}-{view['version']}")
        except ApiError as e:
            if e.status == 409:
                continue  # someone moved first: read again
            log.error("game %s: the API refused %s's moves %s: %s", game_id, who, moves, e)
            raise
        batches += 1
    raise RuntimeError(
        f"game {game_id}: {who} still had the decision after {max_batches or MAX_BATCHES} batches")


def play_turn(client: ApiClient, game_id: str, seat: int | None = None, version: int | None = None) -> int:
    """Play while the Cardinalbot is to act. Returns the number of batches submitted."""
    from .policy import next_moves, state_from_view

    def choose(view: dict) -> list[str] | None:
        state = state_from_view(view)
        bot = (state.solo or {}).get("bot")
        if state.phase != "action" or bot is None or state.actor != bot or (seat is not None and seat != bot):
            return None
        return next_moves(state, bot_rng(game_id, view))
    return play_while(client, game_id, version, choose, "the Cardinalbot", "bot")
