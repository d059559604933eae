"""Primitive operations on a game state: resources, VP, tiles into the Storehouse, Houses and
Pillars on the map, the King track, and the counts that Fairs and final scoring use.

These are the building blocks of the moves; they check nothing beyond what they document.
"""
from __future__ import annotations

from .components import LETTER_RES, RES_INDEX, components
from .notation import Move
from .state import GameState, PlayerState
from .terms import Reason
from .terms import crest as _crest
from .terms import town as _town

C = None  # the Components, bound on first use (see _c)


def _c():
    global C
    if C is None:
        C = components()
    return C


def res_index(letter_or_name: str) -> int:
    return RES_INDEX[LETTER_RES.get(letter_or_name, letter_or_name)]


def add_vp(p: PlayerState, n: int) -> None:
    """Score (or lose) VP. The Scoring track never goes below 0 (rulebook: Playing the Game)."""
    p.score = max(0, p.score + n)


def gain(p: PlayerState, resources: dict[str, int]) -> None:
    for r, n in resources.items():
        p.res[RES_INDEX[r]] += n


# --- the Storehouse ----------------------------------------------------------------------

def has_crest(p: PlayerState, family: str) -> bool:
    tiles = _c().tiles
    return any(t is not None and tiles[t].raw.get("crest") == family for t in p.crests) or any(
        tiles[t].kind == "crest" and tiles[t].raw.get("crest") == family for t in p.store)


def open_contract_spaces(p: PlayerState, rules: int) -> int:
    """Contract spaces not yet covered by a fulfilled Contract (Contracts held in the Storehouse
    cover none: rulebook, Contracts; summary: "if all 6 Contract spaces are full"). Games started
    under rules version 1 also count the Contracts held, as that version did."""
    held = sum(1 for t in p.store if _c().tiles[t].kind == "contract") if rules == 1 else 0
    return len(_c().contract_spaces) - len(p.contracts) - held


def why_cannot_take(p: PlayerState, tile: str, rules: int) -> tuple[str, str] | None:
    """Why this player may not take this tile into the Storehouse, or None if they may."""
    c = _c()
    if len(p.store) >= c.storehouse_size:
        return ("storehouse-full", Reason("your Storehouse is full (Types of Tiles: no tile can be taken)"))
    t = c.tiles[tile]
    if t.kind == "crest" and has_crest(p, t.raw["crest"]):
        return ("crest-duplicate", Reason("you already have a {crest} Crest (Crests: never two of a type)",
                                          crest=_crest(t.raw["crest"])))
    if t.kind == "contract" and open_contract_spaces(p, rules) <= 0:
        return ("contract-spaces-full", Reason("all your Contract spaces are taken (Contracts)"))
    return None


# --- Houses and Pillars --------------------------------------------------------------------

def free_house_spaces(s: GameState, town: str) -> list[int]:
    """The empty House spaces of ``town`` in play at this player count (0-based, printed order).

    ``s.houses[town]`` holds the seat on each space in printed order, ``None`` on an empty one
    before an occupied one (trailing empty spaces are left out)."""
    c = _c()
    if town not in c.towns:  # a road space
        return []
    here = s.houses.get(town, ())
    n = len(c.house_spaces(town, s.players))
    return [i for i in range(n) if i >= len(here) or here[i] is None]


def has_free_house_space(s: GameState, town: str) -> bool:
    """Whether ``town`` (a Town) has an empty House space in play (:func:`free_house_spaces`)."""
    here = s.houses.get(town, ())
    n = len(_c().house_spaces(town, s.players))
    return len(here) < n or None in here[:n]


def house_space_choices(s: GameState, town: str) -> list[int] | None:
    """The free House spaces (1-based) a player chooses between in ``town``, or ``None`` when there
    is nothing to choose: one free space, or all free spaces give the same reward (then a plain
    ``house`` fills the first of them)."""
    free = free_house_spaces(s, town)
    if len(free) <= 1 or s.rules == 1:  # rules version 1 filled the spaces in printed order
        return None
    spaces = _c().house_spaces(town, s.players)
    if len({repr(spaces[i].get("reward") or None) for i in free}) <= 1:
        return None
    return [i + 1 for i in free]


def house_moves(s: GameState, town: str, named: bool = False) -> list:
    """The ``house`` moves that build in ``town``: one per free space when their rewards differ,
    else a plain one. ``named`` puts the town in the move (a Crest's "anywhere" placement)."""
    head = (town,) if named else ()
    choices = house_space_choices(s, town)
    if choices is None:
        return [Move("house", head)]
    return [Move("house", (*head, str(i))) for i in choices]


