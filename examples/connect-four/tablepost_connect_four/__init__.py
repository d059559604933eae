"""Connect Four for Table Post: an example of a game that lives outside the platform, installed
with pip and found through the entry point group ``tablepost.games`` (``SPEC``).

- :mod:`.rules`: the rules (pure; ``rules_common`` only), :mod:`.words` the moves in words,
  :mod:`.record` the game record, :mod:`.svg` the board, :mod:`.cli` the ``connect-four-engine``;
- :mod:`.game`: the adapter to the platform's game interface (``games.base``);
- :mod:`.ai`: the evaluation the platform's generic search plays by;
- :mod:`.position`: the position document's schema for the API.

``SPEC`` is what the platform reads through the entry point (pyproject.toml,
``[project.entry-points."tablepost.games"]``): the adapter, the evaluation, no chance outcomes to
expand, no AI presets of its own, the position schema, and no page of its own (the platform's generic
game page draws it).
"""
from __future__ import annotations

from .game import CONNECT_FOUR, ConnectFour

try:
    from games.spec import GameSpec
except ImportError:   # a platform from before games were registered by entry point
    SPEC = None
else:
    SPEC = GameSpec(game=CONNECT_FOUR, evaluation="tablepost_connect_four.ai:value", chances=None,
                    ai_levels={}, position_schema="tablepost_connect_four.position:ConnectFourPosition",
                    page=None)

__all__ = ["CONNECT_FOUR", "ConnectFour", "SPEC"]
