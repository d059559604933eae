"""Glicko-2 ratings for the hosted games (docs/tournaments.md, "Ratings"). Pure functions.

The rating update is Glickman's published algorithm: M. E. Glickman, "Example of the Glicko-2
system" (Boston University, 2013; http://www.glicko.net/glicko/glicko2.pdf), steps 1-8, with
the Illinois variant of regula falsi for the volatility (step 5, convergence tolerance
``EPSILON``). ``tau`` (the system constant, 0.3-1.2 in the paper) defaults to 0.5.

Multiplayer games: the finishing order is decomposed into pairwise results - every pair of
players at the table is one result, 1 / 0.5 / 0 for finishing ahead / level / behind - and all of
a player's pairwise results from one game form one Glicko-2 rating period, computed against the
opponents' ratings from before the game. This is Glicko-2 applied to the pairwise outcomes of the
finishing order, the standard decomposition used by multiplayer Elo/Glicko services (a
4-player game weighs like three 2-player games played at once). Because a rating period is a
sum over its results, the order of the players and of the pairs does not matter.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

__all__ = [
    "Rating", "SCALE", "DEFAULT_TAU", "EPSILON", "update", "idle", "pairwise_results", "rate_game",
    "rating_periods", "rate_result", "rate_solo",
]

SCALE = 173.7178          # Glicko <-> Glicko-2 scale (400 / ln 10)
DEFAULT_TAU = 0.5
EPSILON = 0.000001
MAX_RD = 350.0            # the RD of an unrated player; inactivity never takes RD above it


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale: rating ``mu``, deviation ``rd``, volatility ``vol``."""
    mu: float = 1500.0
    rd: float = 350.0
    vol: float = 0.06

    def as_dict(self) -> dict:
        return {"mu": self.mu, "rd": self.rd, "vol": self.vol}


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _estimates(mu: float, opp: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Steps 3-4 on the Glicko-2 scale: the estimated variance ``v``, the estimated improvement
    ``delta``, and ``sum g(phi_j) (s_j - E_j)``; ``opp`` is ``(mu_j, phi_j, s_j)``."""
    v_inv = 0.0
    total = 0.0
    for mu_j, phi_j, s in opp:
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        total += g * (s - e)
    v = 1.0 / v_inv
    return v, v * total, total


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        return num / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    A = a
    if delta * delta > phi * phi + v:
        B = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    while abs(B - A) > EPSILON:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA = fA / 2.0
        B, fB = C, fC
    return math.exp(A / 2.0)


def idle(rating: Rating, periods: int = 1) -> Rating:
    """A rating period without games (step 6 alone): ``phi* = sqrt(phi^2 + sigma^2)``, so the
    RD grows with inactivity; capped at :data:`MAX_RD`."""
    phi = rating.rd / SCALE
    for _ in range(periods):
        phi = math.sqrt(phi * phi + rating.vol * rating.vol)
    return Rating(rating.mu, min(phi * SCALE, MAX_RD), rating.vol)


def update(rating: Rating, results: Iterable[tuple[Rating, float]], *, tau: float = DEFAULT_TAU) -> Rating:
    """The rating after one rating period with ``results``: ``(opponent's rating before the
    period, score)`` with score 1 (win), 0.5 (draw) or 0 (loss); any score in [0, 1] is
    accepted. No results: :func:`idle`."""
    results = list(results)
    if not results:
        return idle(rating)
    if not tau > 0:
        raise ValueError("tau must be positive")
    for _, s in results:
        if not 0.0 <= s <= 1.0:
            raise ValueError(f"a score is between 0 and 1, not {s!r}")
    # step 2: to the Glicko-2 scale
    mu = (rating.mu - 1500.0) / SCALE
    phi = rating.rd / SCALE
    opp = [((r.mu - 1500.0) / SCALE, r.rd / SCALE, float(s)) for r, s in results]
    v, delta, total = _estimates(mu, opp)
    # step 5: volatility; steps 6-7: deviation and rating
    sigma = _volatility(phi, rating.vol, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    # step 8: back to the Glicko scale
    return Rating(SCALE * mu_new + 1500.0, SCALE * phi_new, sigma)


def pairwise_results(finish: Mapping[str, int]) -> dict[str, list[tuple[str, float]]]:
    """Each player's pairwise results in a game: ``(opponent, 1 | 0.5 | 0)`` for every other
    player at the table, from the finishing places (lower is better, equal is a draw)."""
    out: dict[str, list[tuple[str, float]]] = {p: [] for p in finish}
    for p, fp in finish.items():
        for q, fq in finish.items():
            if p != q:
                out[p].append((q, 1.0 if fp < fq else 0.5 if fp == fq else 0.0))
    return out


def _apply(ratings: Mapping[str, Rating], periods: Mapping[str, list[tuple[str, float]]], tau: float,
           default: Rating) -> dict[str, Rating]:
    before = dict(ratings)
    after = dict(ratings)
    for p, res in periods.items():
        if res:
            after[p] = update(before.get(p, default), [(before.get(q, default), s) for q, s in res], tau=tau)
    return after


def rate_game(ratings: Mapping[str, Rating], finish: Mapping[str, int], *, tau: float = DEFAULT_TAU,
              default: Rating = Rating()) -> dict[str, Rating]:
    """The ratings after one game: a copy of ``ratings`` in which every player of ``finish``
    (``{player: place}``, ties allowed) has had one rating period made of their pairwise results
    against the others, all computed from the ratings before the game. A player without a
    rating starts at ``default``."""
    if len(finish) < 2:
        raise ValueError("a rated game has at least 2 players")
    return _apply(ratings, pairwise_results(finish), tau, default)


def rating_periods(result: Mapping) -> dict[str, list[tuple[str, float]]] | None:
    """The pairwise results a tournament/casual game result contributes to the ratings, under
    the exclusion rules of docs/tournaments.md; ``None`` when the game is not rated at all.

    ``result``: ``{"players": [...], "finish": [...], "forfeits": [...]?, "dropped": [...]?,
    "rated": bool?, "solo": level?}``:

    * ``rated: false`` (an unrated game) -> ``None``; a game against a game's own automa (``solo``
      set) -> ``None`` here (see :func:`rate_solo`, rated in the pool of the automa's level).
    * ``dropped`` (seats the stand-in played to the end after the player was dropped for missed
      deadlines) and ``forfeits``: such a player is rated as having lost to every seat still in
      the game; the seats still in the game are rated only on their order among themselves -
      nobody gains from beating a stand-in or an absent player. Stand-in moves in a seat that
      was not dropped (single missed deadlines) do not change anything: the game is rated.
    """
    if result.get("rated", True) is False or result.get("solo"):
        return None
    players = list(result["players"])
    finish = list(result["finish"])
    if len(players) != len(finish) or len(players) < 2:
        raise ValueError("players and finish must list the same 2+ seats")
    absent = set(result.get("forfeits") or ()) | set(result.get("dropped") or ())
    present = {p: f for p, f in zip(players, finish) if p not in absent}
    periods = pairwise_results(present) if len(present) >= 2 else {p: [] for p in present}
    for p in players:
        if p in absent:
            periods[p] = [(q, 0.0) for q in present]
    return periods


def rate_result(ratings: Mapping[str, Rating], result: Mapping, *, tau: float = DEFAULT_TAU,
                default: Rating = Rating()) -> dict[str, Rating]:
    """:func:`rate_game` for a game result with its exclusions (:func:`rating_periods`); an
    unrated or solo game returns the ratings unchanged (a copy)."""
    periods = rating_periods(result)
    if periods is None:
        return dict(ratings)
    return _apply(ratings, periods, tau, default)


def rate_solo(player: Rating, bot: Rating, human_won: bool, *,
              tau: float = DEFAULT_TAU) -> tuple[Rating, Rating]:
    """A game against a game's own automa in its level's pool (the pools are named by each game's
    declaration, games/setup.py): the human against that level's automa, both rated (the automa's
    rating measures how hard the level is). The game says who won (Tiletum's Cardinalbot wins ties),
    so there are no draws."""
    s = 1.0 if human_won else 0.0
    return update(player, [(bot, s)], tau=tau), update(bot, [(player, 1.0 - s)], tau=tau)
