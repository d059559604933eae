"""The events of a game in words, each said in the position it was played in: the fold every
engine's ``event_texts`` shares (games.Records.event_texts)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def fold_texts(events: list[dict], start: int, state: Any, text: Callable[[Any, dict], str],
               fold: Callable[[Any, dict], Any]) -> list[str]:
    """One sentence for each of ``events[start:]``: ``text(before, event)``, ``before`` the position
    the event follows (``state`` for the first: None before a game's first event), then
    ``fold(before, event)`` the position after it (it may change ``before``: pass a state you do
    not keep). The events are folded once, the texts only from ``start`` on."""
    out: list[str] = []
    for i, event in enumerate(events):
        if i >= start:
            out.append(text(state, event))
        state = fold(state, event)
    return out


__all__ = ["fold_texts"]
