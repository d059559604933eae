"""Phase III: the board's actions in numbered order (``STEPS``), resolved up to the next decision;
the round's end and the game's end."""

from __future__ import annotations

from .basics import LIMIT, C, carry_limit, effect_sum, gain_gold, gain_res, negative, pay, uses_possible
from .ledger import note, snap
from .round_start import begin_round
from .state import RI, GameState


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
