"""Moves and events in words, for players (API, emails, CLI), in a language (``lang``: None is English;
docs/i18n.md, "The games' own words"): the messages are in the game's catalogs (pillars/words.py)."""

from __future__ import annotations

import re
from typing import Any

from rules_common.texts import fold_texts
from rules_common.words import Words

from .game import _as_move
from .notation import Move
from .state import GameState, cards
from .words import N_, NC_, NP_, say

FIELD = {
    "archbishop": NC_("field", "the Archbishop's Office"),
    "kingsbridge": NC_("field", "Kingsbridge"),
    "priory": NC_("field", "Kingsbridge Priory"),
    "king": NC_("field", "the King's Court"),
    "shiring": NC_("field", "Shiring"),
    "castle": NC_("field", "Shiring Castle"),
    "market": NC_("field", "the resource market"),
    "cathedral": NC_("field", "the Cathedral"),
}
# where a master builder stands or is placed ("at the King's Court": German "am Königshof")
FIELD_AT = {
    "archbishop": NC_("at field", "at the Archbishop's Office"),
    "kingsbridge": NC_("at field", "at Kingsbridge"),
    "priory": NC_("at field", "at Kingsbridge Priory"),
    "king": NC_("at field", "at the King's Court"),
    "shiring": NC_("at field", "at Shiring"),
    "castle": NC_("at field", "at Shiring Castle"),
    "market": NC_("at field", "at the resource market"),
    "cathedral": NC_("at field", "at the Cathedral"),
}
PHASE = {
    "cards": N_("Phase I: resource cards and craftsmen"),
    "builders": N_("Phase II: master builders"),
    "placing": N_("Phase II: passed master builders placed"),
    "actions": N_("Phase III: the board's actions"),
    "over": N_("The game is over"),
}
# an amount of a resource, gold or victory points ("3 wood", "8 gold")
AMOUNT = {"stone": NP_("{n} stone", "{n} stone"), "wood": NP_("{n} wood", "{n} wood"),
          "sand": NP_("{n} sand", "{n} sand"), "metal": NP_("{n} metal", "{n} metal"),
          "gold": NP_("{n} gold", "{n} gold"), "vp": NP_("{n} VP", "{n} VP")}
RESOURCE = {"stone": NC_("resource", "stone"), "wood": NC_("resource", "wood"),
            "sand": NC_("resource", "sand"), "metal": NC_("resource", "metal")}


def field(f: str, lang: str | None = None) -> str:
    """A field of the board in words ("the King's Court")."""
    return say(lang).pgettext("field", FIELD[f])


def field_at(f: str, lang: str | None = None) -> str:
    """Where on the board ("at the King's Court")."""
    return say(lang).pgettext("at field", FIELD_AT[f])


def phase_name(phase: str, lang: str | None = None) -> str:
    return say(lang)._(PHASE[phase])


def amount(kind: str, n: int, lang: str | None = None) -> str:
    """'3 wood', '8 gold', '2 VP' in the language."""
    return say(lang).ngettext(*AMOUNT[kind], n)


def resource(r: str, lang: str | None = None) -> str:
    return say(lang).pgettext("resource", RESOURCE[r])


def craftsman(cid: str, lang: str | None = None) -> str:
    """A craftsman's own name ("Potter")."""
    return say(lang).pgettext("craftsman", cards().craftsmen[cid]["name"])


def card_text(cid: str, lang: str | None = None) -> str:
    """A privilege's or an event's own text."""
    c = cards()
    return say(lang)._((c.privileges.get(cid) or c.events[cid])["text"])


def _conversion(k: dict, w: Words) -> tuple[str, str]:
    ins = " + ".join(w.ngettext(*AMOUNT[r], n) for r, n in k["inputs"].items()) or w._("nothing")
    outs = " + ".join(w.ngettext(*AMOUNT[r], n) for r, n in k["outputs"].items())
    return ins, outs


