"""``tiletum-engine``: the rules engine on the command line.

A position file is the position document (``GameState.to_doc()``, see docs/tiletum-state.md) with one
extra top-level key, ``"seed"``: the game's secret seed, from which the chance outcomes of every
move are drawn. ``new`` writes such a file; ``play`` reads one and writes the next. FILE may be
``-`` for stdin.

    tiletum-engine new --players 2 --seed s1 > pos.json
    tiletum-engine legal pos.json
    tiletum-engine play pos.json "take G4" "action merchant" > next.json
    tiletum-engine score next.json
    tiletum-engine random-game --players 4 --seed 1 --games 100
    tiletum-engine replay game-record.txt > final.json
    tiletum-engine verify game-record.txt --seed <revealed seed>

Exit codes: 0 success, 1 illegal or unparsable move, 2 bad usage, file or position.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from rules_common import cli as _cli
from rules_common.cli import EXIT_ILLEGAL, EXIT_OK, CliError, dump
from rules_common.cli import name as _name

from .errors import EngineError, IllegalMove, NotationError
from .game import legal_moves, new_game, play
from .notation import parse
from .playout import random_game
from .record import replay_record
from .state import GameState

# a position the document format accepts but the rules cannot work with
_BROKEN = (KeyError, IndexError, TypeError, ValueError, AttributeError)


class SeedNeeded(Exception):
    pass


class _NoSeed:
    """A chance source for a position without a seed: fine until a move needs an outcome."""

    def randbelow(self, n: int) -> int:
        raise SeedNeeded


# --- position files --------------------------------------------------------------------------

def load(path: str) -> tuple[GameState, str | None]:
    """Read a position file: (state, seed or None)."""
    return _cli.load(path, GameState.from_doc)


def _reason(e: EngineError, text: str) -> str:
    """The error's message without its leading quoted move (the CLI names the move itself)."""
    msg = e.message
    prefixes = [f"{text!r}: ", f"'{text}': "]
    if isinstance(e, IllegalMove):
        try:
            prefixes.append(f"'{parse(text)}': ")
        except NotationError:
            pass
    for p in prefixes:
        if msg.startswith(p):
            return msg[len(p):]
    return msg


# --- commands --------------------------------------------------------------------------------

def cmd_new(a: argparse.Namespace) -> int:
    options = {"action_tiles": "shuffled"} if a.shuffled_actions else None
    state, _ = new_game(a.players, a.seed, options)
    dump(state, a.seed)
    return EXIT_OK


def cmd_legal(a: argparse.Namespace) -> int:
    state, _ = load(a.file)
    moves = _guard(a.file, legal_moves, state)
    if a.json:
        print(json.dumps({"seat": state.actor, "moves": moves}))
    else:
        for m in moves:
            print(m)
    return EXIT_OK


def cmd_play(a: argparse.Namespace) -> int:
    state, seed = load(a.file)
    seed = a.seed if a.seed is not None else seed
    for i, text in enumerate(a.moves, 1):
        try:
            _, state = _guard(a.file, play, state, state.actor, text, seed=seed,
                              source=_NoSeed() if seed is None else None)
        except EngineError as e:  # IllegalMove, NotYourTurn, NotationError
            line = f"illegal move {i} {text!r}: {_reason(e, text)} [{e.code}]"
            raise CliError(line, EXIT_ILLEGAL) from None
        except SeedNeeded:
            raise CliError(f"move {i} {text!r} needs a chance outcome but {_name(a.file)} has no \"seed\": "
                           "pass --seed S") from None
    dump(state, seed)
    return EXIT_OK


def cmd_score(a: argparse.Namespace) -> int:
    state, _ = load(a.file)
    print(json.dumps({
        "round": state.round, "phase": state.phase,
        "scores": {str(p.seat): p.score for p in state.seats},
        "final": state.final, "winner": state.winner,
    }))
    return EXIT_OK


def cmd_random_game(a: argparse.Namespace) -> int:
    if a.games < 1:
        raise CliError("--games must be at least 1")
    t0 = time.perf_counter()
    for i in range(a.games):
        seed = f"{a.seed}-{i}"
        g = random_game(a.players, seed)
        scores = " ".join(str(p.score) for p in g.state.seats)
        print(f"game {i}: seed {seed} scores {scores} winner seat {g.state.winner} ({g.moves} moves)",
              flush=True)
        if a.games > 20 and (i + 1) % 10 == 0:
            print(f"{i + 1}/{a.games} games played", file=sys.stderr, flush=True)
    t = time.perf_counter() - t0
    print(f"{a.games} games in {t:.2f}s: {a.games / t:.1f} games/s")
    return EXIT_OK


