"""The end of a round in words: what each player gained, paid and converted in phase III, and why.

The engine writes what each step of phase III and each decision in it did to each player into the
round's ledger as it resolves them (``rules.note``; docs/pillars.md, "The round's ledger"); at the
round's end the ledger is the state's ``round_end``. This module only says those entries in
words: it computes no rule. Cards are named by what they are and do, never by their ids.
"""

from __future__ import annotations

from .describe import FIELD, short_card
from .state import RES, cards

MINUS = "\u2212"
_ORDER = ("gold", "vp") + RES
_UNIT = {"vp": "VP", "gold": "gold"}


def amounts(delta: dict) -> str:
    """'+3 gold, −1 VP, +2 sand' (the changes in a fixed order)."""
    out = []
    for k in _ORDER:
        n = delta.get(k)
        if n:
            out.append(f"{'+' if n > 0 else MINUS}{abs(n)} {_UNIT.get(k, k)}")
    grey, builders = delta.get("grey"), delta.get("builders")
    if grey:
        out.append(f"{grey} grey worker{'s' if grey != 1 else ''} next round")
    if builders:
        out.append(f"{abs(builders)} master builder{'s' if abs(builders) != 1 else ''} "
                   f"{'fewer' if builders < 0 else 'more'} next round")
    return ", ".join(out)


def _q(cid: str) -> str:
    """A privilege's or an event's own text, quoted; a craftsman in a few words."""
    c = cards()
    if cid in c.privileges or cid in c.events:
        return f"\u201c{short_card(cid)}\u201d"
    return short_card(cid)


def _new(cid: str) -> str:
    """'the Potter (1 sand for 1 VP, ×2)'."""
    name, _, does = short_card(cid).partition(": ")
    return f"the {name} ({does})"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _craftsman(cid: str) -> str:
    return cards().craftsmen[cid]["name"]


def entry_text(e: dict) -> str:
    """One ledger entry in words, under its seat's name (so it names no one, not "you" either: the page
    shows every seat's to every viewer)."""
    why, d = e["why"], e.get("delta", {})
    said = amounts(d)
    got, lost = e.get("got", []), e.get("lost", [])
    move = (e.get("move") or "").split()
    if why == "event":
        if e.get("spared"):
            return f"The event {_q(e['card'])}: no effect (protected from it)."
        parts = [said] if said else []
        parts += [f"the {_craftsman(x)} left the game" for x in lost]
        return f"The event {_q(e['card'])}: " + ("; ".join(parts) or "no effect") + "."
    if why == "lose":
        return (f"The event {_q(e['card'])}: the " + ", ".join(_craftsman(x) for x in lost)
                + " left the game (the player's choice).")
    if why == "wool":
        if not said:
            return f"The wool mill ({e.get('n', 0)} workers) paid nothing this round (the event)."
        n = e.get("n", 0)
        there = f"{n} worker{'s' if n != 1 else ''}" if n else "a privilege"
        return f"The wool mill ({there}): {said}."
    if why == "kingsbridge":
        return f"Kingsbridge: the privilege {_q(e['card'])}" + (f": {said}." if said else ", kept for later.")
    if why == "priory":
        return f"{FIELD['priory']}: {said}."
    if why == "production":
        if "card" in e:
            return f"The privilege {_q(e['card'])}: {said}."
        n = len(e.get("cards", []))
        return f"The resource card{'s' if n != 1 else ''} taken: {said}."
    if why == "taxes":
        die = f"Taxes (the tax die showed {e.get('n')})"
        if e.get("exempt") == "king":
            return f"{die}: none to pay, a master builder at {FIELD['king']}."
        if move[:1] == ["privilege"]:
            return f"{die}: none to pay, the privilege {_q(move[1])} used."
        if not said:
            return f"{die}: no gold to pay with."
        short = (" (not enough gold: 1 VP for every 2 gold missing)" if d.get("vp", 0) < 0 else "")
        return f"{die}: {said}{short}."
    if why == "metal":
        return f"{_cap(FIELD['king'])}: {said} (the metal there)."
    if why == "shiring":
        new = e.get("card") or (got[0] if got else None)
        if new is None:
            return f"Shiring: {said}."
        if not got:
            return f"Shiring: the new {_craftsman(new)} sent away (five craftsmen kept)."
        text = f"Shiring: {_new(new)} joins the craftsmen"
        if lost:
            text += ", the " + ", ".join(_craftsman(x) for x in lost) + " left to make room"
        return text + "."
    if why == "castle":
        return f"{FIELD['castle']}: {said}."
    if why == "archbishop":
        if move[:1] == ["protect"]:
            return "The Archbishop's Office: protection from the event."
        return f"The Archbishop's Office: {said} (from the market)."
    if why == "protection":
        return f"The privilege {_q(move[1])} used: protected from the event."
    if why == "market":
        verb = "bought" if move[:1] == ["buy"] else "sold"
        return f"The market: {verb} {move[2]} {move[1]}: {said}."
    if why == "cathedral":
        n = int(move[2])
        return (f"The Cathedral: the {_craftsman(move[1])} worked {n} time{'s' if n != 1 else ''}: "
                f"{said}.")
    if why == "carry":
        return f"More than the {e.get('n')} resources that may be carried over: {said} (back to the board)."
    return said + "."  # pragma: no cover - every kind the engine writes is said above


def _merged(entries: list[dict]) -> list[dict]:
    """Consecutive entries of one kind that are said as one (the cubes returned one at a time)."""
    out: list[dict] = []
    for e in entries:
        if out and e["why"] == "carry" and out[-1]["why"] == "carry":
            d = dict(out[-1]["delta"])
            for k, n in e.get("delta", {}).items():
                d[k] = d.get(k, 0) + n
            out[-1] = {**out[-1], "delta": d}
        else:
            out.append(e)
    return out


def seat_lines(ledger: dict, seat: int) -> list[str]:
    """The lines of one seat, in the order the round resolved them."""
    return [entry_text(e) for e in _merged([e for e in ledger["entries"] if e["seat"] == seat])]


def round_summary(ledger: dict | None) -> dict | None:
    """The finished round in words: ``{"round", "seats": [{"vp": [before, after], "gold": [before,
    after], "lines": [...]}, ...]}``; None before the first round's end."""
    if not ledger or "end" not in ledger:
        return None
    n = len(ledger["start"]["vp"])
    return {"round": ledger["round"], "seats": [
        {"vp": [ledger["start"]["vp"][i], ledger["end"]["vp"][i]],
         "gold": [ledger["start"]["gold"][i], ledger["end"]["gold"][i]],
         "lines": seat_lines(ledger, i)}
        for i in range(n)]}


def summary_text(summary: dict, names: list[str], seat: int | None = None) -> list[str]:
    """The summary as lines of text (an email's): each seat's VP and gold before and after, then its
    lines; ``seat`` (the reader) first, as "You"."""
    order = list(range(len(summary["seats"])))
    if seat is not None:
        order.sort(key=lambda i: i != seat)
    out = [f"The end of round {summary['round']}, player by player:"]
    for i in order:
        s = summary["seats"][i]
        who = "You" if i == seat else (names[i] if i < len(names) else f"Seat {i + 1}")
        out.append(f"{who}: {s['vp'][0]} \u2192 {s['vp'][1]} VP, {s['gold'][0]} \u2192 {s['gold'][1]} gold.")
        out += [f"  - {line}" for line in s["lines"]] or ["  - nothing changed."]
    return out


__all__ = ["amounts", "entry_text", "round_summary", "seat_lines", "summary_text"]
