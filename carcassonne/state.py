"""The game state: the tiles on the table, the features they make, followers, scores, the tile
in hand and whose turn it is.

Nothing hidden lives here: the face-down tiles are only a multiset (the tile mix of the base game
is public; the order does not exist until a draw, made from the game's seed when the tile is
revealed). The position document (``to_doc``, docs/carcassonne.md "Position document") is the
whole state; the features are rebuilt from the tiles when a document is loaded.
"""
from __future__ import annotations

import copy
from collections import Counter

from .errors import PositionError
from .features import CITY, CLOISTER, FARM, ROAD, Feature, cloister_tiles, find, union
from .tiles import FOLLOWERS, ROLE_OF_KIND, ROTATIONS, START_TILE, placed, tileset

FORMAT = "carcassonne-position/1"
# The rules version of new games. A game is played to its end under the version it started with
# (its GameStarted event's "rules"): version 2 scores every completed city at 2 points per tile
# and shield, as the rulebook says; version 1 scored a two-tile city at 1 (docs/carcassonne.md).
RULES_VERSION = "2"
RULES_VERSIONS = ("1", "2")


def rules_version(value) -> str:
    """The rules version of a GameStarted event or position document: absent (written before
    versions were kept in documents) is version 1; an unknown one raises PositionError."""
    if value is None or value == "":
        return "1"
    if str(value) not in RULES_VERSIONS:
        raise PositionError(
            f"unknown rules version {value!r} (this engine plays {', '.join(RULES_VERSIONS)})")
    return str(value)
DX = (0, 1, 0, -1)  # N, E, S, W; y grows to the north
DY = (1, 0, -1, 0)


