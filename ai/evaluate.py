"""The heuristic evaluation of a position for one seat, in Victory Points.

The value is what the seat has already scored plus an estimate of what its position is worth
by the end of the game. Each term is its own function (each has a unit test); ``value`` sums
them. At the end of the game (phase ``over``) the value is the final score exactly.

* ``score_now``: the Scoring track.
* ``final_now``: the final-scoring terms as they stand (Houses x Pillars on the map and the
  Completed Buildings; ``engine.flow.final_breakdown``), which only ever grow.
* ``resources``: each Resource is worth ``RESOURCE_VP`` (more than the 1 VP per 4 of final
  scoring while there are rounds left to spend it on Contracts, Cathedrals and Houses).
* ``king``: the King track's VP, scored at the King phase of this round (if still to come).
* ``fair``: this round's Fair, if the seat takes part in it now (a House or its Merchant there).
* ``future_fairs``: the Fairs of later rounds in Towns where the seat has a House, scored as they
  would be today, at half weight.
* ``growth``: what the seat has built that pays later: Characters in Rooms towards Completed
  Buildings, tiles in the Storehouse still to place, bonus AP markers, Houses and Pillars on the
  map (each is a factor of the final product), weighted by the rounds left.
* ``supply``: Houses and Pillars in the supply, still to place, weighted by the rounds left.
* ``pending_ap``: Action Points of the seat's own Actions still to spend (so that a search that
  stops mid-turn does not prefer to end the turn before using them).
"""
from __future__ import annotations

from engine.board import building_filled, completed_buildings, houses_on_map, king_vp, pillars_on_map
from engine.components import components
from engine.flow import fair_vp, participates
from engine.state import GameState

RESOURCE_VP = (0.3, 0.3, 0.3, 0.25)   # per Resource, by round 1-4
ROOM_VP = 1.5                          # per filled Room
STORE_VP = 1.0                         # per tile in the Storehouse
AP_BONUS_VP = 1.5                      # per bonus AP marker, per round left
MAP_VP = 1.0                           # per House or Pillar on the map, per round left (beyond the product)
AP_VP = 0.4                            # per unspent Action Point of an Action in progress
KING_WEIGHT = 1.0
FAIR_WEIGHT = 1.0
FUTURE_FAIR_WEIGHT = 0.5               # a later round's Fair, as the seat would score it today
SUPPLY_VP = 0.5                        # per House or Pillar in the supply, per round left


def _over(s: GameState) -> bool:
    return s.phase == "over"


def score_now(s: GameState, seat: int) -> float:
    return float(s.seats[seat].score)


def final_now(s: GameState, seat: int) -> float:
    if _over(s):
        return 0.0  # already added to the score by final scoring
    p = s.seats[seat]
    return float(houses_on_map(s, seat) * pillars_on_map(s, seat)
                 + components().completed_buildings_vp[completed_buildings(p)])


def resources(s: GameState, seat: int) -> float:
    if _over(s):
        return 0.0
    return sum(s.seats[seat].res) * RESOURCE_VP[min(s.round, 4) - 1]


def king(s: GameState, seat: int) -> float:
    if _over(s) or s.fairs_scored >= s.round:
        return 0.0
    return KING_WEIGHT * king_vp(s, seat)


def fair(s: GameState, seat: int) -> float:
    if _over(s) or s.fairs_scored >= s.round:
        return 0.0
    if not participates(s, seat, s.fair_towns[s.round - 1]):
        return 0.0
    return FAIR_WEIGHT * fair_vp(s, seat)


def future_fairs(s: GameState, seat: int) -> float:
    """The Fairs of later rounds in Towns where the seat has a House, as they would score today."""
    if _over(s):
        return 0.0
    total = 0
    for r in range(s.round + 1, 5):
        if seat in s.houses.get(s.fair_towns[r - 1], ()):
            total += fair_vp(s, seat, r)
    return FUTURE_FAIR_WEIGHT * total


def rounds_left(s: GameState) -> float:
    """Rounds still to play after this one, plus the part of this one still to come."""
    if _over(s):
        return 0.0
    return (4 - s.round) + (3 - min(s.cycle, 3)) / 3


def growth(s: GameState, seat: int) -> float:
    if _over(s):
        return 0.0
    p = s.seats[seat]
    left = rounds_left(s)
    rooms = sum(1 for b in p.rooms for t in b if t is not None)
    full = sum(1 for b in range(len(p.rooms)) if p.rooms[b] and building_filled(p, b))
    on_map = houses_on_map(s, seat) + pillars_on_map(s, seat)
    return (ROOM_VP * rooms + ROOM_VP * full + STORE_VP * len(p.store)
            + AP_BONUS_VP * sum(p.ap_bonus.values()) * min(left, 3) / 3
            + MAP_VP * on_map * min(left, 3) / 3)


def supply(s: GameState, seat: int) -> float:
    """Houses and Pillars in the supply, still to be placed on the map."""
    if _over(s):
        return 0.0
    p = s.seats[seat]
    return SUPPLY_VP * (p.houses + p.pillars) * min(rounds_left(s), 3) / 3


def pending_ap(s: GameState, seat: int) -> float:
    return AP_VP * sum(e.get("ap", 0) for e in s.agenda if e.get("t") == "frame" and e.get("seat") == seat)


TERMS = (score_now, final_now, resources, king, fair, future_fairs, growth, supply, pending_ap)


def value(s: GameState, seat: int) -> float:
    """The seat's estimated final VP."""
    return sum(t(s, seat) for t in TERMS)


def breakdown(s: GameState, seat: int) -> dict[str, float]:
    return {t.__name__: t(s, seat) for t in TERMS}
