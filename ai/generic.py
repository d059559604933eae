"""A search-based player of any hosted game, over the game interface (``games.Game``).

It needs from a game only what the interface gives: the state a seat's served view describes
(``determinize``), the legal moves (``search_moves``), the state after one (``after``, with a
sampled seed for what the move reveals), whose decision it is and whether the game is over; and
from this package an evaluation of a position for a seat (the game's spec's ``evaluation``:
:func:`evaluation`)
and, optionally, the outcomes of the next seat's draw (its spec's ``chances``: :func:`chances`).

The search (docs/ai.md, "Any game: the generic search"):

1. **One ply.** Every legal move is played on a copy under one sampled future and the position
   after it is evaluated for the seat. ``easy`` plays the best of these.
2. **The replies.** The best ``K`` moves by that first score are looked at again over several
   sampled futures: after the move, every other seat plays its own one-ply best reply (by the
   same evaluation, for itself) until the decision comes back to the seat or the game ends, and
   the position reached is evaluated for the seat. The move with the best mean wins (ties go to
   the first score, then to the notation). The budget of a level is the number of replies
   searched; ``K`` and the number of futures follow from it and the player count.
3. **The seat's own next move** (mode ``own``, ``medium``): after the replies, the seat plays
   its own one-ply best move with a sampled tile, and that position is evaluated: a move that
   sets up a completion or a follow-up is seen as such.
4. **Expectimax over the next draw** (mode ``expect+own``, ``hard``, 2 players; with more it
   is sampled futures as in 2. and 3.): instead of sampled futures, the next seat's draw is every outcome
   :func:`chances` gives (for Carcassonne every face-down tile that fits, weighted by its count), each
   followed by the replies and the seat's own next move; the weighted mean ranks the ``K`` candidates.

A sampled future is a seed of the search's own (``sample_seed``): the draws it makes are uniform
over what the game still hides, never the real game's. Everything is deterministic for a given
view, level and rng seed.
"""
from __future__ import annotations

import random
from typing import Any, Callable

import games



def evaluation(game: games.Game[Any]) -> Callable[[Any, int], float] | None:
    """The game's ``value(state, seat)``: the seat's estimated standing, higher is better (its
    spec's ``evaluation``: Carcassonne's is ``ai.carcassonne.value``), or None."""
    return games.spec_of(game).part("evaluation")


def chances(game: games.Game[Any]) -> Callable[[Any], list] | None:
    """The game's ``outcomes(state)``: the states the next seat's draw can give, with their weights
    (an expectimax over that draw, for the levels that ask for it; its spec's ``chances``), or None."""
    return games.spec_of(game).part("chances")


# level -> (candidates K, replies searched per decision[, mode]); easy is one ply only; the
# modes: "own" adds the seat's own next move, "expect+own" the expectimax over the next draw too
# (measured in bench/carcassonne_ai.py: docs/ai.md, "Any game: the generic search")
LEVELS: dict[str, tuple] = {"easy": (1, 0), "medium": (2, 2, "own"), "hard": (4, 64, "expect+own")}
# master is the correspondence level of Tiletum (a time budget on every core, ai.tiletum.parallel); the
# generic search has no time budget, so a master seat of another game plays as hard
LEVELS["master"] = LEVELS["hard"]
# a game's own presets (its spec's ``ai_levels``) where its decisions are cheap enough for a wider
# search: The Pillars of the Earth's (games/pillars.py, measured in bench/pillars_ai.py)


def sample_seed(rng: random.Random) -> str:
    return f"ai-{rng.getrandbits(64):016x}"