class GameState:
    __slots__ = ("players", "options", "version", "reveals", "phase", "actor", "tile", "scores", "supply",
                 "tiles", "shapes", "at", "open", "facing", "pile", "set_aside", "meeples", "parent", "feat",
                 "base", "cloisters", "final", "winners", "rules")

    def __init__(self, players: int = 2, options: dict | None = None, rules: str = RULES_VERSION):
        self.players = players
        self.options = dict(options or {})
        self.rules = rules                          # the rules version the game started under
        self.version = 0
        self.reveals = 0
        self.phase = "play"                         # play | over
        self.actor: int | None = 0                  # the seat to place the tile in hand
        self.tile: str | None = None                # the tile in hand (revealed), or None at the end
        self.scores = [0] * players
        self.supply = [FOLLOWERS] * players         # followers not on the board
        self.tiles: list[tuple[int, int, str, int]] = []  # (x, y, letter, rotation) in order placed
        self.shapes: list = []                      # placement number -> its tiles.Placed
        self.at: dict[tuple[int, int], int] = {}    # cell -> placement number
        self.open: dict[tuple[int, int], tuple] = {}  # empty cell next to a tile -> edges facing it
        self.facing: dict[tuple[int, int], tuple] = {}  # the same cells -> (bit, segment) of the
        # neighbours' roads, cities (bit 3d) and farm halves (bit 3d+1+lr) facing its side d
        self.pile: list[str] = []                   # face-down tiles, sorted letters (no order)
        self.set_aside: list[str] = []              # drawn tiles that fit nowhere, in draw order
        self.meeples: dict[int, tuple[int, int, int]] = {}  # segment -> (seat, placement, local seg)
        self.parent: list[int] = []                 # union-find over segments
        self.feat: dict[int, Feature] = {}          # root segment -> its feature
        self.base: list[int] = []                   # placement number -> its first segment
        self.cloisters: dict[tuple[int, int], int] = {}  # cell -> cloister segment
        self.final: dict | None = None              # final scoring breakdown
        self.winners: list[int] = []

    def clone(self) -> "GameState":
        s = GameState.__new__(GameState)
        s.players, s.options, s.version, s.reveals = self.players, self.options, self.version, self.reveals
        s.rules = self.rules
        s.phase, s.actor, s.tile = self.phase, self.actor, self.tile
        s.scores, s.supply = self.scores[:], self.supply[:]
        s.tiles, s.shapes, s.at, s.open = self.tiles[:], self.shapes[:], dict(self.at), dict(self.open)
        s.facing = dict(self.facing)
        s.pile, s.set_aside = self.pile[:], self.set_aside[:]
        s.meeples, s.parent, s.base = dict(self.meeples), self.parent[:], self.base[:]
        s.feat = {r: f.copy() for r, f in self.feat.items()}
        s.cloisters = dict(self.cloisters)
        s.final = copy.deepcopy(self.final)
        s.winners = self.winners[:]
        return s

    @property
    def winner(self) -> int | None:
        """The single winner, or None (game not over, or a shared victory: see ``winners``)."""
        return self.winners[0] if len(self.winners) == 1 else None

    # --- the position document ------------------------------------------------------------
    def followers(self) -> list[dict]:
        out = []
        for seat, ti, k in self.meeples.values():
            x, y, letter, rot = self.tiles[ti]
            p = placed(letter, rot)
            out.append({"seat": seat, "x": x, "y": y, "role": ROLE_OF_KIND[p.segments[k].kind],
                        "spot": p.names[k]})
        return sorted(out, key=lambda f: (f["y"], f["x"], f["role"], f["spot"]))

    def to_doc(self) -> dict:
        return {
            "format": FORMAT,
            "game": "carcassonne",
            "players": self.players,
            "options": copy.deepcopy(self.options),
            "rules": self.rules,
            "version": self.version,
            "reveals": self.reveals,
            "phase": self.phase,
            "actor": self.actor,
            "tile": self.tile,
            "scores": list(self.scores),
            "supply": list(self.supply),
            "board": [{"x": x, "y": y, "tile": t, "rot": r} for x, y, t, r in self.tiles],
            "followers": self.followers(),
            "pile": dict(sorted(Counter(self.pile).items())),
            "pile_size": len(self.pile),
            "set_aside": list(self.set_aside),
            "final": copy.deepcopy(self.final),
            "winners": list(self.winners),
            "winner": self.winner,
        }

    @classmethod
    def from_doc(cls, d: dict) -> "GameState":
        """Load a position document; an inconsistent one raises :class:`PositionError`."""
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise PositionError(f"not a Carcassonne position document (expected format {FORMAT!r})")
        try:
            players = int(d["players"])
            if not 2 <= players <= 5:
                raise PositionError("a game has 2 to 5 players")
            # documents written before rules version 2 have no "rules": they are of version 1
            s = cls(players, d.get("options") or {}, rules=rules_version(d.get("rules")))
            s.version, s.reveals = int(d["version"]), int(d["reveals"])
            s.phase, s.actor, s.tile = d["phase"], d["actor"], d["tile"]
            s.scores = [int(v) for v in d["scores"]]
            s.supply = [int(v) for v in d["supply"]]
            s.pile = sorted(letter for letter, n in d["pile"].items() for _ in range(int(n)))
            s.set_aside = [str(t) for t in d["set_aside"]]
            s.final = copy.deepcopy(d.get("final"))
            s.winners = [int(v) for v in d.get("winners") or []]
            board = [(int(b["x"]), int(b["y"]), str(b["tile"]), int(b["rot"])) for b in d["board"]]
            followers = list(d["followers"])
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise PositionError(f"position document is incomplete or malformed: {e!r}") from None
        letters = tileset().types
        if len(s.scores) != players or len(s.supply) != players:
            raise PositionError("scores and supply must have one entry per seat")
        if not (s.tile is None or isinstance(s.tile, str) and s.tile in letters) or not all(
                t in letters for t in s.pile + s.set_aside):
            raise PositionError("unknown tile letters in the tile in hand, the pile or the set-aside tiles")
        if not (s.actor is None or type(s.actor) is int) or s.phase not in ("play", "over"):
            raise PositionError("actor must be a seat number or null and phase 'play' or 'over'")
        try:
            problems = _load_board(s, board, followers)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            raise PositionError(f"position document is inconsistent: {e!r}") from None
        if problems:
            raise PositionError("inconsistent position: " + "; ".join(problems[:5]))
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_doc() == other.to_doc()

    __hash__ = None  # type: ignore[assignment]


def view_doc(s: GameState, seat: int | None) -> dict:
    """The position as ``seat`` (None: a spectator) may see it. A Carcassonne position holds no
    hidden information (the face-down tiles are only their public mix, as counts; the seed is
    never part of a state), so this is the document with the viewer added."""
    doc = s.to_doc()
    doc["viewer"] = seat
    return doc


# --- laying tiles (the structure; the rules are in carcassonne/rules.py) -----------------------

