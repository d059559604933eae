"""The application service: the only place that loads games, calls the engine and appends.

Routes parse and call these methods; workers and the email gateway call them too. A move is
decided against the state at the client's expected version and its events are appended only
at that version, so it is fully applied or not at all.

``GameService`` is the one object callers hold (a thin facade): each concern is a class of its own
module over what they all share (application/game_core.py ``GameCore``: the store, the caches,
loading, what follows an append): who a token is (application/seat_auth.py), creating a game
(application/game_create.py), the reads (application/game_queries.py), the move path
(application/submit.py) and a seat's own settings (application/seat_settings.py).
"""
from __future__ import annotations

from .game_core import machine_seats, public_event, seat_markers, token_hash, with_names
from .game_create import SERVICE_OPTIONS, GameCreation, GameExists, seat_meta
from .game_queries import (EVENTS_PAGE, MAX_EVENTS_PAGE, PUBLIC_SLACK, GameQueries, fairness_algorithm,
                           summary_of, to_act)
from .seat_settings import SeatSettings
from .state_cache import IdentityCache, State, StateCache
from .submit import MAX_MOVES_PER_REQUEST, MAX_UNDOS_PER_REQUEST, MAX_UNDOS_PER_TURN, MoveSubmission

# what callers import from here, as before the parts
__all__ = ["EVENTS_PAGE", "GameExists", "GameService", "IdentityCache", "MAX_EVENTS_PAGE",
           "MAX_MOVES_PER_REQUEST", "MAX_UNDOS_PER_REQUEST", "MAX_UNDOS_PER_TURN", "PUBLIC_SLACK",
           "SERVICE_OPTIONS", "State", "StateCache", "fairness_algorithm", "machine_seats", "public_event",
           "seat_markers", "seat_meta", "summary_of", "to_act", "token_hash", "with_names"]


class GameService(GameCreation, GameQueries, MoveSubmission, SeatSettings):
    """The game service: every concern above, over one store, its caches and its credentials."""
