"""The engine's public functions: new_game, decide, play, evolve, legal_moves, replay.

* ``decide(state, seat, move, seed)`` checks a move and returns the events it causes, with every
  chance outcome (draws, rolls, Corruption tokens) decided from the game's seed and recorded.
  An illegal move raises :class:`IllegalMove` naming the broken rule.
* ``play(state, seat, move, seed)`` does the same and also returns the new state, on a copy;
  ``play_in_place(s, seat, move, seed)`` applies the move to ``s`` itself and returns its event
  (``undo=False``: without undo history, for playouts and search).
* ``evolve(state, event)`` folds one event into a new state; ``evolve_in_place(s, event)`` into
  ``s`` itself. Neither fails on events that ``decide`` produced nor draws randomness: they
  replay the recorded outcomes.
* ``legal_moves(state)`` lists every legal move of the seat to act, sorted, unique, in notation.

A game's state is the fold of ``evolve`` over its events: ``replay(events)``.

Chance outcomes are keyed by the number of reveals so far (``state.reveals``) in games started
under rules version 2 or later, and by the event count (``state.version``) in rules-1 games; see
``tiletum/chance.py``.
"""
from __future__ import annotations

from typing import Iterable

from . import actions, solo, solo_turn, turn_tasks
from .chance import NoChance, RecordingChance, ReplayChance, SeededSource, keyed_by_reveals
from .effects import apply_choice, choice_moves, run_agenda
from .errors import IllegalMove, NotYourTurn
from .terms import Reason, decision
from .flow import end_turn, king_phase_rest, setup
from .notation import Move, parse
from .state import GameState

RULES_VERSION = "2"  # 2: draws keyed by the reveal count (tiletum/chance.py); House space choice, Contract
                     # spaces, Wool Contract move, Character types (issue 14)
Err = tuple[str, str] | None


_MOVES: dict[str, Move] = {}  # parsed texts of recorded moves (the notation is finite)


def _as_move(move: Move | str, remember: bool = False) -> Move:
    """The move of a text. Only a recorded move's text is remembered (``remember``): the texts
    a client sends are anything, and would fill the memo with what is never read again."""
    if isinstance(move, Move):
        return move
    m = _MOVES.get(move)
    if m is None:
        m = parse(move)
        if remember and len(_MOVES) < 100_000:
            _MOVES[move] = m
    return m


# --- checking ------------------------------------------------------------------------------

def check(s: GameState, seat: int, m: Move) -> Err:
    """``None`` if ``seat`` may play ``m`` now, else ``(rule code, reason)``."""
    if s.phase == "over":
        return ("game-over", Reason("the game is over"))
    if seat != s.actor:
        return ("not-your-turn", Reason("it is seat {actor}'s decision, not seat {seat}'s", actor=s.actor,
                                        seat=seat))
    if m.verb == "undo":
        if s.undo_moves:
            return None
        return ("nothing-to-undo", Reason("nothing to take back since the last reveal or turn start"))
    if s.solo is not None and seat == s.solo["bot"] and s.phase == "action":
        return solo_turn.check(s, m)
    top = s.agenda[-1] if s.agenda else None
    if top is not None and top["t"] == "choice":
        options = choice_moves(s, top)
        if m in options:
            return None
        return ("choice-expected", Reason("first answer the pending {kind} decision: {options}",
                                          kind=decision(top["kind"]),
                                          options=", ".join(sorted(str(o) for o in options))))
    p = s.seats[seat]
    v = m.verb
    if v == "take":
        return actions.check_take(s, p, m)
    if v in turn_tasks.TASK_VERBS:
        return turn_tasks.check_task(s, p, m)
    if v == "skip":
        if top is not None and top["t"] == "frame" and not top["main"]:
            return None
        return ("nothing-to-skip", Reason("there is no extra Action or decision to skip"))
    if v == "end":
        if s.turn["die"] is None:
            return ("take-a-die", Reason("take a die before ending your turn"))
        if top is None or not top["main"]:
            return ("finish-first", Reason("finish or skip the Action in progress before ending your turn"))
        return None
    if v in actions.FRAME_VERBS:
        if top is None or top["t"] != "frame":
            return ("no-action", Reason("no Action is in progress: take a die first"))
        return actions.check_action(s, p, m, top)
    return ("no-decision", Reason("nothing asks for '{verb}' now", verb=v))


