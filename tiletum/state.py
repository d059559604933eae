"""The game state: the board, the players, and whose decision it is.

State is a plain structure of lists, dicts, ints and strings so that cloning is cheap and the
position document (``docs/tiletum-state.md``) is a direct image of it. Rules code mutates a *clone*;
the public functions (``tiletum.game``) never mutate a state they were given.

Nothing hidden lives here: piles are kept as sorted lists of what remains (their order does not
exist until a draw, which is made from the game's seeded chance and recorded in the event).
"""
from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from .components import RESOURCES, components
from .errors import PositionError

FORMAT = "tiletum-position/1"


class PlayerState:
    __slots__ = ("seat", "res", "score", "store", "rooms", "crests", "contracts", "houses", "pillars",
                 "roofs", "merchant", "architect", "dice", "ap_bonus", "cathedrals")

    def __init__(self, seat: int):
        c = components()
        self.seat = seat
        self.res: list[int] = [0] * len(RESOURCES)       # gold, food, wool, stone, iron
        self.score = c.starting_score
        self.store: list[str] = []                       # the Storehouse, in order of arrival
        self.rooms: list[list[str | None]] = [[None] * n for n in c.building_rooms]
        self.crests: list[str | None] = [None] * len(c.crest_spaces)
        self.contracts: list[str] = []                   # fulfilled, left to right
        self.houses = 0                                  # personal supply
        self.pillars = 0
        self.roofs: list[bool] = [n > 0 for n in c.building_rooms]
        self.merchant = "Tiletum"
        self.architect = "Tiletum"
        self.dice: list[str] = []                        # dice taken this round, e.g. "G4"
        self.ap_bonus: dict[str, int] = {}               # action -> bonus AP of a Completed Building
        self.cathedrals: list[str] = []                  # Cathedral tiles taken

    def clone(self) -> "PlayerState":
        p = PlayerState.__new__(PlayerState)
        p.seat, p.score, p.houses, p.pillars = self.seat, self.score, self.houses, self.pillars
        p.merchant, p.architect = self.merchant, self.architect
        p.res = self.res[:]
        p.store = self.store[:]
        p.rooms = [r[:] for r in self.rooms]
        p.crests = self.crests[:]
        p.contracts = self.contracts[:]
        p.roofs = self.roofs[:]
        p.dice = self.dice[:]
        p.ap_bonus = dict(self.ap_bonus)
        p.cathedrals = self.cathedrals[:]
        return p

    def to_doc(self) -> dict:
        return {
            "seat": self.seat,
            "resources": dict(zip(RESOURCES, self.res)),
            "score": self.score,
            "storehouse": list(self.store),
            "buildings": [{"rooms": list(r), "crest": cr} for r, cr in zip(self.rooms, self.crests)],
            "contracts": list(self.contracts),
            "houses": self.houses,
            "pillars": self.pillars,
            "roofs": list(self.roofs),
            "merchant": self.merchant,
            "architect": self.architect,
            "dice": list(self.dice),
            "ap_bonus": dict(sorted(self.ap_bonus.items())),
            "cathedrals": list(self.cathedrals),
        }

    @classmethod
    def from_doc(cls, d: dict) -> "PlayerState":
        p = cls(d["seat"])
        p.res = [int(d["resources"].get(r, 0)) for r in RESOURCES]
        p.score = int(d["score"])
        p.store = list(d["storehouse"])
        b = d["buildings"]
        p.rooms = [list(x["rooms"]) for x in b]
        p.crests = [x["crest"] for x in b]
        p.contracts = list(d["contracts"])
        p.houses, p.pillars = int(d["houses"]), int(d["pillars"])
        p.roofs = list(d["roofs"])
        p.merchant, p.architect = d["merchant"], d["architect"]
        p.dice = list(d["dice"])
        p.ap_bonus = {k: int(v) for k, v in d["ap_bonus"].items()}
        p.cathedrals = list(d["cathedrals"])
        return p


