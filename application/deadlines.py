"""Deadlines, reminders, vacations and the stand-in (docs/pbem.md, "Deadlines").

A game's time control is in its options at creation::

    "time_control": {"days_per_move": 3, "pause_weekends": false, "quiet_hours": [22, 7],
                     "vacation_days": 14, "reminders_hours": [24, 2]}
    "timeout": {"mode": "stand-in" | "drop", "drop_after": 3}

When a human seat becomes the actor (``Notifier.notify``), its deadline goes into the Redis
sorted set ``deadlines`` and its reminders into ``reminders`` (scored by time). One beat task,
``workers.sweep_deadlines``, sends the reminders that are due and applies the timeout policy to
the deadlines that passed; nothing waits in the broker. Time that does not count (weekends, quiet
hours, UTC) is skipped when the deadline is computed; a vacation stops the clock and pushes the
deadline back by its length, up to the seat's allowance.

The stand-in (documented default for human seats) is the AI player (docs/ai.md) at level
``STAND_IN_LEVEL`` (medium): it plays the seat's turn to its end from the seat's own view of the
position, as the seat would see it, re-reading the position after each move that reveals
something. Its moves are events labelled ``"by": "stand-in"`` in the log and the record. With
``mode: "drop"`` a seat that missed ``drop_after`` deadlines (or a withdrawn tournament player)
is played by the stand-in for the rest of the game. ``stand_in_move`` is the fixed rule it used
before (issue 16), kept as the fallback should the AI ever fail: answer a pending decision with
the first listed option other than ``skip``, take the highest die without shifting it, then end
the turn.
"""
from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
from typing import Callable

import ai
import engine
import games

from .indexes import (DEADLINES, NOTICES, REMINDERS, SEAT_STATE, TURNS, add,  # noqa: F401 (re-exported)
                      forget_turns_before, game_members, remove)

log = logging.getLogger("tiletum.deadlines")
# SEAT_STATE: sharded hash "<game>:<seat>" -> {"missed", "dropped", "vacation_since", "vacation_used"}
RETRY_SECONDS = 300


class BadEntry(ValueError):
    """An index entry that cannot be read."""


def parse_member(member, parts: int) -> list[str]:
    """``<game>:<a>:<b>...`` split into ``parts`` fields (the game id may hold no colon)."""
    try:
        text = member.decode() if isinstance(member, bytes) else str(member)
    except UnicodeDecodeError as e:
        raise BadEntry(str(e)) from None
    fields = text.rsplit(":", parts - 1)
    if len(fields) != parts or not fields[0] or ":" in fields[0]:
        raise BadEntry(f"expected {parts} fields")
    for f in fields[1:3]:
        if not f.isdigit():
            raise BadEntry(f"{f!r} is not a number")
    if parts == 4 and fields[3] not in ("stand-in", "dropped"):
        try:
            h = float(fields[3])
        except ValueError:
            raise BadEntry(f"{fields[3]!r} is not a number of hours") from None
        if not h == h or h in (float("inf"), float("-inf")):
            raise BadEntry(f"{fields[3]!r} is not a number of hours")
    return fields

DEFAULTS = {"days_per_move": 3, "pause_weekends": False, "quiet_hours": None, "vacation_days": 14,
            "reminders_hours": [24, 2]}


def time_control(meta: dict) -> dict:
    tc = dict(DEFAULTS)
    tc.update((meta.get("options") or {}).get("time_control") or {})
    return tc


def timeout_policy(meta: dict) -> dict:
    out = {"mode": "stand-in", "drop_after": 3}
    out.update((meta.get("options") or {}).get("timeout") or {})
    return out


def counts(ts: float, tc: dict) -> bool:
    """Whether this moment counts towards a deadline (not a weekend or quiet hour when paused)."""
    dt = datetime.fromtimestamp(ts, tz=timezone.utc)
    if tc.get("pause_weekends") and dt.weekday() >= 5:
        return False
    quiet = tc.get("quiet_hours")
    if quiet:
        start, end = quiet
        h = dt.hour
        if (start <= h < end) if start < end else (h >= start or h < end):
            return False
    return True


