"""Correspondence tournaments and ratings: the pure core (docs/tournaments.md).

No Flask, no Redis, no I/O: pairings (:mod:`tournaments.pairing`), standings and adjudication
(:mod:`tournaments.standings`) and Glicko-2 ratings (:mod:`tournaments.ratings`).
"""
from .pairing import byes, knockout_round, pair_counts, round_robin, seat_counts, swiss_round, table_sizes
from .ratings import Rating, rate_game, rate_result, rate_solo, update
from .standings import adjudicate, standings

__all__ = [
    "round_robin", "swiss_round", "knockout_round", "table_sizes", "byes", "pair_counts", "seat_counts",
    "standings", "adjudicate", "Rating", "update", "rate_game", "rate_result", "rate_solo",
]
