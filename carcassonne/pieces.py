"""Carcassonne's tiles and cells as players say them, never by the tile's letter or a cell's
``x,y`` (those are notation; issue 42): 'a city on the north side and a road from east to west',
'2 east and 1 south of the start tile'.

:func:`tile_words` is a tile's features in a few words as it lies (turned), generated from the tile
data (its segments), for the game page, the board picture's titles and the moves and history in
words; :func:`tile_full` adds its sides one by one and its fields, for a title one hover or tap
away; :func:`cell_words` says a cell by where it lies from the start tile.
Pure: the tile data only (carcassonne/data/base-tiles.json)."""
from __future__ import annotations

from .tiles import START_TILE, placed, tileset

SIDE_WORDS = ("north", "east", "south", "west")
EDGE_WORDS = {"C": "city", "R": "road", "F": "field"}
COLOUR_WORDS = ("red", "blue", "yellow", "green", "black")   # the seats' colours, as svg.py draws them


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sides(edges: tuple[int, ...]) -> str:
    return _and([SIDE_WORDS[d] for d in edges])


def _features(letter: str, rot: int) -> list[str]:
    p = placed(letter, rot)
    out: list[str] = []
    roads = [s for s in p.segments if s.kind == "road"]
    cloister = any(s.kind == "cloister" for s in p.segments)
    for s in sorted((s for s in p.segments if s.kind == "city"), key=lambda s: s.edges):
        city = "a city with a shield" if s.shield else "a city"
        if len(s.edges) == 4:
            out.append(f"{city} on every side")
        elif len(s.edges) == 1:
            out.append(f"{city} on the {SIDE_WORDS[s.edges[0]]} side")
        else:
            out.append(f"{city} joining the {_sides(s.edges)} sides")
    if cloister:
        out.append("a cloister in the middle")
    ends = [s for s in roads if len(s.edges) == 1]
    for s in roads:
        if len(s.edges) == 2:
            a, b = s.edges
            out.append(f"a road from {SIDE_WORDS[a]} to {SIDE_WORDS[b]}")
    if ends:
        sides = _sides(tuple(sorted(s.edges[0] for s in ends)))
        if cloister:
            out.append(f"a road from the {sides} side to the cloister")
        elif len(ends) >= 3:
            out.append(f"a crossing of roads to the {sides}")
        else:   # a road that ends at a city gate
            out.append(f"a road from the {sides} side ending at the city")
    if not out:
        out.append("only fields")
    return out


def tile_words(letter: str, rot: int = 0) -> str:
    """A tile's features as it lies, turned ``rot``: 'a city on the north side and a road from
    east to west'."""
    return _and(_features(letter, rot))


def tile_full(letter: str, rot: int = 0) -> str:
    """A tile's whole description, for a title: its features, then each side in turn and how many
    fields it has, and how many such tiles the game has. Never its letter."""
    p = placed(letter, rot)
    t = tileset().types[letter]
    sides = ", ".join(f"{SIDE_WORDS[d]} {EDGE_WORDS[e]}" for d, e in enumerate(p.edges))
    fields = sum(1 for s in p.segments if s.kind == "farm")
    start = "; the start tile is one of them" if letter == START_TILE else ""
    words = tile_words(letter, rot)
    fields_said = "No field" if not fields else f"{fields} field{'s' if fields != 1 else ''}"
    return (f"{words[:1].upper()}{words[1:]}. Sides: {sides}. "
            f"{fields_said}. {t.count} such tile{'s' if t.count != 1 else ''} "
            f"in the game{start}.")


def tile_phrase(letter: str, rot: int = 0) -> str:
    """A tile with its article, for a sentence: 'a tile with a city on the north side and ...'."""
    return "a tile with " + tile_words(letter, rot)


def cell_words(x: int, y: int) -> str:
    """Where a cell lies from the start tile (at 0,0; y grows to the north): '1 north of the start
    tile', '2 east and 1 south of the start tile', 'the start tile's cell'."""
    parts = []
    if x:
        parts.append(f"{abs(x)} {'east' if x > 0 else 'west'}")
    if y:
        parts.append(f"{abs(y)} {'north' if y > 0 else 'south'}")
    return " and ".join(parts) + " of the start tile" if parts else "the start tile's cell"


def follower_words(seat: int, role: str) -> str:
    """A follower on the board by its colour: 'a red knight'."""
    return f"a {COLOUR_WORDS[seat % len(COLOUR_WORDS)]} {role}"
