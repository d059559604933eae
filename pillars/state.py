"""The game state: each player's gold, victory points, resources, craftsmen and privileges, the
board (the fields' master builders, the market, the resource fields), the cards on show, the bag,
what is still face down (as sorted lists, never in an order), and who decides next.

Exactly one seat decides at a time (``actor``); where the rules let several players act "at once"
the engine asks them one by one in turn order from the start player (docs/pillars.md, Rulings).
The position document (``to_doc``, docs/pillars.md "Position document") is the whole state.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from importlib import resources as _resources

from .errors import PositionError

FORMAT = "pillars-position/1"
RULES_VERSION = "1"
RES = ("stone", "wood", "sand", "metal")  # resource indices 0-3
RI = {r: i for i, r in enumerate(RES)}
PHASES = ("cards", "builders", "placing", "actions", "over")


@lru_cache(maxsize=1)
def data() -> dict:
    """The card data (pillars/data/cards.json)."""
    return json.loads(_resources.files("pillars").joinpath("data/cards.json").read_text("utf-8"))


class Cards:
    """The data, indexed."""

    def __init__(self, d: dict):
        self.craftsmen = {c["id"]: c for c in d["craftsmen"]}
        self.rescards = {c["id"]: c for c in d["resource_cards"]}
        self.privileges = {p["id"]: p for p in d["privileges"]}
        self.events = {e["id"]: e for e in d["events"]}
        self.tax_faces = list(d["tax_die"]["faces"])
        self.costs = list(d["master_builder_costs"]["costs"])
        self.price = d["market"]["prices"]
        self.stock = d["market"]["stock"]
        self.cubes = [d["cubes"]["counts"][r] for r in RES]
        self.spots = d["fields"]["spots"]
        self.field_order = d["fields"]["order"]
        self.workers = d["workers"]["small"] + d["workers"]["large"]
        self.gold_start, self.gold_cap = d["gold"]["start"], d["gold"]["cap"]
        self.vp_start = d["vp"]["start"]
        self.carry = d["carry_over"]["limit"]
        self.max_craftsmen = d["craftsman_limit"]["limit"]
        self.last_round = sorted(p["id"] for p in d["privileges"] if p["last_round"])
        self.privilege_deck = sorted(p["id"] for p in d["privileges"] if not p["last_round"])
        self.stacks = {r: sorted(c["id"] for c in d["craftsmen"] if c["round"] == r) for r in range(1, 7)}
        self.numbered = sorted(c["id"] for c in d["craftsmen"] if c["round"] > 0)
        # per craftsman: inputs as a 5-tuple (stone, wood, sand, metal, gold), outputs (vp, gold)
        self.formula = {}
        for cid, c in self.craftsmen.items():
            ins = tuple(c["inputs"].get(k, 0) for k in RES + ("gold",))
            outs = (c["outputs"].get("vp", 0), c["outputs"].get("gold", 0))
            holds = tuple(c.get("holds", {}).get(k, 0) for k in RES)
            self.formula[cid] = (ins, outs, c["capacity"], c.get("requires"), holds)


@lru_cache(maxsize=1)
def cards() -> Cards:
    return Cards(data())


class GameState:
    __slots__ = (
        "players",
        "options",
        "rules",
        "version",
        "reveals",
        "round",
        "phase",
        "step",
        "actor",
        "start",
        "gold",
        "vp",
        "res",
        "craftsmen",
        "privileges",
        "grey",
        "grey_next",
        "taken",
        "wool",
        "passed",
        "pool",
        "shiring",
        "kingsbridge",
        "privilege_deck",
        "event_deck",
        "stack",
        "field",
        "market",
        "king_metal",
        "bag",
        "cost",
        "drawn",
        "offer",
        "redraw_used",
        "passers",
        "limit",
        "limit_next",
        "spots",
        "event",
        "protected",
        "tax",
        "queue",
        "market_order",
        "market_i",
        "traded",
        "used",
        "winners",
        "final",
        "ledger",
        "round_end",
    )

    def __init__(self, players: int = 2, options: dict | None = None, rules: str = RULES_VERSION):
        c = cards()
        self.players = players
        self.options = dict(options or {})
        self.rules = rules
        self.version = 0
        self.reveals = 0
        self.round = 1
        self.phase = "cards"  # cards | builders | placing | actions | over
        self.step = 0  # phase III: the next step to resolve (rules.STEPS)
        self.actor: int | None = 0  # the one seat that decides next
        self.start = 0  # the start player
        self.gold = [min(c.gold_cap, c.gold_start + i) for i in range(players)]
        self.vp = [c.vp_start] * players
        self.res = [[0, 0, 0, 0] for _ in range(players)]  # stone, wood, sand, metal
        self.craftsmen = [[f"MM{i}", f"WW{i}", f"SC{i}"] for i in range(players)]
        self.privileges: list[list[str]] = [[] for _ in range(players)]  # permanent and unused once-only
        self.grey = [0] * players  # grey workers this round (Shiring Castle last round)
        self.grey_next = [0] * players  # grey workers for next round
        self.taken: list[list[str]] = [[] for _ in range(players)]  # resource cards taken this round
        self.wool = [0] * players  # workers in the wool mill
        self.passed = [False] * players  # phase I passes
        self.pool: list[str] = []  # phase I card pool (resource cards and 2 craftsmen), sorted
        self.shiring: list[str | None] = []  # the 2 craftsmen at Shiring (spot order)
        self.kingsbridge: list[str | None] = []  # the 2 privilege cards at Kingsbridge
        self.privilege_deck = list(c.privilege_deck)  # face down, sorted (no order)
        self.event_deck = sorted(c.events)
        self.stack = list(c.numbered)  # numbered craftsmen not yet revealed, sorted
        self.field = [c.cubes[i] - (c.stock if i < 3 else 0) for i in range(4)]  # the board's supply
        self.field[3] -= 1  # the metal at the King's Court
        self.market = [c.stock] * 3  # stone, wood, sand at the market
        self.king_metal = 1
        self.bag: list[int] = []  # seats of the master builders in the bag, sorted
        self.cost = 7  # the cost marker
        self.drawn: int | None = None  # the seat whose drawn master builder waits
        self.offer = False  # the start player decides whether to redraw the drawn builder
        self.redraw_used = False
        self.passers: list[int] = []  # passed master builders, in the order passed
        self.limit = [3] * players  # master builders per seat this round (an event makes it 2)
        self.limit_next = [3] * players
        self.spots: dict[str, list[int | None]] = {f: [None] * n for f, n in c.spots.items()}
        self.event: str | None = None
        self.protected: list[int] = []  # seats immune to this round's negative event
        self.tax: int | None = None
        self.queue: list[list] = []  # phase III decisions still to take: [kind, seat(, card)]
        self.market_order: list[int] = []  # seats of the master builders still at the market
        self.market_i = 0
        self.traded: list[list[str]] = [[] for _ in range(players)]  # "+wood" bought, "-stone" sold
        self.used: list[dict[str, int]] = [{} for _ in range(players)]  # the Cathedral: uses this round
        self.winners: list[int] = []
        self.final: dict | None = None
        # what phase III did to each player, step by step (rules.note), while it resolves; then
        # the finished round's: {"round", "version", "tax", "event", "start", "end", "entries"}
        self.ledger: dict | None = None
        self.round_end: dict | None = None

    def clone(self) -> GameState:
        s = GameState.__new__(GameState)
        for k in (
            "players",
            "options",
            "rules",
            "version",
            "reveals",
            "round",
            "phase",
            "step",
            "actor",
            "start",
            "king_metal",
            "cost",
            "drawn",
            "offer",
            "redraw_used",
            "event",
            "tax",
            "market_i",
            "final",
        ):
            setattr(s, k, getattr(self, k))
        for k in (
            "limit",
            "limit_next",
            "gold",
            "vp",
            "grey",
            "grey_next",
            "wool",
            "passed",
            "pool",
            "shiring",
            "kingsbridge",
            "privilege_deck",
            "event_deck",
            "stack",
            "field",
            "market",
            "bag",
            "passers",
            "protected",
            "market_order",
            "winners",
        ):
            setattr(s, k, getattr(self, k)[:])
        s.res = [r[:] for r in self.res]
        s.craftsmen = [r[:] for r in self.craftsmen]
        s.privileges = [r[:] for r in self.privileges]
        s.taken = [r[:] for r in self.taken]
        s.traded = [r[:] for r in self.traded]
        s.used = [dict(u) for u in self.used]
        s.spots = {k: v[:] for k, v in self.spots.items()}
        s.queue = [q[:] for q in self.queue]
        # entries are never changed once written: the lists are copied, not the entries
        s.ledger = None if self.ledger is None else {**self.ledger, "entries": self.ledger["entries"][:]}
        s.round_end = self.round_end
        return s

    @property
    def winner(self) -> int | None:
        return self.winners[0] if len(self.winners) == 1 else None

    def order(self) -> list[int]:
        """The seats in turn order from the start player."""
        n = self.players
        return [(self.start + k) % n for k in range(n)]

    def workers(self, seat: int) -> int:
        """The seat's workers this round: 12, the grey ones, and the black one (privilege)."""
        extra = sum(cards().privileges[p]["effect"].get("workers", 0) for p in self.privileges[seat])
        return cards().workers + self.grey[seat] + extra

    def free_workers(self, seat: int) -> int:
        rc = cards().rescards
        return self.workers(seat) - sum(rc[t]["workers"] for t in self.taken[seat])

    # --- the position document ------------------------------------------------------------
    _SCALARS = (
        "rules",
        "version",
        "reveals",
        "round",
        "phase",
        "step",
        "actor",
        "start",
        "king_metal",
        "cost",
        "drawn",
        "offer",
        "redraw_used",
        "event",
        "tax",
        "market_i",
    )
    _LISTS = (
        "limit",
        "limit_next",
        "gold",
        "vp",
        "grey",
        "grey_next",
        "taken",
        "wool",
        "passed",
        "pool",
        "shiring",
        "kingsbridge",
        "privilege_deck",
        "event_deck",
        "stack",
        "field",
        "market",
        "bag",
        "passers",
        "protected",
        "queue",
        "market_order",
        "traded",
        "craftsmen",
        "privileges",
        "winners",
    )

    def to_doc(self) -> dict:
        d = {
            "format": FORMAT,
            "game": "pillars",
            "players": self.players,
            "options": copy.deepcopy(self.options),
        }
        for k in self._SCALARS:
            d[k] = getattr(self, k)
        for k in self._LISTS:
            d[k] = copy.deepcopy(getattr(self, k))
        d["resources"] = [dict(zip(RES, r, strict=False)) for r in self.res]
        d["field"] = dict(zip(RES, self.field, strict=False))
        d["market"] = dict(zip(RES[:3], self.market, strict=False))
        d["spots"] = {k: list(v) for k, v in self.spots.items()}
        d["used"] = [dict(sorted(u.items())) for u in self.used]
        d["final"] = copy.deepcopy(self.final)
        d["winner"] = self.winner
        d["ledger"] = copy.deepcopy(self.ledger)
        d["round_end"] = copy.deepcopy(self.round_end)
        return d

    @classmethod
    def from_doc(cls, d: dict) -> GameState:
        """Load a position document; an inconsistent one raises :class:`PositionError`."""
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise PositionError(f"not a Pillars of the Earth position document (expected format {FORMAT!r})")
        try:
            players = d["players"]
            if type(players) is not int or not 2 <= players <= 4:
                raise PositionError("a game has 2 to 4 players")
            if str(d["rules"]) != RULES_VERSION:
                raise PositionError(f"unknown rules version {d['rules']!r}")
            s = cls(players, d.get("options") or {})
            for k in cls._SCALARS:
                setattr(s, k, copy.deepcopy(d[k]))
            for k in cls._LISTS:
                if k not in ("field", "market"):
                    setattr(s, k, copy.deepcopy(d[k]))
            s.res = [[int(r[k]) for k in RES] for r in d["resources"]]
            s.field = [int(d["field"][k]) for k in RES]
            s.market = [int(d["market"][k]) for k in RES[:3]]
            s.spots = {k: list(d["spots"][k]) for k in cards().spots}
            s.used = [{str(k): int(v) for k, v in u.items()} for u in d["used"]]
            s.final = copy.deepcopy(d.get("final"))
            s.ledger = _ledger_of(d.get("ledger"))
            s.round_end = _ledger_of(d.get("round_end"))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise PositionError(f"position document is incomplete or malformed: {e!r}") from None
        problems = _problems(s)
        if problems:
            raise PositionError("inconsistent position: " + "; ".join(problems[:5]))
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_doc() == other.to_doc()

    __hash__ = None  # type: ignore[assignment]


