"""Building Tiletum positions by hand for known-value tests.

A position starts from a real game (``tiletum.new_game``) and is edited field by field; the helpers
here keep the edits consistent (a tile is in exactly one place, the seat to act is the turn
player, shared setup-time objects are replaced rather than mutated).

Typical use::

    s = position(3)
    set_turn(s, 1)
    give(s, 1, gold=4)
    put_in_storehouse(s, 1, "B30")
    set_king(s, [(0, 0), (0, 2), (3, 1)])          # (VP value, seat), bottom -> top
    s = put_die(s, "king", value=4, colour="G")     # a G4 die on the King Action this round
    s, events = do(s, "take G4", "king", "end")

Notes on the engine's representation (see ``tiletum/state.py``):

* ``p.res`` is ``[gold, food, wool, stone, iron]``;
* ``s.king_pos`` holds indexes into ``components().king_values`` (not VP values) and
  ``s.king_seq`` the stacking order (higher = nearer the top);
* ``s.action_tiles``, ``s.fair_towns``, ``s.fair_tiles`` and ``s.cathedral_cost`` are shared
  between clones, so they are only ever *replaced* here, never mutated in place.
"""
from __future__ import annotations

from typing import Iterable

import tiletum
from tiletum.actions import wheel_action
from tiletum.components import RESOURCES, components
from tiletum.effects import REQUIRED
from tiletum.state import GameState

C = components()
RES_NAMES = RESOURCES  # gold, food, wool, stone, iron
KING_VALUES = C.king_values
SEED = "t"


# --- the starting point --------------------------------------------------------------------

def position(players: int = 3, seed: str = "positions", **overrides) -> GameState:
    """A fresh game (round 1, cycle 0, seat 0 to act, no die taken) with fields overridden.

    ``overrides`` are GameState attribute names (``round=3``, ``wheel=[...]``, ...).
    """
    s, _ = tiletum.new_game(players, seed)
    s = s.clone()
    s.undo_base, s.undo_moves = None, []
    for k, v in overrides.items():
        if not hasattr(s, k):
            raise AttributeError(f"GameState has no field {k!r}")
        setattr(s, k, v)
    return s


def set_turn(s: GameState, seat: int, cycle: int | None = None, last: bool = False) -> GameState:
    """Make it the start of ``seat``'s turn (no die taken, nothing pending).

    ``last=True`` reorders the turn order so that ``seat`` is the last player of the cycle
    (ending its turn then ends the cycle: a Corruption reveal, or the King phase after cycle 3).
    """
    if last:
        s.turn_order = [x for x in s.turn_order if x != seat] + [seat]
    if cycle is not None:
        s.cycle = cycle
    s.phase = "action"
    s.turn_pos = s.turn_order.index(seat)
    s.turn = {"seat": seat, "die": None, "exchanged": False, "override": None}
    s.agenda = []
    s.actor = seat
    s.undo_base, s.undo_moves = None, []
    return s


# --- resources and score -------------------------------------------------------------------

def _res_kwargs(kw: dict) -> dict[int, int]:
    out = {}
    for name, n in kw.items():
        if name not in RES_NAMES:
            raise TypeError(f"unknown resource {name!r} (one of {', '.join(RES_NAMES)})")
        out[RES_NAMES.index(name)] = n
    return out


def give(s: GameState, seat: int, **amounts: int) -> GameState:
    """Add resources: ``give(s, 0, gold=4, food=2)``."""
    for i, n in _res_kwargs(amounts).items():
        s.seats[seat].res[i] += n
    return s


def set_res(s: GameState, seat: int, **amounts: int) -> GameState:
    """Set a player's resources exactly (unnamed resources become 0)."""
    res = [0] * len(RES_NAMES)
    for i, n in _res_kwargs(amounts).items():
        res[i] = n
    s.seats[seat].res = res
    return s


def res(s: GameState, seat: int) -> dict[str, int]:
    return dict(zip(RES_NAMES, s.seats[seat].res))


# --- tiles ---------------------------------------------------------------------------------

def remove_tile(s: GameState, tile: str) -> GameState:
    """Take ``tile`` out of wherever it is (piles, offers, action/King/map bonus spaces, box,
    Storehouses, player boards). An offer slot it leaves is refilled from the start of the pile
    (deterministically) so the offer stays full."""
    for pile in s.piles.values():
        if tile in pile:
            pile.remove(tile)
    if tile in s.box:
        s.box.remove(tile)
    for offer, pile in ((s.character_offer, "character"), (s.contract_offer, "contract")):
        for i, t in enumerate(offer):
            if t == tile:
                rest = s.piles[pile]
                offer[i] = rest.pop(0) if rest else None
    for a, t in list(s.action_bonus.items()):
        if t == tile:
            s.action_bonus[a] = None
    if s.king_bonus == tile:
        s.king_bonus = None
    for town, tiles in s.map_bonus.items():
        if tile in tiles:
            tiles.remove(tile)
    for p in s.seats:
        if tile in p.store:
            p.store.remove(tile)
        for rooms in p.rooms:
            for i, t in enumerate(rooms):
                if t == tile:
                    rooms[i] = None
        p.crests = [None if t == tile else t for t in p.crests]
        if tile in p.contracts:
            p.contracts.remove(tile)
    return s


