"""Chance: every random outcome of a game comes from here and is written into the events.

A game has a secret seed. The i-th number drawn by a reveal with nonce ``n`` is
HMAC-SHA256(seed, f"{n}:{i}") (its first 8 bytes, with rejection sampling). This is portable and
stable across Python versions, so anyone who learns the seed after the game can recompute every
roll and draw (see ``tiletum.fairness``). Which nonce a reveal gets depends on the rules version
the game was started under (the ``rules`` of its GameStarted event, the record's ``Rules``):

* **rules 2 and later**: the nonce is the number of reveals so far in the game, the setup being
  reveal 0 and each move that records outcomes (an event with a non-empty ``chance``) the next
  one. The position holds it as ``reveals`` (``docs/tiletum-state.md``). A move that reveals nothing
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

from rules_common.chance import (Chance, NoChance, RecordingChance, ReplayChance, SeededSource,
                                 seed_commitment)

__all__ = ["Chance", "NoChance", "RecordingChance", "ReplayChance", "SeededSource", "keyed_by_reveals",
           "rules_number", "seed_commitment"]


def rules_number(rules) -> int:
    """The rules version of a game as a number; a missing or unreadable one is 1 (the first)."""
    try:
        return int(rules)
    except (TypeError, ValueError):
        return 1


def keyed_by_reveals(rules) -> bool:
    """Whether a game started under ``rules`` keys its draws by the reveal count (rules 2 on)."""
    return rules_number(rules) >= 2
