"""Moves and their text notation. Grammar: docs/carcassonne.md, "Notation".

A turn is one move: where the tile in hand goes, how it is turned, and the follower put on it,
if any::

    place 3,-1 r90                 the tile at x=3, y=-1 turned 90 degrees clockwise
    place 3,-1 r90 farmer NE       ... and a farmer in the field at its north-east corner
    place 0,1 r0 knight S          ... a knight in the city reaching its south side
    place -1,0 r270 thief E        ... a thief on the road reaching its east side
    place 2,2 r0 monk              ... a monk in its cloister

``str(move)`` is the canonical text and ``parse(str(move)) == move``. Parsing is tolerant: any
case and spacing, ``3 -1`` or ``(3, -1)`` for the cell, ``90``, ``r90``, ``90deg`` or ``90°`` for
the rotation, synonyms for the roles (``robber``/``highwayman`` for thief, ``monk``/``abbot`` for
monk, ``peasant`` for farmer...), ``north-east`` or ``en`` for ``NE``, ``turned 90``, small words
such as ``at``, ``with a``, ``on the`` (``place at 3,-1 turned 90 with a farmer in the north-east``),
and the verb may be left out. Which spot names a tile accepts depends on the tile (a farm may be named by any
corner it reaches); a legal move is recorded with the spot's canonical name (``rules.normalize``).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from rules_common.errors import Reason, Term

from .errors import NotationError

ROLES = ("thief", "knight", "monk", "farmer")
ROLE_SYNONYMS = {
    "thief": "thief", "thieves": "thief", "robber": "thief", "highwayman": "thief", "road": "thief",
    "knight": "knight", "city": "knight",
    "monk": "monk", "abbot": "monk", "cloister": "monk", "monastery": "monk",
    "farmer": "farmer", "peasant": "farmer", "field": "farmer", "farm": "farmer",
}
NO_FOLLOWER = {"none", "no", "nofollower", "nothing", "-"}
VERBS = {"place", "play", "put", "tile", "lay"}
SPOT_WORDS = {
    "n": "N", "north": "N", "e": "E", "east": "E", "s": "S", "south": "S", "w": "W", "west": "W",
    "ne": "NE", "en": "NE", "northeast": "NE", "se": "SE", "es": "SE", "southeast": "SE",
    "sw": "SW", "ws": "SW", "southwest": "SW", "nw": "NW", "wn": "NW", "northwest": "NW",
}
SIDE_SPOTS = ("N", "E", "S", "W")
CORNER_SPOTS = ("NE", "SE", "SW", "NW")
# re.ASCII: the digits of a move are 0-9 only, as in Tiletum's notation; without it \d took any
# script's digits ("place ３,４ r0", "place ٣,٤ r0") and int() read them (issue 27)
_CELL = re.compile(r"^\(?\s*(-?\d{1,3})\s*[,;/ ]\s*(-?\d{1,3})\s*\)?", re.ASCII)
_ROT = re.compile(r"^(?:r|rot|rotation|rotated?|turn(?:ed)?)?\s*(\d{1,3})\s*(?:°|deg|degrees?)?$", re.ASCII)
ROT_WORDS = {"r", "rot", "rotation", "rotate", "rotated", "turn", "turned", "by"}
FILLERS = {"at", "on", "in", "the", "a", "an", "with", "to", "its", "of", "and"}


class Move(NamedTuple):
    """Place the tile in hand at (x, y) turned ``rot`` degrees clockwise, with a follower
    (``role`` thief/knight/monk/farmer on ``spot``; None, None for no follower)."""

    x: int
    y: int
    rot: int
    role: str | None = None
    spot: str | None = None

    @property
    def verb(self) -> str:
        return "place"

    @property
    def args(self) -> tuple[str, ...]:
        """The words after the verb, as ``tiletum.Move.args``: ('3,-1', 'r90', 'farmer', 'NE')."""
        return tuple(str(self).split()[1:])

    def __str__(self) -> str:
        text = f"place {self.x},{self.y} r{self.rot}"
        if self.role is not None:
            text += f" {self.role}"
            if self.spot:
                text += f" {self.spot}"
        return text


def _spot(token: str, role: str, text: str) -> str:
    key = re.sub(r"[\s\-_.]", "", token.lower())
    spot = SPOT_WORDS.get(key)
    if spot is None:
        raise NotationError(Reason("{text}: unknown spot {token} (N, E, S, W for a road or city; "
                                   "NE, SE, SW, NW for a field)", text=repr(text), token=repr(token)))
    if role == "farmer" and spot not in CORNER_SPOTS:
        raise NotationError(Reason("{text}: a farmer's spot is a corner of the tile: NE, SE, SW or NW",
                                   text=repr(text)))
    if role in ("thief", "knight") and spot not in SIDE_SPOTS:
        raise NotationError(Reason("{text}: a {role}'s spot is a side of the tile: N, E, S or W",
                                   text=repr(text), role=Term("follower", role)))
    return spot


def parse(text: str) -> Move:
    """Parse one move. Raises :class:`NotationError` with a one-line reason."""
    if not isinstance(text, str):
        raise NotationError(Reason("a move is a string"))
    rest = text.strip()
    if not rest:
        raise NotationError(Reason("empty move"))
    if len(rest) > 200:
        raise NotationError(Reason("a move is at most 200 characters"))
    first = rest.split(None, 1)[0].lower()
    if first in VERBS:
        rest = rest[len(first):].strip()
        if rest[:3].lower() == "at ":
            rest = rest[3:].strip()
    elif first[:1].isalpha() and not first.startswith("("):
        raise NotationError(Reason("{text}: unknown verb {verb} "
                                   "(a move is the word place, the cell as column,row, the tile's turn r0, "
                                   "r90, r180 or r270, and a follower with its spot if you put one: e.g. "
                                   "place 3,-1 r90 knight N)", text=repr(text),
                                   verb=repr(rest.split(None, 1)[0])))
    m = _CELL.match(rest)
    if not m:
        raise NotationError(Reason("{text}: where is the tile? e.g. place 3,-1 r90", text=repr(text)))
    x, y = int(m.group(1)), int(m.group(2))
    tokens = rest[m.end():].replace(",", " ").split()
    while len(tokens) > 1 and tokens[0].lower() in ROT_WORDS:  # "r 90", "turned 90", "rotated by 90"
        tokens = tokens[1:]
    if not tokens:
        raise NotationError(Reason("{text}: how is the tile turned? r0, r90, r180 or r270", text=repr(text)))
    rot_text = tokens.pop(0)
    if tokens and tokens[0].lower() in ("°", "deg", "degrees", "degree"):
        rot_text += tokens.pop(0)
    r = _ROT.match(rot_text.lower())
    if not r or int(r.group(1)) not in (0, 90, 180, 270):   # r360, r450: no, as the grammar says
        raise NotationError(Reason("{text}: a rotation is r0, r90, r180 or r270 (clockwise), not {rot}",
                                   text=repr(text), rot=repr(rot_text)))
    rot = int(r.group(1))
    tokens = [t for t in tokens if t.lower() not in FILLERS]
    if not tokens or (len(tokens) <= 2 and "".join(tokens).lower() in NO_FOLLOWER):
        return Move(x, y, rot)
    role = ROLE_SYNONYMS.get(tokens[0].lower())
    if role is None:
        raise NotationError(Reason("{text}: unknown follower {token} (thief, knight, monk or farmer)",
                                   text=repr(text), token=repr(tokens[0])))
    spot_tokens = tokens[1:]
    if role == "monk":
        if spot_tokens:
            raise NotationError(Reason("{text}: a monk needs no spot (a tile has at most one cloister)",
                                       text=repr(text)))
        return Move(x, y, rot, "monk")
    if not spot_tokens:
        if role == "farmer":
            raise NotationError(Reason("{text}: on which corner (NE, SE, SW, NW) of the tile does the "
                                       "farmer go?", text=repr(text)))
        raise NotationError(Reason("{text}: on which side (N, E, S, W) of the tile does the {role} go?",
                                   text=repr(text), role=Term("follower", role)))
    return Move(x, y, rot, role, _spot("".join(spot_tokens), role, text))


def format_move(move: Move) -> str:
    return str(move)