def put_in_storehouse(s: GameState, seat: int, *tiles: str) -> GameState:
    for t in tiles:
        remove_tile(s, t)
        s.seats[seat].store.append(t)
    return s


FILLER = ("B41", "B43", "B45", "B46", "B47", "B48", "B49", "B51", "B53")  # harmless Helpers


def fill_storehouse(s: GameState, seat: int, tiles: Iterable[str] = FILLER) -> GameState:
    """Fill the Storehouse to capacity with (by default) harmless resource/VP Helpers."""
    p = s.seats[seat]
    for t in tiles:
        if len(p.store) >= C.storehouse_size:
            break
        if t not in p.store:
            put_in_storehouse(s, seat, t)
    assert len(p.store) == C.storehouse_size
    return s


def set_offer(s: GameState, which: str, tiles: list[str | None]) -> GameState:
    """Set the Character or Contract offer exactly (tiles leave their other places)."""
    attr = {"character": "character_offer", "contract": "contract_offer"}[which]
    for t in tiles:
        if t is not None:
            remove_tile(s, t)
    # tiles that were in the offer go back to their pile
    old = [t for t in getattr(s, attr) if t is not None and t not in tiles]
    setattr(s, attr, list(tiles))
    pile = s.piles[which]
    pile.extend(old)
    pile.sort()
    return s


def set_action_bonus(s: GameState, action: str, tile: str | None) -> GameState:
    old = s.action_bonus.get(action)
    if tile is not None:
        remove_tile(s, tile)
    if old is not None and old != tile:
        s.piles["bonus"].append(old)
        s.piles["bonus"].sort()
    s.action_bonus[action] = tile
    return s


def clear_action_bonuses(s: GameState) -> GameState:
    for a in list(s.action_bonus):
        set_action_bonus(s, a, None)
    return s


def set_king_bonus(s: GameState, tile: str | None) -> GameState:
    old = s.king_bonus
    if tile is not None:
        remove_tile(s, tile)
    if old is not None and old != tile:
        s.piles["bonus"].append(old)
        s.piles["bonus"].sort()
    s.king_bonus = tile
    return s


def set_map_bonus(s: GameState, town: str, tiles: list[str]) -> GameState:
    for t in tiles:
        remove_tile(s, t)
    old = [t for t in s.map_bonus.get(town, []) if t not in tiles]
    s.piles["bonus"].extend(old)
    s.piles["bonus"].sort()
    s.map_bonus[town] = list(tiles)
    return s


def place_in_rooms(s: GameState, seat: int, building: int, tiles: list[str | None]) -> GameState:
    """Fill Building ``building`` (1-based) floor by floor (index 0 = floor 1); no bonuses."""
    p = s.seats[seat]
    rooms = p.rooms[building - 1]
    assert len(tiles) <= len(rooms), f"Building {building} has {len(rooms)} Rooms"
    for i, t in enumerate(tiles):
        if t is not None:
            remove_tile(s, t)
            rooms[i] = t
    if rooms and all(t is not None for t in rooms) and p.roofs[building - 1]:
        p.roofs[building - 1] = False
        p.houses += 1
    return s


def place_crest(s: GameState, seat: int, space: int, tile: str) -> GameState:
    """Put a Crest on Crest space ``space`` (1-based) without paying or its bonus."""
    remove_tile(s, tile)
    s.seats[seat].crests[space - 1] = tile
    return s


def fulfilled(s: GameState, seat: int, tiles: list[str]) -> GameState:
    """Put Contracts on the Contract spaces (as fulfilled), taking the Pillars they free."""
    p = s.seats[seat]
    for t in tiles:
        remove_tile(s, t)
        space = C.contract_spaces[len(p.contracts)]
        p.contracts.append(t)
        if space.get("pillar"):
            p.pillars += 1
    return s


def tiles_of(kind: str | None = None, pile: str | None = None, players: int = 4, **raw) -> list[str]:
    """Tile ids (sorted) matching a kind / pile / raw fields, usable with ``players`` players."""
    out = []
    for tid, t in sorted(C.tiles.items()):
        if kind is not None and t.kind != kind:
            continue
        if pile is not None and t.pile != pile:
            continue
        if t.min_players > players:
            continue
        if all(t.raw.get(k) == v for k, v in raw.items()):
            out.append(tid)
    return out