class GameState:
    """One position. See ``docs/tiletum-state.md`` for the meaning of every field."""

    __slots__ = ("players", "options", "version", "round", "phase", "cycle", "turn_pos", "turn_order",
                 "action_tiles", "wheel", "action_bonus", "king_bonus", "map_bonus", "houses", "pillars",
                 "cathedral_cost", "cathedral_stack", "fair_towns", "fair_tiles", "fairs_scored",
                 "contract_offer", "character_offer", "piles", "corruption_pool", "corruption_revealed",
                 "box", "king_pos", "king_seq", "king_counter", "agenda", "turn", "actor", "seats",
                 "final", "winner", "undo_base", "undo_moves", "solo", "reveals")

    def __init__(self) -> None:
        self.players = 0
        self.options: dict[str, Any] = {}
        self.version = 0                         # number of events folded in
        self.round = 1
        self.phase = "action"                    # action | king | over
        self.cycle = 0                           # 0..2: which of the three turns
                                                 # of the Action phase (3 after it)
        self.turn_pos = 0                        # index in turn_order of the player whose turn it is
        self.turn_order: list[int] = []
        self.action_tiles: list[str] = []        # action on the tile at wheel position 0..5
        self.wheel: list[str] = []               # dice on the Action Wheel, e.g. ["G4", "I1"], sorted
        self.action_bonus: dict[str, str | None] = {}
        self.king_bonus: str | None = None
        self.map_bonus: dict[str, list[str]] = {}
        self.houses: dict[str, list[int | None]] = {}  # town -> seat on each House space (None: empty)
        self.pillars: dict[str, list[int]] = {}  # cathedral town -> seats
        self.cathedral_cost: dict[str, str] = {}
        self.cathedral_stack: dict[str, list[str]] = {}   # bottom -> top
        self.fair_towns: list[str] = []
        self.fair_tiles: list[str] = []
        self.fairs_scored = 0
        self.contract_offer: list[str | None] = []
        self.character_offer: list[str | None] = []
        self.piles: dict[str, list[str]] = {}    # bonus / contract / character: what remains, sorted
        self.corruption_pool: list[str] = []     # face-down tokens still to be revealed this round
        self.corruption_revealed: list[str] = []
        self.box: list[str] = []                 # tiles out of the game, sorted
        self.king_pos: list[int] = []            # index on the King track, per seat
        self.king_seq: list[int] = []            # stacking order: higher = nearer the top
        self.king_counter = 0
        self.agenda: list[dict] = []             # what the actor must or may resolve, top last
        self.turn: dict | None = None            # {seat, die, exchanged, override}
        self.actor: int | None = None            # the seat whose decision it is (None: game over)
        self.seats: list[PlayerState] = []
        self.final: dict | None = None           # final scoring breakdown per seat
        self.winner: int | None = None
        self.undo_base: GameState | None = None  # position before the first undoable move
        self.undo_moves: list[str] = []          # moves since undo_base (all undoable)
        self.solo: dict | None = None            # the Cardinalbot's board and turn (tiletum/solo.py)
        self.reveals: int | None = None          # reveals so far, setup included: keys the next draw
                                                 # (None: a rules-1 game, whose draws are keyed by version)

    # ------------------------------------------------------------------------------------
    def clone(self) -> "GameState":
        s = GameState.__new__(GameState)
        s.players, s.options, s.version, s.round = self.players, self.options, self.version, self.round
        s.phase, s.cycle, s.turn_pos = self.phase, self.cycle, self.turn_pos
        s.turn_order = self.turn_order[:]
        s.action_tiles = self.action_tiles           # never mutated in place
        s.wheel = self.wheel[:]
        s.action_bonus = dict(self.action_bonus)
        s.king_bonus = self.king_bonus
        s.map_bonus = {k: v[:] for k, v in self.map_bonus.items()}
        s.houses = {k: v[:] for k, v in self.houses.items()}
        s.pillars = {k: v[:] for k, v in self.pillars.items()}
        s.cathedral_cost = self.cathedral_cost       # never mutated after setup
        s.cathedral_stack = {k: v[:] for k, v in self.cathedral_stack.items()}
        s.fair_towns, s.fair_tiles = self.fair_towns, self.fair_tiles  # never mutated after setup
        s.fairs_scored = self.fairs_scored
        s.contract_offer = self.contract_offer[:]
        s.character_offer = self.character_offer[:]
        s.piles = {k: v[:] for k, v in self.piles.items()}
        s.corruption_pool = self.corruption_pool[:]
        s.corruption_revealed = self.corruption_revealed[:]
        s.box = self.box[:]
        s.king_pos = self.king_pos[:]
        s.king_seq = self.king_seq[:]
        s.king_counter = self.king_counter
        s.agenda = [dict(e) for e in self.agenda]
        s.turn = dict(self.turn) if self.turn is not None else None
        s.actor = self.actor
        s.seats = [p.clone() for p in self.seats]
        s.final = self.final
        s.winner = self.winner
        s.undo_base = self.undo_base                 # immutable once stored
        s.undo_moves = self.undo_moves[:]
        s.solo = _clone_solo(self.solo) if self.solo is not None else None
        s.reveals = self.reveals
        return s

    # ------------------------------------------------------------------------------------
    @property
    def rules(self) -> int:
        """The rules version the game started under (tiletum/game.py RULES_VERSION): games of
        version 2 on count their reveals (``reveals``), games of version 1 do not. A game is
        played to its end under its own version (tile changes: tiletum/data/tiles.json "rules1")."""
        return 1 if self.reveals is None else 2

    def to_doc(self) -> dict:
        """The position document (without undo history)."""
        return {
            "format": FORMAT,
            "players": self.players,
            "options": copy.deepcopy(self.options),
            "version": self.version,
            "round": self.round,
            "phase": self.phase,
            "cycle": self.cycle,
            "turn_pos": self.turn_pos,
            "turn_order": list(self.turn_order),
            "actor": self.actor,
            "action_tiles": list(self.action_tiles),
            "wheel": list(self.wheel),
            "action_bonus": dict(self.action_bonus),
            "king_bonus": self.king_bonus,
            "map_bonus": {k: list(v) for k, v in sorted(self.map_bonus.items())},
            "houses": {k: list(v) for k, v in sorted(self.houses.items())},
            "pillars": {k: list(v) for k, v in sorted(self.pillars.items())},
            "cathedral_cost": dict(sorted(self.cathedral_cost.items())),
            "cathedral_stack": {k: list(v) for k, v in sorted(self.cathedral_stack.items())},
            "fair_towns": list(self.fair_towns),
            "fair_tiles": list(self.fair_tiles),
            "fairs_scored": self.fairs_scored,
            "contract_offer": list(self.contract_offer),
            "character_offer": list(self.character_offer),
            "piles": {k: list(v) for k, v in sorted(self.piles.items())},
            "corruption_pool": list(self.corruption_pool),
            "corruption_revealed": list(self.corruption_revealed),
            "box": list(self.box),
            "king": [{"pos": self.king_pos[i], "seq": self.king_seq[i]} for i in range(self.players)],
            "king_counter": self.king_counter,
            "agenda": copy.deepcopy(self.agenda),
            "turn": copy.deepcopy(self.turn),
            "seats": [p.to_doc() for p in self.seats],
            "final": copy.deepcopy(self.final),
            "winner": self.winner,
            "solo": copy.deepcopy(self.solo),
            "reveals": self.reveals,
        }

    @classmethod
    def from_doc(cls, d: dict, validate: bool = True) -> "GameState":
        """Load a position document. With ``validate`` (the default) an inconsistent position
        (tiles missing or duplicated, negative counts, an actor who cannot act...) raises
        :class:`PositionError` listing what is wrong."""
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise PositionError(f"not a position document (expected format {FORMAT!r})")
        try:
            s = cls()
            s.players = int(d["players"])
            s.options = copy.deepcopy(d.get("options", {}))
            s.version = int(d["version"])
            s.round, s.phase, s.cycle, s.turn_pos = (int(d["round"]), d["phase"], int(d["cycle"]),
                                                     int(d["turn_pos"]))
            s.turn_order = [int(x) for x in d["turn_order"]]
            s.actor = d["actor"]
            s.action_tiles = list(d["action_tiles"])
            s.wheel = sorted(d["wheel"])
            s.action_bonus = dict(d["action_bonus"])
            s.king_bonus = d["king_bonus"]
            s.map_bonus = {k: list(v) for k, v in d["map_bonus"].items()}
            s.houses = {k: [None if x is None else int(x) for x in v] for k, v in d["houses"].items()}
            s.pillars = {k: [int(x) for x in v] for k, v in d["pillars"].items()}
            s.cathedral_cost = dict(d["cathedral_cost"])
            s.cathedral_stack = {k: list(v) for k, v in d["cathedral_stack"].items()}
            s.fair_towns, s.fair_tiles = list(d["fair_towns"]), list(d["fair_tiles"])
            s.fairs_scored = int(d["fairs_scored"])
            s.contract_offer = list(d["contract_offer"])
            s.character_offer = list(d["character_offer"])
            s.piles = {k: sorted(v) for k, v in d["piles"].items()}
            s.corruption_pool = sorted(d["corruption_pool"])
            s.corruption_revealed = list(d["corruption_revealed"])
            s.box = sorted(d["box"])
            s.king_pos = [int(k["pos"]) for k in d["king"]]
            s.king_seq = [int(k["seq"]) for k in d["king"]]
            s.king_counter = int(d["king_counter"])
            s.agenda = copy.deepcopy(d["agenda"])
            s.turn = copy.deepcopy(d["turn"])
            s.seats = [PlayerState.from_doc(p) for p in d["seats"]]
            s.final = copy.deepcopy(d.get("final"))
            s.winner = d.get("winner")
            s.solo = copy.deepcopy(d.get("solo"))
            reveals = d.get("reveals")  # absent from documents of rules-1 games
            s.reveals = None if reveals is None else int(reveals)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise PositionError(f"position document is incomplete or malformed: {e!r}") from None
        if len(s.seats) != s.players or len(s.king_pos) != s.players:
            raise PositionError("position document: seats and players disagree")
        if validate:
            found = problems(s)
            if found:
                raise PositionError("inconsistent position: " + "; ".join(found[:5])
                                    + (f" (+{len(found) - 5} more)" if len(found) > 5 else ""))
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_doc() == other.to_doc()

    __hash__ = None  # type: ignore[assignment]


