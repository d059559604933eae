"""Features: roads, cities, farms and cloisters, tracked as the tiles are placed, and their scoring.

Every segment of every placed tile has a number (a tile's segments are numbered from its
``base``); segments joined across matching edges are merged with a union-find, and each root
carries its feature's running totals (:class:`Feature`). A road or city counts its *open* edges:
each side it reaches adds one, each matched side removes two (one from each tile); with none
left it is complete. A cloister is complete when its tile and the eight around it are placed.

Scoring follows the rules text ("Scoring", "Final scoring"); see docs/carcassonne.md "Rulings"
for the points of an incomplete cloister, and of a two-tile city in games of rules version 1.
"""
from __future__ import annotations

ROAD, CITY, FARM, CLOISTER = "road", "city", "farm", "cloister"


class Feature:
    """A feature's totals, kept on its union-find root."""

    __slots__ = ("kind", "tiles", "shields", "open", "men", "cities", "done", "pos")

    def __init__(self, kind: str, tile: int, shields: int = 0, open_: int = 0, pos=None):
        self.kind = kind
        self.tiles = {tile}         # placement numbers of the tiles it spans
        self.shields = shields
        self.open = open_           # unmatched sides (road, city)
        self.men = 0                # followers on it
        self.cities: set[int] = set()  # farm: city segments it touches
        self.done = False           # completed (road, city, cloister)
        self.pos = pos              # cloister: its cell

    def copy(self) -> "Feature":
        f = Feature.__new__(Feature)
        f.kind, f.shields, f.open, f.men, f.done, f.pos = (self.kind, self.shields, self.open, self.men,
                                                             self.done, self.pos)
        f.tiles = set(self.tiles)
        f.cities = set(self.cities) if self.cities else self.cities
        return f


def find(parent: list[int], a: int) -> int:
    root = parent[a]
    if root == a:
        return a
    while parent[root] != root:
        root = parent[root]
    while parent[a] != root:  # path compression
        parent[a], a = root, parent[a]
    return root


def union(s, a: int, b: int) -> int:
    """Merge the features of segments ``a`` and ``b``; return the root."""
    parent, feat = s.parent, s.feat
    ra, rb = find(parent, a), find(parent, b)
    if ra == rb:
        return ra
    fa, fb = feat[ra], feat[rb]
    if len(fa.tiles) < len(fb.tiles):
        ra, rb, fa, fb = rb, ra, fb, fa
    parent[rb] = ra
    fa.tiles |= fb.tiles
    fa.shields += fb.shields
    fa.open += fb.open
    fa.men += fb.men
    if fb.cities:
        fa.cities = fa.cities | fb.cities
    del feat[rb]
    return ra


def cloister_tiles(s, pos) -> int:
    """How many of the nine cells centred on a cloister hold a tile."""
    x, y = pos
    at = s.at
    return sum(1 for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (x + dx, y + dy) in at)


def followers_on(s, root: int) -> dict[int, list[int]]:
    """seat -> the segments of its followers on the feature ``root``."""
    out: dict[int, list[int]] = {}
    parent = s.parent
    for seg, (seat, _, _) in s.meeples.items():
        if find(parent, seg) == root:
            out.setdefault(seat, []).append(seg)
    return out


def majority(men: dict[int, list[int]]) -> list[int]:
    """The seats with the most followers (all of them in a tie), sorted."""
    if not men:
        return []
    most = max(len(v) for v in men.values())
    return sorted(seat for seat, v in men.items() if len(v) == most)


def completed_points(s, f: Feature) -> int:
    """Points of a feature completed during play ("Scoring")."""
    if f.kind == ROAD:
        return len(f.tiles)                   # 1 per tile
    if f.kind == CITY:
        n = len(f.tiles)
        # 2 per tile and shield; games started under rules version 1 scored a two-tile city at 1
        per = 1 if n == 2 and s.rules == "1" else 2
        return per * (n + f.shields)
    return 9                                  # a cloister and its eight neighbours


def complete(s, root: int) -> dict:
    """Score the feature ``root`` that was just completed and return its followers."""
    f = s.feat[root]
    f.done = True
    men = followers_on(s, root)
    winners = majority(men)
    points = completed_points(s, f)
    for seat in winners:
        s.scores[seat] += points
    for seat, segs in men.items():
        for seg in segs:
            del s.meeples[seg]
        s.supply[seat] += len(segs)
    f.men = 0
    return {"kind": f.kind, "points": points if winners else 0, "seats": winners, "tiles": len(f.tiles),
            "shields": f.shields if f.kind == CITY else 0,
            "returned": {str(seat): len(segs) for seat, segs in sorted(men.items())}}


def incomplete_points(s, f: Feature) -> int:
    """Points of an incomplete feature at the end ("Final scoring")."""
    if f.kind == ROAD:
        return len(f.tiles)
    if f.kind == CITY:
        return len(f.tiles) + f.shields
    return cloister_tiles(s, f.pos)           # 1 per tile of the cloister's nine cells (Rulings)


def final_scoring(s) -> list[dict]:
    """Score incomplete roads, cities and cloisters and then farms; add to the scores. Returns
    the scorings; ``s.final`` gets the per-seat breakdown."""
    parent = s.parent
    out: list[dict] = []
    breakdown = [{"road": 0, "city": 0, "cloister": 0, "farm": 0} for _ in range(s.players)]
    roots = sorted(r for r, f in s.feat.items() if f.men and not f.done and f.kind != FARM)
    for r in roots:
        f = s.feat[r]
        men = followers_on(s, r)
        winners = majority(men)
        points = incomplete_points(s, f)
        for seat in winners:
            s.scores[seat] += points
            breakdown[seat][f.kind] += points
        out.append({"kind": f.kind, "points": points, "seats": winners, "tiles": len(f.tiles),
                    "shields": f.shields if f.kind == CITY else 0, "complete": False})
    # farms: for each completed city, the most farmers in all the farms that touch it score 3
    farm_men: dict[int, dict[int, list[int]]] = {}
    supplies: dict[int, list[int]] = {}   # completed city root -> the farm roots touching it
    for r, f in s.feat.items():
        if f.kind != FARM or not f.men:
            continue
        farm_men[r] = followers_on(s, r)
        for c in {find(parent, seg) for seg in f.cities}:
            if s.feat[c].done:
                supplies.setdefault(c, []).append(r)
    for c in sorted(supplies):
        farmers: dict[int, list[int]] = {}
        for r in supplies[c]:
            for seat, segs in farm_men[r].items():
                farmers.setdefault(seat, []).extend(segs)
        winners = majority(farmers)
        for seat in winners:
            s.scores[seat] += 3
            breakdown[seat]["farm"] += 3
        out.append({"kind": "farm", "points": 3, "seats": winners, "tiles": len(s.feat[c].tiles),
                    "shields": 0, "complete": True})
    s.final = {"breakdown": breakdown, "scorings": out}
    return out
