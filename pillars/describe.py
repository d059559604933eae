"""Moves and events in words, for players (API, emails, CLI)."""

from __future__ import annotations

import re

from rules_common.texts import fold_texts

from .game import _as_move
from .notation import Move
from .state import GameState, cards

FIELD = {
    "archbishop": "the Archbishop's Office",
    "kingsbridge": "Kingsbridge",
    "priory": "Kingsbridge Priory",
    "king": "the King's Court",
    "shiring": "Shiring",
    "castle": "Shiring Castle",
    "market": "the resource market",
    "cathedral": "the Cathedral",
}


def card_name(cid: str) -> str:
    """A card in words, never by its id (that is notation): 'the Potter (1 sand into 1 VP, 2 times a
    round)', 'the 3-wood card (5 workers)'."""
    c = cards()
    if cid in c.rescards:
        r = c.rescards[cid]
        return f"the {r['yield']}-{r['resource']} card ({r['workers']} workers)"
    if cid in c.privileges:
        return f"the privilege \u201c{c.privileges[cid]['text']}\u201d"
    if cid in c.events:
        return f"the event \u201c{c.events[cid]['text']}\u201d"
    k = c.craftsmen[cid]
    ins = " + ".join(f"{n} {r}" for r, n in k["inputs"].items()) or "nothing"
    outs = " + ".join(f"{n} {'VP' if r == 'vp' else r}" for r, n in k["outputs"].items())
    times = f"{k['capacity']} time{'s' if k['capacity'] != 1 else ''}"
    return f"the {k['name']} ({ins} into {outs}, {times} a round)"


def short_card(cid: str) -> str:
    """A card in a few words for the board, never its id: 'Potter: 1 sand for 1 VP, ×2' (twice a round),
    '3 sand (3 workers)', a privilege's or an event's own text."""
    c = cards()
    if cid in c.rescards:
        r = c.rescards[cid]
        return f"{r['yield']} {r['resource']} ({r['workers']} workers)"
    if cid in c.privileges:
        return c.privileges[cid]["text"].rstrip(".")
    if cid in c.events:
        return c.events[cid]["text"].rstrip(".")
    k = c.craftsmen[cid]
    ins = " + ".join(f"{n} {r}" for r, n in k["inputs"].items()) or "nothing"
    outs = " + ".join(f"{n} {'VP' if r == 'vp' else r}" for r, n in k["outputs"].items())
    return f"{k['name']}: {ins} for {outs}, \u00d7{k['capacity']}"


def _seat(seat: int | None, names) -> str:
    if seat is not None and names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"seat {seat}"


def describe(s: GameState, m: Move | str) -> str:
    """What this move does here, in a short sentence (imperative)."""
    m = _as_move(m)
    v, a = m.verb, m.args
    if v == "take":
        text = f"Take {card_name(a[0])}"
        if len(a) == 3:
            text += " and discard it at once" if a[2] == a[0] else f", discarding {card_name(a[2])}"
        return text
    if v == "pass":
        if s.phase == "cards":
            return "Take no more cards this round"
        if s.phase == "builders":
            return "Pass: the master builder waits to be placed for free after the bag is empty"
        return "Leave the market"
    if v == "keep":
        return "Let the drawn master builder stay"
    if v == "redraw":
        return "Put the drawn master builder back into the bag and draw again (once a round)"
    if v == "place":
        where = FIELD[a[0]] + (f", for {card_name(a[1])}" if len(a) == 2 else "")
        return f"Place the master builder at {where}"
    if v == "protect":
        return "Be immune to this round's event"
    if v == "collect":
        return f"Take 1 {a[0]} from the market"
    if v == "privilege":
        return f"Use {card_name(a[0])}"
    if v == "decline":
        return "Decline"
    if v == "discard":
        return f"Remove {card_name(a[0])} from the game"
    if v in ("buy", "sell"):
        price = cards().price[a[0]] * int(a[1])
        return f"{v.title()} {a[1]} {a[0]} for {price} gold"
    if v == "use":
        return f"Let {card_name(a[0])} work {a[1]} time{'s' if a[1] != '1' else ''}"
    if v == "done":
        return "End your conversions at the Cathedral"
    if v == "drop":
        return f"Return 1 {a[0]} to the board (more than you may carry over)"
    return str(m)


