"""The land tiles: loaded once from ``carcassonne/data/base-tiles.json``, rotated, named.

Tile data derived from the tile definitions of the JCloisterZone project (AGPL-3.0), file
``src/extraResources/expansions/basic.xml`` of farin/JCloisterZone-Client (see
``carcassonne/data/README.md``).

Sides are numbered N=0, E=1, S=2, W=3. A *half edge* is a side and a half, ``side * 2 + lr``
with ``lr`` 0 for the left and 1 for the right half as seen from the tile's centre looking out
(the data's ``NL``, ``NR``, ``EL``...). Rotating a tile by 90 degrees clockwise turns side ``d``
into ``d + 1`` and keeps each half's left/right, so a rotation is a shift of side numbers.

On a tile, every *segment* (a piece of one feature) is numbered: cities first, then roads, then
farms (fields), then the cloister. Its *spot names*, the words a player types to put a follower
on it, are compass names of the placed (rotated) tile: a city or road by a side it reaches
(``N``, ``E``, ``S``, ``W``), a farm by a corner it reaches (``NE``, ``SE``, ``SW``, ``NW``), the
cloister by nothing. A segment's canonical name is the first of its names in that order.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

SIDES = "NESW"
CORNERS = ("NE", "SE", "SW", "NW")
HALVES = ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")
ROTATIONS = (0, 90, 180, 270)
START_TILE = "D"
FOLLOWERS = 7  # of a player's 8, one is the score marker
ROLE_OF_KIND = {"city": "knight", "road": "thief", "farm": "farmer", "cloister": "monk"}
KIND_OF_ROLE = {v: k for k, v in ROLE_OF_KIND.items()}
ATTRIBUTION = ("Tile data derived from JCloisterZone (farin/JCloisterZone-Client, "
               "src/extraResources/expansions/basic.xml, AGPL-3.0)")


def corner_of_half(h: int) -> int:
    """The corner a half edge touches: the right half of side d and the left half of d+1 meet at
    corner d (NE=0, SE=1, SW=2, NW=3)."""
    side, lr = divmod(h, 2)
    return side if lr else (side - 1) % 4


@dataclass(frozen=True, slots=True)
class Segment:
    kind: str                 # city | road | farm | cloister
    edges: tuple[int, ...]    # sides (city, road) or half edges (farm); () for a cloister
    shield: bool = False      # city only
    cities: tuple[int, ...] = ()  # farm only: the local numbers of the city segments it touches


@dataclass(frozen=True, slots=True)
class TileType:
    letter: str
    count: int                # in the game, the start tile included
    edges: str                # N, E, S, W in the printed orientation: C city, R road, F field
    segments: tuple[Segment, ...]
    jcz_id: str

    @property
    def cloister(self) -> bool:
        return any(s.kind == "cloister" for s in self.segments)


class Placed:
    """A tile type turned by a rotation: its edges, segments and spot names as placed."""

    __slots__ = ("letter", "rot", "edges", "segments", "side_seg", "half_seg", "names", "spots",
                 "canonical_rot", "occ", "masks", "cloister_seg", "joins", "faces")

    def __init__(self, t: TileType, rot: int):
        q = rot // 90
        self.letter, self.rot = t.letter, rot
        self.edges = tuple(t.edges[(d - q) % 4] for d in range(4))
        segs = []
        for s in t.segments:
            if s.kind == "farm":
                edges = tuple(sorted(((h // 2 + q) % 4) * 2 + h % 2 for h in s.edges))
            else:
                edges = tuple(sorted((d + q) % 4 for d in s.edges))
            segs.append(Segment(s.kind, edges, s.shield, s.cities))
        self.segments = tuple(segs)
        self.side_seg: list[int | None] = [None] * 4   # the city or road segment on each side
        self.half_seg: list[int | None] = [None] * 8   # the farm segment on each half edge
        self.names: list[str] = []                      # canonical spot name per segment
        self.spots: dict[tuple[str, str], int] = {}     # (role, any accepted spot name) -> segment
        self.occ: list[tuple[int, ...]] = []            # per segment: indices into a cell's 12 flags
        self.cloister_seg: int | None = None
        for k, s in enumerate(segs):
            role = ROLE_OF_KIND[s.kind]
            if s.kind == "farm":
                for h in s.edges:
                    self.half_seg[h] = k
                corners = sorted({corner_of_half(h) for h in s.edges})
                names = [CORNERS[c] for c in corners]
                occ = tuple((h // 2) * 3 + 1 + h % 2 for h in s.edges)
            elif s.kind == "cloister":
                self.cloister_seg = k
                names, occ = [""], ()
            else:
                for d in s.edges:
                    self.side_seg[d] = k
                names = [SIDES[d] for d in s.edges]
                occ = tuple(d * 3 for d in s.edges)
            self.names.append(names[0])
            self.occ.append(occ)
            for n in names:
                self.spots[(role, n)] = k
        self.masks = tuple(sum(1 << i for i in o) for o in self.occ)  # the same, as bit masks
        # per side d, what joins a neighbour there: (our road/city segment or None, the neighbour's
        # side), and (our farm segment, the neighbour's half edge) per half; and what an empty
        # cell there faces: (the cell's occupancy bit, our segment)
        self.joins = []
        self.faces = []
        for d in range(4):
            od = (d + 2) % 4
            halves = tuple((self.half_seg[2 * d + lr], 2 * od + 1 - lr) for lr in (0, 1)
                           if self.half_seg[2 * d + lr] is not None)
            self.joins.append((self.side_seg[d], od, halves))
            faces = []
            if self.side_seg[d] is not None:
                faces.append((1 << (3 * od), self.side_seg[d]))
            for lr in (0, 1):  # the cell's half (od, lr) faces our half (d, 1 - lr)
                if self.half_seg[2 * d + 1 - lr] is not None:
                    faces.append((1 << (3 * od + 1 + lr), self.half_seg[2 * d + 1 - lr]))
            self.faces.append(tuple(faces))
        self.canonical_rot = rot

    def shape(self) -> tuple:
        return (self.edges, frozenset(self.segments))


@dataclass(frozen=True)
class TileSet:
    types: dict[str, TileType]

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(sorted(self.types))

    def pile(self) -> list[str]:
        """The draw pile at the start: every tile but the start tile, as a sorted list of letters."""
        out = []
        for letter in self.letters:
            n = self.types[letter].count - (1 if letter == START_TILE else 0)
            out.extend([letter] * n)
        return out


def _load() -> TileSet:
    raw = json.loads(resources.files("carcassonne").joinpath("data/base-tiles.json").read_text("utf-8"))
    types: dict[str, TileType] = {}
    for t in raw["tiles"]:
        if not t["count_basic_1"]:
            continue  # garden variants of the newer edition (count_basic_2 only)
        segs: list[Segment] = []
        for c in t["cities"]:
            segs.append(Segment("city", tuple(sorted(SIDES.index(e) for e in c["edges"])), bool(c["shield"])))
        for r in t["roads"]:
            segs.append(Segment("road", tuple(sorted(SIDES.index(e) for e in r))))
        for f in t["farms"]:
            segs.append(Segment("farm", tuple(sorted(HALVES.index(h) for h in f["half_edges"])),
                                cities=tuple(f["adjacent_city_index"])))
        if t["cloister"]:
            segs.append(Segment("cloister", ()))
        tt = TileType(t["letter"], t["count_basic_1"], t["edges_NESW"], tuple(segs), t["jcz_id"])
        _check(tt, t["start_tile_type"])
        types[tt.letter] = tt
    return TileSet(types)


def _check(t: TileType, start: bool) -> None:
    """The data's facts the rules rely on (a failure is a data error, caught by the tests)."""
    for d, e in enumerate(t.edges):
        on = [s for s in t.segments if s.kind in ("city", "road") and d in s.edges]
        want = {"C": ["city"], "R": ["road"], "F": []}[e]
        assert [s.kind for s in on] == want, (t.letter, d)
        halves = [s for s in t.segments if s.kind == "farm" and (2 * d in s.edges or 2 * d + 1 in s.edges)]
        if e == "C":
            assert not halves, (t.letter, d)
        elif e == "F":
            assert len(halves) == 1 and {2 * d, 2 * d + 1} <= set(halves[0].edges), (t.letter, d)
        else:  # both halves are field, in two farms or (a road ending at a cloister) in one
            assert {2 * d, 2 * d + 1} <= {h for f in halves for h in f.edges}, (t.letter, d)
    # no two farms share a corner, so a corner names one farm
    corners = [corner_of_half(h) for s in t.segments if s.kind == "farm" for h in set(s.edges)]
    per_farm = [{corner_of_half(h) for h in s.edges} for s in t.segments if s.kind == "farm"]
    assert sum(len(c) for c in per_farm) == len(set(corners)), t.letter
    assert (t.letter == START_TILE) == start, t.letter