def lay(s: GameState, letter: str, x: int, y: int, rot: int) -> int:
    """Put a tile on the table and join its segments to its neighbours'. Returns its number."""
    p = placed(letter, rot)
    ti = len(s.tiles)
    s.tiles.append((x, y, letter, rot))
    s.shapes.append(p)
    s.at[(x, y)] = ti
    base = len(s.parent)
    s.base.append(base)
    parent, feat = s.parent, s.feat
    for j, seg in enumerate(p.segments):
        parent.append(base + j)
        kind = seg.kind
        if kind == FARM:
            f = Feature(FARM, ti)
            f.cities = {base + c for c in seg.cities}
        elif kind == CLOISTER:
            f = Feature(CLOISTER, ti, pos=(x, y))
            s.cloisters[(x, y)] = base + j
        else:
            f = Feature(kind, ti, 1 if seg.shield else 0, len(seg.edges))
        feat[base + j] = f
    at, shapes, bases = s.at, s.shapes, s.base
    opened, facing = s.open, s.facing
    opened.pop((x, y), None)
    facing.pop((x, y), None)
    for d in range(4):
        cell = (x + DX[d], y + DY[d])
        nti = at.get(cell)
        if nti is None:  # an empty cell: it now faces this tile on its side od
            a = opened.get(cell)
            if a is None:
                a = (None, None, None, None)
            od = (d + 2) % 4
            opened[cell] = a[:od] + (p.edges[d],) + a[od + 1:]
            faces = p.faces[d]
            if faces:
                facing[cell] = facing.get(cell, ()) + tuple((bit, base + k) for bit, k in faces)
            elif cell not in facing:
                facing[cell] = ()
            continue
        q = shapes[nti]
        nbase = bases[nti]
        side, od, halves = p.joins[d]
        if side is not None:
            r = union(s, base + side, nbase + q.side_seg[od])
            feat[r].open -= 2
        for h, their in halves:
            union(s, base + h, nbase + q.half_seg[their])
    return ti


def _load_board(s: GameState, board: list, followers: list) -> list[str]:
    """Rebuild the features of a loaded document and check it; the problems found."""
    problems: list[str] = []
    types = tileset().types
    if not board or board[0][:4] != (0, 0, START_TILE, 0):
        return ["the first tile must be the start tile D at 0,0 r0"]
    for i, (x, y, letter, rot) in enumerate(board):
        if letter not in types or rot not in ROTATIONS:
            return [f"tile {i}: unknown tile {letter!r} or rotation {rot}"]
        if (x, y) in s.at:
            return [f"tile {i}: two tiles at {x},{y}"]
        if i and (x, y) not in s.open:
            return [f"tile {i}: {x},{y} does not abut a placed tile"]
        if i and any(a is not None and a != e for a, e in zip(s.open[(x, y)], placed(letter, rot).edges)):
            return [f"tile {i}: {letter} r{rot} at {x},{y} does not match its neighbours"]
        lay(s, letter, x, y, rot)
    for f in s.feat.values():
        complete = (f.open == 0 if f.kind in (ROAD, CITY) else f.kind == CLOISTER
                    and cloister_tiles(s, f.pos) == 9)
        f.done = complete
    for fo in followers:
        try:
            seat, cell, role, spot = int(fo["seat"]), (int(fo["x"]),
                                                       int(fo["y"])), fo["role"], fo.get("spot") or ""
        except (KeyError, TypeError, ValueError) as e:
            return [f"follower {fo!r} is malformed: {e!r}"]
        ti = s.at.get(cell)
        k = None if ti is None else placed(s.tiles[ti][2], s.tiles[ti][3]).spots.get((role, spot))
        if k is None or not 0 <= seat < s.players:
            problems.append(f"follower {role} {spot} of seat {seat} at {cell} is not on a feature of a tile")
            continue
        seg = s.base[ti] + k
        if seg in s.meeples:
            problems.append(f"two followers on {role} {spot} at {cell}")
            continue
        s.meeples[seg] = (seat, ti, k)
        f = s.feat[find(s.parent, seg)]
        f.men += 1
        if f.done and f.kind != FARM:
            problems.append(f"a {role} stays on a completed {f.kind} at {cell}")
    for seat in range(s.players):
        on = sum(1 for v in s.meeples.values() if v[0] == seat)
        if on + s.supply[seat] != FOLLOWERS:
            problems.append(f"seat {seat} has {on} followers on the board and {s.supply[seat]} in supply")
    held = Counter(t for _, _, t, _ in board) + Counter(s.pile) + Counter(s.set_aside) + Counter(
        [s.tile] if s.tile else [])
    if held != Counter({t.letter: t.count for t in types.values()}):
        problems.append("the tiles on the table, in hand, set aside and face down are not the base game's 72")
    if len(s.scores) != s.players or len(s.supply) != s.players:
        problems.append("scores and supply must have one entry per seat")
    if s.phase == "play" and (s.actor not in range(s.players) or s.tile is None):
        problems.append("a game in play needs an actor and a tile in hand")
    if s.phase == "over" and (s.actor is not None or s.tile is not None or s.pile):
        problems.append("a finished game has no actor, no tile in hand and no face-down tiles")
    if s.phase not in ("play", "over"):
        problems.append(f"unknown phase {s.phase!r}")
    return problems


__all__ = ["GameState", "view_doc", "lay", "FORMAT", "DX", "DY"]
