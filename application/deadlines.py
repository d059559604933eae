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
``STAND_IN_LEVEL`` (medium; ``TILETUM_STAND_IN_LEVEL`` chooses another): it plays the seat's turn to its end
from the seat's own view of the position, as the seat would see it, re-reading the position after each move
that reveals something. Its moves are events labelled ``"by": "stand-in"`` in the log and the record. With
``mode: "drop"`` a seat that missed ``drop_after`` deadlines (or a withdrawn tournament player)
is played by the stand-in for the rest of the game. Should the AI ever fail, the game's fixed
rule plays instead (``games.Game.fallback_move``; Tiletum's is the rule the stand-in used before
issue 16, ``games.tiletum.stand_in_move``).

When the service has an AI worker (``GameService.stand_in_hand_off``: the workers' service, and the
API's at ``hard`` or ``master``), no caller plays the stand-in's turn itself: the sweep counts the
missed deadline and hands the turn off (``workers.stand_in_turn`` on queue ``stand-in``), keeping the
turn's deadline entry as a lease until the turn was played (:meth:`Deadlines.play_late_turn`); see
docs/pbem.md, "The stand-in worker".
"""
from __future__ import annotations

import functools
import json
import logging
import math
import os
import time
import zoneinfo
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
from typing import Callable

import ai
import games

from . import errors
from .indexes import (DEADLINES, NOTICES, REMINDERS, SEAT_STATE, TURNS, add,  # noqa: F401 (re-exported)
                      begin_attempt, end_attempt, forget_turns_before, game_members, remove)
from .queues import STAND_IN
from .seats import AI_LEVELS

log = logging.getLogger("tiletum.deadlines")
# SEAT_STATE: sharded hash "<game>:<seat>" -> {"missed", "dropped", "vacation_since", "vacation_used"}
RETRY_SECONDS = 300
LEASE_SECONDS = 600.0   # how long the AI worker has to play a turn handed to it (workers/tasks.py sets it)


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
# The bounds of a time control (docs/pbem.md, "Deadlines"): the API's schema and the core check the
# same ones (check_time_control), so that no path stores a time control that cannot be counted.
DAYS_PER_MOVE = (0.01, 60.0)
VACATION_DAYS = (0.0, 365.0)
REMINDER_HOURS = (0.1, 24.0 * 60)
MAX_REMINDERS = 5
MAX_QUIET_HOURS = 20      # a quiet window leaves at least 4 counted hours of every day
DROP_AFTER = (1, 50)
TIMEOUT_MODES = ("stand-in", "drop")
WEEK = 7 * 86400
_MONDAY = 4 * 86400       # 1970-01-05 00:00 UTC, a Monday: where the week of counted hours is read


class InvalidTimeControl(ValueError):
    """A time control (or timeout policy) that cannot be honoured: its message says which field."""


def _number(value, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise InvalidTimeControl(f"{name} must be a number from {low:g} to {high:g}, not {value!r}")
    return value


def quiet_length(quiet) -> int:
    """How many hours of each day the window ``[start, end)`` (UTC hours, across midnight when
    ``start > end``) leaves uncounted."""
    start, end = quiet
    return (end - start) % 24


def check_time_control(tc) -> dict:
    """``tc`` (a game's ``options.time_control``) if every value is within its bounds, else
    :class:`InvalidTimeControl`. A quiet window of zero hours (``[5, 5]``) or of more than
    :data:`MAX_QUIET_HOURS` is refused: every day keeps some counted time, so a deadline always
    comes (with weekends paused too)."""
    if not isinstance(tc, dict):
        raise InvalidTimeControl("time_control must be an object")
    unknown = sorted(set(tc) - set(DEFAULTS))
    if unknown:
        raise InvalidTimeControl(f"time_control has no field {unknown[0]!r}")
    if "days_per_move" in tc:
        _number(tc["days_per_move"], "days_per_move", *DAYS_PER_MOVE)
    if "vacation_days" in tc:
        _number(tc["vacation_days"], "vacation_days", *VACATION_DAYS)
    if "pause_weekends" in tc and not isinstance(tc["pause_weekends"], bool):
        raise InvalidTimeControl("pause_weekends must be true or false")
    quiet = tc.get("quiet_hours")
    if quiet is not None:
        if (not isinstance(quiet, (list, tuple)) or len(quiet) != 2
                or any(isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= 23 for h in quiet)):
            raise InvalidTimeControl("quiet_hours must be [start, end], two whole UTC hours from 0 to 23")
        if not 1 <= quiet_length(quiet) <= MAX_QUIET_HOURS:
            raise InvalidTimeControl(f"quiet_hours {list(quiet)} must leave out 1 to {MAX_QUIET_HOURS} hours "
                                     f"of a day (start and end differ, and at least {24 - MAX_QUIET_HOURS} "
                                     "hours count)")
    reminders = tc.get("reminders_hours")
    if reminders is not None:
        if not isinstance(reminders, (list, tuple)) or len(reminders) > MAX_REMINDERS:
            raise InvalidTimeControl(f"reminders_hours must be a list of at most {MAX_REMINDERS} numbers")
        for h in reminders:
            _number(h, "each of reminders_hours", *REMINDER_HOURS)
    return tc


def check_timeout(policy) -> dict:
    """``policy`` (a game's ``options.timeout``) if valid, else :class:`InvalidTimeControl`."""
    if not isinstance(policy, dict) or set(policy) - {"mode", "drop_after"}:
        raise InvalidTimeControl("timeout is an object of mode and drop_after")
    if policy.get("mode", "stand-in") not in TIMEOUT_MODES:
        raise InvalidTimeControl(f"timeout mode must be one of {', '.join(TIMEOUT_MODES)}")
    drop_after = policy.get("drop_after", 3)
    low, high = DROP_AFTER
    if isinstance(drop_after, bool) or not isinstance(drop_after, int) or not low <= drop_after <= high:
        raise InvalidTimeControl(f"timeout drop_after must be a whole number from {low} to {high}")
    return policy


def check_deadline_options(options: dict) -> None:
    """Raise :class:`ServiceError` ``invalid`` (``bad-time-control`` or ``bad-timeout``) if the
    options' ``time_control`` or ``timeout`` cannot be honoured: every path that stores them (a
    game over the API, a tournament and its games) goes through here, whatever checked it before."""
    for key, check, code in (("time_control", check_time_control, "bad-time-control"),
                             ("timeout", check_timeout, "bad-timeout")):
        if (options or {}).get(key) is not None:
            try:
                check(options[key])
            except InvalidTimeControl as e:
                raise errors.invalid(code, f"{key}: {e}") from None


def time_control(meta: dict) -> dict:
    """The game's time control with the defaults filled in. One stored before its values were
    checked (issue 27) that cannot be honoured (e.g. quiet hours ``[5, 5]``: no hour ever counts) is
    logged and replaced by the defaults, so that the game still gets deadlines that come."""
    tc = dict(DEFAULTS)
    stored = (meta.get("options") or {}).get("time_control") or {}
    try:
        tc.update(check_time_control(stored))
    except InvalidTimeControl as e:
        log.warning("the stored time control %r cannot be honoured (%s): the defaults apply", stored, e)
        return dict(DEFAULTS)
    return tc


def timeout_policy(meta: dict) -> dict:
    out = {"mode": "stand-in", "drop_after": 3}
    out.update((meta.get("options") or {}).get("timeout") or {})
    return out


def counts(ts: float, tc: dict) -> bool:
    """Whether this moment counts towards a deadline (not a weekend or quiet hour when paused)."""
    # the UTC weekday and hour by arithmetic (1970-01-01 was a Thursday): any moment, also one past
    # the year 9999 that datetime cannot hold
    hours = math.floor(ts / 3600)
    if tc.get("pause_weekends") and (hours // 24 + 3) % 7 >= 5:
        return False
    quiet = tc.get("quiet_hours")
    if quiet:
        start, end = quiet
        h = hours % 24
        if (start <= h < end) if start < end else (h >= start or h < end):
            return False
    return True


def counted_per_week(tc: dict) -> float:
    """Seconds of a week that count: what counts depends only on the UTC weekday and hour."""
    return 3600.0 * sum(counts(_MONDAY + h * 3600, tc) for h in range(7 * 24))


def add_active(start: float, seconds: float, tc: dict) -> float:
    """``start`` plus ``seconds`` of time that counts. Whole weeks are skipped at once (each holds
    the same counted time), the rest is walked hour by hour: at most about 170 steps, for any
    input. A time control under which nothing counts raises :class:`InvalidTimeControl` (the
    schema and :func:`check_time_control` refuse one; old stored data might hold one)."""
    if not (math.isfinite(start) and math.isfinite(seconds)) or seconds < 0:
        raise InvalidTimeControl(f"cannot add {seconds!r} s of counted time to {start!r}")
    if not tc.get("pause_weekends") and not tc.get("quiet_hours"):
        return start + seconds
    per_week = counted_per_week(tc)
    if per_week <= 0:
        raise InvalidTimeControl(f"no time ever counts under {tc!r}")
    # every full week from any moment holds per_week counted seconds; leave the last (partial or
    # whole) week to the walk, so that it ends where the original hour-by-hour walk ended
    weeks = max(0, math.ceil(seconds / per_week) - 1)
    t, left = start + weeks * WEEK, seconds - weeks * per_week
    for _ in range(2 * 7 * 24 + 2):   # the rest fits in one week of hours; the bound is a guard
        if left <= 0:
            return t
        to_hour = 3600 - (t % 3600)   # the time up to the next whole hour: it counts or not as a whole
        if counts(t, tc):
            step = min(left, to_hour)
            left -= step
            t += step
        else:
            t += to_hour   # a whole uncounted hour at once, however little time is left to count
    raise InvalidTimeControl(f"counted time did not add up under {tc!r}")  # pragma: no cover - a guard


@functools.lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    # "localtime" (listed on some systems) is the server's own setting, not a name of the IANA list
    return frozenset(zoneinfo.available_timezones() - {"localtime"})


def valid_tz(name) -> bool:
    """Whether ``name`` is an IANA time zone name this system knows (e.g. ``Europe/Berlin``): one of
    ``zoneinfo.available_timezones()``, which lists zone files only. A directory of the database
    (``Europe``), a non-zone file (``zone.tab``), ``localtime`` or the ``posix/``, ``right/`` copies
    are not zones of the IANA list (and some of them made ``ZoneInfo`` raise what it does not
    document, a 500)."""
    if not isinstance(name, str) or not name or len(name) > 64 or name not in _zone_names():
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
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


# How many times a sweep tries one entry that fails (or whose handling never ended) before it gives
# the entry up with an error in the log: a poisoned entry must not take a worker's time for ever.
MAX_ATTEMPTS = 10


class Deadlines:
    """``max_attempts``: see :data:`MAX_ATTEMPTS`; ``budget``: seconds a sweep may take before it
    leaves the entries still due to the next sweep (None: no limit), so that it ends well inside
    its task's time limit."""

    def __init__(self, service, notifier, clock: Callable[[], float] = time.time,
                 max_attempts: int = MAX_ATTEMPTS, budget: float | None = None, lease: float = LEASE_SECONDS):
        self.service = service
        self.notifier = notifier
        self.r = service.store.r
        self.clock = clock
        self.max_attempts = max_attempts
        self.budget = budget
        # callable(game_id, seat, version) that enqueues workers.stand_in_turn (the AI worker plays
        # the turn); None: the stand-in plays inline. ``lease``: how long the AI worker has to play
        # a turn handed to it before a sweep hands it off again.
        self.hand_off = getattr(service, "stand_in_hand_off", None)
        self.lease = lease

    # --- seat state --------------------------------------------------------------------------
    def seat_state(self, game_id: str, seat: int) -> dict:
        raw = self.r.hget(SEAT_STATE.key(game_id), f"{game_id}:{seat}")
        return (json.loads(raw) if raw
                else {"missed": 0, "dropped": False, "vacation_since": None, "vacation_used": 0.0})

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
        if (st["vacation_since"] is None
            and st["vacation_used"] >= time_control(meta)["vacation_days"] * 86400):
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
        removed, one that fails is logged and looked at again later, and one that failed (or never
        finished) ``max_attempts`` times is given up with an error in the log; the sweep always
        goes on, until its ``budget`` of time is spent (the rest is the next sweep's)."""
        now = self.clock()
        stop_at = time.monotonic() + self.budget if self.budget is not None else math.inf
        done = {"reminders": 0, "stand_in_turns": 0, "dropped_entries": 0, "given_up": 0, "notices": 0}
        self._sweep_index(REMINDERS, "reminder", self._reminder, "reminders", now, RETRY_SECONDS, done,
                          stop_at)
        # a deadline that fails is looked at again soon: e.g. the player moved at that very moment
        self._sweep_index(DEADLINES, "deadline", self._deadline, "stand_in_turns", now, 60, done, stop_at)
        done["notices"] = self.send_notices()
        return done

    def _sweep_index(self, index, what: str, handle, counter: str, now: float, retry: float,
                     done: dict, stop_at: float = math.inf) -> None:
        """Each due entry of ``index`` (every shard) handled on its own by ``handle(member, now)``."""
        for member in index.due(self.r, now):
            if time.monotonic() >= stop_at:
                log.warning("the %s sweep ran out of its time: the entries left wait for the next sweep",
                            what)
                return
            tries = begin_attempt(self.r, index, member)
            if tries > self.max_attempts:
                log.error("giving up the %s entry %r: %d attempts failed or did not finish", what, member,
                          tries - 1)
                remove(self.r, index, member)
                end_attempt(self.r, index, member)
                done["given_up"] += 1
                continue
            try:
                done[counter] += handle(member, now)
            except BadEntry as e:
                log.warning("dropping the unreadable %s entry %r: %s", what, member, e)
                remove(self.r, index, member)
                end_attempt(self.r, index, member)
                done["dropped_entries"] += 1
            except Exception:
                log.warning("the %s %r failed (attempt %d of %d); trying again later", what, member, tries,
                            self.max_attempts, exc_info=True)
                self.r.zadd(index.key_of(member), {member: now + retry})
            else:
                end_attempt(self.r, index, member)

    def _reminder(self, member: bytes, now: float) -> int:
        game_id, seat_field, version_field, hours_field = parse_member(member, 4)
        seat, version = int(seat_field), int(version_field)
        try:
            hours = float(hours_field)
        except ValueError:
            raise BadEntry(f"{hours_field!r} is not a number of hours") from None
        if not self._still_due(game_id, seat, version):
            remove(self.r, REMINDERS, member)
            return 0
        if self._on_vacation(game_id, seat, now):
            return 0  # kept: it moves back with the deadline when the vacation ends
        # After a lag several reminder points of the turn may be due at once: only the most urgent
        # one goes, and the others leave (each would say the same time left).
        prefix = f"{game_id}:{seat}:{version}:".encode()
        points = [m for m in game_members(self.r, REMINDERS, game_id) if m.startswith(prefix)]
        pipe = self.r.pipeline(transaction=False)
        for m in points:
            pipe.zscore(REMINDERS.key(game_id), m)
        due = [m for m, score in zip(points, pipe.execute()) if score is not None and score <= now]
        if member not in due:
            return 0   # handled with a more urgent point of its turn in this sweep
        urgent = {}
        for m in due:
            try:
                urgent[m] = float(m[len(prefix):])
            except ValueError:
                urgent[m] = hours
        hours = min(urgent.values())
        remove(self.r, REMINDERS, *due)
        return int(self.notifier.remind(game_id, seat, version, hours) or 0)

    def _deadline(self, member: bytes, now: float) -> int:
        game_id, seat_field, version_field = parse_member(member, 3)
        seat, version = int(seat_field), int(version_field)
        if not self._still_due(game_id, seat, version):
            remove(self.r, DEADLINES, member)
            return 0
        if self.hand_off is not None:
            pending = self.seat_state(game_id, seat).get("stand_in")
            if pending and pending[0] == version:  # handed to the AI worker, and not played yet
                return self._hand_off(game_id, seat, version, None, now)
        if self._on_vacation(game_id, seat, now):
            return 0  # the clock is stopped; the deadline moves when the vacation ends
        if self.hand_off is not None:
            return self._hand_off(game_id, seat, version, "missed", now)
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
            add(pipe, NOTICES, game_id, f"{game_id}:{seat}:{version}:{'dropped' if dropped else 'stand-in'}",
                now)
            pipe.execute()
        return played

    def _hand_off(self, game_id: str, seat: int, version: int, why: str | None, now: float) -> int:
        """Hand the seat's turn that started at ``version`` to the AI worker
        (``workers.stand_in_turn``): ``why == "missed"`` for a deadline that just passed (the missed
        deadline is counted, the seat dropped by the policy, here and once), ``"dropped"`` for the
        turn of a seat the stand-in plays for good, None to hand off again a turn handed off before
        that was not played by its lease (a lost message, a worker that died, a broker that was
        down). The turn's entry in ``deadlines`` stays, due at the end of the lease: until the turn
        is played, a sweep hands it off again, ``max_attempts`` times at most. Returns 1."""
        st = self.seat_state(game_id, seat)
        pending = st.get("stand_in")
        member = f"{game_id}:{seat}:{version}"
        if why is None and pending:
            pending[2] += 1
            if pending[2] > self.max_attempts:
                log.error("giving up the stand-in's turn %s: handed to the AI worker %d times and not played",
                          member, pending[2] - 1)
                remove(self.r, DEADLINES, member)
                st.pop("stand_in")
                self._save(game_id, seat, st)
                return 0
        elif why == "missed":
            was_dropped = st["dropped"]
            st["missed"] += 1
            policy = timeout_policy(self.service.meta(game_id))
            if policy["mode"] == "drop" and st["missed"] >= policy["drop_after"]:
                st["dropped"] = True
            # the notice the player gets once the stand-in played
            st["stand_in"] = [version, "dropped" if st["dropped"] and not was_dropped else "stand-in", 1]
        else:
            st["stand_in"] = [version, None, 1]   # a dropped seat's turn: no notice
        self._save(game_id, seat, st)
        pipe = self.r.pipeline(transaction=True)
        add(pipe, DEADLINES, game_id, member, now + self.lease)
        pipe.execute()
        self.hand_off(game_id, seat, version)  # if the broker is down, the sweep tries again soon
        return 1

    def stand_in_later(self, game_id: str, seat: int) -> int:
        """The stand-in plays the seat's decision if it is the seat's now (a dropped seat, a
        withdrawn or deleted player): handed to the AI worker when the service has one, so that
        no request or email waits for the AI; else inline. Returns 1 if it moved or was handed off."""
        if self.hand_off is None:
            return self.stand_in(game_id, seat)
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        if game.actor(state) != seat or game.is_over(state):
            return 0
        return self._hand_off(game_id, seat, state.version, "dropped", self.clock())

    def play_late_turn(self, game_id: str, seat: int, version: int, think: float | None = None) -> int:
        """What ``workers.stand_in_turn`` does on the AI worker: if the seat is still to act in its
        turn that started at ``version``, the stand-in plays it (:meth:`stand_in`, thinking at most
        ``think`` seconds at its level), and the player's notice is recorded for the next sweep.
        Idempotent: once the turn was played (or the player moved), nothing is still due, and the
        stand-in's moves are submitted at the version they were chosen for (a 409 if anyone moved
        meanwhile). Returns 1 if the stand-in played."""
        member = f"{game_id}:{seat}:{version}"
        if not self._still_due(game_id, seat, version):
            remove(self.r, DEADLINES, member)
            return 0
        try:
            played = self.stand_in(game_id, seat, think=think)
        except errors.ServiceError as e:
            if e.code == "version-conflict" and not self._still_due(game_id, seat, version):
                remove(self.r, DEADLINES, member)   # played meanwhile (a second delivery, the player)
                return 0
            raise
        pending = self.seat_state(game_id, seat).get("stand_in")
        pipe = self.r.pipeline(transaction=True)
        if played and pending and pending[0] == version and pending[1]:
            add(pipe, NOTICES, game_id, f"{game_id}:{seat}:{version}:{pending[1]}", self.clock())
        pipe.execute()
        if played or not self._still_due(game_id, seat, version):
            remove(self.r, DEADLINES, member)
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
            meta, state = self.service.load(game_id)
        except Exception:
            return False
        game = games.of_meta(meta)
        if game.is_over(state) or game.actor(state) != seat:
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

    def stand_in(self, game_id: str, seat: int, think: float | None = None) -> int:
        """Play the seat's current decision with the stand-in (the AI at ``STAND_IN_LEVEL``, for
        any game: ``ai.decide`` routes by the view's game). Once ``think`` seconds are spent (None:
        no limit), the turn's later decisions are played at ``medium`` (:data:`QUICK_LEVEL`), so
        that a turn of many decisions at ``master`` ends within its task's time limit. Returns 1
        if it moved."""
        started = time.monotonic()
        level = stand_in_level()
        meta, state = self.service.load(game_id)
        game = games.of_meta(meta)
        seed = self.service.store.seed(game_id)
        decided_at = state.version   # the moves are chosen for this position, and played only on it
        moves: list[str] = []
        while game.actor(state) == seat and not game.is_over(state) and len(moves) < 200:
            if think is not None and time.monotonic() - started >= think and level not in FAST_LEVELS:
                level = QUICK_LEVEL
            for m in stand_in_plan(game.view(state, seat), f"{game_id}:{state.version}", state, game, level):
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


STAND_IN_LEVEL = "medium"   # TILETUM_STAND_IN_LEVEL: any AI level (master thinks
                            # TILETUM_AI_MASTER_SECONDS a decision, on the AI worker)
QUICK_LEVEL = "medium"      # a turn's decisions after the stand-in's thinking time is spent
FAST_LEVELS = ("easy", "medium")
STAND_IN_TASK, STAND_IN_QUEUE = "workers.stand_in_turn", STAND_IN   # the AI worker's (workers/app.py)


def stand_in_level() -> str:
    level = os.environ.get("TILETUM_STAND_IN_LEVEL") or STAND_IN_LEVEL
    if level not in AI_LEVELS:
        raise ValueError(f"TILETUM_STAND_IN_LEVEL is one of {', '.join(AI_LEVELS)}, not {level!r}")
    return level


def stand_in_plan(view: dict, rng_seed: str, state, game: games.Game,
                  level: str | None = None) -> list:
    """The stand-in's moves for the seat's current decision: the AI's at ``level`` (None: the
    stand-in's level), from the seat's ``view`` (``state`` is used only by the fallback rule, should
    the AI fail: the game's own, ``games.Game.fallback_move``)."""
    try:
        return ai.decide(view, level or stand_in_level(), rng_seed)
    except Exception:  # never leave a late turn unplayed
        log.exception("the AI failed to play a stand-in turn; the fixed rule plays it")
        return [game.fallback_move(state)]
