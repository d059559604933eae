"""Chance: every card, master builder and die roll is drawn when it is revealed, from the game's
secret seed.

The derivation every hosted game shares (``rules_common.chance``): the i-th number drawn by reveal
``n`` is HMAC-SHA256(seed, f"{n}:{i}") (its first 8 bytes, with rejection sampling). Reveal 0 is
the setup (round 1's privileges, craftsmen and resource cards); each move after which something is
revealed is the next reveal, and the position counts them as ``reveals``. Every draw is made from
the sorted list of what is still face down (the privilege deck, the event deck, the round's
craftsman stack, the resource cards, the master builders in the bag) or from the tax die's faces,
so no face-down order exists in any state. Outcome kinds: ``privilege``, ``shiring`` (a craftsman
of the round's stack laid at Shiring; the other two go to the card pool), ``aside`` (a resource
card set aside for the round), ``builder`` (the seat whose master builder is drawn from the bag),
``event`` and ``tax``. Anyone who learns the seed after the game can recompute every draw
(``pillars.record.verify_events``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules_common import chance as _common
from rules_common.chance import NoChance, RecordingChance, SeededSource, seed_commitment

__all__ = ["NoChance", "RecordingChance", "ReplayChance", "SeededSource", "seed_commitment", "KINDS"]

KINDS = ("privilege", "shiring", "aside", "builder", "event", "tax")


class ReplayChance(_common.ReplayChance):
    """Reads recorded draws back; each must be one of the cards (builders, die faces) offered."""

    __slots__ = ()

    def __init__(self, outcomes: Sequence[Sequence[Any]]):
        super().__init__(outcomes, strict=True)

    @property
    def used(self) -> int:
        """How many recorded outcomes were read back."""
        return self._i
