"""Tournament scoring, standings and tie-breaks, and the adjudication of unfinished games
(docs/tournaments.md). Pure functions over plain data.

A game result::

    {"players": ["ann", "bob", "cy"],     # ids in seat order
     "scores":  [81, 77, 77],             # final (or adjudicated) VP, same order
     "finish":  [1, 2, 2],                # finishing places, ties allowed
     "forfeits": ["cy"]}                  # optional: players who forfeited this game

Only the order of the ``finish`` values matters (``[1, 1, 2]`` means the same as
``[1, 1, 3]``). A forfeiting player finishes below every player who did not forfeit (forfeiters
share the last place) and scores no VP for the tie-break; the others keep their order.

Tournament points per game, from the finishing place: a player ``p``-th of ``n`` scores
``(n - p) / (n - 1)`` (2 players: win 1, loss 0; 4 players: 1, 2/3, 1/3, 0); tied players
share the average of the places they cover (a 2-player draw: 0.5 each). All arithmetic is in
exact fractions; the rows carry floats.
"""
from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import combinations
from typing import Mapping, Sequence

__all__ = ["FORMATS", "TIEBREAKS", "game_points", "pairwise", "effective_finish", "adjudicate", "standings"]

FORMATS = ("round_robin", "swiss", "knockout")
# the secondary tie-break (after points and total VP) of each format
TIEBREAKS = {"round_robin": "sonneborn_berger", "swiss": "buchholz", "knockout": "buchholz"}


def _groups(places: Sequence[int]) -> list[list[int]]:
    """Indices grouped by equal place, best group first."""
    by: dict = defaultdict(list)
    for i, p in enumerate(places):
        by[p].append(i)
    return [by[p] for p in sorted(by)]


def competition_places(places: Sequence) -> list[int]:
    """Standard competition ranking ("1224") of values where lower is better."""
    out = [0] * len(places)
    seen = 0
    for g in _groups(places):
        for i in g:
            out[i] = seen + 1
        seen += len(g)
    return out


def game_points(finish: Sequence[int]) -> list[Fraction]:
    """Tournament points of each seat for a finishing order (see the module docstring)."""
    n = len(finish)
    if n < 2:
        raise ValueError("a game has at least 2 players")
    out = [Fraction(0)] * n
    pos = 0
    for g in _groups(finish):
        share = sum(Fraction(n - 1 - (pos + j), n - 1) for j in range(len(g))) / len(g)
        for i in g:
            out[i] = share
        pos += len(g)
    return out


def pairwise(finish: Sequence[int]) -> dict[tuple[int, int], Fraction]:
    """The pairwise result of seat ``i`` against seat ``j`` for every ordered pair of seats:
    1 if ``i`` finished ahead, 1/2 if level, 0 if behind."""
    out = {}
    for i, j in combinations(range(len(finish)), 2):
        if finish[i] < finish[j]:
            r = Fraction(1)
        elif finish[i] == finish[j]:
            r = Fraction(1, 2)
        else:
            r = Fraction(0)
        out[i, j], out[j, i] = r, 1 - r
    return out


def effective_finish(result: Mapping) -> list[int]:
    """The finishing places after forfeits: forfeiters share the last place, below everyone
    else, who keep their relative order (competition ranking)."""
    players = list(result["players"])
    finish = list(result["finish"])
    forfeits = set(result.get("forfeits") or ())
    if not forfeits:
        return competition_places(finish)
    big = max(finish) + 1
    return competition_places([big if p in forfeits else f for p, f in zip(players, finish)])


def _validate(result: Mapping, known: set[str], table_size: int) -> None:
    players = result.get("players")
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
        raise ValueError(f"result players must be a list of ids: {result!r}")
    n = len(players)
    if not 2 <= n <= table_size:
        raise ValueError(f"a game has 2..{table_size} players, not {n}: {players}")
    if len(set(players)) != n:
        raise ValueError(f"a player is seated twice: {players}")
    unknown = [p for p in players if p not in known]
    if unknown:
        raise ValueError(f"players not in the tournament: {unknown}")
    for key in ("scores", "finish"):
        v = result.get(key)
        if not isinstance(v, (list, tuple)) or len(v) != n:
            raise ValueError(f"result {key} must list one value per player: {result!r}")
    if not all(isinstance(f, int) and not isinstance(f, bool) and f >= 1 for f in result["finish"]):
        raise ValueError(f"finishing places are integers from 1: {result['finish']}")
    bad = [p for p in (result.get("forfeits") or ()) if p not in players]
    if bad:
        raise ValueError(f"forfeits by players not in the game: {bad}")


