"""The rules of a round: phase I (cards), phase II (master builders), phase III (the board's
actions in numbered order), the round's end and the game's end.

Sections cited are the rules text's (shared/rules/pillars-of-the-earth.md); every reading of a
loose rule is in docs/pillars.md, "Rulings". ``legal`` lists the moves of the seat to act;
``check`` says why a move is illegal (None when it is legal); ``apply`` plays a legal move IN
PLACE and then resolves everything the rules do without a decision, up to the next decision.
Draws come from the ``chance`` it is given (recorded by ``decide``, read back by ``evolve``).
"""

from __future__ import annotations

from .errors import EngineError
from .notation import Move
from .state import RES, RI, GameState, cards

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


# --- small helpers ------------------------------------------------------------------------
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


# --- the round's ledger: what phase III did to each player, and why ------------------------
def snap(s: GameState) -> list[tuple]:
    """What a note compares, per seat: gold, VP, resources, cards held, grey workers and master
    builders of next round."""
    return [(s.gold[i], s.vp[i], tuple(s.res[i]), tuple(s.craftsmen[i]) + tuple(s.privileges[i]),
             s.grey_next[i], s.limit_next[i]) for i in range(s.players)]


def note(s: GameState, why: str, before: list[tuple], seats=None, keep=(), **extra) -> None:
    """Write into the round's ledger (``s.ledger``, docs/pillars.md) what changed for each seat
    since ``before`` (:func:`snap`) and why: a step of phase III or a decision. A seat in ``keep``
    gets its entry even when nothing changed (the King's Court spares it the taxes...);
    ``extra`` values that are dicts by seat give each seat its own."""
    if s.ledger is None:
        return
    now = snap(s)
    for seat in range(s.players) if seats is None else seats:
        b, a = before[seat], now[seat]
        delta = {k: a[j] - b[j] for j, k in ((0, "gold"), (1, "vp"), (4, "grey"), (5, "builders"))
                 if a[j] != b[j]}
        delta.update({r: a[2][i] - b[2][i] for i, r in enumerate(RES) if a[2][i] != b[2][i]})
        got = [x for x in a[3] if x not in b[3]]
        lost = [x for x in b[3] if x not in a[3]]
        if not (delta or got or lost or seat in keep):
            continue
        e: dict = {"seat": seat, "why": why}
        for k, v in extra.items():
            if isinstance(v, dict):
                if seat in v:
                    e[k] = v[seat]
            else:
                e[k] = v
        if delta:
            e["delta"] = delta
        if got:
            e["got"] = got
        if lost:
            e["lost"] = lost
        s.ledger["entries"].append(e)


# --- the start of a round -----------------------------------------------------------------
def setup(players: int, options: dict, chance, version: str) -> GameState:
    if type(players) is not int or not 2 <= players <= 4:
        raise EngineError(
            f"The Pillars of the Earth is for 2 to 4 players, not {players!r}", code="bad-players"
        )
    s = GameState(players, options, rules=version)
    begin_round(s, chance)
    return s


def begin_round(s: GameState, chance) -> None:
    """Beginning each round: 2 privileges at Kingsbridge (the 2 last-round cards in round 6), the
    round's 4 craftsmen (2 at Shiring, 2 in the pool), 7 of the 9 resource cards in the pool."""
    if s.round < 6:
        kb = []
        for _ in range(2):
            p = chance.choice("privilege", s.privilege_deck)
            s.privilege_deck.remove(p)
            kb.append(p)
    else:
        kb = list(C.last_round)
    s.kingsbridge = kb
    stack = [x for x in s.stack if C.craftsmen[x]["round"] == s.round]
    s.stack = [x for x in s.stack if C.craftsmen[x]["round"] != s.round]
    s.shiring = []
    for _ in range(2):
        x = chance.choice("shiring", stack)
        stack.remove(x)
        s.shiring.append(x)
    rcs = sorted(C.rescards)
    for _ in range(2):
        rcs.remove(chance.choice("aside", rcs))
    s.pool = sorted(rcs + stack)
    s.phase = "cards"
    s.passed = [False] * s.players
    s.taken = [[] for _ in range(s.players)]
    s.wool = [0] * s.players
    s.actor = s.start


