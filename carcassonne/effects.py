"""What placing the tile in hand at a cell, turned so, does to the board, in words (pure): the
roads, cities and cloisters it closes (with the points and to whom, as the scoring will give them),
extends (to how many tiles, whose) or starts. The turn email lists it for each legal placement, so a
player whose email shows no pictures can still choose (games/carcassonne.py ``email_moves``).

It lays the tile on a copy of the position with the engine's own ``lay`` and reads the features the
engine keeps (carcassonne/features.py): what it says is what the scoring does. A follower the move
would add is not counted: the words are of the tile alone.
"""
from __future__ import annotations

from .features import CITY, CLOISTER, ROAD, cloister_tiles, completed_points, find, followers_on, majority
from .state import GameState, lay
from .tiles import placed


def _who(seats: list[int], viewer: int | None, names) -> str:
    def one(seat: int) -> str:
        if seat == viewer:
            return "you"
        return str(names[seat]) if names and 0 <= seat < len(names) and names[seat] else f"seat {seat}"
    said = [one(s) for s in seats]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def _whose(seats: list[int], viewer: int | None, names) -> str:
    """"your", "Ada's", "Ada's and your", or "an unclaimed" when no follower is on it."""
    if not seats:
        return "an unclaimed"
    parts = ["your" if s == viewer else f"{_who([s], viewer, names)}'s" for s in seats]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _points(n: int) -> str:
    return f"{n} point{'' if n == 1 else 's'}"


def placement_effects(s: GameState, x: int, y: int, rot: int, viewer: int | None = None,
                      names=None) -> list[str]:
    """What laying ``s.tile`` at ``x,y`` turned ``rot`` does, in words, most valuable first:
    'closes Ada's city: 8 points to Ada', 'extends your road to 3 tiles', 'starts a cloister'.
    ``viewer``: the seat spoken to ('your road', 'to you')."""
    if s.tile is None:
        return []
    t = s.clone()
    ti = lay(t, s.tile, x, y, rot)
    base = t.base[ti]
    closes: list[tuple[int, str]] = []
    grows: list[str] = []
    seen: set[int] = set()
    for j, seg in enumerate(placed(s.tile, rot).segments):
        if seg.kind not in (CITY, ROAD):
            continue
        root = find(t.parent, base + j)
        if root in seen:
            continue
        seen.add(root)
        f = t.feat[root]
        owners = majority(followers_on(t, root))
        if f.open == 0:
            points = completed_points(t, f)
            to = f": {_points(points)} to {_who(owners, viewer, names)}" if owners else \
                f" ({_points(points)}, but no follower is on it)"
            closes.append((points if owners else 0, f"closes {_whose(owners, viewer, names)} {seg.kind}{to}"))
        elif len(f.tiles) > 1:
            grows.append(f"extends {_whose(owners, viewer, names)} {seg.kind} to {len(f.tiles)} tiles")
        else:
            grows.append(f"starts a {seg.kind}")
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            root = t.cloisters.get((x + dx, y + dy))
            if root is None or t.feat[root].done:
                continue
            n = cloister_tiles(t, (x + dx, y + dy))
            owners = majority(followers_on(t, root))
            if (dx, dy) == (0, 0):
                grows.append("starts a cloister" if n < 9 else "starts a cloister that is already surrounded")
            if n == 9:
                points = completed_points(t, t.feat[root])
                to = f": {_points(points)} to {_who(owners, viewer, names)}" if owners else \
                    f" ({_points(points)}, but no monk is in it)"
                said = f"completes {_whose(owners, viewer, names)} {CLOISTER}{to}"
                closes.append((points if owners else 0, said))
            elif (dx, dy) != (0, 0) and owners:
                grows.append(f"surrounds {_whose(owners, viewer, names)} cloister with {n} of 9 tiles")
    closes.sort(key=lambda c: -c[0])
    return [c[1] for c in closes] + _once(grows)


def _once(phrases: list[str]) -> list[str]:
    """Each phrase once, with how often it holds: a crossing "starts a road, 3 times", not
    "starts a road; starts a road; starts a road" (two unclaimed roads may grow alike, too)."""
    counts: dict[str, int] = {}
    for p in phrases:
        counts[p] = counts.get(p, 0) + 1
    return [p if n == 1 else f"{p}, {'twice' if n == 2 else f'{n} times'}" for p, n in counts.items()]
