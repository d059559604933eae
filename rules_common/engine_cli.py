"""The engines' command line, written once: ``tiletum-engine``, ``carcassonne-engine`` and
``pillars-engine`` are each an :class:`EngineCli` (their ``<game>/cli.py``: what is the game's own,
the rest here). Its commands are the same for every game, over the engine surface that the game
interface forwards (``games.base.EngineGame``: new game, legal moves, play, replay, records):

    <game>-engine new --players N --seed S > pos.json
    <game>-engine legal pos.json [--json]
    <game>-engine play pos.json MOVE... > next.json
    <game>-engine score pos.json
    <game>-engine random-game --players N --seed S --games K
    <game>-engine replay record.txt > final.json
    <game>-engine verify record.txt [--seed S]

and a game may add commands of its own (Carcassonne's ``describe`` and ``svg``). A position file is
the position document plus a top-level ``"seed"`` (:mod:`rules_common.cli`); exit codes 0 success,
1 an illegal or unparsable move or a failed verification, 2 bad usage, file or position."""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from . import cli as _cli
from .cli import EXIT_ILLEGAL, EXIT_OK, CliError, dump
from .errors import EngineError

# a position the document format accepts but the rules cannot work with
BROKEN = (KeyError, IndexError, TypeError, ValueError, AttributeError)


class SeedNeeded(Exception):
    """A move needs a chance outcome and the position file has no seed."""


class NoSeed:
    """A chance source for a position without a seed: fine until a move needs an outcome."""

    def randbelow(self, n: int) -> int:
        raise SeedNeeded


