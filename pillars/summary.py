"""The end of a round in words: what each player gained, paid and converted in phase III, and why.

The engine writes what each step of phase III and each decision in it did to each player into the
round's ledger as it resolves them (``rules.note``; docs/pillars.md, "The round's ledger"); at the
round's end the ledger is the state's ``round_end``. This module only says those entries in
words (in ``lang``, None: English; docs/i18n.md): it computes no rule. Cards are named by what they
are and do, never by their ids.
"""

from __future__ import annotations

from rules_common.words import Words

from .describe import amount, craftsman, field, short_card
from .state import RES, cards
from .words import say

MINUS = "\u2212"
_ORDER = ("gold", "vp") + RES


def amounts(delta: dict, lang: str | None = None) -> str:
    """'+3 gold, −1 VP, +2 sand' (the changes in a fixed order)."""
    w, out = say(lang), []
    for k in _ORDER:
        n = delta.get(k)
        if n:
            out.append(f"{'+' if n > 0 else MINUS}{amount(k, abs(n), lang)}")
    grey, builders = delta.get("grey"), delta.get("builders")
    if grey:
        out.append(w.ngettext("{n} grey worker next round", "{n} grey workers next round", grey))
    if builders:
        out.append(w.ngettext("{n} master builder fewer next round", "{n} master builders fewer next round",
                              abs(builders)) if builders < 0 else
                   w.ngettext("{n} master builder more next round", "{n} master builders more next round",
                              builders))
    return ", ".join(out)


def _q(cid: str, lang: str | None = None) -> str:
    """A privilege's or an event's own text, quoted; a craftsman in a few words."""
    c = cards()
    if cid in c.privileges or cid in c.events:
        return f"\u201c{short_card(cid, lang)}\u201d"
    return short_card(cid, lang)


def _new(cid: str, w: Words) -> str:
    """'the Potter (1 sand for 1 VP, ×2)'."""
    name, _, does = short_card(cid, w.lang).partition(": ")
    return w._("the {name} ({does})", name=name, does=does)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _left(cids: list[str], w: Words) -> str:
    """'the Potter left the game', 'the Potter, Mason left the game'."""
    return w.ngettext("the {names} left the game", "the {names} left the game", len(cids),
                      names=", ".join(craftsman(x, w.lang) for x in cids))


