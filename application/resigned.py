"""Who resigned from a game and where that places them (application/together.py resigns)."""
from __future__ import annotations

import games


def resigned_of(events: list[dict]) -> list[int]:
    """The seats that resigned, in the order they did."""
    return [ev["seat"] for ev in events if ev["type"] == games.RESIGNED]


def decision_began(store, game_id: str, seat: int, version: int, look: int = 8) -> int:
    """The version at which ``seat``'s decision at ``version`` began, as far as resignations tell:
    another seat's resignation is a version of its own but leaves the decision as it was, so the
    other seats' resignations just before ``version`` (at most ``look``) are not counted."""
    began = version
    for ev in store.events_before(game_id, version, look):   # newest first
        if ev["type"] != games.RESIGNED or ev.get("seat") == seat:
            break
        began -= 1
    return began


def final_places(places: list[int], resigned: list[int]) -> list[int]:
    """The finishing places with the resigned seats last: the others keep their order (and ties)
    among themselves; the seat that resigned first is last."""
    stayed = [i for i in range(len(places)) if i not in resigned]
    out = [0] * len(places)
    for i in stayed:
        out[i] = 1 + sum(places[j] < places[i] for j in stayed)
    for k, seat in enumerate(reversed(resigned)):
        out[seat] = len(stayed) + 1 + k
    return out