def why_no_house(s: GameState, p: PlayerState, town: str) -> tuple[str, str] | None:
    c = _c()
    if not c.is_town(town):
        return ("not-a-town", Reason("{spot} is a road space: Houses go in Towns", spot=town))
    if p.houses <= 0:
        return ("no-house", Reason("you have no House in your supply"))
    here = s.houses.get(town, [])
    if p.seat in here:
        return ("house-already", Reason("you already have a House in {town}", town=_town(town)))
    if not has_free_house_space(s, town):
        return ("no-house-space", Reason("{town} has no empty House space", town=_town(town)))
    return None


def why_not_house_space(s: GameState, town: str, space: int | None) -> tuple[str, str] | None:
    """Whether ``space`` (1-based, or ``None`` for a plain ``house``) names a House space of
    ``town`` correctly, assuming a House may be placed there."""
    choices = house_space_choices(s, town)
    if space is None:
        if choices is None:
            return None
        return ("choose-house-space",
                Reason("the free House spaces of {town} give different rewards: say which, "
                       "{choices}", town=_town(town),
                       choices=" or ".join(f"'house {i}'" for i in choices)))
    if choices is None:
        return ("no-house-space-choice",
                Reason("the free House spaces of {town} give the same reward: write just 'house'",
                       town=_town(town)))
    if space not in choices:
        return ("house-space-taken", Reason("House space {space} of {town} is not free (free: {free})",
                                            space=space,
                                            town=_town(town), free=", ".join(map(str, choices))))
    return None


def place_house(s: GameState, p: PlayerState, town: str, space: int | None = None) -> list | None:
    """Put a House from supply on House space ``space`` (1-based) of ``town``, by default the first
    empty one in printed order; return the space's reward."""
    i = free_house_spaces(s, town)[0] if space is None else space - 1
    here = s.houses.setdefault(town, [])
    if i >= len(here):
        here.extend([None] * (i + 1 - len(here)))
    here[i] = p.seat
    p.houses -= 1
    return _c().house_spaces(town, s.players)[i].get("reward")


def why_no_pillar(s: GameState, p: PlayerState, town: str) -> tuple[str, str] | None:
    c = _c()
    if town not in c.towns or not c.towns[town].cathedral:
        return ("no-cathedral", Reason("{town} has no Cathedral", town=_town(town)))
    if c.tiles[s.cathedral_cost[town]].raw.get("unavailable"):
        return ("cathedral-unavailable", Reason("the Cathedral in {town} will not be built this game",
                                                town=_town(town)))
    if p.pillars <= 0:
        return ("no-pillar", Reason("you have no Pillar in your supply"))
    here = s.pillars.get(town, [])
    if p.seat in here:
        return ("pillar-already", Reason("you already have a Pillar at the {town} Cathedral",
                                         town=_town(town)))
    if len(here) >= c.pillar_space_count(town, s.players):
        return ("no-pillar-space", Reason("the {town} Cathedral has no empty Pillar space", town=_town(town)))
    return None


def place_pillar(s: GameState, p: PlayerState, town: str) -> None:
    s.pillars.setdefault(town, []).append(p.seat)
    p.pillars -= 1


def houses_on_map(s: GameState, seat: int) -> int:  # a seat is on at most one space per Town
    return sum(1 for v in s.houses.values() if seat in v)


def pillars_on_map(s: GameState, seat: int) -> int:
    return sum(1 for v in s.pillars.values() if seat in v)


# --- the King track ----------------------------------------------------------------------

def _on_top(s: GameState, seat: int, pos: int) -> None:
    s.king_pos[seat] = pos
    s.king_counter += 1
    s.king_seq[seat] = s.king_counter


def king_advance(s: GameState, seat: int, steps: int) -> int:
    """Move up ``steps`` spaces, never past the top (+15); land on top of a stack. Returns moved."""
    pos = s.king_pos[seat]
    new = min(_c().king_top, pos + steps)
    if new != pos:
        _on_top(s, seat, new)
    return new - pos


