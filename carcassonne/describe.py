"""Moves and events in words, for players (API, emails, CLI)."""
from __future__ import annotations

from rules_common.errors import said
from rules_common.texts import fold_texts

from . import rules
from .chance import NoChance, ReplayChance
from .game import _as_move
from .notation import Move
from .pieces import cell_words, tile_phrase
from .state import GameState
from .words import N_, NC_, NP_, say

SIDE = {"N": "north", "E": "east", "S": "south", "W": "west",
        "NE": "north-east", "SE": "south-east", "SW": "south-west", "NW": "north-west"}
FEATURE = {"thief": "road", "knight": "city", "farmer": "field", "monk": "cloister"}
# a follower's spot on the tile, as an adjective of its feature ("on its north road")
SPOT_SAID = {"N": NC_("spot", "north"), "E": NC_("spot", "east"), "S": NC_("spot", "south"),
             "W": NC_("spot", "west"), "NE": NC_("spot", "north-east"), "SE": NC_("spot", "south-east"),
             "SW": NC_("spot", "south-west"), "NW": NC_("spot", "north-west")}
WITH_ROLE = {"thief": N_(", with a thief on its {spot} road"),
             "knight": N_(", with a knight on its {spot} city"),
             "farmer": N_(", with a farmer on its {spot} field")}
# what a scoring scored: (completed, incomplete) for a road or a city of n tiles, a cloister
SCORED = {"road": (NP_("completed road of {n} tile", "completed road of {n} tiles"),
                   NP_("incomplete road of {n} tile", "incomplete road of {n} tiles")),
          "city": (NP_("completed city of {n} tile", "completed city of {n} tiles"),
                   NP_("incomplete city of {n} tile", "incomplete city of {n} tiles"))}
CLOISTER_SCORED = (N_("completed cloister"), N_("incomplete cloister"))


def tile_name(letter: str, rot: int = 0, lang: str | None = None) -> str:
    """A tile in words, as turned, never by its letter (notation; issue 42): 'a tile with a city on
    the north side and a road from east to west' (carcassonne/pieces.py)."""
    return tile_phrase(letter, rot, lang)


def _seat(seat: int, names, w=None) -> str:
    if names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return (w or say())._("seat {n}", n=seat)


def _placing(s: GameState, m: Move, w) -> str:
    tile = tile_name(s.tile, m.rot, w.lang) if s.tile else w._("the tile")
    text = w._("{tile}, {cell}, turned {rot}°", tile=tile, cell=cell_words(m.x, m.y, w.lang), rot=m.rot)
    if m.role == "monk":
        return text + w._(", with a monk in its cloister")
    if m.role:
        return text + w._(WITH_ROLE[m.role], spot=w.pgettext("spot", SPOT_SAID[m.spot]))
    return text + w._(", without a follower")


def describe(s: GameState, m: Move | str, lang: str | None = None) -> str:
    """What this move does here, in a short sentence."""
    w = say(lang)
    return w._("Place {placing}", placing=_placing(s, _as_move(m), w))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def scoring_text(sc: dict, names=None, lang: str | None = None) -> str:
    w = say(lang)
    kind = sc["kind"]
    done = sc.get("complete", True)
    if kind == "farm":
        what = w._("farm supplying a completed city")
    elif kind == "cloister":
        what = w._(CLOISTER_SCORED[0 if done else 1])
    else:
        what = w.ngettext(*SCORED[kind][0 if done else 1], sc["tiles"])
        if sc.get("shields"):
            what = w.ngettext("{what} and {n} shield", "{what} and {n} shields", sc["shields"], what=what)
    if not sc["seats"]:
        return w._("{what}: no follower, no points", what=what)
    who = w.list([_seat(x, names, w) for x in sc["seats"]])
    return w.ngettext("{what}: {n} point to {who}", "{what}: {n} points to {who}", sc["points"],
                      what=what, who=who)