def _guard(path: str, fn, *args, **kwargs):
    """Run an engine function on a loaded position; a crash means the position is inconsistent."""
    try:
        return fn(*args, **kwargs)
    except _BROKEN as e:
        raise CliError(f"{_name(path)}: the engine cannot use this position "
                       f"({type(e).__name__}: {e})") from None


# --- argument parsing ------------------------------------------------------------------------

def cmd_replay(a: argparse.Namespace) -> int:
    return _cli.replay_command(a.file, replay_record)


def cmd_verify(a: argparse.Namespace) -> int:
    from .fairness import verify_events
    return _cli.verify_command(a.file, a.seed, replay_record, verify_events,
                               "every die and Corruption token drawn")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tiletum-engine",
        description="The Tiletum rules engine on the command line. A position file is the position "
                    "document (docs/tiletum-state.md) plus a top-level \"seed\" key; FILE may be '-' "
                    "for stdin.",
        epilog="Exit codes: 0 ok, 1 illegal or unparsable move, 2 bad usage, file or position.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("new", help="print the position of a new game",
                       description="Set up a new game and print its position (with its seed) as JSON.")
    p.add_argument("--players", type=int, choices=(2, 3, 4), required=True, help="number of players")
    p.add_argument("--seed", required=True, help="the game's secret seed (decides every chance outcome)")
    p.add_argument("--shuffled-actions", action="store_true",
                   help="shuffle the Action tiles instead of the printed order")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("legal", help="list the legal moves of the seat to act",
                       description="Print the legal moves of the seat to act, one per line, sorted. "
                                   "A finished game has none.")
    p.add_argument("file", metavar="FILE", help="position file, or - for stdin")
    p.add_argument("--json", action="store_true", help='print {"seat": ..., "moves": [...]}')
    p.set_defaults(func=cmd_legal)

    p = sub.add_parser("play", help="play moves and print the new position",
                       description="Play MOVEs in order, each by the seat to act, and print the new "
                                   "position. Quote a move that has spaces: play pos.json \"take G4\" end. "
                                   "On an illegal move nothing is printed on stdout and the exit code is 1. "
                                   "Undo only reaches back within one invocation (files hold no undo "
                                   "history).")
    p.add_argument("file", metavar="FILE", help="position file, or - for stdin")
    p.add_argument("moves", metavar="MOVE", nargs="+", help="a move in notation (docs/tiletum-notation.md)")
    p.add_argument("--seed", help="the game's seed (default: the file's \"seed\")")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("score", help="print the scores as JSON",
                       description="Print round, phase, scores, final breakdown and winner as JSON.")
    p.add_argument("file", metavar="FILE", help="position file, or - for stdin")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("random-game", help="play complete games with random legal moves",
                       description="Play K games with uniformly random legal moves; game i uses seed "
                                   "'<S>-<i>'. Prints one line per game and the games per second.")
    p.add_argument("--players", type=int, choices=(2, 3, 4), required=True, help="number of players")
    p.add_argument("--seed", required=True, help="base seed")
    p.add_argument("--games", type=int, default=1, metavar="K", help="number of games (default 1)")
    p.set_defaults(func=cmd_random_game)

    p = sub.add_parser("replay", help="replay a game record and print the final position",
                       description="Check every move of a game record "
                       "(docs/tiletum-notation.md, 'Game records') "
                                   "against the rules and print the resulting position.")
    p.add_argument("file", metavar="RECORD", help="game record file, or - for stdin")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("verify", help="check a finished game's dice and draws against its seed",
                       description="Check that the seed matches the record's SeedCommitment and that every "
                                   "recorded roll, draw and Corruption token is what the seed gives. "
                                   "Exit 1 if anything differs.")
    p.add_argument("file", metavar="RECORD", help="game record file, or - for stdin")
    p.add_argument("--seed", help="the revealed seed (default: the record's Seed header)")
    p.set_defaults(func=cmd_verify)
    return ap


def main(argv: list[str] | None = None) -> int:
    return _cli.main(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
