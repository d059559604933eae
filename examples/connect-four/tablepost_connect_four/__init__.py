"""Connect Four for Table Post: an example of a game that lives outside the platform, installed
with pip and found through the entry point group ``tablepost.games`` (``SPEC``).

- :mod:`.rules`: the rules (pure; ``rules_common`` only), :mod:`.words` the moves in words,
  :mod:`.record` the game record, :mod:`.svg` the board, :mod:`.cli` the ``connect-four-engine``;
- :mod:`.game`: the adapter to the platform's game interface (``games.base``);
- :mod:`.ai`: the evaluation the platform's generic search plays by;
- :mod:`.position`: the position document's schema for the API.

``spec.SPEC`` is what the platform reads through the entry point (pyproject.toml,
``[project.entry-points."tablepost.games"]``). The platform is imported first, here: it loads the
entry point as it starts (``games``), and the spec needs the adapter, which needs the platform's
``games.base`` -- imported in the other order, the adapter's module would be asked for while it is
still loading.
"""
from __future__ import annotations

import games  # noqa: F401  (first: see above)

from .game import CONNECT_FOUR, ConnectFour

__all__ = ["CONNECT_FOUR", "ConnectFour"]
