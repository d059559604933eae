"""The engine's public functions, with the shapes of the other engines' (``carcassonne.game``).

* ``new_game(players, seed)`` sets up round 1 (its privileges, craftsmen and resource cards drawn).
* ``decide(state, seat, move, seed)`` checks a move and returns its events, with whatever it
  reveals (master builders from the bag, the event card, the tax die, the next round's cards)
  drawn from the game's seed and recorded; an illegal move raises :class:`IllegalMove` naming the
  broken rule.
* ``evolve(state, event)`` folds one event into a new state, reading the recorded draws back: it
  never fails on decide's events and never draws.
* ``legal_moves(state)`` lists every legal move of the seat to act, sorted, unique, in notation.

Events::

    {"type": "GameStarted", "game": "pillars", "players": 3, "options": {}, "rules": "1",
     "chance": [["privilege", "P05"], ["privilege", "P11"], ["shiring", "C03"], ...]}
    {"type": "MovePlayed", "seat": 0, "move": "place priory", "rules": "1",
     "chance": [["builder", 2]]}

The draws of reveal n are keyed by (seed, n): n is ``state.reveals``, the setup being reveal 0
(``pillars/chance.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

from . import rules
from .chance import NoChance, RecordingChance, ReplayChance, SeededSource
from .errors import IllegalMove, NotationError, NotYourTurn, PositionError, Reason
from .notation import Move, parse
from .state import RULES_VERSION, GameState

GAME = "pillars"
_NO_CHANCE = NoChance()
Err = tuple[str, str] | None
_MOVES: dict[str, Move] = {}


def _as_move(move: Move | str, remember: bool = False) -> Move:
    if isinstance(move, Move):
        return move
    if not isinstance(move, str):
        raise NotationError(Reason("a move is a string or a Move"))
    m = _MOVES.get(move)
    if m is None:
        m = parse(move)
        if remember and len(_MOVES) < 100_000:
            _MOVES[move] = m
    return m


def rules_version(value) -> str:
    if value is None or str(value) != RULES_VERSION:
        raise PositionError(f"unknown rules version {value!r} (this engine plays {RULES_VERSION})")
    return RULES_VERSION


def setup(players: int, options: dict, chance, version: str = RULES_VERSION) -> GameState:
    s = rules.setup(players, options, chance, version)
    s.version, s.reveals = 1, 1
    return s


def new_game(players: int, seed: str, options: dict | None = None) -> tuple[GameState, list[dict]]:
    """Set up a game from its secret seed. Returns the state and the GameStarted event."""
    options = dict(options or {})
    chance = RecordingChance(SeededSource(seed, 0))
    s = setup(players, options, chance)
    return s, [
        {
            "type": "GameStarted",
            "game": GAME,
            "players": players,
            "options": options,
            "rules": RULES_VERSION,
            "chance": chance.outcomes,
        }
    ]


def check_move(s: GameState, seat: int, m: Move) -> tuple[str, str, str] | None:
    """None if ``seat`` may play ``m`` now, else (code, reason, rules section)."""
    if s.phase == "over":
        return "game-over", Reason("the game is over"), "GAME END"
    if seat != s.actor:
        why = Reason("it is seat {actor}'s decision, not seat {seat}'s", actor=s.actor, seat=seat)
        return "not-your-turn", why, "GAME SUMMARY"
    return rules.check(s, seat, m)


def check(s: GameState, seat: int, m: Move | str) -> Err:
    """``None`` if ``seat`` may play ``m`` now, else ``(rule code, reason)``."""
    err = check_move(s, seat, _as_move(m))
    return None if err is None else err[:2]


def _raise(m: Move, err: tuple[str, str, str]):
    cls = NotYourTurn if err[0] == "not-your-turn" else IllegalMove
    raise cls(Reason("'{move}': {why}", move=str(m), why=err[1]), code=err[0], rule=err[2])


def normalize(s: GameState, seat: int, move: Move | str) -> Move:
    """The canonical form of a legal move (the recorded one); raises like ``play``."""
    m = _as_move(move)
    err = check_move(s, seat, m)
    if err is not None:
        _raise(m, err)
    return m


legal = rules.legal


def legal_moves(s: GameState, seat: int | None = None) -> list[str]:
    """The legal moves of ``seat`` (default: the seat to act), sorted and unique, in notation."""
    if s.phase == "over" or (seat is not None and seat != s.actor):
        return []
    return sorted({str(m) for m in rules.legal(s)})


def apply_event(s: GameState | None, ev: dict) -> GameState:
    """Fold one event into ``s`` in place (a GameStarted event makes a new state); return it."""
    t = ev["type"]
    if t == "MovePlayed":
        assert s is not None, "a move folds into a game that has started"
        outcomes = ev["chance"]
        m = _as_move(ev["move"], remember=True)
        rules.apply(s, ev["seat"], m, ReplayChance(outcomes) if outcomes else _NO_CHANCE)
        if outcomes:
            s.reveals += 1
        s.version += 1
        return s
    if t == "GameStarted":
        return setup(
            ev["players"],
            ev.get("options") or {},
            ReplayChance(ev["chance"]),
            version=rules_version(ev.get("rules")),
        )
    raise ValueError(f"unknown event type {t!r}")


def evolve(state: GameState | None, event: dict) -> GameState:
    """A new state: ``state`` with ``event`` folded in. ``state`` is not changed."""
    return apply_event(state.clone() if state is not None else None, event)


def replay(events: Iterable[dict], state: GameState | None = None) -> GameState:
    s = state.clone() if state is not None else None
    for ev in events:
        s = apply_event(s, ev)
    assert s is not None, "no events to replay"
    return s


def play(
    state: GameState, seat: int, move: Move | str, seed: str | None = None, source=None, trusted: bool = False
) -> tuple[list[dict], GameState]:
    """Check and apply one move: ``(events, new_state)``. ``state`` is not changed.

    ``seed`` is the game's secret seed (what the move reveals comes from (seed, ``state.reveals``));
    ``trusted=True`` skips the check for a move taken from ``legal(state)``."""
    if seed is None and source is None:
        raise ValueError("play() needs the game's seed (or a chance source) to draw")
    m = _as_move(move)
    if not trusted:
        err = check_move(state, seat, m)
        if err is not None:
            _raise(m, err)
    s = state.clone()
    chance = RecordingChance(source or SeededSource(str(seed), state.reveals))
    rules.apply(s, seat, m, chance)
    if chance.outcomes:
        s.reveals += 1
    s.version += 1
    return [
        {"type": "MovePlayed", "seat": seat, "move": str(m), "rules": s.rules, "chance": chance.outcomes}
    ], s


def advance(s: GameState, seat: int, m: Move, seed: str) -> dict:
    """Apply a legal move to ``s`` IN PLACE and return its event (no check): for playouts."""
    chance = RecordingChance(SeededSource(seed, s.reveals))
    rules.apply(s, seat, m, chance)
    if chance.outcomes:
        s.reveals += 1
    s.version += 1
    return {"type": "MovePlayed", "seat": seat, "move": str(m), "rules": s.rules, "chance": chance.outcomes}


def decide(state: GameState, seat: int, move: Move | str, seed: str | None = None, source=None) -> list[dict]:
    """The events that ``seat`` playing ``move`` causes. Raises IllegalMove / NotationError."""
    return play(state, seat, move, seed=seed, source=source)[0]