def legal(s: GameState) -> list[Move]:
    """Every legal move of the seat to act (unsorted Move values)."""
    if s.phase == "over" or s.actor is None:
        return []
    if s.solo is not None and s.actor == s.solo["bot"] and s.phase == "action":
        return solo_turn.legal(s)
    top = s.agenda[-1] if s.agenda else None
    if top is not None and top["t"] == "choice":
        return choice_moves(s, top)
    p = s.seats[s.actor]
    out: list[Move] = []
    if s.turn["die"] is None and top is None:
        out.extend(m for m in actions.take_candidates(s, p) if actions.check_take(s, p, m) is None)
    if top is not None and top["t"] == "frame":
        out.extend(m for m in actions.candidates(s, p, top) if actions.check_action(s, p, m, top) is None)
        out.append(Move("end") if top["main"] else Move("skip"))
    out.extend(m for m in turn_tasks.candidates(s, p) if turn_tasks.check_task(s, p, m) is None)
    return out


def legal_moves(s: GameState, seat: int | None = None) -> list[str]:
    """The legal moves of ``seat`` (default: the seat to act), sorted and unique, in notation."""
    if seat is not None and seat != s.actor:
        return []
    return sorted({str(m) for m in legal(s)})


def legacy_move(s: GameState, seat: int, m: Move) -> Move:
    """The current notation of a move recorded under an earlier rules version, where it differs.

    Until rules version 2 a plain ``house`` (or ``house <town>``) always filled the first empty
    House space; it still does when folded, but a checked move must now name the space when the
    free spaces' rewards differ. Such a move is returned with that first empty space named."""
    if m.verb != "house" or m.space is not None or check(s, seat, m) is None:
        return m
    from .board import free_house_spaces
    free = free_house_spaces(s, m.town or s.seats[seat].merchant)
    if not free:
        return m
    explicit = Move("house", (*m.args, str(free[0] + 1)))
    return explicit if check(s, seat, explicit) is None else m


# --- applying ------------------------------------------------------------------------------

def chance_nonce(s: GameState) -> int:
    """The nonce of the next reveal's outcomes: the reveals so far (rules 2 on), or in a rules-1
    game (``reveals`` is None) the events so far."""
    return s.version if s.reveals is None else s.reveals


def _apply_move(s: GameState, seat: int, m: Move, chance) -> None:
    if s.solo is not None and seat == s.solo["bot"] and s.phase == "action":
        if m.verb == "end":
            end_turn(s, chance)
        else:
            solo_turn.apply(s, m, chance)
        return
    top = s.agenda[-1] if s.agenda else None
    if top is not None and top["t"] == "choice":
        apply_choice(s, top, m)
    elif m.verb == "take":
        actions.apply_take(s, s.seats[seat], m, chance)
    elif m.verb in turn_tasks.TASK_VERBS:
        turn_tasks.apply_task(s, s.seats[seat], m, chance)
    elif m.verb == "skip":
        s.agenda.pop()
    elif m.verb == "end":
        end_turn(s, chance)
        return
    else:
        actions.apply_action(s, s.seats[seat], m, top, chance)
    run_agenda(s)
    if s.phase == "king" and not s.agenda:
        king_phase_rest(s, chance)


def _undoable(s: GameState, seat: int, m: Move, outcomes) -> bool:
    return (not outcomes and s.phase == "action" and m.verb != "end"
            and s.turn is not None and s.turn["seat"] == seat and not solo.is_bot(s, seat))