# --- the map -------------------------------------------------------------------------------

def put_house(s: GameState, seat: int, town: str) -> GameState:
    """Move a House of ``seat`` from its supply to ``town`` (no placement reward).

    The supply must hold one: free roof Houses first (``place_in_rooms``) if needed."""
    p = s.seats[seat]
    here = s.houses.setdefault(town, [])
    assert seat not in here, f"seat {seat} already has a House in {town}"
    assert p.houses > 0, f"seat {seat} has no House in supply"
    here.append(seat)
    p.houses -= 1
    return s


def put_pillar(s: GameState, seat: int, town: str) -> GameState:
    """Move a Pillar of ``seat`` from its supply to the Cathedral of ``town``.

    The supply must hold one: free Pillars first (``fulfilled``) if needed."""
    p = s.seats[seat]
    here = s.pillars.setdefault(town, [])
    assert seat not in here, f"seat {seat} already has a Pillar in {town}"
    assert p.pillars > 0, f"seat {seat} has no Pillar in supply"
    here.append(seat)
    p.pillars -= 1
    return s


def set_cathedral_cost(s: GameState, town: str, tile: str) -> GameState:
    """Swap Construction Cost tiles so ``town`` has ``tile`` (the dict is replaced, not mutated)."""
    cost = dict(s.cathedral_cost)
    other = next((t for t, x in cost.items() if x == tile), None)
    if other is not None and other != town:
        cost[other] = cost[town]
    cost[town] = tile
    s.cathedral_cost = cost
    # the unavailable Cathedral has no stack; the others have their full stack
    for t, x in cost.items():
        stack = sorted((k for k in C.pile_ids["cathedral"] if C.tiles[k].raw["cathedral"] == t),
                       key=lambda k: (C.tiles[k].raw["vp"], k))
        if C.tiles[x].raw.get("unavailable"):
            s.box = sorted(set(s.box) | set(stack))
            s.cathedral_stack[t] = []
        else:
            s.box = sorted(set(s.box) - set(stack))
            s.cathedral_stack[t] = stack
    return s


def unavailable_cathedral(s: GameState) -> str:
    return next(t for t, x in s.cathedral_cost.items() if C.tiles[x].raw.get("unavailable"))


def available_cathedrals(s: GameState) -> list[str]:
    return [t for t in C.cathedral_towns if not C.tiles[s.cathedral_cost[t]].raw.get("unavailable")]


def set_fair(s: GameState, rnd: int, town: str | None = None, tile: str | None = None) -> GameState:
    """Set the Fair town and/or Fair tile of round ``rnd`` (lists are replaced)."""
    if town is not None:
        towns = list(s.fair_towns)
        towns[rnd - 1] = town
        s.fair_towns = towns
    if tile is not None:
        tiles = list(s.fair_tiles)
        if tile in tiles:
            tiles[tiles.index(tile)] = tiles[rnd - 1]
        tiles[rnd - 1] = tile
        s.fair_tiles = tiles
    return s


NOBODY_TOWN = "Firenze"


def no_fair(s: GameState, rnd: int | None = None) -> GameState:
    """Move this round's Fair to a town where nobody has a House or the Merchant (so it scores 0)."""
    rnd = rnd or s.round
    for p in s.seats:
        assert p.merchant != NOBODY_TOWN and p.seat not in s.houses.get(NOBODY_TOWN, [])
    return set_fair(s, rnd, town=NOBODY_TOWN)


# --- the King track ------------------------------------------------------------------------

def king_index(value: int) -> int:
    return KING_VALUES.index(value)


def set_king(s: GameState, markers: list[tuple[int, int]]) -> GameState:
    """Place every marker: ``[(VP value, seat), ...]`` listed bottom -> top (stack order); seats
    not listed keep their position but go below the listed ones."""
    listed = [seat for _, seat in markers]
    assert len(set(listed)) == len(listed)
    n = 0
    for seat in sorted((x for x in range(s.players) if x not in listed), key=lambda x: s.king_seq[x]):
        n += 1
        s.king_seq[seat] = n
    for value, seat in markers:
        n += 1
        s.king_pos[seat] = king_index(value)
        s.king_seq[seat] = n
    s.king_counter = n
    return s


def king_value(s: GameState, seat: int) -> int:
    return KING_VALUES[s.king_pos[seat]]


def king_stack(s: GameState, value: int) -> list[int]:
    """Seats on the space of this VP value, bottom -> top."""
    i = king_index(value)
    return sorted((x for x in range(s.players) if s.king_pos[x] == i), key=lambda x: s.king_seq[x])


# --- dice and the Action Wheel -------------------------------------------------------------

