"""The gate every email passes (docs/pbem.md, "Email by consent"): one budget per recipient for
every email the service sends, whatever caused it, and what an address that has not accepted our
email may still be sent.

Each email has a *kind* (its once-key's first word: ``turn``, ``reminder``, ``final``, ``talk``...)
and, for its recipient, a *class*:

* **needed**: what a player needs of a game they are in (their turn, a reminder, the stand-in's
  notice, the results) once the game's thread has begun for them (its first email went, or the
  game is a tournament's they entered), and what only they can cause (their new dashboard link,
  their digest, the notice that a reply was refused in their name);
* **others**: what someone else can cause (a game that names them: its first email; a rematch; a
  new link to a seat; table talk; a lobby or tournament email; a webhook switched off).

Each class has its own windows (an hour, a day), so that what others trigger never crowds out
what a player needs. An address that has not accepted (application/consent.py) is sent only the
first email of each game (which is its invitation: accept or refuse), then the reminders, the
stand-in's notice and the results that keep it from losing the game silently, within a small
bound per game and per day and a bound on unanswered invitations; never what another person
wrote. A refused address gets nothing. Every email held back is recorded for the dashboard and
the game page (application/consent.py ``record_held``).

The windows count on the service's clock (the test clock in tests), in one Lua script per email
over keys of one hash slot (the player id's): the ``limits`` package (Flask-Limiter's, which
parses the settings here) counts on the wall clock and tests one window at a time, not all of a
class's windows at once.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from limits import parse_many

from application import consent
from application.players import player_id

# the kinds by what they are to a player (see the module docstring)
NEEDED_IN_GAME = frozenset({"turn", "reminder", "stand-in", "final"})
OWN = frozenset({"newkey", "digest", "refused-reply", "auth-notice"})
# what an address that has not accepted may get: its game's first email (the invitation), what
# keeps it from losing the game silently, and the requests that are themselves asks for consent
PENDING_FIRST = frozenset({"turn", "lobby-join", "tentry-ask", "twelcome"})
PENDING_NEEDED = frozenset({"reminder", "stand-in", "final"})

# KEYS[1]: the email's charge marker (the same email again is free); KEYS[2..]: the window counters.
# ARGV[1]: the marker's lifetime; then per counter its cap and its lifetime.
# 0: charged (or charged before); i > 0: the i-th counter is full, nothing charged.
CHARGE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 2, #KEYS do
  local n = tonumber(redis.call('GET', KEYS[i]) or '0')
  if n >= tonumber(ARGV[2 * i - 2]) then return i - 1 end
end
for i = 2, #KEYS do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[2 * i - 1]) end
end
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1])
return 0
"""

CHARGED_TTL = 7 * 86400


@dataclass(frozen=True)
class Window:
    cap: int
    seconds: int


def windows(spec: str | None) -> tuple[Window, ...] | None:
    """``"5/hour;20/day"`` (the ``limits`` notation) as windows; None or ``off``: no limit."""
    if spec is None or spec.strip().lower() in ("", "off", "none"):
        return None
    return tuple(Window(item.amount, item.get_expiry()) for item in parse_many(spec))


@dataclass(frozen=True)
class Budget:
    """The budget settings (mail/mailconfig.py): each class's windows, and what an address that has
    not accepted may get: per day, per game, and unanswered first emails (invitations) in all."""
    needed: tuple[Window, ...] | None = None
    others: tuple[Window, ...] | None = None
    pending_daily: int | None = None
    pending_per_game: int = 5
    invitations: int = 5


@dataclass(frozen=True)
class Verdict:
    send: bool
    reason: str = ""       # why not (application/consent.py REASONS)
    audience: str = consent.ACCEPTED


def kind_of(once_key: str) -> str:
    return once_key.split(":", 1)[0]


class Gate:
    """Whether an email may go to its recipient now; charges the recipient's budget when it may."""

    def __init__(self, r, budget: Budget, clock=time.time):
        self.r = r
        self.budget = budget
        self.clock = clock
        self._charge = r.register_script(CHARGE)

    def _windows(self, pid: str, name: str, wins: tuple[Window, ...],
                 now: float) -> list[tuple[str, int, int]]:
        return [(f"mail:b:{{{pid}}}:{name}:{w.seconds}:{int(now // w.seconds)}", w.cap, w.seconds + 60)
                for w in wins]

    def _run(self, pid: str, once_key: str, counters: list[tuple[str, int, int]]) -> int:
        if not counters:
            return 0
        marker = f"mail:b:{{{pid}}}:once:" + hashlib.sha256(once_key.encode()).hexdigest()[:20]
        args: list = [CHARGED_TTL]
        for _, cap, ttl in counters:
            args += [cap, ttl]
        return int(self._charge(keys=[marker] + [k for k, _, _ in counters], args=args))

    def check(self, email: str, once_key: str, *, game_id: str | None = None, seat: int | None = None,
              scope: str | None = None, thread_open: bool = False, own_game: bool = False,
              verified: bool | None = None, who: str | None = None) -> Verdict:
        """``thread_open``: an earlier email of this game already went to this seat (the seat's
        thread has begun); ``own_game``: the recipient chose this game (a tournament they entered).
        ``scope``: what the email is about (a game, a waiting game, a tournament), for the bound per
        game of an address that has not accepted. A held email is recorded for the dashboard and the
        game page. ``who``: what the address said to our email, if the caller read it."""
        b = self.budget
        kind = kind_of(once_key)
        pid = player_id(self.r, email)
        who = who or consent.audience(self.r, email, verified)
        now = self.clock()
        if who == consent.REFUSED:
            return Verdict(False, "refused", who)
        if who == consent.PENDING:
            if b.pending_daily is None:    # consent is off (a mail configuration built by hand)
                return Verdict(True, audience=consent.ACCEPTED)
            first = kind in PENDING_FIRST and not thread_open
            if not (first or kind in PENDING_NEEDED):
                return self._held(pid, kind, "consent", now, game_id, seat, who)
            scope = scope or game_id or once_key
            counters = [(f"mail:b:{{{pid}}}:pend:g:{scope}", b.pending_per_game, 30 * 86400),
                        (f"mail:b:{{{pid}}}:pend:d:{int(now // 86400)}", b.pending_daily, 86400 + 60)]
            if first:   # an invitation: a bound on those not answered yet, in all
                counters.append((f"mail:b:{{{pid}}}:pend:inv", b.invitations, 30 * 86400))
            if self._run(pid, once_key, counters):
                return self._held(pid, kind, "consent-limit", now, game_id, seat, who)
            return Verdict(True, audience=who)
        needed = kind in OWN or (kind in NEEDED_IN_GAME and (thread_open or own_game))
        wins = b.needed if needed else b.others
        if wins is None:
            return Verdict(True, audience=who)
        if self._run(pid, once_key, self._windows(pid, "n" if needed else "o", wins, now)):
            return self._held(pid, kind, "budget-needed" if needed else "budget", now, game_id, seat, who)
        return Verdict(True, audience=who)

    def _held(self, pid: str, kind: str, reason: str, now: float, game_id, seat, who) -> Verdict:
        consent.record_held(self.r, pid, kind, reason, now, game_id, seat)
        return Verdict(False, reason, who)
