"""What every part of a Pillars round reads: the rules' sections a refusal cites, the moves that
are one word, and a player's purse (gold, resources, what they may carry, the effects of their
craftsmen and privileges)."""

from __future__ import annotations

from .notation import Move
from .state import GameState, cards

Err = tuple[str, str, str] | None  # (code, reason, rules section)
C = cards()
PH1 = "Phase I: Selection of the Resource Cards and Craftsmen"
PH2 = "Phase II: Master Builder Assignments"
EVENT = "1. Reveal the top event card"
ARCH = "2. Archbishop's Office: Protection from events"
KING = "9. King's Court: Tax exemption/metal"
SHIRING = "10. Shiring: Take a craftsman"
MARKET = "12. Kingsbridge Resource Market: Buy and sell resources"
CATHEDRAL = "13. Cathedral: Victory points from craftsmen"
REQUIRE = "Requirements for Craftsmen"
PRIVILEGES = "THE PRIVILEGE CARDS"
LIMIT = C.max_craftsmen
PASS, KEEP, REDRAW, PROTECT, DECLINE, DONE = (
    Move(v) for v in ("pass", "keep", "redraw", "protect", "decline", "done")
)


def who(seat: int | None) -> int:
    """A seat the state names (the actor, the drawn builder's owner) where one must be named."""
    assert seat is not None
    return seat


def gain_gold(s: GameState, seat: int, n: int) -> None:
    """Gold is capped at 30: what would go above is lost (3. Wool Mill)."""
    s.gold[seat] = min(C.gold_cap, s.gold[seat] + n)


def pay(s: GameState, seat: int, amount: int) -> int:
    """Pay ``amount`` gold, as much as there is; each 2 gold short cost 1 VP (rounded down in
    the player's favour, not below 0). Returns the VP lost."""
    paid = min(amount, s.gold[seat])
    s.gold[seat] -= paid
    lost = min(s.vp[seat], (amount - paid) // 2)
    s.vp[seat] -= lost
    return lost


def gain_res(s: GameState, seat: int, i: int, n: int) -> None:
    """Cubes from the board's resource field (a field may go below 0: cubes owed, 6-8. Claim
    Resources)."""
    s.field[i] -= n
    s.res[seat][i] += n


def has_mark(s: GameState, seat: int, mark: str) -> bool:
    crafts = C.craftsmen
    return any(crafts[x]["mark"] == mark for x in s.craftsmen[seat])


def effect_sum(s: GameState, seat: int, key: str) -> int:
    privs = C.privileges
    return sum(privs[p]["effect"].get(key, 0) for p in s.privileges[seat])


def carry_limit(s: GameState, seat: int) -> int:
    return max(
        [C.carry]
        + [
            C.privileges[p]["effect"]["carry"]
            for p in s.privileges[seat]
            if "carry" in C.privileges[p]["effect"]
        ]
    )


def builder_cost(s: GameState, seat: int) -> int:
    if s.phase != "builders":
        return 0
    return max(0, s.cost - effect_sum(s, seat, "builder_discount"))


def negative(s: GameState) -> bool:
    return s.event is not None and not C.events[s.event]["positive"]


def uses_possible(s: GameState, seat: int, cid: str) -> int:
    """How many times craftsman ``cid`` can work now for ``seat`` (0: not at all)."""
    ins, _, cap, requires, holds = C.formula[cid]
    if cid in s.used[seat]:
        return 0
    if requires and not has_mark(s, seat, requires):
        return 0
    r = s.res[seat]
    if any(r[i] < holds[i] for i in range(4)):
        return 0
    have = r + [s.gold[seat]]
    n = cap
    for i in range(5):
        if ins[i]:
            n = min(n, have[i] // ins[i])
    return n