def card_name(cid: str, lang: str | None = None) -> str:
    """A card in words, never by its id (that is notation): 'the Potter (1 sand into 1 VP, 2 times a
    round)', 'the 3-wood card (5 workers)'."""
    w, c = say(lang), cards()
    if cid in c.rescards:
        r = c.rescards[cid]
        return w._("the {n}-{resource} card ({workers} workers)", n=r["yield"],
                   resource=resource(r["resource"], lang), workers=r["workers"])
    if cid in c.privileges:
        return w._("the privilege \u201c{text}\u201d", text=card_text(cid, lang))
    if cid in c.events:
        return w._("the event \u201c{text}\u201d", text=card_text(cid, lang))
    k = c.craftsmen[cid]
    ins, outs = _conversion(k, w)
    times = w.ngettext("{n} time a round", "{n} times a round", k["capacity"])
    return w._("the {name} ({inputs} into {outputs}, {times})", name=craftsman(cid, lang), inputs=ins,
               outputs=outs, times=times)


def short_card(cid: str, lang: str | None = None) -> str:
    """A card in a few words for the board, never its id: 'Potter: 1 sand for 1 VP, ×2' (twice a round),
    '3 sand (3 workers)', a privilege's or an event's own text."""
    w, c = say(lang), cards()
    if cid in c.rescards:
        r = c.rescards[cid]
        return w._("{amount} ({workers} workers)", amount=amount(r["resource"], r["yield"], lang),
                   workers=r["workers"])
    if cid in c.privileges or cid in c.events:
        return card_text(cid, lang).rstrip(".")
    k = c.craftsmen[cid]
    ins, outs = _conversion(k, w)
    return w._("{name}: {inputs} for {outputs}, \u00d7{n}", name=craftsman(cid, lang), inputs=ins,
               outputs=outs, n=k["capacity"])


def _seat(seat: int | None, names, w: Words | None = None) -> str:
    if seat is not None and names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return (w or say())._("seat {n}", n=seat)


# A move in words: (the imperative, said to the player; the deed, said of a seat "{who}"). English says
# the deed from the imperative (:func:`said_by`); another language from its own message.
MOVES: dict[str, tuple[Any, Any]] = {
    "take": (N_("Take {card}"), N_("{who} takes {card}")),
    "take-discard": (N_("Take {card} and discard it at once"),
                     N_("{who} takes {card} and discards it at once")),
    "take-swap": (N_("Take {card}, discarding {other}"), N_("{who} takes {card}, discarding {other}")),
    "pass-cards": (N_("Take no more cards this round"), N_("{who} takes no more cards this round")),
    "pass-builders": (N_("Pass: the master builder waits to be placed for free after the bag is empty"),
                      N_("{who} passes: the master builder waits to be placed for free after the bag is "
                         "empty")),
    "pass": (N_("Leave the market"), N_("{who} leaves the market")),
    "keep": (N_("Let the drawn master builder stay"), N_("{who} lets the drawn master builder stay")),
    "redraw": (N_("Put the drawn master builder back into the bag and draw again (once a round)"),
               N_("{who} puts the drawn master builder back into the bag and draws again (once a round)")),
    "place": (N_("Place the master builder {at}"), N_("{who} places the master builder {at}")),
    "place-for": (N_("Place the master builder {at}, for {card}"),
                  N_("{who} places the master builder {at}, for {card}")),
    "protect": (N_("Be immune to this round's event"), N_("{who} is immune to this round's event")),
    "collect": (N_("Take {amount} from the market"), N_("{who} takes {amount} from the market")),
    "privilege": (N_("Use {card}"), N_("{who} uses {card}")),
    "decline": (N_("Decline"), N_("{who} declines")),
    "discard": (N_("Remove {card} from the game"), N_("{who} removes {card} from the game")),
    "buy": (N_("Buy {amount} for {price}"), N_("{who} buys {amount} for {price}")),
    "sell": (N_("Sell {amount} for {price}"), N_("{who} sells {amount} for {price}")),
    "use": (NP_("Let {card} work {n} time", "Let {card} work {n} times"),
            NP_("{who} lets {card} work {n} time", "{who} lets {card} work {n} times")),
    "done": (N_("End your conversions at the Cathedral"),
             N_("{who} ends their conversions at the Cathedral")),
    "drop": (N_("Return {amount} to the board (more than you may carry over)"),
             N_("{who} returns {amount} to the board (more than they may carry over)")),
}


