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
``STAND_IN_LEVEL`` (medium; ``TABLEPOST_STAND_IN_LEVEL`` chooses another): it plays the seat's turn to its end
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

This module is the clock's running (turns, vacations, the sweep); the rest is in rooms of its own:
application/time_control.py (the time control checked and the counted time computed, pure),
application/deadline_store.py (the Redis keys) and application/stand_in.py (the stand-in's play).
"""
from __future__ import annotations

import logging
import math
import time
from typing import Callable

import games

from . import errors
from .deadline_store import (BadEntry, parse_member, pending_deadline, push_back, save_seat_state,
                             schedule_turn, seat_state)
from .indexes import (DEADLINES, NOTICES, REMINDERS, add, begin_attempt, end_attempt, forget_turns_before,
                      game_members, remove)
from .stand_in import play_stand_in
from .time_control import add_active, time_control, timeout_policy

log = logging.getLogger("tablepost.deadlines")
RETRY_SECONDS = 300
LEASE_SECONDS = 600.0   # how long the AI worker has to play a turn handed to it (workers/tasks.py sets it)


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
        self.hand_off: Callable[[str, int, int], object] | None = getattr(service, "stand_in_hand_off", None)
        self.lease = lease

    # --- seat state --------------------------------------------------------------------------
    def seat_state(self, game_id: str, seat: int) -> dict:
        return seat_state(self.r, game_id, seat)

    def _save(self, game_id: str, seat: int, st: dict) -> None:
        save_seat_state(self.r, game_id, seat, st)

    # --- when a seat becomes the actor ----------------------------------------------------------
    def start_turn(self, game_id: str, meta: dict, seat: int, version: int,
                   registry: set[bytes] | None = None) -> float:
        """Set the deadline and reminders of this turn; returns the deadline. ``registry``: the
        game's index registry (application/indexes.py) if the caller has just read it."""
        tc = time_control(meta)
        now = self.clock()
        due = add_active(now, tc["days_per_move"] * 86400, tc)
        forget_turns_before(self.r, game_id, version, registry)  # the turns that ended keep no deadline
        reminders = {h: due - h * 3600 for h in tc.get("reminders_hours") or () if due - h * 3600 > now}
        schedule_turn(self.r, game_id, seat, version, due, reminders)
        return due

    def deadline_of(self, game_id: str, seat: int) -> float | None:
        """The pending deadline of the seat's current turn, if one was set and has not passed
        (None otherwise). While the seat is on vacation this is the deadline before the pause."""
        pending = pending_deadline(self.r, game_id, seat)
        if pending is None:
            return None
        version, due = pending
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
            raise ValueError(errors.N_("no vacation time left"))   # (a problem's detail: docs/i18n.md)

    def _end_vacation(self, game_id: str, seat: int, st: dict, now: float, allowance: float) -> None:
        length = min(now - st["vacation_since"], allowance - st["vacation_used"])
        st["vacation_used"] += length
        st["vacation_since"] = None
        push_back(self.r, game_id, seat, length)

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
        hand_off = self.hand_off
        if hand_off is None:   # the callers hand off only when the service has an AI worker
            raise RuntimeError("no AI worker to hand the stand-in's turn to")
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
        hand_off(game_id, seat, version)  # if the broker is down, the sweep tries again soon
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
        """The stand-in plays the seat's current decision (application/stand_in.py). Returns 1 if it
        moved."""
        return play_stand_in(self.service, game_id, seat, think)