def _clone_solo(so: dict) -> dict:
    d = dict(so)
    for k in ("challenges", "decrees", "column_ap", "crests", "inactive", "supply", "contracts", "fulfilled"):
        d[k] = so[k][:]
    d["columns"] = [c[:] for c in so["columns"]]
    d["act"] = dict(so["act"]) if so["act"] is not None else None
    d["roll"] = so["roll"][:] if so["roll"] is not None else None
    return d


# --- the consistency checks of a position (``tiletum.validate``: tile conservation, no negative
# counts, sane pieces), here beside the state they read, which runs them in ``from_doc`` ---------------

def tile_locations(s: GameState) -> Counter:
    """How many times each tile id appears anywhere in the position."""
    n: Counter = Counter()
    for pile in s.piles.values():
        n.update(pile)
    n.update(t for t in s.action_bonus.values() if t is not None)
    if s.king_bonus is not None:
        n[s.king_bonus] += 1
    for tiles in s.map_bonus.values():
        n.update(tiles)
    n.update(t for t in s.contract_offer if t is not None)
    n.update(t for t in s.character_offer if t is not None)
    for stack in s.cathedral_stack.values():
        n.update(stack)
    n.update(s.cathedral_cost.values())
    n.update(s.fair_towns[1:])
    n.update(s.fair_tiles)
    n.update(s.corruption_pool)
    n.update(s.corruption_revealed)
    n.update(s.box)
    if s.solo is not None:
        so = s.solo
        n.update(t for col in so["columns"] for t in col if t is not None)
        n.update(t for t in so["crests"] if t is not None)
        for k in ("inactive", "supply", "contracts", "fulfilled"):
            n.update(so[k])
    for p in s.seats:
        n.update(p.store)
        n.update(t for rooms in p.rooms for t in rooms if t is not None)
        n.update(t for t in p.crests if t is not None)
        n.update(p.contracts)
        n.update(p.cathedrals)
    return n