def entry_text(e: dict, lang: str | None = None) -> str:
    """One ledger entry in words, under its seat's name (so it names no one, not "you" either: the page
    shows every seat's to every viewer)."""
    w = say(lang)
    why, d = e["why"], e.get("delta", {})
    said = amounts(d, lang)
    got, lost = e.get("got", []), e.get("lost", [])
    move = (e.get("move") or "").split()
    if why == "event":
        card = _q(e["card"], lang)
        if e.get("spared"):
            return w._("The event {card}: no effect (protected from it).", card=card)
        parts = [said] if said else []
        parts += [_left([x], w) for x in lost]
        return w._("The event {card}: {what}.", card=card, what="; ".join(parts) or w._("no effect"))
    if why == "lose":
        return w.ngettext("The event {card}: the {names} left the game (the player's choice).",
                          "The event {card}: the {names} left the game (the player's choice).", len(lost),
                          card=_q(e["card"], lang), names=", ".join(craftsman(x, lang) for x in lost))
    if why == "wool":
        n = e.get("n", 0)
        if not said:
            return w._("The wool mill ({n} workers) paid nothing this round (the event).", n=n)
        there = w.ngettext("{n} worker", "{n} workers", n) if n else w._("a privilege")
        return w._("The wool mill ({there}): {said}.", there=there, said=said)
    if why == "kingsbridge":
        card = _q(e["card"], lang)
        if said:
            return w._("Kingsbridge: the privilege {card}: {said}.", card=card, said=said)
        return w._("Kingsbridge: the privilege {card}, kept for later.", card=card)
    if why in ("priory", "castle"):
        return w._("{field}: {said}.", field=_cap(field(why, lang)), said=said)
    if why == "production":
        if "card" in e:
            return w._("The privilege {card}: {said}.", card=_q(e["card"], lang), said=said)
        return w.ngettext("The resource card taken: {said}.", "The resource cards taken: {said}.",
                          len(e.get("cards", [])), said=said)
    if why == "taxes":
        die = w._("Taxes (the tax die showed {n})", n=e.get("n"))
        if e.get("exempt") == "king":
            return w._("{taxes}: none to pay, a master builder at {field}.", taxes=die,
                       field=field("king", lang))
        if move[:1] == ["privilege"]:
            return w._("{taxes}: none to pay, the privilege {card} used.", taxes=die, card=_q(move[1], lang))
        if not said:
            return w._("{taxes}: no gold to pay with.", taxes=die)
        if d.get("vp", 0) < 0:
            return w._("{taxes}: {said} (not enough gold: 1 VP for every 2 gold missing).", taxes=die,
                       said=said)
        return w._("{taxes}: {said}.", taxes=die, said=said)
    if why == "metal":
        return w._("{field}: {said} (the metal there).", field=_cap(field("king", lang)), said=said)
    if why == "shiring":
        new = e.get("card") or (got[0] if got else None)
        if new is None:
            return w._("Shiring: {said}.", said=said)
        if not got:
            return w._("Shiring: the new {name} sent away (five craftsmen kept).", name=craftsman(new, lang))
        if lost:
            return w.ngettext("Shiring: {new} joins the craftsmen, the {names} left to make room.",
                              "Shiring: {new} joins the craftsmen, the {names} left to make room.", len(lost),
                              new=_new(new, w), names=", ".join(craftsman(x, lang) for x in lost))
        return w._("Shiring: {new} joins the craftsmen.", new=_new(new, w))
    if why == "archbishop":
        if move[:1] == ["protect"]:
            return w._("The Archbishop's Office: protection from the event.")
        return w._("The Archbishop's Office: {said} (from the market).", said=said)
    if why == "protection":
        return w._("The privilege {card} used: protected from the event.", card=_q(move[1], lang))
    if why == "market":
        what = amount(move[1], int(move[2]), lang)
        if move[:1] == ["buy"]:
            return w._("The market: bought {what}: {said}.", what=what, said=said)
        return w._("The market: sold {what}: {said}.", what=what, said=said)
    if why == "cathedral":
        return w.ngettext("The Cathedral: the {name} worked {n} time: {said}.",
                          "The Cathedral: the {name} worked {n} times: {said}.", int(move[2]),
                          name=craftsman(move[1], lang), said=said)
    if why == "carry":
        return w._("More than the {n} resources that may be carried over: {said} (back to the board).",
                   n=e.get("n"), said=said)
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


def seat_lines(ledger: dict, seat: int, lang: str | None = None) -> list[str]:
    """The lines of one seat, in the order the round resolved them."""
    return [entry_text(e, lang) for e in _merged([e for e in ledger["entries"] if e["seat"] == seat])]


def round_summary(ledger: dict | None, lang: str | None = None) -> dict | None:
    """The finished round in words: ``{"round", "seats": [{"vp": [before, after], "gold": [before,
    after], "lines": [...]}, ...]}``; None before the first round's end."""
    if not ledger or "end" not in ledger:
        return None
    n = len(ledger["start"]["vp"])
    return {"round": ledger["round"], "seats": [
        {"vp": [ledger["start"]["vp"][i], ledger["end"]["vp"][i]],
         "gold": [ledger["start"]["gold"][i], ledger["end"]["gold"][i]],
         "lines": seat_lines(ledger, i, lang)}
        for i in range(n)]}


def summary_text(summary: dict, names: list[str], seat: int | None = None,
                 lang: str | None = None) -> list[str]:
    """The summary as lines of text (an email's): each seat's VP and gold before and after, then its
    lines; ``seat`` (the reader) first, as "You"."""
    w = say(lang)
    order = list(range(len(summary["seats"])))
    if seat is not None:
        order.sort(key=lambda i: i != seat)
    out = [w._("The end of round {n}, player by player:", n=summary["round"])]
    for i in order:
        s = summary["seats"][i]
        who = w._("You") if i == seat else (names[i] if i < len(names) else w._("Seat {n}", n=i + 1))
        out.append(w._("{who}: {vp_before} \u2192 {vp_after} VP, {gold_before} \u2192 {gold_after} gold.",
                       who=who, vp_before=s["vp"][0], vp_after=s["vp"][1], gold_before=s["gold"][0],
                       gold_after=s["gold"][1]))
        out += [f"  - {line}" for line in s["lines"]] or ["  - " + w._("nothing changed.")]
    return out


__all__ = ["amounts", "entry_text", "round_summary", "seat_lines", "summary_text"]
