"""``pillars-engine``: The Pillars of the Earth rules engine on the command line (like
``carcassonne-engine``).

A position file is the position document (``GameState.to_doc()``, docs/pillars.md) with one extra
top-level key, ``"seed"``: the game's secret seed, from which every reveal is drawn. FILE may be
``-`` for stdin.

    pillars-engine new --players 3 --seed s1 > pos.json
    pillars-engine legal pos.json
    pillars-engine play pos.json "take wood3" "pass" > next.json
    pillars-engine score next.json
    pillars-engine describe next.json
    pillars-engine random-game --players 4 --seed 1 --games 100 [--record game.txt]
    pillars-engine replay game-record.txt > final.json
    pillars-engine verify game-record.txt --seed <revealed seed>

Exit codes: 0 success, 1 illegal or unparsable move (or a failed verification), 2 bad usage,
file or position.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from rules_common import cli as _cli
from rules_common.cli import EXIT_ILLEGAL, EXIT_OK, CliError, dump

from .chance import seed_commitment
from .describe import describe_final
from .errors import EngineError
from .game import legal_moves, new_game, play
from .playout import random_game
from .record import replay_record, verify_events, write_record
from .state import GameState


class _NoSeed:
    def randbelow(self, n: int) -> int:
        raise CliError(
            'the move reveals a card, a master builder or the tax die but the position has no "seed": '
            "pass --seed S"
        )


def load(path: str) -> tuple[GameState, str | None]:
    return _cli.load(path, GameState.from_doc)


def cmd_new(a) -> int:
    state, _ = new_game(a.players, a.seed)
    dump(state, a.seed)
    return EXIT_OK


def cmd_legal(a) -> int:
    state, _ = load(a.file)
    moves = legal_moves(state)
    if a.json:
        print(json.dumps({"seat": state.actor, "phase": state.phase, "round": state.round, "moves": moves}))
    else:
        for m in moves:
            print(m)
    return EXIT_OK


def cmd_play(a) -> int:
    state, seed = load(a.file)
    seed = a.seed if a.seed is not None else seed
    for i, text in enumerate(a.moves, 1):
        if state.actor is None:
            raise CliError(f"move {i} {text!r}: the game is over", EXIT_ILLEGAL)
        try:
            _, state = play(state, state.actor, text, seed=seed, source=_NoSeed() if seed is None else None)
        except EngineError as e:
            raise CliError(f"illegal move {i} {text!r}: {e.message} [{e.code}]", EXIT_ILLEGAL) from None
    dump(state, seed)
    return EXIT_OK


def cmd_score(a) -> int:
    state, _ = load(a.file)
    print(
        json.dumps(
            {
                "phase": state.phase,
                "round": state.round,
                "vp": state.vp,
                "gold": state.gold,
                "winners": state.winners,
                "winner": state.winner,
            }
        )
    )
    return EXIT_OK


def cmd_describe(a) -> int:
    state, _ = load(a.file)
    if state.phase == "over":
        print(describe_final(state))
    else:
        print(
            f"Round {state.round}, {state.phase}: seat {state.actor} to decide; "
            f"start player seat {state.start}; VP {state.vp}; gold {state.gold}."
        )
    return EXIT_OK


def cmd_random_game(a) -> int:
    if a.games < 1:
        raise CliError("--games must be at least 1")
    t0 = time.perf_counter()
    for i in range(a.games):
        seed = f"{a.seed}-{i}"
        g = random_game(a.players, seed)
        print(
            f"game {i}: seed {seed} VP {' '.join(map(str, g.state.vp))} "
            f"gold {' '.join(map(str, g.state.gold))} winners {g.state.winners} ({g.moves} moves)",
            flush=True,
        )
        if a.record and i == a.games - 1:
            with open(a.record, "w", encoding="utf-8") as f:
                f.write(write_record(g.events, {"SeedCommitment": seed_commitment(seed), "Seed": seed}))
    t = time.perf_counter() - t0
    print(f"{a.games} games in {t:.2f}s: {a.games / t:.1f} games/s")
    return EXIT_OK


def cmd_replay(a) -> int:
    return _cli.replay_command(a.file, replay_record)


def cmd_verify(a) -> int:
    return _cli.verify_command(a.file, a.seed, replay_record, verify_events, "everything revealed")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="pillars-engine",
        description="The Pillars of the Earth (base game) rules engine on the command line. "
        'A position file is the position document (docs/pillars.md) plus a top-level "seed" key; '
        "FILE may be '-'.",
        epilog="Exit codes: 0 ok, 1 illegal or unparsable move or failed verification, 2 bad usage, file "
        "or position.",
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("new", help="print the position of a new game")
    p.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    p.add_argument("--seed", required=True, help="the game's secret seed (decides every draw)")
    p.set_defaults(func=cmd_new)
    p = sub.add_parser("legal", help="list the legal moves of the seat to act, sorted")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--json", action="store_true", help='print {"seat", "phase", "round", "moves"}')
    p.set_defaults(func=cmd_legal)
    p = sub.add_parser("play", help="play moves (each by the seat to act) and print the new position")
    p.add_argument("file", metavar="FILE")
    p.add_argument("moves", metavar="MOVE", nargs="+", help='a move, e.g. "take wood3"')
    p.add_argument("--seed", help="the game's seed (default: the file's \"seed\")")
    p.set_defaults(func=cmd_play)
    p = sub.add_parser("score", help="print VP and gold as JSON")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(func=cmd_score)
    p = sub.add_parser("describe", help="say in words where the game stands")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(func=cmd_describe)
    p = sub.add_parser("random-game", help="play complete games with random legal moves")
    p.add_argument("--players", type=int, choices=(2, 3, 4), required=True)
    p.add_argument("--seed", required=True, help="base seed; game i uses '<S>-<i>'")
    p.add_argument("--games", type=int, default=1, metavar="K")
    p.add_argument("--record", metavar="FILE", help="write the last game's record (with its seed) to FILE")
    p.set_defaults(func=cmd_random_game)
    p = sub.add_parser("replay", help="check every move of a record and print the final position")
    p.add_argument("file", metavar="RECORD")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("verify", help="check a finished game's draws against its seed")
    p.add_argument("file", metavar="RECORD")
    p.add_argument("--seed", help="the revealed seed (default: the record's Seed header)")
    p.set_defaults(func=cmd_verify)
    return ap


def main(argv: list[str] | None = None) -> int:
    return _cli.main(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