@lru_cache(maxsize=1)
def tileset() -> TileSet:
    return _load()


@lru_cache(maxsize=None)
def placed(letter: str, rot: int) -> Placed:
    """The tile ``letter`` turned clockwise by ``rot`` degrees (0, 90, 180, 270)."""
    t = tileset().types[letter]
    p = Placed(t, rot)
    for r in ROTATIONS:  # the smallest rotation that gives the same tile on the table
        if r >= rot:
            break
        if Placed(t, r).shape() == p.shape():
            p.canonical_rot = r
            break
    return p


def fits(letter: str, around: tuple) -> tuple[int, ...]:
    """The distinct (canonical) rotations of ``letter`` whose edges match ``around``: the edge
    types the neighbours show towards the cell on each side N, E, S, W (None: no neighbour)."""
    out = []
    for r in ROTATIONS:
        p = placed(letter, r)
        if p.canonical_rot != r:
            continue
        if all(a is None or a == e for a, e in zip(around, p.edges)):
            out.append(r)
    return tuple(out)


@lru_cache(maxsize=1)
def fit_table() -> dict[str, dict[tuple, tuple[int, ...]]]:
    """``fits`` for every tile and every possible surrounding, as plain dicts (for speed)."""
    kinds = (None, "C", "R", "F")
    arounds = [(n, e, s, w) for n in kinds for e in kinds for s in kinds for w in kinds]
    return {letter: {a: fits(letter, a) for a in arounds} for letter in tileset().letters}