def _said(s: GameState, m: Move, lang: str | None) -> tuple[str, dict]:
    """The move's kind in :data:`MOVES` and what its message is filled with."""
    v, a = m.verb, m.args
    if v == "take":
        kind = "take" if len(a) != 3 else "take-discard" if a[2] == a[0] else "take-swap"
        other = {"other": card_name(a[2], lang)} if len(a) == 3 else {}
        return kind, {"card": card_name(a[0], lang), **other}
    if v == "pass":
        return {"cards": "pass-cards", "builders": "pass-builders"}.get(s.phase, "pass"), {}
    if v == "place":
        at = field_at(a[0], lang)
        if len(a) == 2:
            return "place-for", {"at": at, "card": card_name(a[1], lang)}
        return "place", {"at": at}
    if v in ("collect", "drop"):
        return v, {"amount": amount(a[0], 1, lang)}
    if v in ("privilege", "discard"):
        return v, {"card": card_name(a[0], lang)}
    if v in ("buy", "sell"):
        n = int(a[1])
        return v, {"amount": amount(a[0], n, lang), "price": amount("gold", cards().price[a[0]] * n, lang)}
    if v == "use":
        return v, {"card": card_name(a[0], lang), "n": int(a[1])}
    return v, {}


def _words_of(s: GameState, m: Move, w: Words, who: str | None = None) -> str:
    kind, values = _said(s, m, w.lang)
    message = MOVES[kind][0 if who is None else 1]
    if who is not None:
        values["who"] = who
    if isinstance(message, tuple):
        singular, plural = message
        return w.ngettext(singular, plural, values.pop("n"), **values)
    return w._(message, **values)


def describe(s: GameState, m: Move | str, lang: str | None = None) -> str:
    """What this move does here, in a short sentence (imperative)."""
    m = _as_move(m)
    if m.verb not in ("take", "pass", "keep", "redraw", "place", "protect", "collect", "privilege", "decline",
                      "discard", "buy", "sell", "use", "done", "drop"):
        return str(m)
    return _words_of(s, m, say(lang))


def deed(s: GameState, m: Move | str, who: str, own: str = "their", lang: str | None = None) -> str:
    """The move as a seat's deed ("Ann takes the ..."): in English said from the imperative
    (:func:`said_by`, ``own`` "its" for a machine's seat), in another language its own message."""
    w = say(lang)
    if w.english:
        return said_by(describe(s, m), who, own)
    m = _as_move(m)
    if m.verb not in {k.split("-")[0] for k in MOVES}:
        return str(m)
    return _words_of(s, m, w, who)


REVEAL = {"builder": N_("a master builder of {who} is drawn from the bag"),
          "tax": N_("the tax die shows {n}"),
          "event": N_("{card} is revealed"),
          "privilege": N_("{card} goes to Kingsbridge"),
          "shiring": N_("{card} goes to Shiring")}


def _reveal(kind: str, value, names, w: Words) -> str:
    if kind == "builder":
        return w._(REVEAL[kind], who=_seat(value, names, w))
    if kind == "tax":
        return w._(REVEAL[kind], n=value)
    if kind in REVEAL:
        return w._(REVEAL[kind], card=card_name(value, w.lang))
    return w._("{card} is set aside this round", card=card_name(value, w.lang))


def _reveals(chance, names, w: Words) -> str:
    return "; ".join(_reveal(k, v, names, w) for k, v in chance)


