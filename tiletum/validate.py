"""Consistency checks of a position: tile conservation, no negative counts, sane pieces.

``problems(state)`` lists what is wrong (empty when the position is consistent). The simulation
tests run it after every move; ``GameState.from_doc`` callers can run it on hand-made positions.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .components import components
if TYPE_CHECKING:  # annotations only: state.py runs these checks in GameState.from_doc
    from .state import GameState


def tile_locations(s: GameState) -> Counter:
    """How many times each tile id appears anywhere in the position."""
    n: Counter = Counter()
    for pile in s.piles.values():
        n.update(pile)
    n.update(t for t in s.action_bonus.values() if t is not None)
    if s.king_bonus is not None:
        n[s.king_bonus] += 1
    for tiles in s.map_bonus.values():
        n.update(tiles)
    n.update(t for t in s.contract_offer if t is not None)
    n.update(t for t in s.character_offer if t is not None)
    for stack in s.cathedral_stack.values():
        n.update(stack)
    n.update(s.cathedral_cost.values())
    n.update(s.fair_towns[1:])
    n.update(s.fair_tiles)
    n.update(s.corruption_pool)
    n.update(s.corruption_revealed)
    n.update(s.box)
    if s.solo is not None:
        so = s.solo
        n.update(t for col in so["columns"] for t in col if t is not None)
        n.update(t for t in so["crests"] if t is not None)
        for k in ("inactive", "supply", "contracts", "fulfilled"):
            n.update(so[k])
    for p in s.seats:
        n.update(p.store)
        n.update(t for rooms in p.rooms for t in rooms if t is not None)
        n.update(t for t in p.crests if t is not None)
        n.update(p.contracts)
        n.update(p.cathedrals)
    return n


def problems(s: GameState) -> list[str]:
    c = components()
    out: list[str] = []
    out.extend(_flow_problems(s))
    if out:
        return out
    where = tile_locations(s)
    for t in c.tiles:
        if where[t] != 1:
            out.append(f"tile {t} appears {where[t]} times")
    for t in where:
        if t not in c.tiles:
            out.append(f"unknown tile {t}")
    for p in s.seats:
        if min(p.res) < 0:
            out.append(f"seat {p.seat} has negative resources {p.res}")
        if p.score < 0:
            out.append(f"seat {p.seat} has negative score")
        if p.houses < 0 or p.pillars < 0:
            out.append(f"seat {p.seat} has negative Houses/Pillars in supply")
        if len(p.store) > c.storehouse_size:
            out.append(f"seat {p.seat} Storehouse over capacity")
        if len(p.contracts) > len(c.contract_spaces):
            out.append(f"seat {p.seat} has too many fulfilled Contracts")
        for piece in (p.merchant, p.architect):
            if piece not in c.adjacent:
                out.append(f"seat {p.seat} piece on unknown spot {piece}")
        houses = sum(1 for v in s.houses.values() if p.seat in v)
        on_roofs = sum(p.roofs)
        if houses + p.houses + on_roofs != c.houses_per_player:
            out.append(f"seat {p.seat} Houses do not add up to {c.houses_per_player}")
        pillars = sum(1 for v in s.pillars.values() if p.seat in v)
        on_spaces = sum(1 for i,
                        x in enumerate(c.contract_spaces) if x.get("pillar") and i >= len(p.contracts))
        if s.solo is not None and p.seat == s.solo["bot"]:
            on_spaces = 0  # the Cardinalbot's seven Pillars are all available from the start
        if pillars + p.pillars + on_spaces != c.pillars_per_player:
            out.append(f"seat {p.seat} Pillars do not add up to {c.pillars_per_player}")
        types: dict = {}
        for b, rooms in enumerate(p.rooms):
            for t in rooms:
                if t is not None:
                    ty = c.tile_raw(t, s.rules)["type"]
                    if types.setdefault(ty, b) != b:
                        out.append(f"seat {p.seat} has {ty} Characters in two Buildings")
        fam = Counter(c.tiles[t].raw["crest"] for t in list(p.store) + [x for x in p.crests if x]
                      if c.tiles[t].kind == "crest")
        if fam and max(fam.values()) > 1:
            out.append(f"seat {p.seat} has two Crests of one family")
    for town, seats in s.houses.items():
        placed = [x for x in seats if x is not None]
        if (len(set(placed)) != len(placed) or len(seats) > len(c.house_spaces(town, s.players))
                or (seats and seats[-1] is None)):
            out.append(f"House spaces of {town} are inconsistent")
    for town, seats in s.pillars.items():
        if len(set(seats)) != len(seats) or len(seats) > c.pillar_space_count(town, s.players):
            out.append(f"Pillar spaces of {town} are inconsistent")
    if not all(0 <= x <= c.king_top for x in s.king_pos):
        out.append("King marker off the track")
    if len(set(s.king_seq)) != s.players:
        out.append("King markers share a stacking position")
    if sorted(s.turn_order) != list(range(s.players)):
        out.append("turn order is not a permutation of the seats")
    return out


def _flow_problems(s: GameState) -> list[str]:
    """Whose decision it is, and the shape of the agenda: what a hand-edited document can break."""
    out = []
    seats = range(s.players)
    if s.players not in (2, 3, 4) or len(s.seats) != s.players:
        return [f"players must be 2-4 with one seat each (players={s.players}, seats={len(s.seats)})"]
    if s.phase not in ("action", "king", "over"):
        out.append(f"unknown phase {s.phase!r}")
    if not 1 <= s.round <= 4 or not 0 <= s.cycle <= 3 or not 0 <= s.turn_pos < s.players:
        out.append("round, cycle or turn_pos out of range")
    if s.reveals is not None and s.reveals < 1:
        out.append("reveals must be at least 1 (the setup is the first reveal)")
    if s.phase == "over":
        if s.actor is not None:
            out.append("a finished game has no actor")
        return out
    if s.actor not in seats:
        out.append(f"actor {s.actor!r} is not a seat")
    if s.phase == "action":
        if s.turn is None or s.turn.get("seat") != s.turn_order[s.turn_pos]:
            out.append("the turn does not belong to the player at turn_pos in turn_order")
    for e in s.agenda:
        if e.get("t") not in ("frame", "fx", "choice") or e.get("seat") not in seats:
            out.append(f"malformed agenda entry {e!r}")
    if s.agenda and s.actor != s.agenda[-1].get("seat"):
        out.append("the actor is not the owner of the top agenda entry")
    return out
