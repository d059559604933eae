"""A tournament as a fold over its events, and the decisions that follow from it (pure).

The service (:mod:`application.tournament_service`) stores a tournament as a stream of events and
asks this module what they mean: who is in, which round is open, which games are still to
finish, who is paired next, and the standings. Nothing here touches Redis, the clock or the
engine's games; the service passes in what it read.

Events (``type`` and fields)::

    TournamentCreated  definition, organizer (token hash), at
    PlayerEntered      player (email, lower case), name, via ("list" | "invite"), at
    PlayerWithdrawn    player, by ("player" | "organizer"), at
    RoundPaired        round, tables [[player, ...] in seat order], byes [player], at, deadline
    GameStarted        round, table, game
    GameResult         round, table, game, players, scores, finish, forfeits, dropped, adjudicated
    RoundClosed        round, at
    TournamentFinished at

Docs: docs/tournaments.md ("Running a tournament").
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .pairing import knockout_round, round_robin, swiss_round
from .standings import adjudicate, standings

FORMATS = ("round_robin", "swiss", "knockout")


@dataclass
class Table:
    round: int
    table: int
    players: list[str]
    game: str | None = None
    result: dict | None = None


@dataclass
class Round:
    number: int
    tables: list[Table]
    byes: list[str]
    started: float
    deadline: float | None
    closed: bool = False


@dataclass
class Tournament:
    id: str
    definition: dict
    organizer: str
    created: float
    entrants: dict[str, str] = field(default_factory=dict)   # player -> name, in entry order
    entered_via: dict[str, str] = field(default_factory=dict)  # player -> "list" | "invite"
    languages: dict[str, str] = field(default_factory=dict)  # player -> their games' emails' language
    withdrawn: dict[str, float] = field(default_factory=dict)  # player -> when
    rounds: list[Round] = field(default_factory=list)
    finished: float | None = None
    version: int = 0

    # --- reading ------------------------------------------------------------------------------
    @property
    def format(self) -> str:
        return self.definition["format"]

    @property
    def table_size(self) -> int:
        return self.definition["table_size"]

    @property
    def status(self) -> str:
        if self.finished is not None:
            return "finished"
        return "running" if self.rounds else "open"

    @property
    def active(self) -> list[str]:
        """The players still in, in entry order (their seeding)."""
        return [p for p in self.entrants if p not in self.withdrawn]

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds and not self.rounds[-1].closed else None

    def table(self, round_no: int, table_no: int) -> Table:
        return self.rounds[round_no - 1].tables[table_no - 1]

    def results(self) -> list[dict]:
        return [t.result for r in self.rounds for t in r.tables if t.result is not None]

    def byes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rounds:
            for p in r.byes:
                out[p] = out.get(p, 0) + 1
        return out

    def history(self) -> list[list[list[str]]]:
        return [[list(t.players) for t in r.tables] for r in self.rounds]

    def games_of(self, player: str) -> list[Table]:
        return [t for r in self.rounds for t in r.tables if player in t.players]

    def planned_rounds(self) -> int | None:
        """How many rounds the tournament has (None for a knockout: until one player is left)."""
        if self.format == "swiss":
            return self.definition["rounds"]
        if self.format == "round_robin":
            field_ = self.active if not self.rounds else self.rr_field()
            return len(round_robin(field_, self.table_size)) if len(field_) >= 2 else 0
        return None

    def rr_field(self) -> list[str]:
        """A round robin's field is fixed when round 1 is paired: everybody seated or given a
        bye in it, in entry order."""
        first = self.rounds[0]
        seated = {p for t in first.tables for p in t.players} | set(first.byes)
        return [p for p in self.entrants if p in seated]

    def survivors(self) -> list[str]:
        """Knockout: the players not yet knocked out (nor withdrawn), in seed (entry) order."""
        alive = set(self.active)
        for r in self.rounds:
            if not r.closed:
                continue
            through = set(r.byes)
            for t in r.tables:
                if t.result is not None:
                    through.add(knockout_winner(t.result))
            alive &= through
        return [p for p in self.entrants if p in alive]

    def standings(self) -> list[dict]:
        players = list(self.entrants)
        rows = standings(self.format, players, self.results(), self.table_size, byes=self.byes())
        for row in rows:
            row["name"] = self.entrants[row["player"]]
            row["withdrawn"] = row["player"] in self.withdrawn
        return rows

    # --- deciding -----------------------------------------------------------------------------
    def complete(self) -> bool:
        """Once play has begun and no round is open: whether the tournament is over (every
        planned round played, the knockout down to one player, or fewer than 2 players left)."""
        if not self.rounds or self.current is not None:
            return False
        if len(self.active) < 2:
            return True
        if self.format == "knockout":
            return len(self.survivors()) <= 1
        return len(self.rounds) >= (self.planned_rounds() or 0)

    def next_round(self, rng_seed: str) -> tuple[list[list[str]], list[str]]:
        """The tables (seat order) and byes of the next round."""
        n = len(self.rounds) + 1
        if self.format == "swiss":
            field_ = self.active
            order = [row["player"] for row in self.standings()]
            tables = swiss_round(field_, order, self.history(), self.table_size, rng_seed)
        elif self.format == "round_robin":
            field_ = self.active if not self.rounds else self.rr_field()
            schedule = round_robin(field_, self.table_size)
            planned = schedule[n - 1] if n <= len(schedule) else []
            gone = set(self.withdrawn)
            tables = [[p for p in t if p not in gone] for t in planned]
            field_ = [p for p in field_ if p not in gone]
        else:
            field_ = self.survivors() if self.rounds else self.active
            tables = knockout_round(field_, self.table_size)
        real = [t for t in tables if len(t) >= 2]
        seated = {p for t in real for p in t}
        byes = [p for p in field_ if p not in seated]
        return real, byes

    def round_finished(self) -> bool:
        r = self.current
        return r is not None and all(t.result is not None for t in r.tables)

    # --- folding ------------------------------------------------------------------------------
    def apply(self, ev: dict) -> None:
        t = ev["type"]
        if t == "PlayerEntered":
            self.entrants[ev["player"]] = ev["name"]
            self.entered_via[ev["player"]] = ev.get("via", "list")
            if ev.get("language"):
                self.languages[ev["player"]] = ev["language"]
        elif t == "PlayerWithdrawn":
            self.withdrawn[ev["player"]] = ev["at"]
        elif t == "RoundPaired":
            self.rounds.append(
                Round(ev["round"], [Table(ev["round"], i + 1, list(ps)) for i, ps in enumerate(ev["tables"])],
                      list(ev["byes"]), ev["at"], ev.get("deadline")))
        elif t == "GameStarted":
            self.table(ev["round"], ev["table"]).game = ev["game"]
        elif t == "GameResult":
            self.table(ev["round"], ev["table"]).result = {
                k: ev[k] for k in ("players", "scores", "finish", "forfeits", "dropped", "adjudicated",
                                   "game")}
        elif t == "RoundClosed":
            self.rounds[ev["round"] - 1].closed = True
        elif t == "TournamentFinished":
            self.finished = ev["at"]
        self.version += 1


def fold(tid: str, events: list[dict]) -> Tournament:
    first = events[0]
    if first["type"] != "TournamentCreated":
        raise ValueError(f"tournament {tid} does not start with TournamentCreated")
    t = Tournament(tid, first["definition"], first["organizer"], first["at"], version=1)
    for ev in events[1:]:
        t.apply(ev)
    return t


def final_places(scores: list[int], turn_order: list[int]) -> list[int]:
    """Finishing places in seat order of a finished game: most VP first, ties to the player
    earlier in the final turn order (the rulebook's tie-break), so places are 1..n distinct."""
    order = sorted(range(len(scores)), key=lambda s: (-scores[s], turn_order.index(s)))
    places = [0] * len(scores)
    for place, seat in enumerate(order, start=1):
        places[seat] = place
    return places


def adjudicated_places(scores: list[int]) -> list[int]:
    """Finishing places of a game adjudicated at a round deadline (docs/tournaments.md)."""
    return adjudicate(scores)


def knockout_winner(result: dict) -> str:
    """Who goes through from a knockout table: the best place; a shared first place (only an
    adjudicated game can have one) goes to the earlier seat."""
    from .standings import effective_finish
    finish = effective_finish(result)
    best = min(finish)
    return next(p for p, f in zip(result["players"], finish) if f == best)
