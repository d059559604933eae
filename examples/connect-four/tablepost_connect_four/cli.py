"""``connect-four-engine``: Connect Four's rules on the command line, the platform's engines' one
command line (``rules_common.engine_cli``) given this engine's functions::

    connect-four-engine new --players 2 --seed s1 > pos.json
    connect-four-engine legal pos.json
    connect-four-engine play pos.json "drop d" d > next.json
    connect-four-engine random-game --players 2 --seed 1 --games 100
    connect-four-engine verify game-record.txt --seed <revealed seed>
"""
from __future__ import annotations

import random
import sys

from rules_common.chance import seed_commitment
from rules_common.engine_cli import EngineCli, position_command
from rules_common.playout import Playout, play_out

from .record import replay_record, verify_events, write_record
from .rules import GameState, advance, legal, legal_moves, new_game, play, scores
from .svg import board_svg
from .words import board_lines


def random_game(players: int, seed: str, rng: random.Random | None = None, on_move=None) -> Playout:
    """One game of uniformly random legal moves (``rng`` defaults to one seeded from ``seed``)."""
    rng = rng or random.Random(seed)
    state, events = new_game(players, seed)
    return play_out(state, events, seed, lambda s: rng.choice(legal(s)), advance, play, on_move)


CLI = EngineCli(
    prog="connect-four-engine",
    description="Connect Four's rules engine on the command line. A position file is the position "
                "document plus an optional \"seed\" key; FILE may be '-'.",
    players=(2,), from_doc=GameState.from_doc, new_game=new_game, legal_moves=legal_moves, play=play,
    replay_record=replay_record, verify_events=verify_events,
    revealed="the seed's commitment (nothing is drawn)", no_seed="",
    score=lambda s: {"phase": s.phase, "scores": {str(i): v for i, v in enumerate(scores(s))},
                     "winner": s.winner},
    legal_json=lambda s, moves: {"seat": s.actor, "moves": moves},
    random_game=random_game,
    random_line=lambda i, seed, g: f"game {i}: seed {seed} winner {g.state.winner} ({g.moves} moves)",
    move_example='a move, e.g. "drop d" or "d"',
    record=lambda events, seed: write_record(events, {"SeedCommitment": seed_commitment(seed), "Seed": seed}),
    commands=[position_command("describe", "print the board as text",
                               lambda s: "\n".join(board_lines(s)) + "\n"),
              position_command("svg", "print the board as SVG", board_svg)])
main = CLI.main

if __name__ == "__main__":
    sys.exit(main())
