"""The heuristic evaluation of a position for one seat, in Victory Points.

The value is what the seat has already scored plus an estimate of what its position is worth
by the end of the game. Each term is its own function (each has a unit test); ``value`` sums
them. Every weight is a field of the ``ai.settings.Settings`` passed in (``w``; the presets'
by default), named here in lower case. At the end of the game (phase ``over``) the value is the final score
exactly.

* ``score_now``: the Scoring track.
* ``final_now``: the final-scoring terms as they stand (Houses x Pillars on the map and the
  Completed Buildings; ``tiletum.flow.final_breakdown``), which only ever grow.
* ``resources``: each Resource is worth ``resource_vp`` (more than the 1 VP per 4 of final
  scoring while there are rounds left to spend it on Contracts, Cathedrals and Houses); a Gold
  ``gold_factor`` of that (it is worth something only when spent: 2 buy a Resource or shift a die).
* ``king``: the King track's VP, scored at the King phase of this round (if still to come).
* ``fair``: this round's Fair, if the seat takes part in it now (a House or its Merchant there).
* ``future_fairs``: the Fairs of later rounds in Towns where the seat has a House, scored as they
  would be today, at half weight.
* ``growth``: what the seat has built that pays later: Characters in Rooms towards Completed
  Buildings, tiles in the Storehouse still to place (Characters not yet in a Room count
  ``char_store_vp``, less than nothing: taking one it cannot place is spent AP), bonus AP markers, Houses
  and Pillars on the map (each is a factor of the final product), weighted by the rounds left.
* ``supply``: Houses and Pillars in the supply, still to place, weighted by the rounds left.
* ``pieces``: the Houses x Pillars product the supply is expected to add once placed (a share
  ``place_frac`` of each kind reaches the map, Pillars no more than the Cathedrals that can take
  one): so a House placed is worth the Pillars expected, not only those on the map now.
* ``position``: the Architect at (or near) a Cathedral that can take one of the seat's Pillars,
  and the Merchant near a Town that can take one of its Houses, while it has one to place.
* ``king_future``: the King track's VP (none in the red, which resets) again at each later King
  phase: a step taken now pays every round to come, less what Corruption takes back.
* ``fair_reach``: the Fairs still to come in Towns where the seat takes no part yet but can still
  place a House, as they would score today.
* ``contracts_store``, ``cathedrals_open``, ``crests_store``: what the seat can cash in on a later
  turn (a Contract in the Storehouse, a Cathedral where it has a Pillar, a Crest that can still go
  below a Building), each by the share of its price the seat already holds.
* ``pending_ap``: Action Points of the seat's own Actions still to spend (so that a search that
  stops mid-turn does not prefer to end the turn before using them).

Round-end planning (issue 31; each off at weight 0, so that variants can switch it):

* ``fair_plan``: this round's Fair where the seat takes no part yet, by the chance that its
  Merchant gets there in the turns left (a House there, where one can go, keeps it).
* ``king_plan``: first on the King track at this round's King phase (the King's bonus).
* ``crests_plan``: a Crest in the Storehouse with a free Crest space that puts a House or the
  Merchant anywhere: a way into this round's Fair, by the share of the Food held.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from tiletum.board import (building_filled, completed_buildings, houses_on_map, king_ranking, king_vp,
                          pillars_on_map, why_no_house, why_no_pillar)
from tiletum.components import RES_INDEX, components
from tiletum.flow import fair_vp, participates
from tiletum.state import GameState

from ..settings import DEFAULT, Settings
from . import learned

def _over(s: GameState) -> bool:
    return s.phase == "over"


def score_now(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    return float(s.seats[seat].score)


def final_now(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    if _over(s):
        return 0.0  # already added to the score by final scoring
    p = s.seats[seat]
    return float(houses_on_map(s, seat) * pillars_on_map(s, seat)
                 + components().completed_buildings_vp[completed_buildings(p)])


def resources(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    if _over(s):
        return 0.0
    res = s.seats[seat].res
    return (sum(res) + (w.gold_factor - 1) * res[0]) * w.resource_vp[min(s.round, 4) - 1]


def king(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    if _over(s) or s.fairs_scored >= s.round:
        return 0.0
    return w.king_weight * king_vp(s, seat)


def fair(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    if _over(s) or s.fairs_scored >= s.round:
        return 0.0
    if not participates(s, seat, s.fair_towns[s.round - 1]):
        return 0.0
    return w.fair_weight * fair_vp(s, seat)


def future_fairs(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """The Fairs of later rounds in Towns where the seat has a House, as they would score today."""
    if _over(s):
        return 0.0
    total = 0
    for r in range(s.round + 1, 5):
        if seat in s.houses.get(s.fair_towns[r - 1], ()):
            total += fair_vp(s, seat, r)
    return w.future_fair_weight * total


def rounds_left(s: GameState) -> float:
    """Rounds still to play after this one, plus the part of this one still to come."""
    if _over(s):
        return 0.0
    return (4 - s.round) + (3 - min(s.cycle, 3)) / 3


def growth(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    if _over(s):
        return 0.0
    p = s.seats[seat]
    left = rounds_left(s)
    rooms = sum(1 for b in p.rooms for t in b if t is not None)
    full = sum(1 for b in range(len(p.rooms)) if p.rooms[b] and building_filled(p, b))
    on_map = houses_on_map(s, seat) + pillars_on_map(s, seat)
    chars = sum(1 for t in p.store if components().tiles[t].kind == "character")
    return (w.room_vp * rooms + w.room_vp * full + w.store_vp * (len(p.store) - chars)
            + w.char_store_vp * chars
            + w.ap_bonus_vp * sum(p.ap_bonus.values()) * min(left, 3) / 3
            + w.map_vp * on_map * min(left, 3) / 3)


def supply(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """Houses and Pillars in the supply, still to be placed on the map."""
    if _over(s):
        return 0.0
    p = s.seats[seat]
    return w.supply_vp * (p.houses + p.pillars) * min(rounds_left(s), 3) / 3


def pending_ap(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    return w.ap_vp * sum(e.get("ap", 0) for e in s.agenda if e.get("t") == "frame" and e.get("seat") == seat)


def pieces(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """Houses and Pillars in the supply as the product they are expected to make once placed: the
    part of the expected final Houses x Pillars beyond what the map makes now."""
    if _over(s):
        return 0.0
    p = s.seats[seat]
    c = components()
    f = w.place_frac * min(rounds_left(s), 3) / 3
    H, P = houses_on_map(s, seat), pillars_on_map(s, seat)
    room = sum(1 for t in c.cathedral_towns if seat not in s.pillars.get(t, ())
               and not c.tiles[s.cathedral_cost[t]].raw.get("unavailable")
               and len(s.pillars.get(t, ())) < c.pillar_space_count(t, s.players))
    hf = H + f * p.houses
    pf = P + f * min(p.pillars, room)
    return w.piece_w * (hf * pf - H * P)


def position(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """The Architect near a Cathedral that can take one of the seat's Pillars, the Merchant near a
    Town that can take one of its Houses (1 at the Town, less with distance)."""
    if _over(s):
        return 0.0
    c = components()
    p = s.seats[seat]
    total = 0.0
    reach = w.pos_reach
    if p.pillars:
        for d, t in _near(c, p.architect, True, reach):   # the nearest Cathedral that can take a Pillar
            if why_no_pillar(s, p, t) is None:
                total += 1 - d / reach
                break
    if p.houses:
        for d, t in _near(c, p.merchant, False, reach):   # the nearest Town that can take a House
            if why_no_house(s, p, t) is None:
                total += 1 - d / reach
                break
    return w.pos_w * total * min(1.0, rounds_left(s))


@lru_cache(maxsize=None)
def _near(c, spot: str, cathedrals: bool, reach: int) -> tuple[tuple[int, str], ...]:
    """The Towns (with a Cathedral: ``cathedrals``) less than ``reach`` moves from ``spot``, nearest
    first: the only ones ``position`` counts (``reach`` moves away or more is worth nothing there)."""
    dist = c.distances[spot]
    towns = c.cathedral_towns if cathedrals else c.towns
    return tuple(sorted((dist[t], t) for t in towns if dist.get(t, reach) < reach))


def king_future(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """The King track's VP (nothing in the red, which resets) scored again at each later King phase."""
    if _over(s) or not w.king_future_w:
        return 0.0
    return w.king_future_w * max(0, king_vp(s, seat)) * (4 - s.round)