def _move_in_place(s: GameState, seat: int, m: Move, text: str, chance, outcomes, undo: bool) -> None:
    """Apply the move ``m`` (recorded as ``text``) to ``s`` in place, drawing from ``chance``, and
    keep its undo history. ``outcomes``: the move's recorded outcomes when they are known before
    (an event folded), None when the move draws them now (then they are ``chance.outcomes``).
    ``undo=False`` keeps no undo history: for moves nothing will take back."""
    undoable = undo and _undoable(s, seat, m, outcomes)
    if undoable and s.undo_base is None:
        base = s.clone()
        base.undo_base, base.undo_moves = None, []
        s.undo_base = base
    _apply_move(s, seat, m, chance)
    if outcomes is None:
        outcomes = chance.outcomes
    if outcomes:  # a reveal: counted, and nothing before it can be taken back
        if s.reveals is not None:
            s.reveals += 1
        if s.undo_base is not None:
            s.undo_base, s.undo_moves = None, []
    elif undoable:
        s.undo_moves.append(text)
    elif s.undo_base is not None:  # (undo history is a base and at least one move, or neither)
        s.undo_base, s.undo_moves = None, []
    s.version += 1


def evolve_in_place(s: GameState | None, ev: dict, undo: bool = True) -> GameState:
    """Fold one event into ``s`` in place and return it (a GameStarted event makes a new state).
    ``undo=False`` keeps no undo history for a move that will not be taken back."""
    t = ev["type"]
    if t == "MovePlayed":
        text, outcomes = ev["move"], ev["chance"]
        _move_in_place(s, ev["seat"], _MOVES.get(text) or _as_move(text, remember=True), text,
                       ReplayChance(outcomes) if outcomes else _NO_CHANCE, outcomes, undo)
        return s
    if t == "MoveUndone":
        version = s.version + 1
        seat, moves = ev["seat"], s.undo_moves[:-1]
        before = s.undo_base.clone()
        for text in moves:
            _move_in_place(before, seat, _as_move(text, remember=True), text, _NO_CHANCE, [], True)
        for name in GameState.__slots__:
            setattr(s, name, getattr(before, name))
        s.version = version
        return s
    if t == "GameStarted":
        s = setup(ev["players"], ev.get("options") or {}, ReplayChance(ev["chance"]))
        s.version = 1
        s.reveals = 1 if keyed_by_reveals(ev.get("rules")) else None
        return s
    raise ValueError(f"unknown event type {t!r}")


_NO_CHANCE = NoChance()  # a move whose event recorded no outcome; a draw would mean a corrupted log


def evolve(state: GameState | None, event: dict) -> GameState:
    """A new state: ``state`` with ``event`` folded in. ``state`` is not changed."""
    return evolve_in_place(state.clone() if state is not None else None, event)


def replay(events: Iterable[dict], state: GameState | None = None) -> GameState:
    """The fold of ``evolve`` over ``events``, from ``state`` when given (which is not changed).

    Folded in place (``evolve_in_place``) on one copy, with two shortcuts that give the same
    state: a move later taken back by an undo is dropped with its MoveUndone, and undo history
    is kept only for the trailing moves that can still be undone, so a long game folds without
    copying the state along the way.
    """
    events = list(events)
    s = state.clone() if state is not None else None
    kept = _not_taken_back(events)
    if kept is None:  # an undo takes back a move from before ``state``: every event as it is
        for ev in events:
            s = evolve_in_place(s, ev)
        return s
    k = len(kept)  # the moves from k on may still be taken back: folded with undo history
    while k > 0 and (last := kept[k - 1])["type"] == "MovePlayed" and not last["chance"] \
            and last["move"] != "end":
        k -= 1
    # before k, evolve_in_place(s, ev, undo=False), its move branch written out: the call per
    # event cost 5-9% of the replay's speed (bench/tiletum.py)
    move_in_place, parsed, no_chance = _move_in_place, _MOVES, _NO_CHANCE
    for ev in kept[:k]:
        if ev["type"] != "MovePlayed":
            s = evolve_in_place(s, ev, False)
            continue
        text, outcomes = ev["move"], ev["chance"]
        move_in_place(s, ev["seat"], parsed.get(text) or _as_move(text, remember=True), text,
                      ReplayChance(outcomes) if outcomes else no_chance, outcomes, False)
    for ev in kept[k:]:
        s = evolve_in_place(s, ev)
    s.version = (state.version if state is not None else 0) + len(events)
    return s