def describe_event(before: GameState | None, event: dict, names=None, lang: str | None = None) -> str:
    """One event in words: who did what and what was revealed."""
    w = say(lang)
    if event["type"] == "GameStarted":
        return w._("A game of The Pillars of the Earth for {n} players begins; {reveals}.",
                   n=event["players"], reveals=_reveals(event["chance"], names, w))
    if event["type"] != "MovePlayed" or before is None:
        return event["type"]
    who = _seat(event["seat"], names, w)
    if w.english:
        text = describe(before, event["move"])
        text = f"{who}: {text[:1].lower()}{text[1:]}"
    else:
        text = deed(before, event["move"], who, lang=lang)
    if event["chance"]:
        text += "; " + _reveals(event["chance"], names, w)
    return text + "."


def said_by(text: str, who: str, own: str = "their") -> str:
    """A move's imperative text (:func:`describe`, in English) as a seat's deed: "Take the ..." said of
    Ann is "Ann takes the ..."; outside the cards' own quoted texts, "your" becomes ``own`` ("its" for
    a machine's seat) and "you" "they" ("it")."""
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



def event_text(before: GameState | None, event: dict, names=None, machines=frozenset(),
               lang: str | None = None) -> str:
    """One event in words, in the position ``before`` it (None before the first event; only read).
    Without ``names`` the move in the imperative, as :func:`describe` says it, then what it
    revealed; with the seats' ``names``, in the third person ("Ann takes the ..."), the seats in
    ``machines`` as "its". The game's end adds the result. In ``lang`` (English by default)."""
    w = say(lang)
    if event["type"] == "GameStarted":
        return w._("The game starts with {n} players: {reveals}", n=event["players"],
                   reveals=_reveals(event["chance"], names, w))
    if event["type"] != "MovePlayed" or before is None:
        return event["type"]
    from .game import apply_event

    try:
        if names is not None:
            seat = event["seat"]
            own = "its" if seat in machines else "their"
            text = deed(before, event["move"], _seat(seat, names, w), own, lang)
        else:
            text = describe(before, event["move"], lang)
    except Exception:  # a description is a courtesy; the notation always works
        return event["move"]
    text = w.played_by(text, event.get("by"))
    if event["chance"]:
        text += "; " + _reveals(event["chance"], names, w)
    try:
        after = apply_event(before.clone(), event)
    except Exception:  # pragma: no cover - an event the engine wrote always folds
        return text
    if after.phase == "over":
        text += ". " + describe_final(after, names, lang)
    return text


def describe_final(s: GameState, names=None, lang: str | None = None) -> str:
    """The result in words."""
    w = say(lang)
    if s.final is None:
        return w._("The game is not over.")
    result = ", ".join(w._("{who} {vp} ({gold})", who=_seat(i, names, w), vp=amount("vp", v, lang),
                           gold=amount("gold", s.gold[i], lang)) for i, v in enumerate(s.vp))
    winners = [_seat(x, names, w) for x in s.winners]
    won = " and ".join(winners) if w.english else w.list(winners)
    won = won[:1].upper() + won[1:]
    return w.ngettext("The cathedral is finished. {result}. {who} wins.",
                      "The cathedral is finished. {result}. {who} share the victory.", len(s.winners),
                      result=result, who=won)


def event_texts(events: list[dict], start: int = 0, state: GameState | None = None, names=None,
                lang: str | None = None) -> list[str]:
    """One sentence for each of ``events[start:]`` (``events`` following ``state``)."""
    from .game import apply_event  # describe is imported by nothing in the rules: no cycle

    def text(before: GameState | None, ev: dict) -> str:
        try:
            return describe_event(before, ev, names, lang)
        except Exception:  # a description is a courtesy; the notation always works
            return ev.get("move", ev["type"])

    return fold_texts(events, start, state, text, lambda s, ev: apply_event(
        s.clone() if s is not None and ev["type"] != "GameStarted" else None, ev))


__all__ = ["FIELD", "FIELD_AT", "PHASE", "amount", "card_name", "card_text", "craftsman", "deed", "describe",
           "describe_event", "describe_final", "event_text", "event_texts", "field", "field_at", "phase_name",
           "resource", "said_by", "short_card"]
