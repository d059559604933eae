"""What the platform reads of the game (``games.spec.GameSpec``), through the entry point group
``tablepost.games``: the adapter, the evaluation the generic search plays by, no chance outcomes to
expand, no AI presets of its own, the position document's schema, and no page of its own (the
platform's generic game page draws it)."""
from __future__ import annotations

from games.spec import GameSpec

from .game import CONNECT_FOUR

SPEC = GameSpec(game=CONNECT_FOUR, evaluation="tablepost_connect_four.ai:value", chances=None, ai_levels={},
                position_schema="tablepost_connect_four.position:ConnectFourPosition", page=None,
                summary="Drop discs into a standing grid of seven columns: four in a row wins.")
