"""The event log in words: each event of ``GET /events`` gets a ``text`` (what the move did, in
the position it was played in), for pages and other clients that show a game's history."""
from __future__ import annotations

from engine.describe import describe
from engine.game import apply_event
from engine.notation import parse


def event_texts(events: list[dict]) -> list[str]:
    """One sentence per event of a game's whole log, in order (folding the log once)."""
    out: list[str] = []
    state = None
    for ev in events:
        t = ev["type"]
        if t == "GameStarted":
            out.append(f"The game starts with {ev['players']} players")
        elif t == "MovePlayed":
            try:
                text = describe(state, parse(ev["move"]))
            except Exception:  # a move the describer does not know: its notation is its text
                text = ev["move"]
            if ev.get("by"):
                text += f" (played by the {ev['by']})"
            out.append(text)
        elif t == "MoveUndone":
            undoable = state.undo_moves if state is not None else []
            out.append(f"Take back '{undoable[-1]}'" if undoable else "Take back the last move")
        else:
            out.append(t)
        state = apply_event(state, ev)
    return out


def add_texts(answer: dict, all_events: list[dict]) -> dict:
    """Fill ``text`` into the events of an ``events`` answer from the game's whole log."""
    texts = event_texts(all_events)
    for ev in answer["events"]:
        i = ev["version"] - 1
        if 0 <= i < len(texts):
            ev["text"] = texts[i]
    return answer
