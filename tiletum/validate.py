"""Consistency checks of a position: tile conservation, no negative counts, sane pieces.

``problems(state)`` lists what is wrong (empty when the position is consistent). The simulation
tests run it after every move; ``GameState.from_doc`` callers can run it on hand-made positions.
The checks live in ``tiletum/state.py``, beside the state they read (``GameState.from_doc`` runs
them): this module only names them, so that the two modules no longer import each other.
"""
from __future__ import annotations

from .state import _flow_problems, problems, tile_locations

__all__ = ["problems", "tile_locations", "_flow_problems"]
