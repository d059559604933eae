"""Carcassonne's tiles and cells as players say them, never by the tile's letter or a cell's
``x,y`` (those are notation; issue 42): 'a city on the north side and a road from east to west',
'2 east and 1 south of the start tile'.

:func:`tile_words` is a tile's features in a few words as it lies (turned), generated from the tile
data (its segments), for the game page, the board picture's titles and the moves and history in
words; :func:`tile_full` adds its sides one by one and its fields, for a title one hover or tap
away; :func:`cell_words` says a cell by where it lies from the start tile.
Pure: the tile data only (carcassonne/data/base-tiles.json). The words of moves and events
(:func:`tile_words`, :func:`tile_phrase`, :func:`cell_words`) speak a ``lang`` (English by default:
carcassonne/words.py, the game's catalogs); the board's titles stay English (svg.py)."""
from __future__ import annotations

from .tiles import START_TILE, placed, tileset
from .words import N_, NC_, say

SIDE_WORDS = ("north", "east", "south", "west")

EDGE_WORDS = {"C": NC_("edge", "city"), "R": NC_("edge", "road"), "F": NC_("edge", "field")}
# the seats' colours, as svg.py draws them, said of a follower ("a red knight": German "ein roter Ritter")
COLOUR_WORDS = (NC_("follower", "red"), NC_("follower", "blue"), NC_("follower", "yellow"),
                NC_("follower", "green"), NC_("follower", "black"))
ROLE_WORDS = {"knight": NC_("follower", "knight"), "thief": NC_("follower", "thief"),
              "monk": NC_("follower", "monk"), "farmer": NC_("follower", "farmer")}


# a side as a tile's features name it ("a city in the north": German "im Norden", French "côté nord")
SIDE_SAID = (NC_("side", "north"), NC_("side", "east"), NC_("side", "south"), NC_("side", "west"))
# each feature's phrases; German says them in the dative and French after "avec" (a tile *with* them)
CITY_ON = (N_("a city on the {side} side"), N_("a city with a shield on the {side} side"))
CITY_EVERY = (N_("a city on every side"), N_("a city with a shield on every side"))
CITY_JOINING = (N_("a city joining the {sides} sides"), N_("a city with a shield joining the {sides} sides"))


def _side(d: int, w) -> str:
    return w.pgettext("side", SIDE_SAID[d])


def _sides(edges: tuple[int, ...], w) -> str:
    return w.list([_side(d, w) for d in edges])


def _features(letter: str, rot: int, w) -> list[str]:
    p = placed(letter, rot)
    out: list[str] = []
    roads = [s for s in p.segments if s.kind == "road"]
    cloister = any(s.kind == "cloister" for s in p.segments)
    for s in sorted((s for s in p.segments if s.kind == "city"), key=lambda s: s.edges):
        shield = int(bool(s.shield))
        if len(s.edges) == 4:
            out.append(w._(CITY_EVERY[shield]))
        elif len(s.edges) == 1:
            out.append(w._(CITY_ON[shield], side=_side(s.edges[0], w)))
        else:
            out.append(w._(CITY_JOINING[shield], sides=_sides(s.edges, w)))
    if cloister:
        out.append(w._("a cloister in the middle"))
    ends = [s for s in roads if len(s.edges) == 1]
    for s in roads:
        if len(s.edges) == 2:
            a, b = s.edges
            out.append(w._("a road from {a} to {b}", a=_side(a, w), b=_side(b, w)))
    if ends:
        sides = _sides(tuple(sorted(s.edges[0] for s in ends)), w)
        if cloister:
            out.append(w._("a road from the {sides} side to the cloister", sides=sides))
        elif len(ends) >= 3:
            out.append(w._("a crossing of roads to the {sides}", sides=sides))
        else:   # a road that ends at a city gate
            out.append(w._("a road from the {sides} side ending at the city", sides=sides))
    if not out:
        out.append(w._("only fields"))
    return out


def tile_words(letter: str, rot: int = 0, lang: str | None = None) -> str:
    """A tile's features as it lies, turned ``rot``: 'a city on the north side and a road from
    east to west'."""
    w = say(lang)
    return w.list(_features(letter, rot, w))


def tile_full(letter: str, rot: int = 0, lang: str | None = None) -> str:
    """A tile's whole description, for a title: its features, then each side in turn and how many
    fields it has, and how many such tiles the game has. Never its letter."""
    w = say(lang)
    p = placed(letter, rot)
    t = tileset().types[letter]
    sides = ", ".join(w._("{side} {edge}", side=w.pgettext("side", SIDE_SAID[d]),
                          edge=w.pgettext("edge", EDGE_WORDS[e])) for d, e in enumerate(p.edges))
    fields = sum(1 for s in p.segments if s.kind == "farm")
    words = w._("{features}.", features=tile_words(letter, rot, lang))   # German: "Plättchen mit ..."
    fields_said = w.ngettext("{n} field.", "{n} fields.", fields) if fields else w._("No field.")
    if letter == START_TILE:
        such = w.ngettext("{n} such tile in the game; the start tile is one of them.",
                          "{n} such tiles in the game; the start tile is one of them.", t.count)
    else:
        such = w.ngettext("{n} such tile in the game.", "{n} such tiles in the game.", t.count)
    said_sides = w._("Sides: {sides}.", sides=sides)
    return f"{words[:1].upper()}{words[1:]} {said_sides} {fields_said} {such}"


def tile_phrase(letter: str, rot: int = 0, lang: str | None = None) -> str:
    """A tile with its article, for a sentence: 'a tile with a city on the north side and ...'."""
    return say(lang)._("a tile with {features}", features=tile_words(letter, rot, lang))


CELL_STEP = {"east": N_("{n} east"), "west": N_("{n} west"), "north": N_("{n} north"),
             "south": N_("{n} south")}


def cell_words(x: int, y: int, lang: str | None = None) -> str:
    """Where a cell lies from the start tile (at 0,0; y grows to the north): '1 north of the start
    tile', '2 east and 1 south of the start tile', 'the start tile's cell'."""
    w = say(lang)
    parts = []
    if x:
        parts.append(w._(CELL_STEP["east" if x > 0 else "west"], n=abs(x)))
    if y:
        parts.append(w._(CELL_STEP["north" if y > 0 else "south"], n=abs(y)))
    if not parts:
        return w._("the start tile's cell")
    return w._("{where} of the start tile", where=w.list(parts))


def follower_words(seat: int, role: str, lang: str | None = None) -> str:
    """A follower on the board by its colour: 'a red knight'."""
    w = say(lang)
    return w._("a {colour} {role}", colour=w.pgettext("follower", COLOUR_WORDS[seat % len(COLOUR_WORDS)]),
               role=w.pgettext("follower", ROLE_WORDS[role]))
