"""Chance: every random outcome of a game comes from here and is written into the events.

A game has a secret seed. The i-th number drawn by a reveal with nonce ``n`` is
HMAC-SHA256(seed, f"{n}:{i}") (its first 8 bytes, with rejection sampling). This is portable and
stable across Python versions, so anyone who learns the seed after the game can recompute every
roll and draw (see ``engine.fairness``). Which nonce a reveal gets depends on the rules version
the game was started under (the ``rules`` of its GameStarted event, the record's ``Rules``):

* **rules 2 and later**: the nonce is the number of reveals so far in the game, the setup being
  reveal 0 and each move that records outcomes (an event with a non-empty ``chance``) the next
  one. The position holds it as ``reveals`` (``docs/state.md``). A move that reveals nothing
  leaves it alone and ``undo`` never crosses a reveal, so playing and taking back moves before a
  reveal cannot change what it reveals: the draw cannot be steered with moves that change nothing.
* **rules 1** (games started before that): the nonce is the number of events so far (``version``;
  0 for the setup). A seat could shift it with ``X``, ``undo`` pairs before a reveal and choose
  among several futures (issue 13). Such games keep this derivation to their end, so their
  records stay consistent and verifiable; their positions have ``reveals`` null.

``decide`` runs the rules with a :class:`RecordingChance`, which draws and records; ``evolve``
runs the same rules with a :class:`ReplayChance`, which only reads the recorded outcomes back.
Draws are made lazily at the moment a tile is revealed, from the canonical (sorted) list of
what remains, so no face-down order ever exists in a game state.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Any, Sequence


def rules_number(rules) -> int:
    """The rules version of a game as a number; a missing or unreadable one is 1 (the first)."""
    try:
        return int(rules)
    except (TypeError, ValueError):
        return 1


def keyed_by_reveals(rules) -> bool:
    """Whether a game started under ``rules`` keys its draws by the reveal count (rules 2 on)."""
    return rules_number(rules) >= 2


class Chance:
    """The interface the rules call. ``kind`` labels the outcome in the event log."""

    def choice(self, kind: str, population: Sequence[Any]) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def roll(self, kind: str) -> int:  # pragma: no cover - interface
        raise NotImplementedError


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
        value = 1 + self.source.randbelow(6)
        self.outcomes.append([kind, value])
        return value


class ReplayChance(Chance):
    """Reads recorded outcomes back, in order. Never draws anything new."""

    __slots__ = ("outcomes", "_i")

    def __init__(self, outcomes: Sequence[Sequence[Any]]):
        self.outcomes = outcomes
        self._i = 0

    def _next(self, kind: str) -> Any:
        k, value = self.outcomes[self._i]
        self._i += 1
        if k != kind:  # only possible with a corrupted log; evolve trusts decide's events
            raise AssertionError(f"recorded outcome {k!r} where {kind!r} was expected")
        return value

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        return self._next(kind)

    def roll(self, kind: str) -> int:
        return self._next(kind)


class NoChance(Chance):
    """For moves that must not need chance; any draw is a bug."""

    def choice(self, kind: str, population: Sequence[Any]) -> Any:
        raise AssertionError(f"unexpected chance outcome {kind!r}")

    def roll(self, kind: str) -> int:
        raise AssertionError(f"unexpected chance outcome {kind!r}")


def seed_commitment(seed: str) -> str:
    """The public commitment to a game's secret seed (SHA-256, hex)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
