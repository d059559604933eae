"""The AI's evaluation of a Carcassonne position for one seat (used by ``ai.generic``).

``value(state, seat)`` estimates the seat's final standing: every seat's score as it would be
if the game ended now (the final scoring of incomplete roads, cities and cloisters and of farms,
``carcassonne.features.final_scoring``, computed without changing the state), plus what an
incomplete city or cloister is likely still to gain, plus the worth of followers still in
supply while tiles remain; then the seat's estimate less the best other seat's, so that the AI
plays to win, not only to score. A finished game is its final scores.

The weights are measured, not printed rules: see docs/ai.md ("Carcassonne") and bench/ai.py.
"""
from __future__ import annotations

from collections import Counter

from carcassonne.features import (CITY, CLOISTER, FARM, cloister_tiles, completed_points, find,
                                 incomplete_points)
from carcassonne.rules import placeable

TILES = 71                  # land tiles face down at the start (the start tile is placed)
FOLLOWER = 2.0              # a follower in supply, early in the game (scaled by the tiles left)
KEEP = 4                    # followers in supply beyond this many add nothing more
CITY_CHANCE = {1: 0.75, 2: 0.5, 3: 0.3, 4: 0.15}   # open sides -> chance a city is completed
CLOISTER_CHANCE = 0.6       # of each missing neighbour being placed, while tiles remain


def _city_chance(f, left: int) -> float:
    return CITY_CHANCE.get(f.open, 0.05) * min(1.0, left / 8)


def estimates(s) -> list[float]:
    """Each seat's estimated final score (docstring above), without the relative step."""
    if s.phase == "over":
        return [float(v) for v in s.scores]
    parent, feat = s.parent, s.feat
    left = len(s.pile)
    est = [float(v) for v in s.scores]
    men: dict[int, dict[int, int]] = {}
    for seg, (seat, _, _) in s.meeples.items():
        r = find(parent, seg)
        d = men.setdefault(r, {})
        d[seat] = d.get(seat, 0) + 1
    farms = []
    for r, by_seat in men.items():
        f = feat[r]
        most = max(by_seat.values())
        winners = [seat for seat, n in by_seat.items() if n == most]
        if f.kind == FARM:
            farms.append((f, by_seat))
            continue
        v = float(incomplete_points(s, f))
        if f.kind == CITY:
            v += _city_chance(f, left) * (completed_points(s, f) - v)
        elif f.kind == CLOISTER:
            v += (9 - cloister_tiles(s, f.pos)) * CLOISTER_CHANCE * min(1.0, left / 12)
        for seat in winners:
            est[seat] += v
    if farms:
        # each city (completed, or likely to be) goes to the most farmers in all its farms
        cities: dict[int, dict[int, int]] = {}
        for f, by_seat in farms:
            for c in {find(parent, seg) for seg in f.cities}:
                d = cities.setdefault(c, {})
                for seat, n in by_seat.items():
                    d[seat] = d.get(seat, 0) + n
        for c, by_seat in cities.items():
            city = feat[c]
            worth = 3.0 if city.done else 3.0 * _city_chance(city, left)
            most = max(by_seat.values())
            for seat, n in by_seat.items():
                if n == most:
                    est[seat] += worth
    scale = FOLLOWER * left / TILES
    for seat, n in enumerate(s.supply):
        est[seat] += scale * min(n, KEEP)
    return est


def value(s, seat: int) -> float:
    est = estimates(s)
    return est[seat] - max(v for i, v in enumerate(est) if i != seat)


def next_tiles(s) -> list[tuple[float, object]]:
    """The chance node before the seat to act places its tile: the state ``s`` (whose tile in hand
    was drawn by a sampled future) with that tile replaced by each tile it could have been, and
    the weight of each, its count among the tiles face down (the drawn one put back). A tile that
    fits nowhere would be set aside and another drawn, so only tiles that fit are outcomes. All
    of it is public (the tile mix and the board), so the search loses nothing by it."""
    if s.phase == "over" or s.tile is None:
        return [(1.0, s)]
    pool = Counter(s.pile)
    pool[s.tile] += 1
    out = []
    for letter, n in sorted(pool.items()):
        if letter == s.tile:
            out.append((float(n), s))
            continue
        if not placeable(s, letter):
            continue
        v = s.clone()
        pool[letter] -= 1
        v.pile = sorted(pool.elements())
        pool[letter] += 1
        v.tile = letter
        out.append((float(n), v))
    return out
