"""``carcassonne-engine``: the Carcassonne rules engine on the command line (the engines' one
command line, ``rules_common.engine_cli``; this is what is Carcassonne's own).

A position file is the position document (``GameState.to_doc()``, docs/carcassonne.md) with one
extra top-level key, ``"seed"``: the game's secret seed, from which the next tile is drawn.
FILE may be ``-`` for stdin.

    carcassonne-engine new --players 3 --seed s1 > pos.json
    carcassonne-engine legal pos.json
    carcassonne-engine play pos.json "place 0,1 r180 knight S" > next.json
    carcassonne-engine score next.json
    carcassonne-engine describe next.json
    carcassonne-engine svg next.json > board.svg
    carcassonne-engine random-game --players 4 --seed 1 --games 100 [--record game.txt]
    carcassonne-engine replay game-record.txt > final.json
    carcassonne-engine verify game-record.txt --seed <revealed seed>

Exit codes: 0 success, 1 illegal or unparsable move (or a failed verification), 2 bad usage,
file or position.
"""
from __future__ import annotations

import sys

from rules_common.engine_cli import EngineCli, position_command

from .chance import seed_commitment
from .describe import describe_final
from .game import legal_moves, new_game, play
from .playout import random_game
from .record import replay_record, verify_events, write_record
from .state import GameState
from .svg import board_svg


def _describe(state: GameState) -> str:
    if state.phase == "over":
        return describe_final(state) + "\n"
    return (f"Seat {state.actor} to place tile {state.tile}; {len(state.pile)} tiles face down; "
            f"scores {state.scores}; followers in supply {state.supply}.\n")


CLI = EngineCli(
    prog="carcassonne-engine",
    description="The Carcassonne (base game) rules engine on the command line. A position file is the "
                "position document (docs/carcassonne.md) plus a top-level \"seed\" key; FILE may be '-'.",
    players=(2, 3, 4, 5), from_doc=GameState.from_doc, new_game=new_game, legal_moves=legal_moves, play=play,
    replay_record=replay_record, verify_events=verify_events, revealed="every tile drawn",
    no_seed='the move reveals the next tile but the position has no "seed": pass --seed S',
    score=lambda s: {"phase": s.phase, "scores": {str(i): v for i, v in enumerate(s.scores)},
                     "supply": s.supply, "final": s.final, "winners": s.winners, "winner": s.winner},
    legal_json=lambda s, moves: {"seat": s.actor, "tile": s.tile, "moves": moves},
    legal_json_help='print {"seat", "tile", "moves"}',
    random_game=random_game,
    random_line=lambda i, seed, g: (f"game {i}: seed {seed} scores "
                                    f"{' '.join(str(v) for v in g.state.scores)} "
                                    f"winners {g.state.winners} ({g.moves} moves)"),
    move_example='a move, e.g. "place 0,1 r180 knight S"',
    record=lambda events, seed: write_record(events, {"SeedCommitment": seed_commitment(seed), "Seed": seed}),
    commands=[position_command("describe", "say in words where the game stands", _describe),
              position_command("svg", "print the board as SVG", board_svg)])
load, build_parser, main = CLI.load, CLI.build_parser, CLI.main


if __name__ == "__main__":
    sys.exit(main())
