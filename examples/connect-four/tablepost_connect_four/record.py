"""Connect Four's game record, in the text frame every hosted game shares (``rules_common.record``)::

    [Game "connect-four"]
    [Players "2"]
    [SeedCommitment "9f86d0..."]
    [Setup "[]"]
    1. s0: drop d
    2. s1: drop c

Nothing is drawn, so a record replays without the seed; its verification checks the seed against
the record's commitment and that no move claims a draw.
"""
from __future__ import annotations

from rules_common.chance import seed_commitment
from rules_common.errors import EngineError, IllegalMove, RecordError
from rules_common.record import game_started, header_lines, move_text, read_lines, split_move

from .rules import GAME, GameState, apply_event, check, parse


def write_record(events: list[dict], headers: dict[str, str] | None = None) -> str:
    if not events:
        raise RecordError("a record starts from the GameStarted event")
    lines = header_lines(GAME, events[0], headers)
    for n, ev in enumerate(events[1:], 1):
        lines.append(f"{n}. s{ev['seat']}: {move_text(ev, '')}")
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> tuple[dict[str, str], list[dict]]:
    headers: dict[str, str] = {}
    events: list[dict] = []
    for lineno, seat, body in read_lines(text, headers):
        move, by, outcomes = split_move(lineno, body)
        if outcomes:
            raise RecordError(f"line {lineno}: Connect Four draws nothing, yet a move claims {{{outcomes}}}")
        ev: dict = {"type": "MovePlayed", "seat": seat, "move": move, "chance": []}
        if by:
            ev["by"] = by
        events.append(ev)
    if headers.get("Game", GAME) != GAME:
        raise RecordError(f"this is a record of {headers['Game']!r}, not of {GAME!r}")
    return headers, [game_started(headers, game=GAME)] + events


def replay_record(text: str) -> tuple[dict[str, str], list[dict], GameState]:
    """(headers, events, final state), every move checked against the rules."""
    headers, events = parse_record(text)
    start = events[0]
    if start["players"] != 2 or start["chance"] or start["options"]:
        raise RecordError("a Connect Four record is for 2 players, with no options and no setup draws")
    state = apply_event(None, start)
    out = [start]
    for i, ev in enumerate(events[1:], 1):
        try:
            m = parse(ev["move"])
        except EngineError as e:
            raise RecordError(f"move {i}: {e.message}") from None
        err = check(state, ev["seat"], m)
        if err is not None:
            raise IllegalMove(f"move {i} '{m}' by seat {ev['seat']}: {err[1]}", code=err[0], rule=err[2])
        ev = {**ev, "move": str(m), "rules": state.rules}
        state = apply_event(state, ev)
        out.append(ev)
    return headers, out, state


def verify_events(events: list[dict], seed: str, commitment: str | None = None) -> list[str]:
    problems = []
    if commitment is not None and seed_commitment(seed) != commitment:
        problems.append("the seed does not match the published commitment")
    problems += [f"move {n}: Connect Four draws nothing, yet the move records a draw"
                 for n, ev in enumerate(events[1:], 1) if ev.get("chance")]
    return problems
