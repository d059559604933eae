"""The AI's evaluation of a Pillars of the Earth position for one seat (used by ``ai.generic``).

``value(state, seat)`` estimates the seat's final standing: its victory points, plus what its
gold, its resources and the resource cards it took this round are likely still to become (worth
less as the rounds run out: after the last Cathedral only VP count, gold breaks ties), plus what
its craftsmen can still convert in the rounds left, plus, while master builders are being placed,
what the spots it holds will give in phase III; then the seat's estimate less the best other
seat's, so that the AI plays to win. A finished game is its VP (and gold, a tie-break).

The weights are a first estimate from the card data's exchange rates (the market's prices, the
craftsmen's conversions), not yet measured against other weights (docs/ai.md).
"""
from __future__ import annotations

from pillars.state import RES, cards

GOLD = 0.25                  # VP a gold is worth while rounds remain (the goldsmith: 3 gold -> 1 VP)
CUBE = {"stone": 0.8, "wood": 0.6, "sand": 0.4, "metal": 1.5}   # VP a cube is worth before a Cathedral
CRAFTSMAN = 0.35             # of a craftsman's best round (capacity x VP a use), per round left
SPOT = {"archbishop": 0.8, "kingsbridge": 1.5, "priory": 1.5, "king": 1.5, "shiring": 2.0, "castle": 1.0,
        "market": 0.8, "cathedral": 0.5}   # VP a master builder on the field will bring in phase III


def _craftsman_round(cid: str) -> float:
    c = cards().craftsmen[cid]
    return c["capacity"] * (c["outputs"].get("vp", 0) + 0.25 * c["outputs"].get("gold", 0))


def estimates(s) -> list[float]:
    c = cards()
    out = []
    over = s.phase == "over"
    # the Cathedrals still to come: this round's (unless past it) and the rounds after
    left = 0 if over else (6 - s.round) + (1 if s.phase != "actions" or s.step <= 12 else 0)
    for seat in range(s.players):
        v = float(s.vp[seat]) + s.gold[seat] * (GOLD if left else 0.01)
        if left:
            v += sum(CUBE[r] * n for r, n in zip(RES, s.res[seat], strict=False))
            for t in s.taken[seat]:
                rc = c.rescards[t]
                v += CUBE[rc["resource"]] * rc["yield"]
            v += CRAFTSMAN * min(left, 3) * sum(_craftsman_round(x) for x in s.craftsmen[seat])
            if s.phase == "cards":
                v += GOLD * s.free_workers(seat)   # the unused workers go to the wool mill
            if s.phase in ("builders", "placing"):
                v += sum(SPOT[f] for f, spots in s.spots.items() for x in spots if x == seat)
                v += 0.5 * s.bag.count(seat) + 0.5 * s.passers.count(seat)
        out.append(v)
    return out


def value(s, seat: int) -> float:
    est = estimates(s)
    return est[seat] - max(v for i, v in enumerate(est) if i != seat)