def adjudicate(state_scores: Mapping[str, float] | Sequence[float]) -> dict[str, int] | list[int]:
    """The finishing places of a game still unfinished at a round deadline: the current VP order
    decides (most VP first); equal VP share the place (competition ranking: 1, 2, 2, 4). Takes
    ``{player: VP}`` (returns ``{player: place}``) or VP in seat order (returns places in seat
    order). The engine's end-of-game tie-break (earlier in turn order) is deliberately not
    applied: an adjudicated game has not reached its final scoring."""
    if isinstance(state_scores, Mapping):
        keys = list(state_scores)
        places = competition_places([-state_scores[k] for k in keys])
        return dict(zip(keys, places))
    return competition_places([-v for v in state_scores])


def standings(format: str, players: Sequence[str], results: Sequence[Mapping], table_size: int, *,
              byes: Mapping[str, int] | None = None, bye_points: float | None = None) -> list[dict]:
    """The standings table, best first. Rows::

        {"rank", "player", "points", "games", "vp", "buchholz", "sonneborn_berger",
         "head_to_head", "byes"}

    Order: points; then total VP (tie-break 1); then the format's secondary tie-break
    (:data:`TIEBREAKS`: Sonneborn-Berger for a round robin, Buchholz for Swiss and knockout);
    then head-to-head among the players still level; then the lower player id. ``rank`` is
    1..n with no ties (the last criterion always separates).

    * **Buchholz**: over the player's games, the average final points of their opponents at that
      table, summed (with 2 seats: the classic sum of the opponents' points).
    * **Sonneborn-Berger**: over the player's games, each opponent's final points times the
      player's pairwise result against them (1, 1/2, 0), averaged over the opponents at that
      table and summed (with 2 seats: the classic SB).
    * **head-to-head**: the sum of the pairwise results against the other players of the level
      group, in the games they shared (0 when the player is alone in the group).

    ``byes``: ``{player: count}`` of byes, each worth ``bye_points`` (default 1 in Swiss, the
    usual full-point pairing bye; 0 otherwise). A bye is not a game: no VP, no opponents.
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    if not isinstance(table_size, int) or not 2 <= table_size <= 4:
        raise ValueError(f"table_size must be 2..4, not {table_size!r}")
    plist = list(players)
    known = set(plist)
    if len(known) != len(plist):
        raise ValueError("duplicate players")
    byes = dict(byes or {})
    unknown = [p for p in byes if p not in known]
    if unknown:
        raise ValueError(f"byes for players not in the tournament: {unknown}")
    if bye_points is None:
        bye_points = 1 if format == "swiss" else 0
    per_bye = Fraction(bye_points).limit_denominator()

    points = {p: Fraction(0) for p in plist}
    games = {p: 0 for p in plist}
    vp: dict[str, float] = {p: 0 for p in plist}
    games_of: dict[str, list[tuple[list[str], dict[str, Fraction]]]] = {p: [] for p in plist}
    # per game: the seats and each player's pairwise results against the others
    played = []
    for res in results:
        _validate(res, known, table_size)
        seats = list(res["players"])
        finish = effective_finish(res)
        pts = game_points(finish)
        pw = pairwise(finish)
        forfeits = set(res.get("forfeits") or ())
        vs = {seats[i]: {seats[j]: pw[i, j] for j in range(len(seats)) if j != i} for i in range(len(seats))}
        for i, p in enumerate(seats):
            points[p] += pts[i]
            games[p] += 1
            if p not in forfeits:
                vp[p] += res["scores"][i]
            games_of[p].append((seats, vs[p]))
        played.append((seats, vs))
    for p, c in byes.items():
        points[p] += per_bye * c

    buchholz = {p: Fraction(0) for p in plist}
    sb = {p: Fraction(0) for p in plist}
    for p in plist:
        for seats, vs in games_of[p]:
            opps = [q for q in seats if q != p]
            buchholz[p] += sum(points[q] for q in opps) / len(opps)
            sb[p] += sum(points[q] * vs[q] for q in opps) / len(opps)
    second = buchholz if TIEBREAKS[format] == "buchholz" else sb

    def level_key(p: str) -> tuple:
        return (-points[p], -vp[p], -second[p])

    groups: dict[tuple, list[str]] = defaultdict(list)
    for p in plist:
        groups[level_key(p)].append(p)
    h2h = {p: Fraction(0) for p in plist}
    for members in groups.values():
        if len(members) < 2:
            continue
        group = set(members)
        for seats, vs in played:
            here = [q for q in seats if q in group]
            for a in here:
                h2h[a] += sum(vs[a][b] for b in here if b != a)
    ordered = sorted(plist, key=lambda p: (level_key(p), -h2h[p], p))
    return [{"rank": i + 1, "player": p, "points": float(points[p]), "games": games[p], "vp": vp[p],
             "buchholz": float(buchholz[p]), "sonneborn_berger": float(sb[p]), "head_to_head": float(h2h[p]),
             "byes": byes.get(p, 0)}
            for i, p in enumerate(ordered)]