def budget(level: str | int, game: games.Game[Any] | None = None) -> tuple:
    """A level's (candidates, replies[, mode]): the game's own preset if it has one (its spec's
    ``ai_levels``)."""
    own = games.spec_of(game).ai_levels if game is not None else {}
    if isinstance(level, str) and level in own:
        return own[level]
    if isinstance(level, int) and not isinstance(level, bool):
        if level < 0:
            raise ValueError("a reply budget must be at least 0")
        return (1, 0) if level == 0 else (max(2, min(8, level // 6)), level)
    try:
        return LEVELS[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown AI level {level!r}: one of {', '.join(LEVELS)}") from None


def decide(view: dict, level: str | int = "medium", rng_seed: int | str = 0) -> list[str]:
    """The seat's move for its current decision, from the position document served to it."""
    game = games.get(view.get("game"))
    if not isinstance(game, games.Search):
        raise ValueError(f"the generic AI cannot search {game.title}")
    evaluate = evaluation(game)
    if evaluate is None:
        raise ValueError(f"the generic AI has no evaluation for {game.name!r}")
    rng = random.Random(f"{rng_seed}")
    state = game.determinize(view, rng)
    seat = view.get("viewer")
    if seat is None:
        seat = game.actor(state)
    if game.is_over(state) or game.actor(state) != seat:
        raise ValueError(f"seat {seat} has no decision to make in this position")
    return [str(decide_state(game, evaluate, state, seat, budget(level, game), rng))]


def _greedy(game, evaluate, state, seat: int, seed: str) -> tuple[Any, Any]:
    """The one-ply best move of ``seat`` (to act in ``state``) and the state after it."""
    best = None
    for m in game.search_moves(state):
        s = game.after(state, seat, m, seed)
        v = evaluate(s, seat)
        if best is None or v > best[0]:
            best = (v, m, s)
    return best[1], best[2]


def _replies(game, evaluate, s, seat: int, fs: str) -> Any:
    """Every other seat's one-ply best reply, from ``s`` until the decision is back with ``seat``
    (or the game ends); each draw from the sampled future ``fs``."""
    steps = 0
    while not game.is_over(s) and game.actor(s) != seat and steps < 8:
        _, s = _greedy(game, evaluate, s, game.actor(s), f"{fs}:{steps}")
        steps += 1
    return s


def decide_state(game, evaluate, state, seat: int, level: tuple, rng: random.Random):
    """As :func:`decide`, on a state: the chosen move (one of ``game.search_moves(state)``)."""
    return weigh(game, evaluate, state, seat, level, rng)[0]


def weigh(game, evaluate, state, seat: int, level: tuple, rng: random.Random, also: Any = None):
    """The chosen move, its worth for the seat, and the worth of the move ``also`` (one of
    ``game.search_moves(state)``; None: not asked), weighed as the chosen one was (the same
    sampled futures): the review's two figures (:func:`review`)."""
    k, replies, *mode = level
    others = max(1, getattr(state, "players", 2) - 1)
    # the expectimax costs a reply chain per outcome (some 20 tiles): two players only; with more,
    # sampled futures within the reply budget keep the decision time bounded
    draw = chances(game) if mode and mode[0] == "expect+own" and others == 1 else None
    expect = draw is not None
    own = bool(mode and mode[0] in ("expect+own", "own"))
    moves = game.search_moves(state)
    if len(moves) == 1 and also is None:
        return moves[0], 0.0, None
    seed = sample_seed(rng)
    first = sorted(((-evaluate(game.after(state, seat, m, seed), seat), str(m), m) for m in moves),
                   key=lambda t: (t[0], t[1]))
    if replies == 0:
        other = next((-t[0] for t in first if t[1] == str(also)), None)
        return first[0][2], -first[0][0], other
    candidates = first[:k]
    extra = next((t for t in first if t[1] == str(also) and t not in candidates), None)
    futures = 1 if expect else max(1, replies // (len(candidates) * others))
    seeds = [sample_seed(rng) for _ in range(futures)]
    best = None
    worths: dict[str, float] = {}
    for rank, (neg, text, m) in enumerate(candidates + ([extra] if extra else [])):
        total = weights = 0.0
        for fs in seeds:
            s = game.after(state, seat, m, fs)
            if draw is not None and not game.is_over(s) and game.actor(s) != seat:
                # the next seat's tile: every tile it can be, weighted, instead of one sample
                outcomes = draw(s)
            else:
                outcomes = [(1.0, s)]
            for i, (w, o) in enumerate(outcomes):
                r = _replies(game, evaluate, o, seat, f"{fs}:{i}")
                if own and not game.is_over(r) and game.actor(r) == seat:
                    # and the seat's own next one-ply best move, its tile drawn from the future (if
                    # the replies gave the decision back: a long chain of other seats' moves, as in
                    # a Pillars phase, stops at its cap with another seat still to act)
                    _, r = _greedy(game, evaluate, r, seat, f"{fs}:{i}:own")
                total += w * evaluate(r, seat)
                weights += w
        worths[text] = total / weights
        if rank >= len(candidates):   # the move asked about, not a candidate: weighed, not chosen
            continue
        key = (total / weights, -neg, -rank)
        if best is None or key > best[0]:
            best = (key, m)
    return best[1], best[0][0], worths.get(str(also))


def review(game, events: list[dict], seat: int, level: str | int, rng_prefix: str) -> list[dict]:
    """Each decision of ``seat`` in a finished game's ``events`` (from its start) as the generic
    search at ``level`` sees it from the seat's own view (``game.view`` then ``determinize``: what
    the seat could know then): the move played and the search's preferred one, in notation and in
    words, and the estimated loss: the worth of the preferred move less that of the move played,
    both weighed over the same sampled futures by the game's evaluation (in the game's points: the
    seat's estimated final margin), 0 where they are the same move; with the position before it
    in words (the game's ``review_position``). ``rng_prefix`` seeds each decision's search."""
    evaluate = evaluation(game)
    if evaluate is None:
        raise ValueError(f"there is no review of {game.title} games")
    plan = budget(level, game)
    s = game.replay(events[:1])
    out = []
    for version, ev in enumerate(events[1:], start=1):
        if (ev.get("type") == "MovePlayed" and ev.get("seat") == seat and not game.is_over(s)
                and game.actor(s) == seat):
            legal = game.legal_moves(s)
            if len(legal) > 1:
                rng = random.Random(f"{rng_prefix}:{version}")
                view = game.determinize(game.view(s, seat), rng)
                played = next((m for m in game.search_moves(view) if str(m) == ev["move"]), None)
                preferred, best, worth = weigh(game, evaluate, view, seat, plan, rng, also=played)
                loss = 0.0 if str(preferred) == ev["move"] or worth is None else max(0.0, best - worth)
                words = dict(legal)
                out.append({"version": version, "round": game.round(s), "played": ev["move"],
                            "played_words": words.get(ev["move"], ev["move"]),
                            "preferred": str(preferred),
                            "preferred_words": words.get(str(preferred), str(preferred)),
                            "loss": round(loss, 1), "position": game.review_position(s, seat)})
        s = game.replay([ev], s)
    return out