def add_active(start: float, seconds: float, tc: dict) -> float:
    """``start`` plus ``seconds`` of time that counts (hour by hour; a few hundred steps at most)."""
    if not tc.get("pause_weekends") and not tc.get("quiet_hours"):
        return start + seconds
    t, left = start, seconds
    while left > 0:
        step = min(left, 3600 - (t % 3600)) if t % 3600 else min(left, 3600)
        if counts(t, tc):
            left -= step
        t += step
    return t


def valid_tz(name) -> bool:
    """Whether ``name`` is an IANA time zone name this system knows (e.g. ``Europe/Berlin``)."""
    if not isinstance(name, str) or not name or len(name) > 64 or name.startswith(("/", ".")) or ".." in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def format_deadline(ts: float, tz_name: str | None = None) -> str:
    """A deadline as a player reads it: ``Sun 22 Nov 2026 10:00 CET`` in the seat's time zone when
    the game knows it, else ``Sun 22 Nov 2026 09:00 UTC``."""
    tz = ZoneInfo(tz_name) if tz_name and valid_tz(tz_name) else timezone.utc
    dt = datetime.fromtimestamp(ts, tz=tz)
    label = "UTC" if tz is timezone.utc else (dt.tzname() or tz_name)
    return dt.strftime("%a %d %b %Y %H:%M ") + label


