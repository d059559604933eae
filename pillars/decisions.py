"""Phase III's decisions: the choices the board's actions ask of a player (protection, taxes, a
craftsman to lose, Shiring, the market, the cathedral's uses), checked and played."""

from __future__ import annotations

from rules_common.errors import Reason, Term
from rules_common.words import NP_

from .actions_phase import run
from .basics import (
    ARCH,
    CATHEDRAL,
    DECLINE,
    DONE,
    EVENT,
    PRIVILEGES,
    PROTECT,
    REQUIRE,
    SHIRING,
    C,
    Err,
    carry_limit,
    gain_gold,
    gain_res,
    has_mark,
    negative,
    pay,
    uses_possible,
)
from .ledger import note, snap
from .market import apply_market, check_market, legal_market
from .notation import Move
from .state import RES, RI, GameState


def legal_decision(s: GameState) -> list[Move]:
    kind, seat = s.queue[0][:2]
    if kind == "archbishop":
        out = [DECLINE] + [Move("collect", (RES[i],)) for i in range(3) if s.market[i] > 0]
        return out + [PROTECT] if negative(s) else out
    if kind == "protection":
        return [DECLINE] + [
            Move("privilege", (p,)) for p in s.privileges[seat] if C.privileges[p]["effect"].get("protection")
        ][:1]
    if kind == "taxes":
        return [DECLINE] + [
            Move("privilege", (p,)) for p in s.privileges[seat] if C.privileges[p]["effect"].get("no_taxes")
        ][:1]
    if kind == "lose":
        return [Move("discard", (x,)) for x in s.craftsmen[seat]]
    if kind == "shiring":
        return [Move("discard", (x,)) for x in s.craftsmen[seat] + [s.queue[0][2]]]
    if kind == "market":
        return legal_market(s, seat)
    if kind == "cathedral":
        out = [DONE]
        for x in s.craftsmen[seat]:
            out.extend(Move("use", (x, str(n))) for n in range(1, uses_possible(s, seat, x) + 1))
        return out
    # carry
    return [Move("drop", (RES[i],)) for i in range(4) if s.res[seat][i] > 0]


def check_decision(s: GameState, seat: int, m: Move) -> Err:
    kind = s.queue[0][0]
    v = m.verb
    if kind == "archbishop":
        if v == "decline":
            return None
        if v == "protect":
            return (
                None
                if negative(s)
                else (
                    "event-positive",
                    Reason("the event is a positive one: nothing to protect yourself from"),
                    ARCH,
                )
            )
        if v == "collect":
            i = RI[m.args[0]]
            why = Reason("no {resource} at the market", resource=Term("resource", m.args[0]))
            return None if s.market[i] > 0 else ("market-sold-out", why, ARCH)
        return (
            "not-now",
            Reason("the Archbishop's master builder decides: protect, collect a resource or decline"),
            ARCH,
        )
    if kind in ("protection", "taxes"):
        if v == "decline":
            return None
        key = "protection" if kind == "protection" else "no_taxes"
        if v == "privilege":
            p = m.args[0]
            if p not in s.privileges[seat] or not C.privileges[p]["effect"].get(key):
                return (
                    "no-such-privilege",
                    Reason("you hold no privilege {card} that does this", card=p),
                    PRIVILEGES,
                )
            return None
        why = (
            Reason("decide whether to use your privilege against the event (privilege ... or decline)")
            if kind == "protection"
            else Reason("decide whether to use your privilege against the taxes (privilege ... or decline)")
        )
        return "not-now", why, PRIVILEGES
    if kind in ("lose", "shiring"):
        sect = EVENT if kind == "lose" else SHIRING
        if v != "discard":
            return "not-now", Reason("name the craftsman who leaves the game (discard ...)"), sect
        mine = s.craftsmen[seat] + ([s.queue[0][2]] if kind == "shiring" else [])
        if m.args[0] not in mine:
            return "no-such-craftsman", Reason("you have no craftsman {card}", card=m.args[0]), sect
        return None
    if kind == "market":
        return check_market(s, seat, m)
    if kind == "cathedral":
        if v == "done":
            return None
        if v != "use":
            return (
                "not-now",
                Reason("convert with a craftsman (use ...) or end your conversions (done)"),
                CATHEDRAL,
            )
        return check_use(s, seat, m)
    if v != "drop":
        return (
            "not-now",
            Reason("you carry more than {n} resources: drop one", n=carry_limit(s, seat)),
            CATHEDRAL,
        )
    if s.res[seat][RI[m.args[0]]] <= 0:
        return (
            "no-such-resource",
            Reason("you have no {resource}", resource=Term("resource", m.args[0])),
            CATHEDRAL,
        )
    return None