def problems(s: GameState) -> list[str]:
    c = components()
    out: list[str] = []
    out.extend(_flow_problems(s))
    if out:
        return out
    where = tile_locations(s)
    for t in c.tiles:
        if where[t] != 1:
            out.append(f"tile {t} appears {where[t]} times")
    for t in where:
        if t not in c.tiles:
            out.append(f"unknown tile {t}")
    for p in s.seats:
        if min(p.res) < 0:
            out.append(f"seat {p.seat} has negative resources {p.res}")
        if p.score < 0:
            out.append(f"seat {p.seat} has negative score")
        if p.houses < 0 or p.pillars < 0:
            out.append(f"seat {p.seat} has negative Houses/Pillars in supply")
        if len(p.store) > c.storehouse_size:
            out.append(f"seat {p.seat} Storehouse over capacity")
        if len(p.contracts) > len(c.contract_spaces):
            out.append(f"seat {p.seat} has too many fulfilled Contracts")
        for piece in (p.merchant, p.architect):
            if piece not in c.adjacent:
                out.append(f"seat {p.seat} piece on unknown spot {piece}")
        houses = sum(1 for v in s.houses.values() if p.seat in v)
        on_roofs = sum(p.roofs)
        if houses + p.houses + on_roofs != c.houses_per_player:
            out.append(f"seat {p.seat} Houses do not add up to {c.houses_per_player}")
        pillars = sum(1 for v in s.pillars.values() if p.seat in v)
        on_spaces = sum(1 for i,
                        x in enumerate(c.contract_spaces) if x.get("pillar") and i >= len(p.contracts))
        if s.solo is not None and p.seat == s.solo["bot"]:
            on_spaces = 0  # the Cardinalbot's seven Pillars are all available from the start
        if pillars + p.pillars + on_spaces != c.pillars_per_player:
            out.append(f"seat {p.seat} Pillars do not add up to {c.pillars_per_player}")
        types: dict = {}
        for b, rooms in enumerate(p.rooms):
            for t in rooms:
                if t is not None:
                    ty = c.tile_raw(t, s.rules)["type"]
                    if types.setdefault(ty, b) != b:
                        out.append(f"seat {p.seat} has {ty} Characters in two Buildings")
        fam = Counter(c.tiles[t].raw["crest"] for t in list(p.store) + [x for x in p.crests if x]
                      if c.tiles[t].kind == "crest")
        if fam and max(fam.values()) > 1:
            out.append(f"seat {p.seat} has two Crests of one family")
    for town, seats in s.houses.items():
        placed = [x for x in seats if x is not None]
        if (len(set(placed)) != len(placed) or len(seats) > len(c.house_spaces(town, s.players))
                or (seats and seats[-1] is None)):
            out.append(f"House spaces of {town} are inconsistent")
    for town, seats in s.pillars.items():
        if len(set(seats)) != len(seats) or len(seats) > c.pillar_space_count(town, s.players):
            out.append(f"Pillar spaces of {town} are inconsistent")
    if not all(0 <= x <= c.king_top for x in s.king_pos):
        out.append("King marker off the track")
    if len(set(s.king_seq)) != s.players:
        out.append("King markers share a stacking position")
    if sorted(s.turn_order) != list(range(s.players)):
        out.append("turn order is not a permutation of the seats")
    return out


