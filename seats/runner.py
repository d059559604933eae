"""Playing the turn of a game's own automa in one game through the API: read the view, find its game
by the view's ``format`` and the policy that game declares for its automa (``games.setup.Automa.policy``,
Tiletum's ``cardinalbot.policy:choose``), decide with it, submit at the version read, repeat while the
automa is to act. Idempotent: a stale
or finished game does nothing, and every batch is sent with an Idempotency-Key derived from the
game and version, so a retried task never plays twice. The policy's random picks are seeded by the
game and the position without its version (``bot_rng``), so the player cannot re-roll them with
moves played and taken back before the bot's turn (issue 13)."""
from __future__ import annotations

import hashlib
import importlib
import json
import logging
import random
from typing import Any, Callable

import games

from .client import ApiClient, ApiError

log = logging.getLogger("tablepost.seats.runner")
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


def game_of_view(view: dict) -> games.Game[Any]:
    """The registered game a served view names (its ``game``, where the position says it), else the
    one whose position documents have the view's ``format``."""
    named = games.GAMES.get(view.get("game") or "")
    if named is not None:
        return named
    for game in games.GAMES.values():
        if game.position_format == view.get("format"):
            return game
    raise games.UnknownGame(f"no hosted game serves positions of format {view.get('format')!r}")


def policy_of(game: games.Game[Any]) -> Callable[[dict, int | None, random.Random], list[str] | None]:
    """The function that plays ``game``'s own automa (its declared ``module:function``)."""
    if game.automa is None:
        raise games.UnknownGame(f"{game.title} has no automa of its own")
    module, _, name = game.automa.policy.partition(":")
    return getattr(importlib.import_module(module), name)


def play_automa_turn(client: ApiClient, game_id: str, seat: int | None = None,
                     version: int | None = None) -> int:
    """Play while the game's own automa is to act (its policy, called with the view, the seat the
    task names -- None: whichever seat the automa plays -- and :func:`bot_rng`, answers None when it
    is not the automa's decision). Returns the number of batches submitted."""
    found: dict[str, Any] = {}

    def choose(view: dict) -> list[str] | None:
        if "policy" not in found:
            found["policy"] = policy_of(game_of_view(view))
        return found["policy"](view, seat, bot_rng(game_id, view))
    return play_while(client, game_id, version, choose, "the automa", "bot")


play_turn = play_automa_turn   # the name of the Cardinalbot's runner before the automa was the platform's
