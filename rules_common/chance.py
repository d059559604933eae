"""Seeded chance: every random outcome of a game is drawn when it is revealed and written into
the event that reveals it.

A game has a secret seed. The i-th number drawn by a reveal with nonce ``n`` is
HMAC-SHA256(seed, f"{n}:{i}") (its first 8 bytes, with rejection sampling): portable and stable
across Python versions, so anyone who learns the seed after the game can recompute every draw.
Which nonce a reveal gets is each game's rule (``tiletum/chance.py``, ``carcassonne/chance.py``).

``decide`` runs the rules with a :class:`RecordingChance`, which draws and records; ``evolve``
runs the same rules with a :class:`ReplayChance`, which only reads the recorded outcomes back;
:class:`NoChance` is for a move that must not draw.
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
        # Rejection sampling on 64-bit words keeps the result exactly uniform.
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            msg = f"{self._nonce}:{self._i}".encode()
            self._i += 1
            word = int.from_bytes(hmac.new(self._key, msg, hashlib.sha256).digest()[:8], "big")
            if word < limit:
                return word % n


class Chance:
    """The interface the rules call. ``kind`` labels the outcome in the event log."""

    __slots__ = ()

    def choice(self, kind: str, population: Sequence[Any]) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def roll(self, kind: str) -> int:  # pragma: no cover - interface
        raise NotImplementedError


class RecordingChance(Chance):
    """Draws from a seeded source and records each outcome as ``[kind, value]``."""

    __slots__ = ("source", "outcomes")

    def __init__(self, source: SeededSource):
        self.source = source
        self.outcomes: list[list[Any]] = []

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        value = population[self.source.randbelow(len(population))]
        self.outcomes.append([kind, value])
        return value

    def roll(self, kind: str) -> int:
        """A six-sided die."""
        value = 1 + self.source.randbelow(6)
        self.outcomes.append([kind, value])
        return value


class ReplayChance(Chance):
    """Reads recorded outcomes back, in order. Never draws anything new. With ``strict`` a
    recorded choice must also be one of the population offered."""

    __slots__ = ("outcomes", "_i", "_strict")

    def __init__(self, outcomes: Sequence[Sequence[Any]], strict: bool = False):
        self.outcomes = outcomes
        self._i = 0
        self._strict = strict

    def _next(self, kind: str) -> Any:
        k, value = self.outcomes[self._i]
        self._i += 1
        if k != kind:  # only possible with a corrupted log; evolve trusts decide's events
            raise AssertionError(f"recorded outcome {k!r} where {kind!r} was expected")
        return value

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        value = self._next(kind)
        if self._strict and value not in population:
            raise AssertionError(f"recorded outcome {kind} {value!r} is not a possible {kind!r}")
        return value

    def roll(self, kind: str) -> int:
        return self._next(kind)


class NoChance(Chance):
    """For moves that must not need chance; any draw is a bug."""

    __slots__ = ()

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        raise AssertionError(f"unexpected chance outcome {kind!r}")

    def roll(self, kind: str) -> int:
        raise AssertionError(f"unexpected chance outcome {kind!r}")


def seed_commitment(seed: str) -> str:
    """The public commitment to a game's secret seed (SHA-256, hex)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