def describe_event(before: GameState | None, event: dict, names=None, lang: str | None = None) -> str:
    """One event in words: what was placed, what it scored, who got followers back, what was
    drawn. ``before`` is the state the event applies to (None for GameStarted)."""
    w = say(lang)
    if event["type"] == "GameStarted":
        first = event["chance"][-1][1] if event["chance"] else "?"
        return w._("A game of Carcassonne for {n} players begins with the start tile; {who} draws {tile}.",
                   n=event["players"], who=_seat(0, names, w), tile=tile_name(first, 0, lang))
    if event["type"] != "MovePlayed":
        return event["type"]
    s = before.clone()
    m = _as_move(event["move"], remember=True)
    seat = event["seat"]
    placed_text = _placing(before, m, w)
    m, k, err = rules.resolve(s, m)
    if err is not None:
        return w._("{who}: {move} (not playable here: {why})", who=_seat(seat, names, w), move=event["move"],
                   why=said(err[1], w))
    chance = ReplayChance(event["chance"]) if event["chance"] else NoChance()
    scored = rules.apply(s, seat, m, k, chance)
    parts = [_cap(w._("{who} placed {placing}.", who=_seat(seat, names, w), placing=placed_text))]
    for sc in scored:
        text = _cap(scoring_text(sc, names, lang))
        back = [w._("{n} to {who}", n=n, who=_seat(int(x), names, w)) for x, n in sc["returned"].items()]
        parts.append((w._("{scoring}; followers back: {back}", scoring=text, back=", ".join(back))
                      if back else text) + ".")
    drawn = [v for _, v in event["chance"]]
    for t in drawn[:-1] if s.tile else drawn:
        parts.append(w._("Drawn and set aside (it fits nowhere): {tile}.", tile=tile_name(t, 0, lang)))
    if s.phase == "over":
        parts.append(w._("That was the last tile. {final}", final=describe_final(s, names, lang)))
    else:
        parts.append(_cap(w._("{who} draws {tile}.", who=_seat(s.actor, names, w),
                              tile=tile_name(s.tile, 0, lang))))
    return " ".join(parts)


def describe_final(s: GameState, names=None, lang: str | None = None) -> str:
    """The final scoring and the result in words."""
    w = say(lang)
    if s.final is None:
        return w._("The game is not over.")
    lines = [scoring_text(sc, names, lang) for sc in s.final["scorings"]]
    result = ", ".join(f"{_seat(i, names, w)} {v}" for i, v in enumerate(s.scores))
    won = _cap(w.list([_seat(x, names, w) for x in s.winners]))
    body = "; ".join(_cap(x) for x in lines) if lines else w._("Nothing to score")
    return w._("Final scoring: {body}. Scores: {scores}. {result}.", body=body, scores=result,
               result=w.ngettext("{who} wins", "{who} share the victory", len(s.winners), who=won))



def event_text(before: GameState | None, ev: dict, names=None, lang: str | None = None) -> str:
    """One event in words, in the position ``before`` it (None before the game's first event);
    ``before`` is only read. Without ``names``, the move in the imperative, as :func:`describe`
    says it, then what it scored and the tiles set aside; with the seats' ``names``, in the third
    person, as :func:`describe_event` says it ("Ann placed ..."). In ``lang`` (English by default)."""
    w = say(lang)
    if ev["type"] == "GameStarted":
        return w._("The game starts with {n} players", n=ev["players"])
    if ev["type"] == "MovePlayed" and names is not None:
        try:
            text = describe_event(before, ev, names, lang)
        except Exception:  # a description is a courtesy; the notation always works
            text = ev["move"]
        return w.played_by(text, ev.get("by"))
    if ev["type"] == "MovePlayed":
        return _move_text(before, ev, w)
    return ev["type"]


def event_texts(events: list[dict], start: int = 0, state: GameState | None = None, names=None,
                lang: str | None = None) -> list[str]:
    """One sentence for each of ``events[start:]`` (``events`` following ``state``; None: a game's
    log from its start), like ``games.tiletum.event_texts`` for Tiletum: see
    :func:`event_text`."""
    from .game import apply_event  # describe is imported by nothing in the rules: no cycle
    return fold_texts(events, start, state, lambda before, ev: event_text(before, ev, names, lang),
                      lambda s, ev: apply_event(s if ev["type"] == "GameStarted" else s.clone(), ev))


def _move_text(before: GameState, ev: dict, w) -> str:
    try:
        m = _as_move(ev["move"], remember=True)
        text = describe(before, m, w.lang)
        s = before.clone()
        m, k, err = rules.resolve(s, m)
        if err is not None:
            return ev["move"]
        scored = rules.apply(s, ev["seat"], m, k, ReplayChance(ev["chance"]) if ev["chance"] else NoChance())
    except Exception:  # a description is a courtesy; the notation always works
        return ev["move"]
    extra = [scoring_text(sc, None, w.lang) for sc in scored]
    drawn = [v for _, v in ev["chance"]]
    extra += [w._("{tile} fits nowhere and is set aside", tile=tile_name(t, 0, w.lang))
              for t in (drawn[:-1] if s.tile else drawn)]
    text = w.played_by(text, ev.get("by"))
    text += "; " + "; ".join(extra) if extra else ""
    if s.phase == "over":
        text += ". " + w._("That was the last tile. {final}", final=describe_final(s, None, w.lang))
    return text
