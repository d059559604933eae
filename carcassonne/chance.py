"""Chance: the next land tile is drawn when it is revealed, from the game's secret seed.

The same derivation as the Tiletum engine (``engine/chance.py``, rules 2), repeated here because
this package imports nothing of the project: the i-th number drawn by reveal ``n`` is
HMAC-SHA256(seed, f"{n}:{i}") (its first 8 bytes, with rejection sampling). Reveal 0 is the
setup (the first player's tile); each move that draws a tile is the next reveal, and the
position counts them as ``reveals``. A tile is drawn from the sorted list of the tiles still
face down, so no face-down order exists in any state; a drawn tile that fits nowhere is set
aside and the next number of the same reveal draws again. Anyone who learns the seed after the
game can recompute every draw (``carcassonne.record.verify``).
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Any, Sequence


class SeededSource:
    """Deterministic uniform integers from (seed, nonce)."""

    __slots__ = ("_key", "_nonce", "_i")

    def __init__(self, seed: str, nonce: int):
        self._key = seed.encode("utf-8")
        self._nonce = nonce
        self._i = 0

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)  # rejection sampling keeps it exactly uniform
        while True:
            msg = f"{self._nonce}:{self._i}".encode()
            self._i += 1
            word = int.from_bytes(hmac.new(self._key, msg, hashlib.sha256).digest()[:8], "big")
            if word < limit:
                return word % n


class RecordingChance:
    """Draws from a seeded source and records each outcome as ``[kind, value]``."""

    __slots__ = ("source", "outcomes")

    def __init__(self, source):
        self.source = source
        self.outcomes: list[list[Any]] = []

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        value = population[self.source.randbelow(len(population))]
        self.outcomes.append([kind, value])
        return value


class ReplayChance:
    """Reads recorded outcomes back, in order. Never draws anything new."""

    __slots__ = ("outcomes", "_i")

    def __init__(self, outcomes: Sequence[Sequence[Any]]):
        self.outcomes = outcomes
        self._i = 0

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        k, value = self.outcomes[self._i]
        self._i += 1
        if k != kind or value not in population:  # only with a corrupted log
            raise AssertionError(f"recorded outcome {k} {value!r} is not a possible {kind!r}")
        return value


class NoChance:
    """For a move that cannot draw (the last tile was placed)."""

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        raise AssertionError(f"event has no recorded outcome for {kind!r}")


def seed_commitment(seed: str) -> str:
    """The public commitment to a game's secret seed (SHA-256, hex)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
