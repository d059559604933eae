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
from .words import N_, NC_, say


# a feature as the move's words name it, by whose it is: nobody's, the viewer's alone, or others'
# (with or without the viewer): "an unclaimed city", "your city", "Ada's and your city"
UNCLAIMED = {CITY: N_("an unclaimed city"), ROAD: N_("an unclaimed road"),
             CLOISTER: N_("an unclaimed cloister")}
YOURS = {CITY: N_("your city"), ROAD: N_("your road"), CLOISTER: N_("your cloister")}
THEIRS = {CITY: N_("{whose} city"), ROAD: N_("{whose} road"), CLOISTER: N_("{whose} cloister")}
# "your" among others'
YOUR = {CITY: NC_("city", "your"), ROAD: NC_("road", "your"), CLOISTER: NC_("cloister", "your")}
STARTS = {CITY: N_("starts a city"), ROAD: N_("starts a road"), CLOISTER: N_("starts a cloister")}


def _who(seats: list[int], viewer: int | None, names, w) -> str:
    def one(seat: int) -> str:
        if seat == viewer:
            return w._("you")
        if names and 0 <= seat < len(names) and names[seat]:
            return str(names[seat])
        return w._("seat {n}", n=seat)
    return w.list([one(s) for s in seats])


def _feature(kind: str, seats: list[int], viewer: int | None, names, w) -> str:
    """"your city", "Ada's city", "Ada's and your city", or "an unclaimed city" when no follower
    is on it (each language says whose as its grammar wants: German "Adas Stadt", French "la ville
    d'Ada")."""
    if not seats:
        return w._(UNCLAIMED[kind])
    if seats == [viewer]:
        return w._(YOURS[kind])
    parts = [w.pgettext(kind, YOUR[kind]) if s == viewer
             else w._("{name}'s", name=_who([s], viewer, names, w)) for s in seats]
    return w._(THEIRS[kind], whose=w.list(parts))


def placement_effects(s: GameState, x: int, y: int, rot: int, viewer: int | None = None,
                      names=None, lang: str | None = None) -> list[str]:
    """What laying ``s.tile`` at ``x,y`` turned ``rot`` does, in words, most valuable first:
    'closes Ada's city: 8 points to Ada', 'extends your road to 3 tiles', 'starts a cloister'.
    ``viewer``: the seat spoken to ('your road', 'to you')."""
    if s.tile is None:
        return []
    w = say(lang)
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
        what = _feature(seg.kind, owners, viewer, names, w)
        if f.open == 0:
            points = completed_points(t, f)
            said = (w.ngettext("closes {what}: {n} point to {who}", "closes {what}: {n} points to {who}",
                               points, what=what, who=_who(owners, viewer, names, w)) if owners else
                    w.ngettext("closes {what} ({n} point, but no follower is on it)",
                               "closes {what} ({n} points, but no follower is on it)", points, what=what))
            closes.append((points if owners else 0, said))
        elif len(f.tiles) > 1:
            grows.append(w._("extends {what} to {n} tiles", what=what, n=len(f.tiles)))
        else:
            grows.append(w._(STARTS[seg.kind]))
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            root = t.cloisters.get((x + dx, y + dy))
            if root is None or t.feat[root].done:
                continue
            n = cloister_tiles(t, (x + dx, y + dy))
            owners = majority(followers_on(t, root))
            if (dx, dy) == (0, 0):
                grows.append(w._(STARTS[CLOISTER]) if n < 9
                             else w._("starts a cloister that is already surrounded"))
            what = _feature(CLOISTER, owners, viewer, names, w)
            if n == 9:
                points = completed_points(t, t.feat[root])
                said = (w.ngettext("completes {what}: {n} point to {who}",
                                   "completes {what}: {n} points to {who}", points, what=what,
                                   who=_who(owners, viewer, names, w)) if owners else
                        w.ngettext("completes {what} ({n} point, but no monk is in it)",
                                   "completes {what} ({n} points, but no monk is in it)", points, what=what))
                closes.append((points if owners else 0, said))
            elif (dx, dy) != (0, 0) and owners:
                grows.append(w._("surrounds {what} with {n} of 9 tiles", what=what, n=n))
    closes.sort(key=lambda c: -c[0])
    return [c[1] for c in closes] + _once(grows, w)


def _once(phrases: list[str], w) -> list[str]:
    """Each phrase once, with how often it holds: a crossing "starts a road, 3 times", not
    "starts a road; starts a road; starts a road" (two unclaimed roads may grow alike, too)."""
    counts: dict[str, int] = {}
    for p in phrases:
        counts[p] = counts.get(p, 0) + 1
    return [p if n == 1 else w._("{phrase}, twice", phrase=p) if n == 2
            else w._("{phrase}, {n} times", phrase=p, n=n) for p, n in counts.items()]
