"""Connect Four for Table Post: an example of a game that lives outside the platform, installed
with pip and found through the entry point group ``tablepost.games`` (``SPEC``).

- :mod:`.rules`: the rules (pure; ``rules_common`` only), :mod:`.words` the moves in words,
  :mod:`.record` the game record, :mod:`.svg` the board, :mod:`.cli` the ``connect-four-engine``;
- :mod:`.game`: the adapter to the platform's game interface (``games.base``);
- :mod:`.ai`: the evaluation the platform's generic search plays by.
"""
from __future__ import annotations

from .game import CONNECT_FOUR, ConnectFour

__all__ = ["CONNECT_FOUR", "ConnectFour"]
