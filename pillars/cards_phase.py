"""Phase I: Selection of the Resource Cards and Craftsmen."""

from __future__ import annotations

from rules_common.errors import Reason, Term

from .basics import LIMIT, PASS, PH1, C, Err, who
from .builders_phase import draw_builder
from .notation import Move
from .state import GameState


def legal_cards(s: GameState) -> list[Move]:
    seat = who(s.actor)
    out = [PASS]
    free = s.free_workers(seat)
    gold = s.gold[seat]
    mine = s.craftsmen[seat]
    for x in s.pool:
        rc = C.rescards.get(x)
        if rc is not None:
            if rc["workers"] <= free:
                out.append(Move("take", (x,)))
        elif C.craftsmen[x]["cost"] <= gold:
            out.append(Move("take", (x, "discard", x)))
            if len(mine) < LIMIT:
                out.append(Move("take", (x,)))
            else:
                out.extend(Move("take", (x, "discard", y)) for y in mine)
    return out


def check_cards(s: GameState, seat: int, m: Move) -> Err:
    if m.verb == "pass":
        return None
    if m.verb != "take":
        return "not-now", Reason("'{verb}' is not a move of phase I (take a card or pass)", verb=m.verb), PH1
    x = m.args[0]
    if x not in s.pool:
        return "not-in-pool", Reason("{card} is not in this round's card pool", card=x), PH1
    rc = C.rescards.get(x)
    if rc is not None:
        free = s.free_workers(seat)
        if rc["workers"] > free:
            return (
                "not-enough-workers",
                Reason(
                    "{card} needs {workers} workers and you have {free} left",
                    card=x,
                    workers=rc["workers"],
                    free=free,
                ),
                PH1,
            )
        return None
    cost = C.craftsmen[x]["cost"]
    if cost > s.gold[seat]:
        return (
            "not-enough-gold",
            Reason(
                "{craftsman} costs {cost} gold and you have {gold}",
                craftsman=Term("craftsman", C.craftsmen[x]["name"]),
                cost=cost,
                gold=s.gold[seat],
            ),
            PH1,
        )
    mine = s.craftsmen[seat]
    if len(m.args) == 1:
        if len(mine) >= LIMIT:
            return (
                "craftsmen-full",
                Reason(
                    "you have {limit} craftsmen: name one to discard (take {card} discard ...)",
                    limit=LIMIT,
                    card=x,
                ),
                PH1,
            )
        return None
    y = m.args[2]
    if y != x and y not in mine:
        return "no-such-craftsman", Reason("you have no craftsman {card} to discard", card=y), PH1
    if y != x and len(mine) < LIMIT:
        return (
            "discard-needless",
            Reason(
                "you discard one of your craftsmen only to make room for a sixth (you have {n})", n=len(mine)
            ),
            PH1,
        )
    return None


def apply_cards(s: GameState, seat: int, m: Move, chance) -> None:
    if m.verb == "pass":
        s.passed[seat] = True
    else:
        x = m.args[0]
        s.pool.remove(x)
        if x in C.rescards:
            s.taken[seat].append(x)
        else:
            s.gold[seat] -= C.craftsmen[x]["cost"]
            if len(m.args) == 1:
                s.craftsmen[seat].append(x)
            elif m.args[2] != x:
                s.craftsmen[seat].remove(m.args[2])
                s.craftsmen[seat].append(x)
    if not s.pool or all(s.passed):
        end_cards(s, chance)
        return
    n = s.players
    a = seat
    for _ in range(n):
        a = (a + 1) % n
        if not s.passed[a]:
            s.actor = a
            return


def end_cards(s: GameState, chance) -> None:
    """Phase I ends: the unused workers go to the wool mill; the bag is filled (Phase II)."""
    for seat in range(s.players):
        s.wool[seat] = s.free_workers(seat)
    s.pool = []
    s.phase = "builders"
    s.bag = sorted(seat for seat in range(s.players) for _ in range(s.limit[seat]))
    s.cost = C.costs[0]
    s.redraw_used = False
    s.passers = []
    draw_builder(s, chance)