def fair_reach(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """Fairs still to come (this round's too) in Towns where the seat takes no part yet but can
    still place a House, as they would score today."""
    if _over(s) or not w.fair_reach_w:
        return 0.0
    p = s.seats[seat]
    if not p.houses:
        return 0.0
    total = 0
    for r in range(s.fairs_scored + 1, 5):
        town = s.fair_towns[r - 1]
        if r == s.round and participates(s, seat, town):
            continue
        if seat not in s.houses.get(town, ()) and why_no_house(s, p, town) is None:
            total += fair_vp(s, seat, r)
    return w.fair_reach_w * total


def _share(have: int, need: int) -> float:
    return 1.0 if need <= 0 else min(1.0, have / need)


def contracts_store(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """Contracts in the Storehouse: the VP they and the space they cover give (a Pillar counted
    3), by the share of their price the seat holds."""
    if _over(s) or not w.contract_w:
        return 0.0
    c = components()
    p = s.seats[seat]
    spaces = c.contract_spaces
    k = len(p.contracts)
    total = 0.0
    for t in p.store:
        raw = c.tiles[t].raw
        if c.tiles[t].kind != "contract" or k >= len(spaces):
            continue
        space = spaces[k]
        gain = (raw.get("vp") or 0) + (space.get("vp") or 0) + 3 * bool(space.get("pillar"))
        need = sum(raw.get("cost", {}).values()) + (raw.get("identical") or 0)
        have = sum(min(p.res[RES_INDEX[r]], n) for r, n in raw.get("cost", {}).items())
        if raw.get("identical"):
            have += min(raw["identical"], max(p.res))
        total += gain * _share(have, need)
        k += 1
    return w.contract_w * total


def cathedrals_open(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """Cathedrals where the seat has a Pillar and has not contributed yet: the VP of contributing,
    by the share of the Stone it holds."""
    if _over(s) or not w.cath_w:
        return 0.0
    c = components()
    p = s.seats[seat]
    done = {c.tiles[t].raw["cathedral"] for t in p.cathedrals}
    total = 0.0
    for town, seats in s.pillars.items():
        stack = s.cathedral_stack.get(town)
        if seat not in seats or town in done or not stack:
            continue
        cost = c.tiles[s.cathedral_cost[town]].raw
        total += (cost["vp"] + c.tiles[stack[-1]].raw["vp"]) * _share(p.res[3], cost["stone"])
    return w.cath_w * total


def crests_store(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """Crests in the Storehouse that can still go below a Building (a free space, no Crest of the
    family yet), by the share of the cheapest free space's Food the seat holds."""
    if _over(s) or not w.crest_w:
        return 0.0
    c = components()
    p = s.seats[seat]
    free = sorted(c.crest_spaces[i]["food"] for i, x in enumerate(p.crests) if x is None)
    have = {c.tiles[t].raw["crest"] for t in p.crests if t is not None}
    total = 0.0
    for t in p.store:
        raw = c.tiles[t].raw
        if c.tiles[t].kind != "crest" or raw["crest"] in have or not free:
            continue
        have.add(raw["crest"])
        total += _share(p.res[1], free.pop(0))
    return w.crest_w * total


def _fair_due(s: GameState) -> bool:
    """Whether this round's Fair is still to be held."""
    return not _over(s) and s.fairs_scored < s.round


def turns_left(s: GameState, seat: int) -> int:
    """The seat's turns of the Action phase still to come this round, the one it is in included."""
    if s.phase != "action" or seat not in s.turn_order:
        return 0
    done = s.turn_order.index(seat) < s.turn_pos     # its turn of this cycle is over
    return max(0, 3 - s.cycle - done)


def fair_plan(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """This round's Fair where the seat takes no part yet: what it would score there today, by the
    chance of getting there before the round ends -- its Merchant's distance to the Fair town
    against the turns left (``fair_plan_steps`` steps a turn), counted whole where a House can still
    go there (a House stays; the Merchant alone must also stay), and a Crest space that puts a House
    or the Merchant anywhere, by the share of its Food held (``crests_plan``'s part, not here)."""
    if not w.fair_plan_w or not _fair_due(s):
        return 0.0
    town = s.fair_towns[s.round - 1]
    if participates(s, seat, town):
        return 0.0
    turns = turns_left(s, seat)
    if not turns:
        return 0.0
    p = s.seats[seat]
    d = components().distances[p.merchant].get(town, 9)
    reach = max(0.0, 1 - d / (w.fair_plan_steps * turns + 1))
    if why_no_house(s, p, town) is not None:
        reach *= 0.75
    return w.fair_plan_w * reach * fair_vp(s, seat)


def king_plan(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """First on the King track at this round's King phase: the King's bonus (the tile on offer, at
    about its worth, or the last round's VP)."""
    if not w.king_plan_w or not _fair_due(s) or s.phase == "king":
        return 0.0
    if king_ranking(s)[0] != seat:
        return 0.0
    c = components()
    worth = c.king_last_round_vp if s.king_bonus is None else 3.0
    return w.king_plan_w * worth


def crests_plan(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """A Crest in the Storehouse whose free Crest space puts a House or the Merchant anywhere, while
    the seat takes no part in this round's Fair: the Fair's VP by the share of that space's Food the
    seat holds (a Crest activated is a way into the Fair)."""
    if not w.crest_plan_w or not _fair_due(s) or not turns_left(s, seat):
        return 0.0
    town = s.fair_towns[s.round - 1]
    if participates(s, seat, town):
        return 0.0
    c = components()
    p = s.seats[seat]
    have = {c.tiles[t].raw["crest"] for t in p.crests if t is not None}
    if not any(c.tiles[t].kind == "crest" and c.tiles[t].raw["crest"] not in have for t in p.store):
        return 0.0
    foods = []
    for i, x in enumerate(p.crests):
        if x is not None:
            continue
        bonus = c.crest_spaces[i]["bonus"]
        if any(b.get("teleport") == "merchant" for b in bonus) or (
                any(b.get("place_anywhere") == "house" for b in bonus) and why_no_house(s, p, town) is None):
            foods.append(c.crest_spaces[i]["food"])
    if not foods:
        return 0.0
    return w.crest_plan_w * _share(p.res[1], min(foods)) * fair_vp(s, seat)


TERMS = (score_now, final_now, resources, king, fair, future_fairs, growth, supply, pending_ap,
         pieces, position, king_future, fair_reach, contracts_store, cathedrals_open, crests_store,
         fair_plan, king_plan, crests_plan)


def value(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """The seat's estimated final VP under the weights of ``w``: the terms' sum, plus
    ``w.learned_w`` times the learned correction (``ai.tiletum.learned``) where it is switched on
    (a full learned evaluation: ``w.learned_w`` of the way from the sum to its prediction) and
    counts at every position (``w.learned_where`` "leaves"; for "turn_end" see
    :func:`turn_end_correction`)."""
    if w.learned_w and w.learned_where == "leaves":
        return _with_learned(s, seat, w)
    total = 0.0
    for t in TERMS:
        total += t(s, seat, w)
    return total


def _with_learned(s: GameState, seat: int, w: Settings) -> float:
    if _over(s):
        # the outcome itself: the score, or (a model of the margin) the score less the best other's
        m = learned.model(w.learned_file, FEATURES)
        me = s.seats[seat].score
        if m.target == "margin":
            return me + w.learned_w * -max((q.score for i, q in enumerate(s.seats) if i != seat), default=0)
        return float(me)
    parts = [t(s, seat, w) for t in TERMS]
    hand, term = sum(parts), _learned(s, seat, w, parts)
    if w.learned_clip and w.learned_anchor is not None:
        term = min(max(term, w.learned_anchor - w.learned_clip), w.learned_anchor + w.learned_clip)
    return hand + w.learned_w * term


def turn_end_correction(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """Where the learned term counts only where the seat's turn ends (``w.learned_where``
    "turn_end"), what it adds at ``s``, a position where the turn has ended: the weighted term,
    bounded as in ``value`` (at the end of the game, a margin model's part of the final margin).
    The look-ahead (``ai.tiletum.lookahead.rerank_totals``) adds it to each of the best root
    moves' next-turn values, which, like the search, use the hand evaluation. 0 otherwise."""
    if not w.learned_w or w.learned_where != "turn_end":
        return 0.0
    return _with_learned(s, seat, w) - value(s, seat, w)


def learned_term(s: GameState, seat: int, w: Settings = DEFAULT) -> float:
    """The learned model's term in ``value`` (before ``w.learned_w`` and any bound): its
    prediction, less the terms' sum for a full model."""
    return _learned(s, seat, w, [t(s, seat, w) for t in TERMS])


def _learned(s: GameState, seat: int, w: Settings, parts: list[float]) -> float:
    m = learned.model(w.learned_file, FEATURES)
    pred = m.predict(features(s, seat, w, parts))
    return pred - sum(parts) if m.full else pred


def anchored(s: GameState, seat: int, w: Settings) -> Settings:
    """``w`` for one decision at ``s``: where the learned term is bounded (``learned_clip``), its
    anchor is the term's value at ``s``, so that every position the decision compares (the
    search's, the look-ahead's) gets the learned term within ``learned_clip`` VP of it: the
    correction can reorder moves by a few VP, never by the tens the search would find where the
    fit overvalues a position. Unchanged where nothing is bounded or the game is over."""
    if not (w.learned_w and w.learned_clip) or _over(s):
        return w
    return replace(w, learned_anchor=learned_term(s, seat, replace(w, learned_anchor=None)))


# --- the learned evaluation's features (ai.tiletum.learned; docs/ai.md, "The learned evaluation") ---

def _raw(s: GameState, seat: int) -> list[float]:
    """Counts of the seat's position that the terms fold together or leave out."""
    c = components()
    p = s.seats[seat]
    kinds = [c.tiles[t].kind for t in p.store]
    due = _fair_due(s)
    ranking = king_ranking(s)
    return [
        *map(float, p.res),                                   # gold, food, wool, stone, iron
        float(p.houses), float(p.pillars),
        float(houses_on_map(s, seat)), float(pillars_on_map(s, seat)),
        float(sum(1 for b in p.rooms for t in b if t is not None)),
        float(completed_buildings(p)),
        float(kinds.count("character")), float(kinds.count("contract")), float(kinds.count("crest")),
        float(len(kinds) - kinds.count("character") - kinds.count("contract") - kinds.count("crest")),
        float(sum(1 for x in p.crests if x is not None)),
        float(len(p.contracts)), float(len(p.cathedrals)),
        float(king_vp(s, seat)), float(ranking[0] == seat),
        float(sum(p.ap_bonus.values())),
        float(due and participates(s, seat, s.fair_towns[s.round - 1])),
        float(turns_left(s, seat)),
        float(max((q.score for i, q in enumerate(s.seats) if i != seat), default=p.score) - p.score),
    ]


RAW = ("gold", "food", "wool", "stone", "iron", "houses_supply", "pillars_supply", "houses_map",
       "pillars_map", "rooms", "completed", "store_characters", "store_contracts", "store_crests",
       "store_other", "crests_placed", "contracts_done", "cathedrals", "king_vp", "king_first",
       "ap_bonus", "at_fair", "turns_left", "behind")
# each term and count as it stands, and again times the share of the game left (rounds_left / 4):
# what a count is worth changes as the game goes on
FEATURES = tuple([t.__name__ for t in TERMS] + list(RAW)
                 + [f"{n}*left" for n in [t.__name__ for t in TERMS] + list(RAW)] + ["left"])


def features(s: GameState, seat: int, w: Settings = DEFAULT, parts: list[float] | None = None) -> list[float]:
    """The learned evaluation's inputs for ``seat`` (named by :data:`FEATURES`): the terms under
    ``w`` (``parts``, if already computed), counts of the position, each again times the share of
    the game left, and that share."""
    if parts is None:
        parts = [t(s, seat, w) for t in TERMS]
    base = list(parts) + _raw(s, seat)
    left = rounds_left(s) / 4
    return base + [x * left for x in base] + [left]


def breakdown(s: GameState, seat: int, w: Settings = DEFAULT) -> dict[str, float]:
    return {t.__name__: t(s, seat, w) for t in TERMS}
