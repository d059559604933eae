"""Game records: a whole game as text in move notation, replayable to the same final state, and
the check of a finished game's draws against its revealed seed.

The frame is every hosted game's (``rules_common.record``), one move per line::

    [Game "pillars"]
    [Players "3"]
    [Seat0 "Alice"]
    [Options "{}"]
    [Rules "1"]
    [SeedCommitment "9f86d0..."]
    [Setup "[[\\"privilege\\",\\"P05\\"],...]"]
    1. s0: take wood3
    2. s1: pass
    ...
    20. s2: pass {builder 0}
    31. s0: place priory {event E04, tax 3}

A move carries what it revealed in braces (``builder`` and ``tax`` outcomes are numbers, the
others card ids), so the record replays exactly without the seed; a move not played by the
seat's player is tagged, e.g. ``[stand-in]``. The seed is added as ``[Seed "..."]`` once the game
is over.
"""

from __future__ import annotations

from rules_common.errors import RecordError
from rules_common.record import IMPOSSIBLE, game_started, header_lines, move_text, read_lines, split_move

from . import rules
from .chance import KINDS, RecordingChance, ReplayChance, SeededSource, seed_commitment
from .errors import EngineError, IllegalMove
from .game import GAME, _as_move, apply_event, check_move, setup

__all__ = ["RecordError", "parse_record", "replay_record", "verify_events", "write_record"]
NUMERIC = ("builder", "tax")


def write_record(events: list[dict], headers: dict[str, str] | None = None) -> str:
    """The record of a game from its events. ``headers`` adds tags (seat names, ids, seed...)."""
    if not events:
        raise RecordError("a record starts from the GameStarted event")
    lines = header_lines(GAME, events[0], headers)
    for n, ev in enumerate(events[1:], 1):
        text = move_text(ev, ", ".join(f"{k} {v}" for k, v in ev.get("chance") or []))
        lines.append(f"{n}. s{ev['seat']}: {text}")
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> tuple[dict[str, str], list[dict]]:
    """Headers and events of a record. Raises :class:`RecordError` on malformed text."""
    headers: dict[str, str] = {}
    events: list[dict] = []
    for lineno, seat, body in read_lines(text, headers):
        move, by, outcomes = split_move(lineno, body)
        chance: list[list] = []
        for part in (outcomes or "").split(","):
            kind, _, value = part.strip().partition(" ")
            if not kind:
                continue
            value = value.strip()
            if (
                kind not in KINDS
                or not value
                or (kind in NUMERIC and not value.isascii() or kind in NUMERIC and not value.isdigit())
            ):
                raise RecordError(
                    f"line {lineno}: an outcome is '<kind> <value>' with a kind of "
                    f"{', '.join(KINDS)}, not {part.strip()!r}"
                )
            chance.append([kind, int(value) if kind in NUMERIC else value])
        ev = {"type": "MovePlayed", "seat": seat, "move": move, "chance": chance}
        if by:
            ev["by"] = by
        events.append(ev)
    if headers.get("Game", GAME) != GAME:
        raise RecordError(f"this is a record of {headers['Game']!r}, not of {GAME!r}")
    start = game_started(headers, game=GAME)
    return headers, [start] + events


def replay_record(text: str):
    """Replay a record move by move with full checking: (headers, events, final state). The
    draws come from the record; each must be one that what is face down allows."""
    headers, events = parse_record(text)
    try:
        state = apply_event(None, events[0])
    except (EngineError, *IMPOSSIBLE) as e:
        raise RecordError(f"the setup cannot be replayed: {e}") from None
    out = [events[0]]
    for i, ev in enumerate(events[1:], 1):
        m = _as_move(ev["move"])
        err = check_move(state, ev["seat"], m)
        if err is not None:
            raise IllegalMove(f"move {i} '{m}' by seat {ev['seat']}: {err[1]}", code=err[0], rule=err[2])
        ev = {**ev, "move": str(m), "rules": state.rules}
        chance = ReplayChance(ev["chance"])
        try:
            rules.apply(state, ev["seat"], m, chance)
        except IMPOSSIBLE as e:
            raise RecordError(f"move {i}: its recorded draws are impossible here ({e})") from None
        if chance.used != len(ev["chance"]):
            raise RecordError(
                f"move {i}: it records {len(ev['chance'])} draws where the rules make {chance.used}"
            )
        if ev["chance"]:
            state.reveals += 1
        state.version += 1
        out.append(ev)
    return headers, out, state


def verify_events(events: list[dict], seed: str, commitment: str | None = None) -> list[str]:
    """Problems found checking every recorded draw against the seed (empty when all match)."""
    problems: list[str] = []
    if commitment is not None and seed_commitment(seed) != commitment:
        problems.append("the seed does not match the published commitment")
    start = events[0]
    rec = RecordingChance(SeededSource(seed, 0))
    setup(start["players"], start.get("options") or {}, rec)
    if rec.outcomes != start["chance"]:
        problems.append("the setup's cards do not match the seed")
    state = apply_event(None, start)
    for n, ev in enumerate(events[1:], 1):
        s = state.clone()
        rec = RecordingChance(SeededSource(seed, state.reveals))
        if check_move(s, ev["seat"], _as_move(ev["move"])) is None:
            rules.apply(s, ev["seat"], _as_move(ev["move"]), rec)
        if rec.outcomes != ev["chance"]:
            problems.append(f"move {n} ({ev['move']}): what it revealed differs from the seed's draws")
        state = apply_event(state, ev)
    return problems
