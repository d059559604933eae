"""Time controls (docs/pbem.md, "Deadlines"), pure arithmetic: a game's time control and timeout
policy checked and read from its options, the time that counts (weekends, quiet hours in the
players' zone) and deadlines computed over it, and deadlines in words. No Redis, no clock of its
own: every function takes the times it works on."""
from __future__ import annotations

import functools
import logging
import math
import zoneinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tablepost.i18n import ENGLISH, N_, Translator, said

from . import errors

log = logging.getLogger("tablepost.deadlines")


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
        raise InvalidTimeControl(said("{name} must be a number from {low} to {high}, not {value}", name=name,
                                      low=f"{low:g}", high=f"{high:g}", value=repr(value)))
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
        raise InvalidTimeControl(N_("time_control must be an object"))
    unknown = sorted(set(tc) - set(DEFAULTS))
    if unknown:
        raise InvalidTimeControl(said("time_control has no field {field}", field=repr(unknown[0])))
    if "days_per_move" in tc:
        _number(tc["days_per_move"], "days_per_move", *DAYS_PER_MOVE)
    if "vacation_days" in tc:
        _number(tc["vacation_days"], "vacation_days", *VACATION_DAYS)
    if "pause_weekends" in tc and not isinstance(tc["pause_weekends"], bool):
        raise InvalidTimeControl(N_("pause_weekends must be true or false"))
    quiet = tc.get("quiet_hours")
    if quiet is not None:
        if (not isinstance(quiet, (list, tuple)) or len(quiet) != 2
                or any(isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= 23 for h in quiet)):
            raise InvalidTimeControl(N_("quiet_hours must be [start, end], two whole UTC hours from 0 to 23"))
        if not 1 <= quiet_length(quiet) <= MAX_QUIET_HOURS:
            raise InvalidTimeControl(said("quiet_hours {quiet} must leave out 1 to {most} hours of a day "
                                          "(start and end differ, and at least {least} hours count)",
                                          quiet=list(quiet), most=MAX_QUIET_HOURS,
                                          least=24 - MAX_QUIET_HOURS))
    reminders = tc.get("reminders_hours")
    if reminders is not None:
        if not isinstance(reminders, (list, tuple)) or len(reminders) > MAX_REMINDERS:
            raise InvalidTimeControl(said("reminders_hours must be a list of at most {n} numbers",
                                          n=MAX_REMINDERS))
        for h in reminders:
            _number(h, "each of reminders_hours", *REMINDER_HOURS)
    return tc


def check_timeout(policy) -> dict:
    """``policy`` (a game's ``options.timeout``) if valid, else :class:`InvalidTimeControl`."""
    if not isinstance(policy, dict) or set(policy) - {"mode", "drop_after"}:
        raise InvalidTimeControl(N_("timeout is an object of mode and drop_after"))
    if policy.get("mode", "stand-in") not in TIMEOUT_MODES:
        raise InvalidTimeControl(said("timeout mode must be one of {modes}", modes=", ".join(TIMEOUT_MODES)))
    drop_after = policy.get("drop_after", 3)
    low, high = DROP_AFTER
    if isinstance(drop_after, bool) or not isinstance(drop_after, int) or not low <= drop_after <= high:
        raise InvalidTimeControl(said("timeout drop_after must be a whole number from {low} to {high}",
                                      low=low, high=high))
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
                raise errors.invalid(code, said("{key}: {why}", key=key, why=e.args[0])) from None


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


def format_deadline(ts: float, tz_name: str | None = None, tr: Translator = ENGLISH) -> str:
    """A deadline as a player reads it: ``Sun 22 Nov 2026 10:00 CET`` in the seat's time zone when
    the game knows it, else ``Sun 22 Nov 2026 09:00 UTC``; in ``tr``'s language (tablepost/i18n.py)."""
    return tr.datetime(ts, tz_name)


def plural(n: int, word: str) -> str:
    """``1 deadline``, ``2 deadlines``: a count with its noun (regular plurals only)."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def remaining_text(seconds: float, tr: Translator = ENGLISH) -> str:
    """The time left before a deadline in words: ``3 days``, ``2 days 4 hours``, ``1 hour 30
    minutes``, ``12 minutes``; never negative. Rounded to the nearest of the smallest unit shown
    (hours from two days on, minutes below), not down: a fresh three-day deadline, a few seconds
    old, is "3 days", not "2 days 23 hours". In ``tr``'s language (tablepost/i18n.py)."""
    return tr.duration(seconds)