def plural(n: int, word: str) -> str:
    """``1 deadline``, ``2 deadlines``: a count with its noun (regular plurals only)."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def remaining_text(seconds: float) -> str:
    """The time left before a deadline in words: ``3 days``, ``2 days 4 hours``, ``1 hour 30
    minutes``, ``12 minutes``; never negative. Rounded to the nearest of the smallest unit shown
    (hours from two days on, minutes below), not down: a fresh three-day deadline, a few seconds
    old, is "3 days", not "2 days 23 hours"."""
    seconds = max(0.0, float(seconds))
    if seconds >= (48 * 60 - 30) * 60:                 # shown in days and hours
        days, hours = divmod(int(seconds / 3600 + 0.5), 24)
        return plural(days, "day") + (f" {plural(hours, 'hour')}" if hours else "")
    minutes = int(seconds / 60 + 0.5)
    hours, mins = divmod(minutes, 60)
    if hours == 24 and not mins:
        return "1 day"
    if hours:
        return plural(hours, "hour") + (f" {plural(mins, 'minute')}" if mins else "")
    return plural(mins, "minute")


class Deadlines:
    def __init__(self, service, notifier, clock: Callable[[], float] = time.time):
        self.service = service
        self.notifier = notifier
        self.r = service.store.r
        self.clock = clock

    # --- seat state --------------------------------------------------------------------------
    def seat_state(self, game_id: str, seat: int) -> dict:
        raw = self.r.hget(SEAT_STATE.key(game_id), f"{game_id}:{seat}")
        return json.loads(raw) if raw else {"missed": 0, "dropped": False, "vacation_since": None, "vacation_used": 0.0}

    def _save(self, game_id: str, seat: int, st: dict) -> None:
        self.r.hset(SEAT_STATE.key(game_id), f"{game_id}:{seat}", json.dumps(st))

    # --- when a seat becomes the actor ----------------------------------------------------------
    def start_turn(self, game_id: str, meta: dict, seat: int, version: int,
                   registry: set[bytes] | None = None) -> float:
        """Set the deadline and reminders of this turn; returns the deadline. ``registry``: the
        game's index registry (application/indexes.py) if the caller has just read it."""
        tc = time_control(meta)
        now = self.clock()
        due = add_active(now, tc["days_per_move"] * 86400, tc)
        forget_turns_before(self.r, game_id, version, registry)  # the turns that ended keep no deadline
        pipe = self.r.pipeline(transaction=True)  # one slot: every key has the game's shard tag
        add(pipe, DEADLINES, game_id, f"{game_id}:{seat}:{version}", due)
        pipe.hset(TURNS.key(game_id), f"{game_id}:{seat}", version)
        for h in tc.get("reminders_hours") or ():
            at = due - h * 3600
            if at > now:
                add(pipe, REMINDERS, game_id, f"{game_id}:{seat}:{version}:{h}", at)
        pipe.execute()
        return due

    def deadline_of(self, game_id: str, seat: int) -> float | None:
        """The pending deadline of the seat's current turn, if one was set and has not passed
        (None otherwise). While the seat is on vacation this is the deadline before the pause."""
        raw = self.r.hget(TURNS.key(game_id), f"{game_id}:{seat}")
        if raw is None:
            return None
        version = int(raw)
        due = self.r.zscore(DEADLINES.key(game_id), f"{game_id}:{seat}:{version}")
        if due is None:
            return None
        events = self.service.store.events(game_id, after=version)
        if any(e.get("seat") != seat for e in events):
            return None  # a later turn of this seat, whose deadline is not set yet
        return due

    # --- vacation ----------------------------------------------------------------------------
    def vacation(self, game_id: str, seat: int, on: bool) -> dict:
        """Start or stop a seat's vacation; stopping pushes its pending deadline back."""
        meta = self.service.meta(game_id)
        allowance = time_control(meta)["vacation_days"] * 86400
        st = self.seat_state(game_id, seat)
        now = self.clock()
        if on and st["vacation_since"] is None:
            self.check_vacation(game_id, seat, on, meta, st)
            st["vacation_since"] = now
        elif not on and st["vacation_since"] is not None:
            self._end_vacation(game_id, seat, st, now, allowance)
        self._save(game_id, seat, st)
        return {"on": st["vacation_since"] is not None, "used_days": st["vacation_used"] / 86400,
                "allowance_days": allowance / 86400}

    def check_vacation(self, game_id: str, seat: int, on: bool, meta: dict | None = None,
                       st: dict | None = None) -> None:
        """Raise ValueError if :meth:`vacation` would refuse this (changes nothing): so that a
        caller can check a setting before it plays moves, and then apply it after them."""
        if not on:
            return
        meta = meta if meta is not None else self.service.meta(game_id)
        st = st if st is not None else self.seat_state(game_id, seat)
        if st["vacation_since"] is None and st["vacation_used"] >= time_control(meta)["vacation_days"] * 86400:
            raise ValueError("no vacation time left")

    def _end_vacation(self, game_id: str, seat: int, st: dict, now: float, allowance: float) -> None:
        length = min(now - st["vacation_since"], allowance - st["vacation_used"])
        st["vacation_used"] += length
        st["vacation_since"] = None
        prefix = f"{game_id}:{seat}:".encode()
        for index in (DEADLINES, REMINDERS):  # the reminders move back with the deadline
            for member in game_members(self.r, index, game_id):
                if member.startswith(prefix):
                    self.r.zincrby(index.key(game_id), length, member)

    # --- the sweep ---------------------------------------------------------------------------
    def sweep(self) -> dict:
        """Send due reminders and apply the timeout policy to passed deadlines. Each entry is
        handled on its own: one that cannot be read (or whose game is gone or over) is logged and
        removed, one that fails is logged and looked at again later; the sweep always goes on."""
        now = self.clock()
        done = {"reminders": 0, "stand_in_turns": 0, "dropped_entries": 0, "notices": 0}
        self._sweep_index(REMINDERS, "reminder", self._reminder, "reminders", now, RETRY_SECONDS, done)
        # a deadline that fails is looked at again soon: e.g. the player moved at that very moment
        self._sweep_index(DEADLINES, "deadline", self._deadline, "stand_in_turns", now, 60, done)
        done["notices"] = self.send_notices()
        return done

    def _sweep_index(self, index, what: str, handle, counter: str, now: float, retry: float,
                     done: dict) -> None:
        """Each due entry of ``index`` (every shard) handled on its own by ``handle(member, now)``."""
        for member in index.due(self.r, now):
            try:
                done[counter] += handle(member, now)
            except BadEntry as e:
                log.warning("dropping the unreadable %s entry %r: %s", what, member, e)
                remove(self.r, index, member)
                done["dropped_entries"] += 1
            except Exception:
                log.warning("the %s %r failed; trying again later", what, member, exc_info=True)
                self.r.zadd(index.key_of(member), {member: now + retry})

    def _reminder(self, member: bytes, now: float) -> int:
        game_id, seat, version, hours = parse_member(member, 4)
        seat, version = int(seat), int(version)
        try:
            hours = float(hours)
        except ValueError:
            raise BadEntry(f"{hours!r} is not a number of hours") from None
        if not self._still_due(game_id, seat, version):
            remove(self.r, REMINDERS, member)
            return 0
        if self._on_vacation(game_id, seat, now):
            return 0  # kept: it moves back with the deadline when the vacation ends
        remove(self.r, REMINDERS, member)
        return int(self.notifier.remind(game_id, seat, version, hours) or 0)

    def _deadline(self, member: bytes, now: float) -> int:
        game_id, seat, version = parse_member(member, 3)
        seat, version = int(seat), int(version)
        if not self._still_due(game_id, seat, version):
            remove(self.r, DEADLINES, member)
            return 0
        if self._on_vacation(game_id, seat, now):
            return 0  # the clock is stopped; the deadline moves when the vacation ends
        remove(self.r, DEADLINES, member)
        was_dropped = self.is_dropped(game_id, seat)
        self.missed(game_id, seat)
        dropped = self.is_dropped(game_id, seat) and not was_dropped
        try:
            played = self.stand_in(game_id, seat)
        except Exception:
            pipe = self.r.pipeline(transaction=True)
            add(pipe, DEADLINES, game_id, member.decode(), now + 60)
            pipe.execute()
            st = self.seat_state(game_id, seat)  # not missed after all, yet
            st["missed"] = max(0, st["missed"] - 1)
            if dropped:
                st["dropped"] = False
            self._save(game_id, seat, st)
            raise
        if played:  # the player is told by email (the notifier's notice, sent once)
            pipe = self.r.pipeline(transaction=True)
            add(pipe, NOTICES, game_id, f"{game_id}:{seat}:{version}:{'dropped' if dropped else 'stand-in'}", now)
            pipe.execute()
        return played

    def send_notices(self) -> int:
        """Tell players whose turn the stand-in played (or who were dropped): each recorded notice
        goes to ``notifier.stand_in_notice`` and leaves the index once it was handled."""
        sent = 0
        tell = getattr(self.notifier, "stand_in_notice", None)
        for member in NOTICES.due(self.r, "+inf"):
            try:
                game_id, seat, version, kind = parse_member(member, 4)
                if tell is not None:
                    sent += int(tell(game_id, int(seat), int(version), kind) or 0)
                remove(self.r, NOTICES, member)
            except BadEntry as e:
                log.warning("dropping the unreadable notice %r: %s", member, e)
                remove(self.r, NOTICES, member)
            except Exception:
                log.warning("the notice %r could not be sent; trying again at the next sweep", member,
                            exc_info=True)
        return sent

    def _still_due(self, game_id: str, seat: int, version: int) -> bool:
        """The seat is still to act in the turn that started at ``version``."""
        try:
            _, state = self.service.load(game_id)
        except Exception:
            return False
        if state.phase == "over" or state.actor != seat:
            return False
        events = self.service.store.events(game_id, after=version)
        return not any(e.get("seat") != seat for e in events)  # nobody else moved since

    def _on_vacation(self, game_id: str, seat: int, now: float) -> bool:
        st = self.seat_state(game_id, seat)
        if st["vacation_since"] is None:
            return False
        meta = self.service.meta(game_id)
        allowance = time_control(meta)["vacation_days"] * 86400
        if st["vacation_used"] + (now - st["vacation_since"]) >= allowance:  # the allowance ran out
            self._end_vacation(game_id, seat, st, now, allowance)
            self._save(game_id, seat, st)
            return False
        return True

    def missed(self, game_id: str, seat: int) -> None:
        meta = self.service.meta(game_id)
        policy = timeout_policy(meta)
        st = self.seat_state(game_id, seat)
        st["missed"] += 1
        if policy["mode"] == "drop" and st["missed"] >= policy["drop_after"]:
            st["dropped"] = True
        self._save(game_id, seat, st)

    def drop(self, game_id: str, seat: int) -> None:
        """The stand-in plays this seat for the rest of the game (a tournament withdrawal)."""
        st = self.seat_state(game_id, seat)
        st["dropped"] = True
        self._save(game_id, seat, st)

    def is_dropped(self, game_id: str, seat: int) -> bool:
        return self.seat_state(game_id, seat)["dropped"]

    def stand_in(self, game_id: str, seat: int) -> int:
        """Play the seat's current decision with the stand-in (the AI at ``STAND_IN_LEVEL``, for
        any game: ``ai.decide`` routes by the view's game). Returns 1 if it moved."""
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        seed = self.service.store.seed(game_id)
        decided_at = state.version   # the moves are chosen for this position, and played only on it
        moves: list[str] = []
        while game.actor(state) == seat and not game.is_over(state) and len(moves) < 200:
            for m in stand_in_plan(game.view(state, seat), f"{game_id}:{state.version}", state, game):
                if game.actor(state) != seat or game.is_over(state):
                    break
                _, state = game.play(state, seat, str(m), seed)
                moves.append(str(m))
        if not moves:
            return 0
        # at the version decided at: if the player moved meanwhile, a 409 (the sweep looks again),
        # never the stand-in's moves played on a position they were not chosen for
        self.service.submit_for_seat(game_id, seat, decided_at, moves, by="stand-in", stop_at_reveal=False)
        log.info("stand-in played %s for seat %s in %s", moves, seat, game_id)
        return 1


