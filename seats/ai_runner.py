"""Playing an AI seat's decisions in one game through the API (docs/ai.md): read the seat's
view with the AI credential, decide with ``ai.decide``, submit at the version read, and repeat
while that seat is to act. Like the automa's runner it is idempotent: a stale or finished
game does nothing, and each batch carries an Idempotency-Key derived from the game and version,
so a retried task never plays twice. The AI's random state is seeded by the game and the
position without its version, as the automa's are (``runner.bot_rng``)."""
from __future__ import annotations

from .client import ApiClient
from .runner import play_while, position_digest

MAX_BATCHES = 400  # a turn is a few dozen moves at most


def position_seed(game_id: str, view: dict) -> str:
    return position_digest(game_id, view, leave_out=("version",))


def play_ai_turn(client: ApiClient, game_id: str, seat: int, level: str, version: int | None = None) -> int:
    """Play while AI seat ``seat`` is to act. Returns the number of batches submitted."""
    import ai

    def choose(view: dict) -> list[str] | None:
        if view["phase"] == "over" or view["to_act"] != [seat] or view.get("viewer") != seat:
            return None
        return ai.decide(view, level, position_seed(game_id, view))
    return play_while(client, game_id, version, choose, f"the AI seat {seat}", "ai", MAX_BATCHES)
