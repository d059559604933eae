"""Checking a finished game's chance against its revealed seed.

When a game starts, only ``seed_commitment(seed)`` (SHA-256) is published. When it ends the seed
is revealed, and anyone can check that it matches the commitment and that every recorded roll,
draw and Corruption token is exactly what the seed gives for that event::

    tiletum-engine verify game-record.txt --seed <seed>

Each record is checked with the derivation of the rules version it was started under (its
GameStarted ``rules``, the record's ``Rules`` header): outcomes keyed by the reveal count from
rules 2 on, by the event count in rules-1 games (``tiletum/chance.py``).
"""
from __future__ import annotations

from .chance import RecordingChance, SeededSource, rules_number, seed_commitment
from .flow import setup
from .game import RULES_VERSION, _apply_move, _as_move, chance_nonce, evolve_in_place


def verify_events(events: list[dict], seed: str, commitment: str | None = None) -> list[str]:
    """Problems found (empty when every outcome matches the seed)."""
    problems: list[str] = []
    if commitment is not None and seed_commitment(seed) != commitment:
        problems.append("the seed does not match the published commitment")
    start = events[0]
    if rules_number(start.get("rules")) > rules_number(RULES_VERSION):
        problems.append(f"the game was made by rules version {start.get('rules')}, newer than this "
                        f"engine's ({RULES_VERSION}): check it with a newer engine")
        return problems
    rec = RecordingChance(SeededSource(seed, 0))
    setup(start["players"], start.get("options") or {}, rec)
    if rec.outcomes != start["chance"]:
        problems.append("the setup does not match the seed")
    state = evolve_in_place(None, start)
    for n, ev in enumerate(events[1:], 1):
        if ev["type"] == "MovePlayed" and ev["chance"]:
            s = state.clone()
            rec = RecordingChance(SeededSource(seed, chance_nonce(state)))
            _apply_move(s, ev["seat"], _as_move(ev["move"]), rec)
            if rec.outcomes != ev["chance"]:
                problems.append(f"event {n} ({ev['move']}): outcomes differ from the seed's")
        state = evolve_in_place(state, ev)
    return problems
