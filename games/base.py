"""The interface a game implements for the service (:class:`Game`) and the engine errors of all
games grouped by kind (:data:`ERRORS`), for ``application.errors.from_engine``."""
from __future__ import annotations

from typing import Any

from rules_common import errors as _errors


class UnknownGame(ValueError):
    """No game of that name is hosted."""


# Every game's engine raises the same error classes (``rules_common.errors``: message, code, rule).
ERRORS = {
    "EngineError": _errors.EngineError,
    "NotYourTurn": _errors.NotYourTurn,
    "NotationError": _errors.NotationError,
    "IllegalMove": _errors.IllegalMove,
}


class Game:
    """One game as the service hosts it. A state is the engine's own ``GameState``; every method
    is pure. Subclasses set the class attributes and implement the methods."""

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 4
    rules_version: str = "1"
    seat_kinds: tuple[str, ...] = ("human",)   # the seat kinds a game of it may have
    cli: str = ""                              # the command line that verifies a record
    email: bool = False                        # whether the email channel (mail/) plays it
    state_type: type = object                  # the engine's GameState class

    # --- playing ------------------------------------------------------------------------------
    def new_game(self, players: int, seed: str, options: dict) -> tuple[Any, list[dict]]:
        raise NotImplementedError

    def replay(self, events: list[dict], state: Any = None) -> Any:
        raise NotImplementedError

    def from_doc(self, doc: dict) -> Any:
        """A stored snapshot (a position document the service wrote itself) back to a state."""
        raise NotImplementedError

    def play(self, state: Any, seat: int, move: str, seed: str) -> tuple[list[dict], Any]:
        """Check and apply one move in notation: (events, new state); the engine's errors."""
        raise NotImplementedError

    def decide(self, state: Any, seat: int, move: str, seed: str) -> list[dict]:
        return self.play(state, seat, move, seed)[0]

    def evolve(self, state: Any, event: dict) -> Any:
        return self.replay([event], state)

    def legal_moves(self, state: Any) -> list[tuple[str, str]]:
        """The legal moves of the seat to act, sorted and unique: (notation, in words)."""
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def format(self, move: Any) -> str:
        return str(move)

    def can_undo(self, state: Any) -> bool:
        return False

    def can_snapshot(self, state: Any) -> bool:
        """Whether a snapshot may be taken here (nothing that only the event log keeps is lost)."""
        return True

    # --- for a search (ai.generic) ---------------------------------------------------------------
    def determinize(self, view: dict, rng) -> Any:
        """A full state consistent with what a seat's served ``view`` shows, the hidden part
        sampled with ``rng``. By default the view hides nothing but the seed (so it is the state);
        a game with hidden components overrides it."""
        return self.from_doc(view)

    def search_moves(self, state: Any) -> list:
        """The legal moves of the seat to act, as values whose ``str`` is their notation, sorted
        by it and unique (what ``after`` takes)."""
        return [self.parse(m) for m, _ in self.legal_moves(state)]

    def after(self, state: Any, seat: int, move: Any, seed: str) -> Any:
        """The state after ``seat`` plays ``move`` (one of ``search_moves(state)``), anything it
        reveals drawn from ``seed``; ``state`` is not changed."""
        return self.play(state, seat, str(move), seed)[1]

    # --- the email channel (mail/: turn emails and replies) -----------------------------------------
    score_unit: str = "points"                 # what a score counts, in results ("VP" for Tiletum)

    def email_what(self, state: Any) -> str:
        """What the seat to act is asked for, in the turn email's subject and opening."""
        return "your turn"

    def email_position_lines(self, state: Any, seat: int, names: list[str]) -> list[str]:
        """Where the game stands for ``seat``, a few lines of plain text (no hidden information)."""
        raise NotImplementedError

    def email_moves(self, state: Any, seat: int) -> list[tuple[str, str]]:
        """The rows of the turn email's move list, (what to type, in words): every legal move
        of the seat must be typable from them."""
        return self.legal_moves(state) if self.actor(state) == seat else []

    def email_reply_hint(self) -> str:
        """One sentence on how a reply plays (after "Reply ... one per line, for example")."""
        return "You may send several moves."

    def email_example(self, state: Any, seat: int) -> str:
        """The example move of the turn email: a move ``seat`` can play now, as typed."""
        moves = self.email_moves(state, seat)
        return moves[0][0] if moves else ""

    def email_pictures(self, state: Any, seat: int) -> list[tuple[str, str, str]]:
        """The pictures of the turn email, carried inline: (name, alt text, SVG), the board first."""
        return [("board", f"The {self.title} board", self.board_svg(state))]

    def one_click_moves(self, state: Any, seat: int) -> list[str]:
        """The moves that get a one-click link in the turn email (none by default)."""
        return []

    # --- reading --------------------------------------------------------------------------------
    def actor(self, state: Any) -> int | None:
        return state.actor

    def is_over(self, state: Any) -> bool:
        return state.phase == "over"

    def scores(self, state: Any) -> list[int]:
        raise NotImplementedError

    def winner(self, state: Any) -> int | None:
        return state.winner

    def round(self, state: Any) -> int:
        raise NotImplementedError

    def view(self, state: Any, seat: int | None) -> dict:
        """The position document as ``seat`` (None: a spectator) may see it: nothing hidden."""
        raise NotImplementedError

    def to_doc(self, state: Any) -> dict:
        return state.to_doc()

    # --- records, words, pictures -------------------------------------------------------------
    def seed_commitment(self, seed: str) -> str:
        raise NotImplementedError

    def fairness_algorithm(self, meta: dict, state: Any) -> str:
        raise NotImplementedError

    def write_record(self, events: list[dict], headers: dict[str, str]) -> str:
        raise NotImplementedError

    def replay_record(self, text: str) -> tuple[dict[str, str], list[dict], Any]:
        """A record's (headers, events, final state), every move checked; the engine's errors."""
        raise NotImplementedError

    def verify_events(self, events: list[dict], seed: str, commitment: str | None) -> list[str]:
        """The problems found checking every recorded draw against ``seed`` and ``commitment``."""
        raise NotImplementedError

    def verify_record(self, text: str, seed: str | None = None) -> list[str]:
        """Replay a record with full checking and, given the seed (or the record's own Seed
        header), check every draw against it and the record's SeedCommitment: the problems found
        (empty: it verifies)."""
        try:
            headers, events, _ = self.replay_record(text)
        except (_errors.EngineError, ValueError) as e:
            return [getattr(e, "message", None) or str(e)]
        seed = seed if seed is not None else headers.get("Seed")
        if seed is None:
            return ["no seed: it is revealed when the game is over"]
        return self.verify_events(events, seed, headers.get("SeedCommitment"))

    def event_texts(self, events: list[dict], start: int = 0, state: Any = None, names: list[str] | None = None,
                    machines: frozenset[int] = frozenset()) -> list[str]:
        """One sentence for each of ``events[start:]``, ``events`` following ``state`` (None: from
        the game's start). ``state`` may be changed (folded onto): pass a copy you do not keep.
        Each as :meth:`event_text` says it."""
        raise NotImplementedError

    def event_text(self, before: Any, event: dict, names: list[str] | None = None,
                   machines: frozenset[int] = frozenset()) -> str:
        """One event in words, in the position ``before`` it (None before the first event); reads
        ``before`` only. The move in the imperative without ``names``; with the seats' ``names``,
        who did what in the third person (the seats in ``machines``, the Cardinalbot and AI seats,
        as "its"). The move path stores each event's text with it (application/store.py)."""
        raise NotImplementedError

    def board_svg(self, state: Any) -> str:
        raise NotImplementedError

    def pieces_svg(self) -> str | None:
        """The pictures of the game's pieces for its game page, as an SVG sprite of ``<symbol>``s
        (None: the page needs none). The same for every game of it: nothing of a position."""
        return None
