"""The round's ledger: what phase III did to each player, and why (docs/pillars.md, "The round's
ledger"; pillars/summary.py tells it)."""

from __future__ import annotations

from .state import RES, GameState


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
