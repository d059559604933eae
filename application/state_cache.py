"""This process's caches of the game service (application/game_service.py): the latest state of
each recently used game, with its meta, and the rate-limit identities it has proven. Only shortcuts:
nothing here is trusted without Redis having its say."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

State = Any   # a state of any hosted game: its engine's own GameState (games.Game's type parameter)


class StateCache:
    """This process's most recent state of each recently used game (bounded, LRU). Only a
    shortcut: every load still asks Redis for the events after the cached version, so a state
    another process moved on is brought up to date, never trusted stale."""

    def __init__(self, size: int = 512):
        self.size = size
        self._states: "OrderedDict[str, State]" = OrderedDict()
        self._snap: dict[str, int] = {}
        self._meta: dict[str, tuple[str, dict, str]] = {}   # game -> (meta generation, meta, seed)
        self._lock = threading.Lock()

    def get(self, game_id: str) -> State | None:
        with self._lock:
            state = self._states.get(game_id)
            if state is not None:
                self._states.move_to_end(game_id)
            return state

    def put(self, game_id: str, state: State) -> None:
        with self._lock:
            old = self._states.get(game_id)
            if old is None or old.version <= state.version:
                self._states[game_id] = state
                self._states.move_to_end(game_id)
            while len(self._states) > self.size:
                gone, _ = self._states.popitem(last=False)
                self._snap.pop(gone, None)
                self._meta.pop(gone, None)

    def put_meta(self, game_id: str, generation: str, meta: dict, seed: str) -> None:
        with self._lock:
            if game_id in self._states:
                self._meta[game_id] = (generation, meta, seed)

    def forget_meta(self, game_id: str) -> None:
        with self._lock:
            self._meta.pop(game_id, None)

    def fast_path(self, game_id: str, version: int):
        """``(meta generation, meta, seed, state)`` when this process holds the game at ``version``
        and its meta: a move at that version can be decided without reading Redis first. The
        append still checks that the stream is at ``version`` and the meta unchanged, so nothing
        stale is ever trusted."""
        with self._lock:
            state, known = self._states.get(game_id), self._meta.get(game_id)
            if state is None or known is None or state.version != version:
                return None
            return (*known, state)

    def snapshot_at(self, game_id: str, version: int) -> None:
        self._snap[game_id] = max(version, self._snap.get(game_id, 0))

    def snapshot_hint(self, game_id: str) -> int:
        """The latest snapshot version this process knows of (0 if none): when to write the next."""
        return self._snap.get(game_id, 0)


class IdentityCache:
    """The rate-limit identities this process has verified: (token hash, game) -> identity,
    bounded, least recently used first out. Only proven identities are kept."""

    def __init__(self, size: int = 4096):
        self.size = size
        self._known: "OrderedDict[tuple[str, str], str]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, k: tuple[str, str]) -> str | None:
        with self._lock:
            v = self._known.get(k)
            if v is not None:
                self._known.move_to_end(k)
            return v

    def put(self, k: tuple[str, str], identity: str) -> None:
        with self._lock:
            self._known[k] = identity
            self._known.move_to_end(k)
            while len(self._known) > self.size:
                self._known.popitem(last=False)
