"""``pillars-engine``: The Pillars of the Earth rules engine on the command line (the engines' one
command line, ``rules_common.engine_cli``; this is what is The Pillars of the Earth's own).

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

import sys

from rules_common.engine_cli import EngineCli, position_command

from .chance import seed_commitment
from .describe import describe_final
from .game import legal_moves, new_game, play
from .playout import random_game
from .record import replay_record, verify_events, write_record
from .state import GameState


def _describe(state: GameState) -> str:
    if state.phase == "over":
        return describe_final(state) + "\n"
    return (f"Round {state.round}, {state.phase}: seat {state.actor} to decide; "
            f"start player seat {state.start}; VP {state.vp}; gold {state.gold}.\n")


CLI = EngineCli(
    prog="pillars-engine",
    description="The Pillars of the Earth (base game) rules engine on the command line. A position file "
                "is the position document (docs/pillars.md) plus a top-level \"seed\" key; FILE may be '-'.",
    players=(2, 3, 4), from_doc=GameState.from_doc, new_game=new_game, legal_moves=legal_moves, play=play,
    replay_record=replay_record, verify_events=verify_events, revealed="everything revealed",
    no_seed=('the move reveals a card, a master builder or the tax die but the position has no "seed": '
             "pass --seed S"),
    score=lambda s: {"phase": s.phase, "round": s.round, "vp": s.vp, "gold": s.gold, "winners": s.winners,
                     "winner": s.winner},
    legal_json=lambda s, moves: {"seat": s.actor, "phase": s.phase, "round": s.round, "moves": moves},
    legal_json_help='print {"seat", "phase", "round", "moves"}',
    random_game=random_game,
    random_line=lambda i, seed, g: (f"game {i}: seed {seed} VP {' '.join(map(str, g.state.vp))} "
                                    f"gold {' '.join(map(str, g.state.gold))} winners {g.state.winners} "
                                    f"({g.moves} moves)"),
    move_example='a move, e.g. "take wood3"', over_is_illegal=True,
    record=lambda events, seed: write_record(events, {"SeedCommitment": seed_commitment(seed), "Seed": seed}),
    commands=[position_command("describe", "say in words where the game stands", _describe)])
load, build_parser, main = CLI.load, CLI.build_parser, CLI.main


if __name__ == "__main__":
    sys.exit(main())
