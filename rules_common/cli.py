"""What the engines' command lines (``tiletum-engine``, ``carcassonne-engine``) share: exit codes,
one-line errors, position files (the position document plus a top-level ``"seed"``; ``-`` is
stdin) and the ``main`` that turns an error into its exit code."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

from .errors import IllegalMove, NotationError, PositionError, RecordError

EXIT_OK, EXIT_ILLEGAL, EXIT_ERROR = 0, 1, 2


class CliError(Exception):
    """A one-line message for stderr and the exit code to return."""

    def __init__(self, message: str, code: int = EXIT_ERROR):
        super().__init__(message)
        self.code = code


def name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def read_text(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(f"cannot read {name(path)}: {e}") from None


def load(path: str, from_doc: Callable[[dict], Any]) -> tuple[Any, str | None]:
    """Read a position file: (state, seed or None)."""
    text = read_text(path)
    path = name(path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise CliError(f"{path} is not JSON: {e}") from None
    seed = doc.pop("seed", None) if isinstance(doc, dict) else None
    if seed is not None and not isinstance(seed, str):
        raise CliError(f"{path}: \"seed\" must be a string")
    try:
        return from_doc(doc), seed
    except PositionError as e:
        raise CliError(f"{path}: {e}") from None


def dump(state: Any, seed: str | None) -> None:
    """Print a position file: the state's document plus its seed."""
    doc = state.to_doc()
    if seed is not None:
        doc["seed"] = seed
    print(json.dumps(doc, ensure_ascii=False))


def replay_file(path: str, replay_record: Callable[[str], tuple]) -> tuple:
    """Read and replay a record file with the engine's ``replay_record``: (headers, events, state);
    a malformed record is a usage error (exit 2), an illegal or unparsable move exit 1."""
    try:
        return replay_record(read_text(path))
    except RecordError as e:
        raise CliError(f"{name(path)}: {e.message}") from None
    except (IllegalMove, NotationError) as e:
        raise CliError(f"{name(path)}: {e.message} [{e.code}]", EXIT_ILLEGAL) from None


def replay_command(path: str, replay_record: Callable[[str], tuple]) -> int:
    """``replay FILE``: print the position file the record ends at (with its Seed header, if any)."""
    headers, _, state = replay_file(path, replay_record)
    dump(state, headers.get("Seed"))
    return EXIT_OK


def verify_command(path: str, seed: str | None, replay_record: Callable[[str], tuple],
                   verify_events: Callable[[list, str, str | None], list[str]], revealed: str) -> int:
    """``verify FILE [--seed S]``: the seed (given, or the record's Seed header) matches the
    record's commitment and gives every chance outcome the record holds (``revealed``: what, in
    the game's words); the problems on stderr and exit 1 otherwise."""
    headers, events, _ = replay_file(path, replay_record)
    seed = seed if seed is not None else headers.get("Seed")
    if seed is None:
        raise CliError("no seed: pass --seed (it is revealed when the game is over)")
    problems = verify_events(events, seed, headers.get("SeedCommitment"))
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        return EXIT_ILLEGAL
    print(f"ok: the seed matches the commitment and {revealed} in the {len(events) - 1} moves "
          "is exactly what the seed gives")
    return EXIT_OK


def main(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> int:
    """Parse ``argv`` (exit 2 on bad usage, 0 on --help) and run the chosen command."""
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CliError as e:
        print(e, file=sys.stderr)
        return e.code
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