def _ledger_of(v) -> dict | None:
    """A ledger of the document (absent in older ones: None), checked for its shape."""
    if v is None:
        return None
    if not isinstance(v, dict) or not isinstance(v.get("entries"), list) or not all(
        isinstance(e, dict) and type(e.get("seat")) is int and isinstance(e.get("why"), str)
        for e in v["entries"]
    ):
        raise PositionError("a round's ledger is a dict of entries, each with its seat and why")
    return copy.deepcopy(v)


def conserved(s: GameState) -> list[int]:
    """The cubes of each resource on the board, at the market, at the King's Court and with the
    players: always the box's counts (a field below zero holds cubes owed, docs/pillars.md)."""
    out = []
    for i in range(4):
        n = s.field[i] + sum(r[i] for r in s.res)
        n += s.market[i] if i < 3 else s.king_metal
        out.append(n)
    return out


def _problems(s: GameState) -> list[str]:
    c = cards()
    n = s.players
    out = []
    seats = range(n)
    if s.phase not in PHASES:
        out.append(f"phase must be one of {', '.join(PHASES)}")
    if not (s.actor is None or (type(s.actor) is int and s.actor in seats)) or s.start not in seats:
        out.append("actor and start must be seats")
    if s.actor is None and s.phase != "over":
        out.append("only a finished game has no seat to act")
    for name in (
        "gold",
        "vp",
        "grey",
        "grey_next",
        "wool",
        "passed",
        "taken",
        "traded",
        "craftsmen",
        "privileges",
        "used",
        "res",
    ):
        if len(getattr(s, name)) != n:
            out.append(f"{name} must have one entry per seat")
    if any(type(g) is not int or not 0 <= g <= c.gold_cap for g in s.gold):
        out.append(f"gold is 0 to {c.gold_cap}")
    if any(type(v) is not int or v < 0 for v in s.vp):
        out.append("victory points are whole numbers, not below 0")
    if any(any(x < 0 for x in r) for r in s.res):
        out.append("a player's resources are not below 0")
    for seat, cs in enumerate(s.craftsmen):
        if len(cs) > c.max_craftsmen or any(x not in c.craftsmen for x in cs):
            out.append(f"seat {seat} must hold at most {c.max_craftsmen} known craftsmen")
    for seat, ps in enumerate(s.privileges):
        if any(p not in c.privileges for p in ps):
            out.append(f"seat {seat} holds an unknown privilege")
    if any(x not in c.rescards and x not in c.craftsmen for x in s.pool):
        out.append("unknown card in the pool")
    if any(x not in c.craftsmen for x in s.stack) or any(
        x is not None and x not in c.craftsmen for x in s.shiring
    ):
        out.append("unknown craftsman in the stack or at Shiring")
    if any(x not in c.privileges for x in s.privilege_deck) or any(
        x is not None and x not in c.privileges for x in s.kingsbridge
    ):
        out.append("unknown privilege card")
    if any(x not in c.events for x in s.event_deck) or not (s.event is None or s.event in c.events):
        out.append("unknown event card")
    if any(b not in seats for b in s.bag + s.passers) or any(
        x is not None and x not in seats for v in s.spots.values() for x in v
    ):
        out.append("a master builder belongs to no seat")
    if any(not isinstance(q, list) or len(q) not in (2, 3) or q[1] not in seats for q in s.queue):
        out.append("a pending decision names no seat")
    if not 1 <= s.round <= 6:
        out.append("round is 1 to 6")
    if conserved(s) != c.cubes:
        out.append(f"the cubes do not add up to the box's {c.cubes}")
    return out


def view_doc(s: GameState, seat: int | None) -> dict:
    """The position as ``seat`` (None: a spectator) may see it. Nothing in a Pillars position is
    secret: what is face down exists only as the sorted list of what is left (the order is drawn
    from the seed when a card is revealed), so every seat sees the whole document."""
    return s.to_doc()
