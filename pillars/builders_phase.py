"""Phase II: Master Builder Assignments (the draw from the bag, placing or passing)."""

from __future__ import annotations

from rules_common.errors import Reason

from .actions_phase import start_actions
from .basics import KEEP, PASS, PH2, REDRAW, C, Err, builder_cost, who
from .notation import Move
from .state import GameState


def draw_builder(s: GameState, chance) -> None:
    if not s.bag:
        if s.players == 2:
            s.cost = 0
        s.drawn, s.offer = None, False
        if s.passers:
            s.phase = "placing"
            s.actor = s.passers[0]
        else:
            start_actions(s, chance)
        return
    b = chance.choice("builder", s.bag)
    s.bag.remove(b)
    s.drawn = b
    s.offer = not s.redraw_used and b != s.start
    s.actor = s.start if s.offer else b


def free_places(s: GameState) -> list[Move]:
    out: list[Move] = []
    for f in C.field_order:
        spots = s.spots[f]
        if f == "kingsbridge" or f == "shiring":
            shown = s.kingsbridge if f == "kingsbridge" else s.shiring
            out.extend(
                Move("place", (f, x)) for i, x in enumerate(shown) if x is not None and spots[i] is None
            )
        elif None in spots:
            out.append(Move("place", (f,)))
    return out


def legal_builders(s: GameState) -> list[Move]:
    if s.phase == "placing":
        return free_places(s)
    if s.offer:
        return [KEEP, REDRAW]
    seat = who(s.drawn)
    out = [PASS]
    if seat == s.start and not s.redraw_used:
        out.append(REDRAW)
    if s.gold[seat] >= builder_cost(s, seat):
        out.extend(free_places(s))
    return out


def spot_of(s: GameState, m: Move) -> int | None:
    f = m.args[0]
    if len(m.args) == 2:
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring
        if m.args[1] not in shown:
            return None
        i = shown.index(m.args[1])
        return i if s.spots[f][i] is None else None
    spots = s.spots[f]
    return spots.index(None) if None in spots else None


def check_builders(s: GameState, seat: int, m: Move) -> Err:
    if s.phase == "placing":
        if m.verb != "place":
            return "not-now", Reason("a passed master builder is placed now, for free"), PH2
    elif s.offer:
        if m.verb not in ("keep", "redraw"):
            return (
                "not-now",
                Reason("the start player decides first whether to put the drawn master builder back"),
                PH2,
            )
        return None
    elif m.verb == "redraw":
        if seat != s.start or s.redraw_used:
            return (
                "no-redraw",
                Reason("only the start player may put a drawn master builder back, once a round"),
                PH2,
            )
        return None
    elif m.verb == "pass":
        return None
    elif m.verb != "place":
        return (
            "not-now",
            Reason("'{verb}' is not a move now: place the drawn master builder or pass", verb=m.verb),
            PH2,
        )
    f = m.args[0]
    if len(m.args) == 2:
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring
        if m.args[1] not in shown:
            return (
                "no-such-card",
                Reason("{card} is not at {field} this round", card=m.args[1], field=f.title()),
                PH2,
            )
    if spot_of(s, m) is None:
        return "spot-taken", Reason("no free master builder spot there ({field})", field=f), PH2
    cost = builder_cost(s, seat)
    if cost > s.gold[seat]:
        return (
            "not-enough-gold",
            Reason(
                "placing costs {cost} gold now and you have {gold}; you may pass",
                cost=cost,
                gold=s.gold[seat],
            ),
            PH2,
        )
    return None


def apply_builders(s: GameState, seat: int, m: Move, chance) -> None:
    if m.verb == "keep":
        s.offer = False
        s.actor = s.drawn
        return
    if m.verb == "redraw":
        s.bag.append(who(s.drawn))
        s.bag.sort()
        s.redraw_used = True
        draw_builder(s, chance)
        return
    if s.phase == "placing":
        s.spots[m.args[0]][who(spot_of(s, m))] = seat
        s.passers.pop(0)
        if s.passers:
            s.actor = s.passers[0]
        else:
            start_actions(s, chance)
        return
    if m.verb == "pass":
        s.passers.append(seat)
    else:
        s.gold[seat] -= builder_cost(s, seat)
        s.spots[m.args[0]][who(spot_of(s, m))] = seat
    s.cost = max(0, s.cost - 1)
    draw_builder(s, chance)
