"""The Kingsbridge Resource Market (action 12): what a player may buy and sell, and the trade."""

from __future__ import annotations

from rules_common.errors import Reason, Term

from .basics import MARKET, PASS, REQUIRE, C, Err, gain_gold, has_mark
from .notation import Move
from .state import RES, RI, GameState


def legal_market(s: GameState, seat: int) -> list[Move]:
    out = [PASS]
    price = C.price
    traded = s.traded[seat]
    for i, r in enumerate(RES):
        if i < 3 and "-" + r not in traded and (r != "wood" or has_mark(s, seat, "woodworker")):
            most = min(s.market[i], s.gold[seat] // price[r])
            out.extend(Move("buy", (r, str(n))) for n in range(1, most + 1))
        if "+" + r not in traded and (r != "stone" or has_mark(s, seat, "stonecutter")):
            out.extend(Move("sell", (r, str(n))) for n in range(1, s.res[seat][i] + 1))
    return out


def check_market(s: GameState, seat: int, m: Move) -> Err:
    v = m.verb
    if v == "pass":
        return None
    if v not in ("buy", "sell"):
        return "not-now", Reason("at the market: buy, sell or pass"), MARKET
    r, n = m.args[0], m.n
    i = RI[r]
    if ("-" if v == "buy" else "+") + r in s.traded[seat]:
        return (
            "bought-and-sold",
            Reason("you may not buy and sell {resource} in the same round", resource=Term("resource", r)),
            MARKET,
        )
    if v == "buy":
        if r == "wood" and not has_mark(s, seat, "woodworker"):
            return "needs-woodworker", Reason("without a woodworker you cannot buy wood"), REQUIRE
        if n > s.market[i]:
            return (
                "market-sold-out",
                Reason("the market has {n} {resource}", n=s.market[i], resource=Term("resource", r)),
                MARKET,
            )
        cost = n * C.price[r]
        if cost > s.gold[seat]:
            return (
                "not-enough-gold",
                Reason(
                    "{n} {resource} cost {cost} gold and you have {gold}",
                    n=n,
                    resource=Term("resource", r),
                    cost=cost,
                    gold=s.gold[seat],
                ),
                MARKET,
            )
        return None
    if r == "stone" and not has_mark(s, seat, "stonecutter"):
        return "needs-stonecutter", Reason("without a stonecutter you cannot sell stone"), REQUIRE
    if n > s.res[seat][i]:
        return (
            "not-enough-resources",
            Reason("you have {n} {resource}", n=s.res[seat][i], resource=Term("resource", r)),
            MARKET,
        )
    return None


def apply_market(s: GameState, seat: int, m: Move) -> None:
    order = s.market_order
    if m.verb == "pass":
        order.pop(s.market_i)
        if not order:
            s.queue.pop(0)
            return
        s.market_i %= len(order)
    else:
        r, n = m.args[0], m.n
        i = RI[r]
        if m.verb == "buy":
            s.market[i] -= n
            s.res[seat][i] += n
            s.gold[seat] -= n * C.price[r]
            tag = "+" + r
        else:
            s.res[seat][i] -= n
            s.field[i] += n
            gain_gold(s, seat, n * C.price[r])
            tag = "-" + r
        if tag not in s.traded[seat]:
            s.traded[seat].append(tag)
        s.market_i = (s.market_i + 1) % len(order)
    s.queue[0] = ["market", order[s.market_i]]