def king_ranking(s: GameState) -> list[int]:
    """Seats from highest on the King track; a tie goes to the bottommost marker (in a solo
    game the Cardinalbot always wins a tie)."""
    if s.solo is not None:
        bot = s.solo["bot"]
        return sorted(range(s.players), key=lambda i: (-s.king_pos[i], i != bot, s.king_seq[i]))
    return sorted(range(s.players), key=lambda i: (-s.king_pos[i], s.king_seq[i]))


def corruption(s: GameState, value: int) -> None:
    """Move every marker ``value`` spaces left, leftmost first, keeping stack order (Action phase)."""
    if value <= 0:
        return
    for seat in sorted(range(s.players), key=lambda i: (s.king_pos[i], s.king_seq[i])):
        new = max(0, s.king_pos[seat] - value)
        if new != s.king_pos[seat]:
            _on_top(s, seat, new)


def reset_red(s: GameState) -> None:
    """Markers in the red part go to 0; the previously lowest ends on top (King phase step 2)."""
    c = _c()
    red = [i for i in range(s.players) if c.king_values[s.king_pos[i]] < 0]
    for seat in sorted(red, key=lambda i: (-s.king_pos[i], s.king_seq[i])):
        _on_top(s, seat, c.king_start)


def king_vp(s: GameState, seat: int) -> int:
    return _c().king_values[s.king_pos[seat]]


# --- Buildings -----------------------------------------------------------------------------

def building_type(p: PlayerState, b: int, rules: int) -> str | None:
    for t in p.rooms[b]:
        if t is not None:
            return _c().tile_raw(t, rules)["type"]
    return None


def building_filled(p: PlayerState, b: int) -> bool:
    rooms = p.rooms[b]
    return bool(rooms) and all(t is not None for t in rooms)


def building_completed(p: PlayerState, b: int) -> bool:
    """All Rooms filled and a Crest below it (the pre-occupied sixth needs only the Crest)."""
    return p.crests[b] is not None and all(t is not None for t in p.rooms[b])


def completed_buildings(p: PlayerState) -> int:
    return sum(1 for b in range(len(p.crests)) if building_completed(p, b))


def crest_count(p: PlayerState) -> int:
    """Crest tiles on the player board: placed ones and those in the Storehouse."""
    tiles = _c().tiles
    return sum(1 for t in p.crests if t is not None) + sum(1 for t in p.store if tiles[t].kind == "crest")


def fair_count(s: GameState, p: PlayerState, counts: str) -> int:
    """How many times a player meets a Fair tile's condition (Appendix: Fair tiles)."""
    seat = p.seat
    if counts == "house_pillar_sets":
        return min(houses_on_map(s, seat), pillars_on_map(s, seat))
    if counts == "contract_cathedral_sets":
        return min(len(p.contracts), len(p.cathedrals))
    if counts == "contracts":
        return len(p.contracts)
    if counts == "contract_crest_sets":
        return min(len(p.contracts), crest_count(p))
    if counts == "houses":
        return houses_on_map(s, seat)
    if counts == "upper_characters":
        return sum(1 for rooms in p.rooms for t in rooms[1:] if t is not None)
    if counts == "crests":
        return crest_count(p)
    if counts == "pillars":
        return pillars_on_map(s, seat)
    if counts == "filled_buildings":
        return sum(1 for b in range(len(p.rooms)) if building_filled(p, b))
    if counts == "cathedrals":
        return len(p.cathedrals)
    raise ValueError(f"unknown Fair condition {counts!r}")


# --- piles ---------------------------------------------------------------------------------

def draw(s: GameState, pile: str, chance) -> str | None:
    """Reveal a random tile of a face-down pile (None when it is empty)."""
    remaining = s.piles[pile]
    if not remaining:
        return None
    tile = chance.choice("draw:" + pile, remaining)
    remaining.remove(tile)
    return tile


def to_box(s: GameState, tile: str) -> None:
    """Remove a tile from the game (kept sorted so positions compare equal)."""
    box = s.box
    box.append(tile)
    box.sort()


def take_character(s: GameState, slot: int, chance) -> str:
    """Take the Character in offer slot ``slot`` (0-based) and refill it at once."""
    tile = s.character_offer[slot]
    s.character_offer[slot] = draw(s, "character", chance)
    return tile


def discard_characters(s: GameState, chance) -> None:
    """Discard the whole Character offer back into the pile and refill it."""
    pile = s.piles["character"]
    pile.extend(t for t in s.character_offer if t is not None)
    pile.sort()
    s.character_offer = [draw(s, "character", chance) for _ in s.character_offer]
