"""Chance: the next land tile is drawn when it is revealed, from the game's secret seed.

The derivation every hosted game shares (``rules_common.chance``, as Tiletum's rules 2): the i-th
number drawn by reveal ``n`` is HMAC-SHA256(seed, f"{n}:{i}") (its first 8 bytes, with rejection
sampling). Reveal 0 is the
setup (the first player's tile); each move that draws a tile is the next reveal, and the
position counts them as ``reveals``. A tile is drawn from the sorted list of the tiles still
face down, so no face-down order exists in any state; a drawn tile that fits nowhere is set
aside and the next number of the same reveal draws again. Anyone who learns the seed after the
game can recompute every draw (``carcassonne.record.verify``).
"""
from __future__ import annotations

from typing import Any, Sequence

from rules_common import chance as _common
from rules_common.chance import NoChance, RecordingChance, SeededSource, seed_commitment

__all__ = ["NoChance", "RecordingChance", "ReplayChance", "SeededSource", "seed_commitment"]


class ReplayChance(_common.ReplayChance):
    """Reads recorded draws back; each must be one of the face-down tiles offered (a record's
    draws are checked this way, ``carcassonne.record.replay_record``)."""

    __slots__ = ()

    def __init__(self, outcomes: Sequence[Sequence[Any]]):
        super().__init__(outcomes, strict=True)
