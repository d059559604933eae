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


def bot_rng(game_id: str, view: dict) -> random.Random:
    """The randomness of the bot's picks at this position. ``X``, ``undo`` pairs change only the
    version, which is left out, so they cannot change the bot's choices. ``to_act`` (API 2.0) is
    left out too: it repeats ``actor``, and the bot chooses as it did before the field came."""
    position = {k: v for k, v in view.items() if k not in ("version", "to_act")}
    digest = hashlib.sha256(json.dumps(position, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return random.Random(f"{game_id}:{digest}")


def play_turn(client: ApiClient, game_id: str, seat: int | None = None, version: int | None = None) -> int:
    """Play while the Cardinalbot is to act. Returns the number of batches submitted."""
    from .policy import next_moves, state_from_view

    batches = 0
    for _ in range(MAX_BATCHES):
        view = client.state(game_id)
        if version is not None and view["version"] < version:
            return batches  # the task is ahead of what the API serves: nothing to do yet
        state = state_from_view(view)
        bot = (state.solo or {}).get("bot")
        if state.phase != "action" or bot is None or state.actor != bot or (seat is not None and seat != bot):
            return batches
        rng = bot_rng(game_id, view)
        moves = next_moves(state, rng)
        try:
            client.submit(game_id, view["version"], moves, key=f"bot-{game_id}-{view['version']}")
        except ApiError as e:
            if e.status == 409:
                continue  # someone moved first: read again
            log.error("game %s: the API refused the bot's moves %s: %s", game_id, moves, e)
            raise
        batches += 1
    raise RuntimeError(f"game {game_id}: the Cardinalbot's turn did not end after {MAX_BATCHES} batches")