def _flow_problems(s: GameState) -> list[str]:
    """Whose decision it is, and the shape of the agenda: what a hand-edited document can break."""
    out = []
    seats = range(s.players)
    if s.players not in (2, 3, 4) or len(s.seats) != s.players:
        return [f"players must be 2-4 with one seat each (players={s.players}, seats={len(s.seats)})"]
    if s.phase not in ("action", "king", "over"):
        out.append(f"unknown phase {s.phase!r}")
    if not 1 <= s.round <= 4 or not 0 <= s.cycle <= 3 or not 0 <= s.turn_pos < s.players:
        out.append("round, cycle or turn_pos out of range")
    if s.reveals is not None and s.reveals < 1:
        out.append("reveals must be at least 1 (the setup is the first reveal)")
    if s.phase == "over":
        if s.actor is not None:
            out.append("a finished game has no actor")
        return out
    if s.actor not in seats:
        out.append(f"actor {s.actor!r} is not a seat")
    if s.phase == "action":
        if s.turn is None or s.turn.get("seat") != s.turn_order[s.turn_pos]:
            out.append("the turn does not belong to the player at turn_pos in turn_order")
    for e in s.agenda:
        if e.get("t") not in ("frame", "fx", "choice") or e.get("seat") not in seats:
            out.append(f"malformed agenda entry {e!r}")
    if s.agenda and s.actor != s.agenda[-1].get("seat"):
        out.append("the actor is not the owner of the top agenda entry")
    return out
