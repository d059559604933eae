"""``tiletum-engine``: the rules engine on the command line (the commands are the engines' one
command line, ``rules_common.engine_cli``; this is what is Tiletum's own).

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

import sys

from rules_common.engine_cli import EngineCli

from .errors import EngineError, IllegalMove, NotationError
from .fairness import verify_events
from .game import legal_moves, new_game, play
from .notation import parse
from .playout import random_game
from .record import replay_record
from .state import GameState


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


def _new_options(p) -> None:
    p.add_argument("--shuffled-actions", action="store_true",
                   help="shuffle the Action tiles instead of the printed order")


CLI = EngineCli(
    prog="tiletum-engine",
    description="The Tiletum rules engine on the command line. A position file is the position "
                "document (docs/tiletum-state.md) plus a top-level \"seed\" key; FILE may be '-' for stdin.",
    players=(2, 3, 4), from_doc=GameState.from_doc, new_game=new_game, legal_moves=legal_moves, play=play,
    replay_record=replay_record, verify_events=verify_events,
    revealed="every die and Corruption token drawn",
    no_seed='move {i} {text} needs a chance outcome but {file} has no "seed": pass --seed S',
    score=lambda s: {"round": s.round, "phase": s.phase, "scores": {str(p.seat): p.score for p in s.seats},
                     "final": s.final, "winner": s.winner},
    legal_json=lambda s, moves: {"seat": s.actor, "moves": moves},
    random_game=random_game,
    random_line=lambda i, seed, g: (f"game {i}: seed {seed} scores "
                                    f"{' '.join(str(p.score) for p in g.state.seats)} "
                                    f"winner seat {g.state.winner} ({g.moves} moves)"),
    move_example="a move in notation (docs/tiletum-notation.md)", reason=_reason,
    new_options=_new_options,
    options_of=lambda a: {"action_tiles": "shuffled"} if a.shuffled_actions else None,
    progress=True)
load, build_parser, main = CLI.load, CLI.build_parser, CLI.main


if __name__ == "__main__":
    sys.exit(main())
