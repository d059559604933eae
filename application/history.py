"""The event log in words: each event of ``GET /events`` gets a ``text`` (what the move did, in
the position it was played in), for pages and other clients that show a game's history
(:meth:`application.game_service.GameService.events`)."""
from __future__ import annotations

from engine.describe import describe
from engine.game import apply_event
from engine.notation import parse


def event_texts(events: list[dict], start: int = 0) -> list[str]:
    """One sentence for each of ``events[start:]``, where ``events`` is a game's log from its
    start (folded once: a move is described in the position it was played in)."""
    out: list[str] = []
    state = None
    for i, ev in enumerate(events):
        t = ev["type"]
        if i < start:
            state = apply_event(state, ev)
            continue
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