def _reveal(kind: str, value, names) -> str:
    if kind == "builder":
        return f"a master builder of {_seat(value, names)} is drawn from the bag"
    if kind == "tax":
        return f"the tax die shows {value}"
    if kind == "event":
        return f"{card_name(value)} is revealed"
    if kind == "privilege":
        return f"{card_name(value)} goes to Kingsbridge"
    if kind == "shiring":
        return f"{card_name(value)} goes to Shiring"
    return f"{card_name(value)} is set aside this round"


def describe_event(before: GameState | None, event: dict, names=None) -> str:
    """One event in words: who did what and what was revealed."""
    if event["type"] == "GameStarted":
        return (
            f"A game of The Pillars of the Earth for {event['players']} players begins; "
            + "; ".join(_reveal(k, v, names) for k, v in event["chance"])
            + "."
        )
    if event["type"] != "MovePlayed" or before is None:
        return event["type"]
    text = describe(before, event["move"])
    text = f"{_seat(event['seat'], names)}: {text[:1].lower()}{text[1:]}"
    if event["chance"]:
        text += "; " + "; ".join(_reveal(k, v, names) for k, v in event["chance"])
    return text + "."


def said_by(text: str, who: str, own: str = "their") -> str:
    """A move's imperative text (:func:`describe`) as a seat's deed: "Take the ..." said of Ann is
    "Ann takes the ..."; outside the cards' own quoted texts, "your" becomes ``own`` ("its" for a
    machine's seat) and "you" "they" ("it")."""
    verb, _, rest = text.partition(" ")
    third = {"Be": "is", "Pass:": "passes:"}.get(verb) or verb.lower() + ("es" if verb.endswith("s") else "s")
    they = "it" if own == "its" else "they"
    parts = re.split(r"(\u201c[^\u201d]*\u201d)", rest)   # the cards' texts, quoted, stay as printed
    for i in range(0, len(parts), 2):
        s = re.sub(r"\byour\b", own, parts[i])
        s = re.sub(r"\byou\b", they, s)
        parts[i] = s.replace(" and discard it at once", " and discards it at once").replace(
            " and draw again", " and draws again")
    return f"{who} {third} {''.join(parts)}".rstrip()


def event_text(before: GameState | None, event: dict, names=None, machines=frozenset()) -> str:
    """One event in words, in the position ``before`` it (None before the first event; only read).
    Without ``names`` the move in the imperative, as :func:`describe` says it, then what it
    revealed; with the seats' ``names``, in the third person ("Ann takes the ..."), the seats in
    ``machines`` as "its". The game's end adds the result."""
    if event["type"] == "GameStarted":
        return (
            f"The game starts with {event['players']} players: "
            + "; ".join(_reveal(k, v, names) for k, v in event["chance"])
        )
    if event["type"] != "MovePlayed" or before is None:
        return event["type"]
    from .game import apply_event

    try:
        text = describe(before, event["move"])
        if names is not None:
            seat = event["seat"]
            text = said_by(text, _seat(seat, names), "its" if seat in machines else "their")
    except Exception:  # a description is a courtesy; the notation always works
        return event["move"]
    if event.get("by"):
        text += f" (played by the {event['by']})"
    if event["chance"]:
        text += "; " + "; ".join(_reveal(k, v, names) for k, v in event["chance"])
    try:
        after = apply_event(before.clone(), event)
    except Exception:  # pragma: no cover - an event the engine wrote always folds
        return text
    if after.phase == "over":
        text += ". " + describe_final(after, names)
    return text


def describe_final(s: GameState, names=None) -> str:
    """The result in words."""
    if s.final is None:
        return "The game is not over."
    result = ", ".join(f"{_seat(i, names)} {v} VP ({s.gold[i]} gold)" for i, v in enumerate(s.vp))
    won = " and ".join(_seat(w, names) for w in s.winners)
    verb = "wins" if len(s.winners) == 1 else "share the victory"
    return f"The cathedral is finished. {result}. {won[:1].upper()}{won[1:]} {verb}."


def event_texts(events: list[dict], start: int = 0, state: GameState | None = None, names=None) -> list[str]:
    """One sentence for each of ``events[start:]`` (``events`` following ``state``)."""
    from .game import apply_event  # describe is imported by nothing in the rules: no cycle

    def text(before: GameState | None, ev: dict) -> str:
        try:
            return describe_event(before, ev, names)
        except Exception:  # a description is a courtesy; the notation always works
            return ev.get("move", ev["type"])

    return fold_texts(events, start, state, text, lambda s, ev: apply_event(
        s.clone() if s is not None and ev["type"] != "GameStarted" else None, ev))


__all__ = ["card_name", "describe", "describe_event", "describe_final", "event_text", "event_texts",
           "said_by"]
