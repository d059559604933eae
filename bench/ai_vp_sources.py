"""Where the VP come from: the AI against the Cardinalbot, by source and round (a development tool:
prints figures, not a test).

    python bench/ai_vp_sources.py --level hard --games 20 --start 9920 [--bot bishop] [--procs 2]

Plays the seeded solo games of bench/ai_solo_paired.py (the same seeds: ``--start`` and
``--games``) and credits every VP either side scores to what scored it: the rules' own functions
that add VP (``tiletum.board.add_vp``'s callers, with the move's verb where one function scores
several things), so nothing is counted twice or left out. Prints, per source, the mean VP a game
for the AI and for the bot in each round and in all (the VP each side starts with as a source of
its own), and the final scores, which are the sums of the sources. It answers "what does the bot
score that the AI does not", the question every tuning round starts from (docs/notes/ai-tuning.md).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, ROOT)

import tiletum  # noqa: E402
from bench.ai_solo_paired import play_solo  # noqa: E402
from tiletum import board, effects, flow, solo, solo_turn, turn_tasks  # noqa: E402
from tiletum.game import play  # noqa: E402

QUICK_ARGS = ["--level", "easy", "--games", "1"]

# the rules' functions that add VP, by what they score ("<verb>": the move's verb in that function)
SOURCES = {
    "turn_tasks.apply_task": "{verb}",              # fulfil (a Contract), cathedral
    "effects.apply_atom": "bonus VP",               # Bonus tiles, Helpers, Crest spaces
    "flow.king_phase": "King's bonus",              # the last round's 4 VP
    "flow.king_phase_rest": "King track",
    "flow.score_fair": "Fairs",
    "flow.final_scoring": "final scoring",
    "solo.final_scoring": "final scoring",
    "solo.fulfil": "fulfil",
    "solo.resolve_tile": "bonus VP",
    "solo.gain": "bonus VP",
    "solo_turn._curia": "bonus VP",
    "solo_turn.apply": "{v}",                       # the bot's crest, cathedral, house, ...
}
_ledger: collections.Counter = collections.Counter()
_round = [0]     # the round of the game's move being played; 0 while the AI searches (not credited)


def _credit(p, n: int) -> None:
    """``board.add_vp`` with a ledger: the VP credited to (seat, source, round), for the game's own
    moves only (the AI's search scores thousands of positions it never plays)."""
    before = p.score
    _add_vp(p, n)
    if not _round[0]:
        return
    frame = sys._getframe(1)
    name = f"{frame.f_globals['__name__'].removeprefix('tiletum.')}.{frame.f_code.co_name}"
    label = SOURCES.get(name, name)
    if "{" in label:
        label = label.format(**{k: frame.f_locals.get(k, "?") for k in ("verb", "v")})
    _ledger[(p.seat, label, _round[0])] += p.score - before


_add_vp = board.add_vp
for _module in (effects, flow, solo, solo_turn, turn_tasks):
    _module.add_vp = _credit


def _play_credited(state, seat, move, seed):
    """``tiletum.game.play``, with the VP it scores credited to the round it is played in."""
    _round[0] = state.round
    try:
        return play(state, seat, move, seed=seed)
    finally:
        _round[0] = 0


def one_game(job):
    """One solo game (bench/ai_solo_paired.py's, the same seeds and moves); its ledger and scores."""
    level, seed, bot = job
    _ledger.clear()
    start, _ = tiletum.new_game(2, seed, {"solo": {"level": bot}})
    for p in start.seats:
        _ledger[(p.seat, "starting VP", 1)] += p.score
    state = play_solo(level, seed, bot, [], play_move=_play_credited)
    side = {state.solo["human"]: "AI", state.solo["bot"]: "bot"}
    ledger = {(side[seat], label, r): vp for (seat, label, r), vp in _ledger.items()}
    return ledger, state.seats[state.solo["human"]].score, state.seats[state.solo["bot"]].score


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="hard")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--start", type=int, default=9920)
    ap.add_argument("--bot", default="bishop")
    ap.add_argument("--procs", type=int, default=1)
    a = ap.parse_args(argv)
    if a.games < 1 or a.procs < 1:
        ap.error("--games and --procs are at least 1")
    jobs = [(a.level, f"bench-ai-solo-{a.bot}-{i}", a.bot) for i in range(a.start, a.start + a.games)]
    t0 = time.perf_counter()
    total: collections.Counter = collections.Counter()
    ai_vp, bot_vp = [], []
    with ProcessPoolExecutor(a.procs) as pool:
        for i, (ledger, mine, theirs) in enumerate(pool.map(one_game, jobs), 1):
            total.update(ledger)
            ai_vp.append(mine)
            bot_vp.append(theirs)
            print(f"  game {i}/{a.games} ({jobs[i - 1][1]}): AI {mine} bot {theirs}", flush=True)
    n = a.games
    print(f"VP a game by source, {a.level} against the {a.bot}, seeds {a.start}-{a.start + n - 1} "
          f"({time.perf_counter() - t0:.0f} s): AI / bot, rounds 1-4 and in all")
    for label in sorted({k[1] for k in total}):
        cells = []
        for r in (1, 2, 3, 4):
            cells.append(f"{total[('AI', label, r)] / n:5.1f} /{total[('bot', label, r)] / n:5.1f}")
        mine = sum(total[("AI", label, r)] for r in range(1, 5)) / n
        theirs = sum(total[("bot", label, r)] for r in range(1, 5)) / n
        print(f"  {label:14s} " + "  ".join(cells) + f"   all {mine:6.1f} /{theirs:6.1f}")
    print(f"  final scores   AI {sum(ai_vp) / n:.1f}, bot {sum(bot_vp) / n:.1f} (the sums of the sources)")


if __name__ == "__main__":
    main()