STAND_IN_LEVEL = "medium"


def stand_in_plan(view: dict, rng_seed: str, state, game: games.Game = games.TILETUM) -> list:
    """The stand-in's moves for the seat's current decision: the AI's, from the seat's ``view``
    (``state`` is used only by the fallback rule, should the AI fail: Tiletum's fixed rule, or
    another game's first legal move)."""
    try:
        return ai.decide(view, STAND_IN_LEVEL, rng_seed)
    except Exception:  # never leave a late turn unplayed
        log.exception("the AI failed to play a stand-in turn; the fixed rule plays it")
        if game is not games.TILETUM:
            return [game.legal_moves(state)[0][0]]
        return [stand_in_move(state)]


def stand_in_move(state: engine.GameState):
    """The stand-in's choice (see the module docstring)."""
    legal = sorted(engine.legal(state), key=str)
    top = state.agenda[-1] if state.agenda else None
    if top is not None and top["t"] == "choice":
        real = [m for m in legal if m.verb != "skip"]
        return real[0] if real else legal[0]
    if state.turn is not None and state.turn["die"] is None:
        takes = [m for m in legal if m.verb == "take" and ">" not in m.args[0]]
        if takes:
            return max(takes, key=lambda m: (int(m.args[0][1]), m.args[0]))
    for m in legal:
        if m.verb == "end":
            return m
    skip = [m for m in legal if m.verb == "skip"]
    return skip[0] if skip else legal[0]