@dataclass
class EngineCli:
    """One engine's command line. The callables are the engine's own functions."""

    prog: str
    description: str                                   # the command's description (--help)
    players: tuple[int, ...]                           # the player counts ``new`` and ``random-game`` take
    from_doc: Callable[[dict], Any]                    # a position document to a state
    new_game: Callable[[int, str, dict | None], tuple]
    legal_moves: Callable[[Any], list[str]]
    play: Callable[..., tuple]                         # play(state, seat, move, seed=, source=)
    replay_record: Callable[[str], tuple]
    verify_events: Callable[[list, str, str | None], list[str]]
    revealed: str                                      # what a seed decides, in the game's words
    no_seed: str                                       # when a move needs the seed: {i} {text} {file}
    score: Callable[[Any], dict]                       # ``score``'s JSON
    legal_json: Callable[[Any, list[str]], dict]       # ``legal --json``'s JSON
    random_game: Callable[[int, str], Any]             # a finished random playout (.state, .moves, .events)
    random_line: Callable[[int, str, Any], str]        # its line in ``random-game``'s output
    move_example: str = "a move in notation"
    legal_json_help: str = 'print {"seat": ..., "moves": [...]}'
    reason: Callable[[EngineError, str], str] = lambda e, text: e.message   # why a move is illegal
    over_is_illegal: bool = False                      # refuse a move of a finished game before the engine
    new_options: Callable[[argparse.ArgumentParser], None] | None = None   # ``new``'s own options
    options_of: Callable[[argparse.Namespace], dict | None] = lambda a: None
    record: Callable[[list, str], str] | None = None   # ``random-game --record``: the record of a playout
    progress: bool = False                             # ``random-game`` says its progress on stderr
    commands: list[Callable[[Any, "EngineCli"], None]] = field(default_factory=list)   # more subcommands

    # --- the commands ----------------------------------------------------------------------------
    def load(self, path: str) -> tuple[Any, str | None]:
        return _cli.load(path, self.from_doc)

    def guard(self, path: str, fn, *args, **kwargs):
        """Run an engine function on a loaded position; a crash means the position is inconsistent."""
        try:
            return fn(*args, **kwargs)
        except BROKEN as e:
            raise CliError(f"{_cli.name(path)}: the engine cannot use this position "
                           f"({type(e).__name__}: {e})") from None

    def cmd_new(self, a: argparse.Namespace) -> int:
        state, _ = self.new_game(a.players, a.seed, self.options_of(a))
        dump(state, a.seed)
        return EXIT_OK

    def cmd_legal(self, a: argparse.Namespace) -> int:
        state, _ = self.load(a.file)
        moves = self.guard(a.file, self.legal_moves, state)
        if a.json:
            print(json.dumps(self.legal_json(state, moves)))
        else:
            for m in moves:
                print(m)
        return EXIT_OK

    def cmd_play(self, a: argparse.Namespace) -> int:
        state, seed = self.load(a.file)
        seed = a.seed if a.seed is not None else seed
        for i, text in enumerate(a.moves, 1):
            if self.over_is_illegal and state.actor is None:
                raise CliError(f"move {i} {text!r}: the game is over", EXIT_ILLEGAL)
            try:
                _, state = self.guard(a.file, self.play, state, state.actor, text, seed=seed,
                                      source=NoSeed() if seed is None else None)
            except EngineError as e:  # IllegalMove, NotYourTurn, NotationError
                raise CliError(f"illegal move {i} {text!r}: {self.reason(e, text)} [{e.code}]",
                               EXIT_ILLEGAL) from None
            except SeedNeeded:
                raise CliError(self.no_seed.format(i=i, text=repr(text), file=_cli.name(a.file))) from None
        dump(state, seed)
        return EXIT_OK

    def cmd_score(self, a: argparse.Namespace) -> int:
        state, _ = self.load(a.file)
        print(json.dumps(self.score(state)))
        return EXIT_OK

    def cmd_random_game(self, a: argparse.Namespace) -> int:
        if a.games < 1:
            raise CliError("--games must be at least 1")
        t0 = time.perf_counter()
        for i in range(a.games):
            seed = f"{a.seed}-{i}"
            g = self.random_game(a.players, seed)
            print(self.random_line(i, seed, g), flush=True)
            if self.progress and a.games > 20 and (i + 1) % 10 == 0:
                print(f"{i + 1}/{a.games} games played", file=sys.stderr, flush=True)
            if self.record is not None and getattr(a, "record", None) and i == a.games - 1:
                with open(a.record, "w", encoding="utf-8") as f:
                    f.write(self.record(g.events, seed))
        t = time.perf_counter() - t0
        print(f"{a.games} games in {t:.2f}s: {a.games / t:.1f} games/s")
        return EXIT_OK

    def cmd_replay(self, a: argparse.Namespace) -> int:
        return _cli.replay_command(a.file, self.replay_record)

    def cmd_verify(self, a: argparse.Namespace) -> int:
        return _cli.verify_command(a.file, a.seed, self.replay_record, self.verify_events, self.revealed)

    # --- the parser ------------------------------------------------------------------------------
    def build_parser(self) -> argparse.ArgumentParser:
        ap = argparse.ArgumentParser(
            prog=self.prog, description=self.description,
            epilog="Exit codes: 0 ok, 1 illegal or unparsable move or failed verification, 2 bad usage, "
                   "file or position.")
        sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
        p = sub.add_parser("new", help="print the position of a new game",
                           description="Set up a new game and print its position (with its seed) as JSON.")
        p.add_argument("--players", type=int, choices=self.players, required=True, help="number of players")
        p.add_argument("--seed", required=True, help="the game's secret seed (decides every chance outcome)")
        if self.new_options is not None:
            self.new_options(p)
        p.set_defaults(func=self.cmd_new)
        p = sub.add_parser("legal", help="list the legal moves of the seat to act",
                           description="Print the legal moves of the seat to act, one per line, sorted. "
                                       "A finished game has none.")
        p.add_argument("file", metavar="FILE", help="position file, or - for stdin")
        p.add_argument("--json", action="store_true", help=self.legal_json_help)
        p.set_defaults(func=self.cmd_legal)
        p = sub.add_parser("play", help="play moves and print the new position",
                           description="Play MOVEs in order, each by the seat to act, and print the new "
                                       "position. Quote a move that has spaces. On an illegal move nothing "
                                       "is printed on stdout and the exit code is 1.")
        p.add_argument("file", metavar="FILE", help="position file, or - for stdin")
        p.add_argument("moves", metavar="MOVE", nargs="+", help=self.move_example)
        p.add_argument("--seed", help="the game's seed (default: the file's \"seed\")")
        p.set_defaults(func=self.cmd_play)
        p = sub.add_parser("score", help="print the scores as JSON")
        p.add_argument("file", metavar="FILE", help="position file, or - for stdin")
        p.set_defaults(func=self.cmd_score)
        p = sub.add_parser("random-game", help="play complete games with random legal moves",
                           description="Play K games with uniformly random legal moves; game i uses seed "
                                       "'<S>-<i>'. Prints one line per game and the games per second.")
        p.add_argument("--players", type=int, choices=self.players, required=True, help="number of players")
        p.add_argument("--seed", required=True, help="base seed; game i uses '<S>-<i>'")
        p.add_argument("--games", type=int, default=1, metavar="K", help="number of games (default 1)")
        if self.record is not None:
            p.add_argument("--record", metavar="FILE",
                           help="write the last game's record (with its seed) to FILE")
        p.set_defaults(func=self.cmd_random_game)
        p = sub.add_parser("replay", help="replay a game record and print the final position",
                           description="Check every move of a game record against the rules and print the "
                                       "resulting position.")
        p.add_argument("file", metavar="RECORD", help="game record file, or - for stdin")
        p.set_defaults(func=self.cmd_replay)
        p = sub.add_parser("verify", help="check a finished game's chance against its seed",
                           description="Check that the seed matches the record's SeedCommitment and that "
                                       f"{self.revealed} is what the seed gives. Exit 1 if anything differs.")
        p.add_argument("file", metavar="RECORD", help="game record file, or - for stdin")
        p.add_argument("--seed", help="the revealed seed (default: the record's Seed header)")
        p.set_defaults(func=self.cmd_verify)
        for add in self.commands:
            add(sub, self)
        return ap

    def main(self, argv: list[str] | None = None) -> int:
        return _cli.main(self.build_parser(), argv)


def position_command(name: str, help: str, show: Callable[[Any], str]) -> Callable[[Any, EngineCli], None]:
    """A game's own command on a position file (``describe``, ``svg``): prints ``show(state)``."""
    def add(sub, cli: EngineCli) -> None:
        def run(a: argparse.Namespace) -> int:
            state, _ = cli.load(a.file)
            sys.stdout.write(show(state))
            return EXIT_OK
        p = sub.add_parser(name, help=help)
        p.add_argument("file", metavar="FILE", help="position file, or - for stdin")
        p.set_defaults(func=run)
    return add


__all__ = ["EngineCli", "NoSeed", "SeedNeeded", "BROKEN", "position_command"]