def check_use(s: GameState, seat: int, m: Move) -> Err:
    x, n = m.args[0], m.n
    if x not in s.craftsmen[seat]:
        return "no-such-craftsman", Reason("you have no craftsman {card}", card=x), CATHEDRAL
    ins, _, cap, requires, holds = C.formula[x]
    name = Term("craftsman", C.craftsmen[x]["name"])
    if x in s.used[seat]:
        return "already-used", Reason("your {craftsman} has worked this round", craftsman=name), CATHEDRAL
    if n > cap:
        return (
            "over-capacity",
            Reason(NP_("your {craftsman} works at most {n} times a round",
                       "your {craftsman} works at most {n} times a round"), craftsman=name, n=cap),
            CATHEDRAL,
        )
    if requires and not has_mark(s, seat, requires):
        return (
            "needs-mortar-mixer",
            Reason("without a mortar mixer your {craftsman} earns nothing", craftsman=name),
            REQUIRE,
        )
    if any(s.res[seat][i] < holds[i] for i in range(4)):
        return (
            "needs-metal",
            Reason("your {craftsman} works only while you hold metal", craftsman=name),
            CATHEDRAL,
        )
    if uses_possible(s, seat, x) < n:
        return (
            "not-enough-resources",
            Reason(NP_("you have not the resources for your {craftsman} to work {n} times",
                       "you have not the resources for your {craftsman} to work {n} times"),
                   craftsman=name, n=n),
            CATHEDRAL,
        )
    return None


def apply_decision(s: GameState, seat: int, m: Move, chance) -> None:
    head = s.queue[0]
    kind = head[0]
    before = snap(s)
    decide_now(s, seat, m, kind)
    keep = [seat] if m.verb == "protect" or kind in ("taxes", "shiring") else []
    extra = (
        {"n": s.tax}
        if kind == "taxes"
        else {"card": s.event}
        if kind == "lose"
        else {"card": head[2]}
        if kind == "shiring"
        else {"n": carry_limit(s, seat)}
        if kind == "carry"
        else {}
    )
    note(s, kind, before, seats=[seat], keep=keep, move=str(m), **extra)
    run(s, chance)


def decide_now(s: GameState, seat: int, m: Move, kind: str) -> None:
    """A phase III decision's own effect (the steps it lets resolve come after it)."""
    v = m.verb
    if kind == "market":
        apply_market(s, seat, m)
    elif kind == "cathedral" and v == "use":
        x, n = m.args[0], m.n
        ins, outs, _, _, _ = C.formula[x]
        for i in range(4):
            if ins[i]:
                s.res[seat][i] -= ins[i] * n
                s.field[i] += ins[i] * n
        s.gold[seat] -= ins[4] * n
        s.vp[seat] += outs[0] * n
        gain_gold(s, seat, outs[1] * n)
        s.used[seat][x] = n
        if not any(uses_possible(s, seat, y) for y in s.craftsmen[seat]):
            end_cathedral(s, seat)
    elif kind == "cathedral":
        end_cathedral(s, seat)
    elif kind == "carry":
        gain_res(s, seat, RI[m.args[0]], -1)
        if sum(s.res[seat]) <= carry_limit(s, seat):
            s.queue.pop(0)
    else:
        head = s.queue.pop(0)
        if v == "protect":
            s.protected.append(seat)
        elif v == "collect":
            i = RI[m.args[0]]
            s.market[i] -= 1
            s.res[seat][i] += 1
        elif v == "privilege":
            s.privileges[seat].remove(m.args[0])
            if kind == "protection":
                s.protected.append(seat)
        elif v == "decline" and kind == "taxes":
            pay(s, seat, s.tax or 0)
        elif v == "discard" and kind == "shiring":
            if m.args[0] != head[2]:
                s.craftsmen[seat].remove(m.args[0])
                s.craftsmen[seat].append(head[2])
        elif v == "discard":
            s.craftsmen[seat].remove(m.args[0])


def end_cathedral(s: GameState, seat: int) -> None:
    s.queue.pop(0)
    if sum(s.res[seat]) > carry_limit(s, seat):
        s.queue.insert(0, ["carry", seat])