# --- phase I ---------------------------------------------------------------------------------
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
        return "not-now", f"'{m.verb}' is not a move of phase I (take a card or pass)", PH1
    x = m.args[0]
    if x not in s.pool:
        return "not-in-pool", f"{x} is not in this round's card pool", PH1
    rc = C.rescards.get(x)
    if rc is not None:
        free = s.free_workers(seat)
        if rc["workers"] > free:
            return ("not-enough-workers", f"{x} needs {rc['workers']} workers and you have {free} left", PH1)
        return None
    cost = C.craftsmen[x]["cost"]
    if cost > s.gold[seat]:
        return (
            "not-enough-gold",
            f"{C.craftsmen[x]['name']} costs {cost} gold and you have {s.gold[seat]}",
            PH1,
        )
    mine = s.craftsmen[seat]
    if len(m.args) == 1:
        if len(mine) >= LIMIT:
            return (
                "craftsmen-full",
                f"you have {LIMIT} craftsmen: name one to discard (take {x} discard ...)",
                PH1,
            )
        return None
    y = m.args[2]
    if y != x and y not in mine:
        return "no-such-craftsman", f"you have no craftsman {y} to discard", PH1
    if y != x and len(mine) < LIMIT:
        return (
            "discard-needless",
            f"you discard one of your craftsmen only to make room for a sixth (you have {len(mine)})",
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


# --- phase II --------------------------------------------------------------------------------
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
            return "not-now", "a passed master builder is placed now, for free", PH2
    elif s.offer:
        if m.verb not in ("keep", "redraw"):
            return (
                "not-now",
                "the start player decides first whether to put the drawn master builder back",
                PH2,
            )
        return None
    elif m.verb == "redraw":
        if seat != s.start or s.redraw_used:
            return "no-redraw", "only the start player may put a drawn master builder back, once a round", PH2
        return None
    elif m.verb == "pass":
        return None
    elif m.verb != "place":
        return "not-now", f"'{m.verb}' is not a move now: place the drawn master builder or pass", PH2
    f = m.args[0]
    if len(m.args) == 2:
        shown = s.kingsbridge if f == "kingsbridge" else s.shiring
        if m.args[1] not in shown:
            return "no-such-card", f"{m.args[1]} is not at {f.title()} this round", PH2
    if spot_of(s, m) is None:
        return "spot-taken", f"no free master builder spot there ({f})", PH2
    cost = builder_cost(s, seat)
    if cost > s.gold[seat]:
        return (
            "not-enough-gold",
            f"placing costs {cost} gold now and you have {s.gold[seat]}; you may pass",
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


# --- phase III -------------------------------------------------------------------------------
def start_actions(s: GameState, chance) -> None:
    s.phase = "actions"
    s.ledger = {"round": s.round, "start": {"vp": s.vp[:], "gold": s.gold[:]}, "entries": []}
    s.step = 0
    run(s, chance)


def run(s: GameState, chance) -> None:
    """Resolve the board's steps in order until a decision waits (or the round ends)."""
    while s.phase == "actions" and not s.queue:
        step = STEPS[s.step]
        s.step += 1
        step(s, chance)
    if s.phase == "actions":
        s.actor = s.queue[0][1]


def step_event(s: GameState, chance) -> None:
    """1. The start player reveals the top event card; 2. the Archbishop's choice comes first."""
    s.event = chance.choice("event", s.event_deck)
    s.event_deck.remove(s.event)
    holder = s.spots["archbishop"][0]
    if holder is not None:
        s.queue.append(["archbishop", holder])


def step_protection(s: GameState, chance) -> None:
    """A once-only protection privilege, offered to each holder the event would hit."""
    if negative(s):
        for seat in s.order():
            if seat not in s.protected and any(
                C.privileges[p]["effect"].get("protection") for p in s.privileges[seat]
            ):
                s.queue.append(["protection", seat])


def step_apply_event(s: GameState, chance) -> None:
    before = snap(s)
    ev = C.events[s.event]
    spared = s.protected if not ev["positive"] else []
    resolve_event(s, ev)
    note(s, "event", before, keep=spared, card=s.event, spared={seat: True for seat in spared})


def resolve_event(s: GameState, ev: dict) -> None:
    eff = ev["effect"]
    for seat in s.order():
        if not ev["positive"] and seat in s.protected:
            continue
        if "pay_gold" in eff:
            pay(s, seat, eff["pay_gold"])
        if "builders_next_round" in eff:
            s.limit_next[seat] = eff["builders_next_round"]
        if "lose_craftsman" in eff and len(s.craftsmen[seat]) >= eff["lose_craftsman"]:
            s.queue.append(["lose", seat])
        if "gold" in eff:
            gain_gold(s, seat, eff["gold"])
        if "vp" in eff:
            s.vp[seat] += eff["vp"]
        if "lose_vp" in eff:
            s.vp[seat] = max(0, s.vp[seat] - eff["lose_vp"])
        for r, n in eff.get("resources", {}).items():
            gain_res(s, seat, RI[r], n)
        for r, n in eff.get("lose_resources", {}).items():
            k = min(n, s.res[seat][RI[r]])
            gain_res(s, seat, RI[r], -k)


def step_wool(s: GameState, chance) -> None:
    """3. Wool Mill: 1 gold a worker there (gold capped at 30)."""
    stop = C.events[s.event]["effect"].get("no_wool")
    before = snap(s)
    there = [seat for seat in range(s.players) if s.wool[seat]]
    for seat in range(s.players):
        if stop and seat not in s.protected:
            continue
        gain_gold(s, seat, s.wool[seat] + effect_sum(s, seat, "wool_gold"))
    note(s, "wool", before, keep=there, n={seat: s.wool[seat] for seat in range(s.players)})


def step_kingsbridge(s: GameState, chance) -> None:
    """4. Kingsbridge: each placed master builder takes its privilege; the others are discarded."""
    for i, p in enumerate(s.kingsbridge):
        holder = s.spots["kingsbridge"][i]
        if holder is not None and p is not None:
            before = snap(s)
            take_privilege(s, holder, p)
            note(s, "kingsbridge", before, seats=[holder], keep=[holder], card=p)
    s.kingsbridge = []


def take_privilege(s: GameState, seat: int, p: str) -> None:
    card = C.privileges[p]
    if card["kind"] != "immediate":
        s.privileges[seat].append(p)
        return
    eff = card["effect"]
    gain_gold(s, seat, eff.get("gold", 0))
    s.vp[seat] += eff.get("vp", 0)
    for r, n in eff.get("resources", {}).items():
        gain_res(s, seat, RI[r], n)


def step_priory(s: GameState, chance) -> None:
    """5. Kingsbridge Priory: 2 VP for the first spot, 1 for the second."""
    for i, holder in enumerate(s.spots["priory"]):
        if holder is not None:
            before = snap(s)
            s.vp[holder] += 2 - i
            note(s, "priory", before, seats=[holder])


def step_production(s: GameState, chance) -> None:
    """6-8. The resource cards produce; the production privileges add 1 each."""
    for seat in s.order():
        before = snap(s)
        for t in s.taken[seat]:
            rc = C.rescards[t]
            gain_res(s, seat, RI[rc["resource"]], rc["yield"])
        note(s, "production", before, seats=[seat], cards=list(s.taken[seat]))
        for p in s.privileges[seat]:
            before = snap(s)
            for r, n in C.privileges[p]["effect"].get("production", {}).items():
                gain_res(s, seat, RI[r], n)
            note(s, "production", before, seats=[seat], card=p)
        s.taken[seat] = []


def step_taxes(s: GameState, chance) -> None:
    """9. The start player rolls the tax die; each player not at the King's Court pays (a holder
    of the no-taxes privilege is asked first whether to use it)."""
    s.tax = chance.choice("tax", C.tax_faces)
    exempt = s.spots["king"]
    before = snap(s)
    asked = []
    for seat in s.order():
        if seat in exempt:
            continue
        if any(C.privileges[p]["effect"].get("no_taxes") for p in s.privileges[seat]):
            s.queue.append(["taxes", seat])
            asked.append(seat)
        else:
            pay(s, seat, s.tax or 0)
    paying = [seat for seat in range(s.players) if seat not in asked]
    note(s, "taxes", before, seats=paying, keep=paying, n=s.tax,
         exempt={seat: "king" for seat in exempt if seat is not None})


def step_metal(s: GameState, chance) -> None:
    """9. The first master builder at the King's Court takes the metal there."""
    holder = s.spots["king"][0]
    if holder is not None and s.king_metal:
        before = snap(s)
        s.king_metal = 0
        s.res[holder][3] += 1
        note(s, "metal", before, seats=[holder])


def step_shiring(s: GameState, chance) -> None:
    """10. Shiring: the craftsmen for free; the one not taken leaves the game. A player who has
    5 craftsmen already decides which one leaves (the new one or one of his) before the new one
    joins, so no one ever holds more than 5."""
    for i, x in enumerate(s.shiring):
        holder = s.spots["shiring"][i]
        if holder is None or x is None:
            continue
        if len(s.craftsmen[holder]) < LIMIT:
            before = snap(s)
            s.craftsmen[holder].append(x)
            note(s, "shiring", before, seats=[holder])
        else:
            s.queue.append(["shiring", holder, x])
    s.shiring = []


def step_castle(s: GameState, chance) -> None:
    """11. Shiring Castle: 2 grey workers for the next round."""
    holder = s.spots["castle"][0]
    if holder is not None:
        before = snap(s)
        s.grey_next[holder] = 2
        note(s, "castle", before, seats=[holder])


def step_market(s: GameState, chance) -> None:
    """12. The market: the master builders there act in spot order, round and round, until all pass."""
    s.market_order = [seat for seat in s.spots["market"] if seat is not None]
    s.market_i = 0
    if s.market_order:
        s.queue.append(["market", s.market_order[0]])


def step_cathedral(s: GameState, chance) -> None:
    """13. The Cathedral: each player in turn order from the start player converts; then no more
    than 5 resources are carried over."""
    for seat in s.order():
        if any(uses_possible(s, seat, x) for x in s.craftsmen[seat]):
            s.queue.append(["cathedral", seat])
        elif sum(s.res[seat]) > carry_limit(s, seat):
            s.queue.append(["carry", seat])


def step_end(s: GameState, chance) -> None:
    """14. Change starting player; before the next round (or the game's end after round 6)."""
    holder = s.spots["cathedral"][0]
    s.start = holder if holder is not None else (s.start + 1) % s.players
    if s.ledger is not None:  # the round's ledger is done: it is the round's end's, until the next one's
        s.ledger.update(end={"vp": s.vp[:], "gold": s.gold[:]}, version=s.version + 1, tax=s.tax,
                        event=s.event, start_player=s.start)
        s.round_end, s.ledger = s.ledger, None
    if s.round == 6:
        finish(s)
        return
    for i in range(3):
        k = min(C.stock - s.market[i], max(0, s.field[i]))
        s.market[i] += k
        s.field[i] -= k
    if not s.king_metal and s.field[3] > 0:
        s.king_metal = 1
        s.field[3] -= 1
    s.grey, s.grey_next = s.grey_next, [0] * s.players
    s.limit, s.limit_next = s.limit_next, [3] * s.players
    s.cost = C.costs[0]
    s.spots = {f: [None] * n for f, n in C.spots.items()}
    s.used = [{} for _ in range(s.players)]
    s.traded = [[] for _ in range(s.players)]
    s.event, s.protected, s.tax = None, [], None
    s.market_order, s.market_i = [], 0
    s.step = 0
    s.round += 1
    begin_round(s, chance)


def finish(s: GameState) -> None:
    """Game end: the most VP wins; a tie goes to the most gold, else the tied players share it."""
    s.phase, s.actor = "over", None
    best = max(zip(s.vp, s.gold, strict=False))
    s.winners = [i for i in range(s.players) if (s.vp[i], s.gold[i]) == best]
    s.final = {"vp": list(s.vp), "gold": list(s.gold)}


STEPS = (
    step_event,
    step_protection,
    step_apply_event,
    step_wool,
    step_kingsbridge,
    step_priory,
    step_production,
    step_taxes,
    step_metal,
    step_shiring,
    step_castle,
    step_market,
    step_cathedral,
    step_end,
)


# --- phase III decisions --------------------------------------------------------------------
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
                else ("event-positive", "the event is a positive one: nothing to protect yourself from", ARCH)
            )
        if v == "collect":
            i = RI[m.args[0]]
            return None if s.market[i] > 0 else ("market-sold-out", f"no {m.args[0]} at the market", ARCH)
        return (
            "not-now",
            "the Archbishop's master builder decides: protect, collect a resource or decline",
            ARCH,
        )
    if kind in ("protection", "taxes"):
        if v == "decline":
            return None
        key = "protection" if kind == "protection" else "no_taxes"
        if v == "privilege":
            p = m.args[0]
            if p not in s.privileges[seat] or not C.privileges[p]["effect"].get(key):
                return "no-such-privilege", f"you hold no privilege {p} that does this", PRIVILEGES
            return None
        what = "the event" if kind == "protection" else "the taxes"
        return (
            "not-now",
            f"decide whether to use your privilege against {what} (privilege ... or decline)",
            PRIVILEGES,
        )
    if kind in ("lose", "shiring"):
        sect = EVENT if kind == "lose" else SHIRING
        if v != "discard":
            return "not-now", "name the craftsman who leaves the game (discard ...)", sect
        mine = s.craftsmen[seat] + ([s.queue[0][2]] if kind == "shiring" else [])
        if m.args[0] not in mine:
            return "no-such-craftsman", f"you have no craftsman {m.args[0]}", sect
        return None
    if kind == "market":
        return check_market(s, seat, m)
    if kind == "cathedral":
        if v == "done":
            return None
        if v != "use":
            return "not-now", "convert with a craftsman (use ...) or end your conversions (done)", CATHEDRAL
        return check_use(s, seat, m)
    if v != "drop":
        return "not-now", f"you carry more than {carry_limit(s, seat)} resources: drop one", CATHEDRAL
    if s.res[seat][RI[m.args[0]]] <= 0:
        return "no-such-resource", f"you have no {m.args[0]}", CATHEDRAL
    return None


def check_market(s: GameState, seat: int, m: Move) -> Err:
    v = m.verb
    if v == "pass":
        return None
    if v not in ("buy", "sell"):
        return "not-now", "at the market: buy, sell or pass", MARKET
    r, n = m.args[0], m.n
    i = RI[r]
    if ("-" if v == "buy" else "+") + r in s.traded[seat]:
        return ("bought-and-sold", f"you may not buy and sell {r} in the same round", MARKET)
    if v == "buy":
        if r == "wood" and not has_mark(s, seat, "woodworker"):
            return "needs-woodworker", "without a woodworker you cannot buy wood", REQUIRE
        if n > s.market[i]:
            return "market-sold-out", f"the market has {s.market[i]} {r}", MARKET
        cost = n * C.price[r]
        if cost > s.gold[seat]:
            return "not-enough-gold", f"{n} {r} cost {cost} gold and you have {s.gold[seat]}", MARKET
        return None
    if r == "stone" and not has_mark(s, seat, "stonecutter"):
        return "needs-stonecutter", "without a stonecutter you cannot sell stone", REQUIRE
    if n > s.res[seat][i]:
        return "not-enough-resources", f"you have {s.res[seat][i]} {r}", MARKET
    return None


def check_use(s: GameState, seat: int, m: Move) -> Err:
    x, n = m.args[0], m.n
    if x not in s.craftsmen[seat]:
        return "no-such-craftsman", f"you have no craftsman {x}", CATHEDRAL
    ins, _, cap, requires, holds = C.formula[x]
    name = C.craftsmen[x]["name"]
    if x in s.used[seat]:
        return "already-used", f"your {name} has worked this round", CATHEDRAL
    if n > cap:
        return "over-capacity", f"your {name} works at most {cap} times a round", CATHEDRAL
    if requires and not has_mark(s, seat, requires):
        return "needs-mortar-mixer", f"without a mortar mixer your {name} earns nothing", REQUIRE
    if any(s.res[seat][i] < holds[i] for i in range(4)):
        return "needs-metal", f"your {name} works only while you hold metal", CATHEDRAL
    if uses_possible(s, seat, x) < n:
        return (
            "not-enough-resources",
            f"you have not the resources for your {name} to work {n} times",
            CATHEDRAL,
        )
    return None


def apply_decision(s: GameState, seat: int, m: Move, chance) -> None:
    head = s.queue[0]
    kind = head[0]
    before = snap(s)
    decide_now(s, seat, m, kind)
    keep = [seat] if m.verb == "protect" or kind in ("taxes", "shiring") else []
    extra = ({"n": s.tax} if kind == "taxes" else {"card": s.event} if kind == "lose"
             else {"card": head[2]} if kind == "shiring" else {"n": carry_limit(s, seat)} if kind == "carry"
             else {})
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


# --- the dispatch -----------------------------------------------------------------------------
def legal(s: GameState) -> list[Move]:
    """Every legal move of the seat to act (unsorted, unique)."""
    if s.phase == "cards":
        return legal_cards(s)
    if s.phase in ("builders", "placing"):
        return legal_builders(s)
    if s.phase == "actions":
        return legal_decision(s)
    return []


def check(s: GameState, seat: int, m: Move) -> Err:
    """None if ``seat`` (the seat to act) may play ``m`` now, else (code, reason, section)."""
    if s.phase == "cards":
        return check_cards(s, seat, m)
    if s.phase in ("builders", "placing"):
        return check_builders(s, seat, m)
    return check_decision(s, seat, m)


def apply(s: GameState, seat: int, m: Move, chance) -> None:
    """Play a legal move IN PLACE and resolve what follows up to the next decision."""
    if s.phase == "cards":
        apply_cards(s, seat, m, chance)
    elif s.phase in ("builders", "placing"):
        apply_builders(s, seat, m, chance)
    else:
        apply_decision(s, seat, m, chance)