def _not_taken_back(events: list[dict]) -> list[dict] | None:
    """``events`` less each move an undo takes back and that MoveUndone; None when an undo takes
    back a move from before them."""
    cancelled: set[int] = set()
    stack: list[int] = []
    for i, ev in enumerate(events):
        t = ev["type"]
        if t == "MovePlayed":
            stack.append(i)
        elif t == "MoveUndone":
            if not stack:
                return None
            cancelled.add(stack.pop())
            cancelled.add(i)
    return [ev for i, ev in enumerate(events) if i not in cancelled] if cancelled else events


# --- deciding ------------------------------------------------------------------------------

def new_game(players: int, seed: str, options: dict | None = None) -> tuple[GameState, list[dict]]:
    """Set up a game from its secret seed. Returns the state and the GameStarted event."""
    options = dict(options or {})
    chance = RecordingChance(SeededSource(seed, 0))
    s = setup(players, options, chance)
    s.version = 1
    s.reveals = 1  # the setup was reveal 0 (nonce 0); the next reveal is 1
    return s, [{"type": "GameStarted", "players": players, "options": options, "rules": RULES_VERSION,
                "chance": chance.outcomes}]


def play_in_place(s: GameState, seat: int, move: Move | str, seed: str | None = None, source=None,
                  trusted: bool = False, undo: bool = True) -> dict:
    """Check and apply one move to ``s`` IN PLACE; return its event.

    ``seed`` is the game's secret seed (chance outcomes come from (seed, ``chance_nonce(s)``));
    ``trusted=True`` skips the check for a move taken from ``legal(s)``; ``undo=False`` keeps no
    undo history (random playouts and search, where nothing is taken back).
    """
    if seed is None and source is None:
        raise ValueError("play() needs the game's seed (or a chance source) to draw outcomes")
    m = _as_move(move)
    if not trusted:
        err = check(s, seat, m)
        if err is not None:
            cls = NotYourTurn if err[0] == "not-your-turn" else IllegalMove
            raise cls(Reason("'{move}': {why}", move=str(m), why=err[1]), code=err[0])
    if m.verb == "undo":
        ev = {"type": "MoveUndone", "seat": seat, "move": s.undo_moves[-1], "rules": RULES_VERSION}
        evolve_in_place(s, ev)
        return ev
    chance = RecordingChance(source or SeededSource(seed, chance_nonce(s)))
    text = str(m)
    _move_in_place(s, seat, m, text, chance, None, undo)
    return {"type": "MovePlayed", "seat": seat, "move": text, "rules": RULES_VERSION,
            "chance": chance.outcomes}


def play(state: GameState, seat: int, move: Move | str, seed: str | None = None, source=None,
         trusted: bool = False) -> tuple[list[dict], GameState]:
    """Check and apply one move to a copy of ``state``: ``(events, new_state)``. ``state`` is not
    changed. The arguments are ``play_in_place``'s."""
    s = state.clone()
    return [play_in_place(s, seat, move, seed, source, trusted)], s


def decide(state: GameState, seat: int, move: Move | str, seed: str | None = None, source=None) -> list[dict]:
    """The events that ``seat`` playing ``move`` causes. Raises IllegalMove / NotationError."""
    return play(state, seat, move, seed=seed, source=source)[0]
