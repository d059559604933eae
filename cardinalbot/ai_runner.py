"""Playing an AI seat's decisions in one game through the API (docs/ai.md): read the seat's
view with the AI credential, decide with ``ai.decide``, submit at the version read, and repeat
while that seat is to act. Like the Cardinalbot's runner it is idempotent: a stale or finished
game does nothing, and each batch carries an Idempotency-Key derived from the game and version,
so a retried task never plays twice. The AI's random state is seeded by the game and the
position without its version, as the Cardinalbot's is (``runner.bot_rng``)."""
from __future__ import annotations

import hashlib
import json
import logging

from .client import ApiClient, ApiError

log = logging.getLogger("cardinalbot.ai_runner")
MAX_BATCHES = 400  # a turn is a few dozen moves at most


def position_seed(game_id: str, view: dict) -> str:
    position = {k: v for k, v in view.items() if k != "version"}
    digest = hashlib.sha256(json.dumps(position, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return f"{game_id}:{digest}"


def play_ai_turn(client: ApiClient, game_id: str, seat: int, level: str, version: int | None = None) -> int:
    """Play while AI seat ``seat`` is to act. Returns the number of batches submitted."""
    import ai

    batches = 0
    for _ in range(MAX_BATCHES):
        view = client.state(game_id)
        if version is not None and view["version"] < version:
            return batches  # the task is ahead of what the API serves: nothing to do yet
        if view["phase"] == "over" or view["actor"] != seat or view.get("viewer") != seat:
            return batches
        moves = ai.decide(view, level, position_seed(game_id, view))
        try:
            client.submit(game_id, view["version"], moves, key=f"ai-{game_id}-{view['version']}")
        except ApiError as e:
            if e.status == 409:
                continue  # someone moved first: read again
            log.error("game %s: the API refused the AI's moves %s: %s", game_id, moves, e)
            raise
        batches += 1
    raise RuntimeError(f"game {game_id}: the AI seat {seat} still had the decision after {MAX_BATCHES} batches")
