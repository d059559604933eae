"""Moves and events in words, for players (API, emails, CLI)."""
from __future__ import annotations

from rules_common.texts import fold_texts

from . import rules
from .chance import NoChance, ReplayChance
from .game import _as_move
from .notation import Move
from .pieces import cell_words, tile_phrase
from .state import GameState

SIDE = {"N": "north", "E": "east", "S": "south", "W": "west",
        "NE": "north-east", "SE": "south-east", "SW": "south-west", "NW": "north-west"}
FEATURE = {"thief": "road", "knight": "city", "farmer": "field", "monk": "cloister"}


def tile_name(letter: str, rot: int = 0) -> str:
    """A tile in words, as turned, never by its letter (notation; issue 42): 'a tile with a city on
    the north side and a road from east to west' (carcassonne/pieces.py)."""
    return tile_phrase(letter, rot)


def _seat(seat: int, names) -> str:
    if names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"seat {seat}"


def _placing(s: GameState, m: Move) -> str:
    text = (f"{tile_name(s.tile, m.rot) if s.tile else 'the tile'}, {cell_words(m.x, m.y)}, "
            f"turned {m.rot}°")
    if m.role == "monk":
        return text + ", with a monk in its cloister"
    if m.role:
        return text + f", with a {m.role} on its {SIDE[m.spot]} {FEATURE[m.role]}"
    return text + ", without a follower"


def describe(s: GameState, m: Move | str) -> str:
    """What this move does here, in a short sentence."""
    return "Place " + _placing(s, _as_move(m))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def scoring_text(sc: dict, names=None) -> str:
    kind = sc["kind"]
    what = {"road": "road", "city": "city", "cloister": "cloister",
            "farm": "farm supplying a completed city"}[kind]
    size = ""
    if kind in ("road", "city"):
        size = f" of {sc['tiles']} tile{'s' if sc['tiles'] != 1 else ''}"
        if sc.get("shields"):
            size += f" and {sc['shields']} shield{'s' if sc['shields'] != 1 else ''}"
    state = "" if kind == "farm" else ("completed " if sc.get("complete", True) else "incomplete ")
    if not sc["seats"]:
        return f"{state}{what}{size}: no follower, no points"
    who = " and ".join(_seat(x, names) for x in sc["seats"])
    return f"{state}{what}{size}: {sc['points']} point{'s' if sc['points'] != 1 else ''} to {who}"


def describe_event(before: GameState | None, event: dict, names=None) -> str:
    """One event in words: what was placed, what it scored, who got followers back, what was
    drawn. ``before`` is the state the event applies to (None for GameStarted)."""
    if event["type"] == "GameStarted":
        first = event["chance"][-1][1] if event["chance"] else "?"
        return (f"A game of Carcassonne for {event['players']} players begins with the start tile; "
                f"{_seat(0, names)} draws {tile_name(first)}.")
    if event["type"] != "MovePlayed":
        return event["type"]
    s = before.clone()
    m = _as_move(event["move"], remember=True)
    seat = event["seat"]
    placed_text = _placing(before, m)
    m, k, err = rules.resolve(s, m)
    if err is not None:
        return f"{_seat(seat, names)}: {event['move']} (not playable here: {err[1]})"
    chance = ReplayChance(event["chance"]) if event["chance"] else NoChance()
    scored = rules.apply(s, seat, m, k, chance)
    parts = [_cap(f"{_seat(seat, names)} placed {placed_text}.")]
    for sc in scored:
        text = scoring_text(sc, names)
        back = [f"{n} to {_seat(int(x), names)}" for x, n in sc["returned"].items()]
        parts.append(
            text[0].upper() + text[1:] + (f"; followers back: {', '.join(back)}" if back else "") + ".")
    drawn = [v for _, v in event["chance"]]
    for t in drawn[:-1] if s.tile else drawn:
        parts.append(f"Drawn and set aside (it fits nowhere): {tile_name(t)}.")
    if s.phase == "over":
        parts.append("That was the last tile. " + describe_final(s, names))
    else:
        parts.append(_cap(f"{_seat(s.actor, names)} draws {tile_name(s.tile)}."))
    return " ".join(parts)


def describe_final(s: GameState, names=None) -> str:
    """The final scoring and the result in words."""
    if s.final is None:
        return "The game is not over."
    lines = [scoring_text(sc, names) for sc in s.final["scorings"]]
    result = ", ".join(f"{_seat(i, names)} {v}" for i, v in enumerate(s.scores))
    won = _cap(" and ".join(_seat(w, names) for w in s.winners))
    verb = "wins" if len(s.winners) == 1 else "share the victory"
    body = "; ".join(x[0].upper() + x[1:] for x in lines) if lines else "Nothing to score"
    return f"Final scoring: {body}. Scores: {result}. {won} {verb}."


def event_text(before: GameState | None, ev: dict, names=None) -> str:
    """One event in words, in the position ``before`` it (None before the game's first event);
    ``before`` is only read. Without ``names``, the move in the imperative, as :func:`describe`
    says it, then what it scored and the tiles set aside; with the seats' ``names``, in the third
    person, as :func:`describe_event` says it ("Ann placed ...")."""
    if ev["type"] == "GameStarted":
        return f"The game starts with {ev['players']} players"
    if ev["type"] == "MovePlayed" and names is not None:
        try:
            text = describe_event(before, ev, names)
        except Exception:  # a description is a courtesy; the notation always works
            text = ev["move"]
        return text + (f" (played by the {ev['by']})" if ev.get("by") else "")
    if ev["type"] == "MovePlayed":
        return _move_text(before, ev)
    return ev["type"]


def event_texts(events: list[dict], start: int = 0, state: GameState | None = None, names=None) -> list[str]:
    """One sentence for each of ``events[start:]`` (``events`` following ``state``; None: a game's
    log from its start), like ``games.tiletum.event_texts`` for Tiletum: see
    :func:`event_text`."""
    from .game import apply_event  # describe is imported by nothing in the rules: no cycle
    return fold_texts(events, start, state, lambda before, ev: event_text(before, ev, names),
                      lambda s, ev: apply_event(s if ev["type"] == "GameStarted" else s.clone(), ev))


def _move_text(before: GameState, ev: dict) -> str:
    try:
        m = _as_move(ev["move"], remember=True)
        text = describe(before, m)
        s = before.clone()
        m, k, err = rules.resolve(s, m)
        if err is not None:
            return ev["move"]
        scored = rules.apply(s, ev["seat"], m, k, ReplayChance(ev["chance"]) if ev["chance"] else NoChance())
    except Exception:  # a description is a courtesy; the notation always works
        return ev["move"]
    extra = [scoring_text(sc) for sc in scored]
    drawn = [v for _, v in ev["chance"]]
    extra += [f"{tile_name(t)} fits nowhere and is set aside" for t in (drawn[:-1] if s.tile else drawn)]
    if ev.get("by"):
        text += f" (played by the {ev['by']})"
    text += "; " + "; ".join(extra) if extra else ""
    if s.phase == "over":
        text += ". That was the last tile. " + describe_final(s)
    return text