def wheel_die_for(s: GameState, action: str) -> int:
    """The die value whose Action is ``action`` this round."""
    for v in range(1, 7):
        if wheel_action(s, v) == action:
            return v
    raise ValueError(action)


def put_action_at(s: GameState, action: str, value: int) -> GameState:
    """Rearrange the Action tiles (a new list) so that a die of ``value`` is on ``action``."""
    if wheel_action(s, value) == action:
        return s
    tiles = list(s.action_tiles)
    i = (value - 1 + (s.round - 1) * C.wheel_rotation) % 6
    j = tiles.index(action)
    tiles[i], tiles[j] = tiles[j], tiles[i]
    s.action_tiles = tiles
    assert wheel_action(s, value) == action
    return s


def set_wheel(s: GameState, *dice: str) -> GameState:
    s.wheel = sorted(dice)
    return s


def put_die(s: GameState, action: str, value: int, colour: str = "G", keep: bool = True) -> GameState:
    """Make sure a ``colour``+``value`` die is on the wheel and that value is on ``action``."""
    put_action_at(s, action, value)
    die = f"{colour}{value}"
    if not keep:
        s.wheel = [die]
    elif die not in s.wheel:
        s.wheel = sorted(s.wheel + [die])
    return s


# --- playing -------------------------------------------------------------------------------

def do(s: GameState, *moves: str, seed: str = SEED, source=None) -> tuple[GameState, list[dict]]:
    """Play ``moves`` in order, each by the seat to act. Returns (new state, events).

    ``source`` (e.g. :class:`FirstSource`) replaces the seeded chance of every move. Every move
    is also folded with ``tiletum.evolve`` and must give the same position, and ``play`` must
    leave the position it was given unchanged."""
    events: list[dict] = []
    for m in moves:
        before = s.to_doc()
        evs, new = tiletum.play(s, s.actor, m, seed=seed, source=source)
        assert s.to_doc() == before, f"play() changed the position it was given ({m!r})"
        # decide and evolve agree: folding the recorded events gives the same position
        folded = s
        for ev in evs:
            folded = tiletum.evolve(folded, ev)
        assert folded == new, f"evolve disagrees with play for {m!r}"
        assert folded.undo_moves == new.undo_moves, f"undo history differs after {m!r}"
        events.extend(evs)
        s = new
    return s, events


def pending(s: GameState) -> dict | None:
    """The top of the agenda (a pending choice or the Action in progress), or None."""
    return s.agenda[-1] if s.agenda else None


def skip_choices(s: GameState, seed: str = SEED) -> GameState:
    """Skip every pending optional decision of the seat to act."""
    while s.agenda and s.agenda[-1]["t"] == "choice" and s.agenda[-1]["kind"] not in REQUIRED:
        s, _ = do(s, "skip", seed=seed)
    return s


def quick_turn(s: GameState, seed: str = SEED, source=None) -> GameState:
    """Finish the turn player's turn as plainly as possible: take a die not on the Joker or the
    King Action (if none was taken), decline optional decisions, and end the turn."""
    if s.turn["die"] is None:
        die = next((d for d in sorted(s.wheel) if wheel_action(s, int(d[1])) not in ("joker", "king")), None)
        if die is None:
            die = sorted(s.wheel)[0]
        s, _ = do(s, f"take {die}", seed=seed)
    while True:
        top = pending(s)
        if top is None or (top["t"] == "frame" and top["main"]):
            break
        if top["t"] == "choice" and top["kind"] == "joker":
            s, _ = do(s, "action merchant", seed=seed)
        elif top["t"] == "choice" and top["kind"] in REQUIRED:
            s, _ = do(s, "gain G", seed=seed)
        else:
            s, _ = do(s, "skip", seed=seed)
    s, _ = do(s, "end", seed=seed, source=source)
    return s


def check_position(s: GameState) -> GameState:
    """Assert that a hand-made position is consistent (tile conservation, piece counts, whose
    decision it is), using the engine's own validator when it has one."""
    try:
        from tiletum.validate import problems
    except ImportError:  # pragma: no cover - older engine
        return s
    found = problems(s)
    assert not found, "inconsistent hand-made position: " + "; ".join(found)
    return s


def doc_without_version(s: GameState) -> dict:
    d = s.to_doc()
    d.pop("version")
    return d


class FirstSource:
    """A chance source that always picks the first element of a (sorted) population and rolls 1s.

    Use it with ``do(..., source=FirstSource())`` to make the draws of a move predictable, e.g.
    the Corruption token revealed when a round starts (the pool is sorted, so a "0" token)."""

    def randbelow(self, n: int) -> int:
        return 0




def token_value(token: str) -> int:
    return C.tiles[token].raw["value"]


def tokens_of_value(v: int) -> list[str]:
    return [t for t in C.pile_ids["corruption"] if token_value(t) == v]
