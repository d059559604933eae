"""Table talk (issue 41): each game's message thread for its seats (docs/pbem.md, "Table talk").

A message is plain text a person's seat writes (``POST /messages``, or after a line ``Message:`` in
an email reply, mail/messages.py); the seats read it on the game page (``GET /messages``, pushed as
``event: talk`` on the game's stream) and in their next email, or in an email of its own when none
came within :data:`EMAIL_DELAY` seconds (``workers.sweep_talk``). Spectators read nothing and post
nothing; the AI player, the Cardinalbot and bot accounts neither read nor write.

The thread is kept apart from the game's move stream, so that a message never changes the game's
version: its keys share the game's hash tag ``{<id>}`` (one Redis Cluster slot with the game):

| key | type | holds |
|---|---|---|
| ``g:{<id>}:talk`` | stream | message n (1-based) at id ``n-0``: ``s`` the seat, ``t`` the text, ``at`` the time |
| ``g:{<id>}:talkn`` | string | the thread's last message id (ids are never reused, even when old messages go) |
| ``g:{<id>}:talkrate:<seat>`` | string | the seat's messages this hour (:data:`PER_HOUR`) |
| ``g:{<id>}:talkmute`` | hash | seat -> JSON ``{"all": bool, "seats": [...]}``: what the seat muted |
| ``g:{<id>}:talkmail`` | hash | seat -> the last message id its emails told or its page read |
| ``g:{<id>}:talkaddr`` | hash | seat -> the last message id its latest message email told: the number of its current talk address (mail/messages.py) |
| ``g:{<id>}:talkmails:<seat>`` | string | message emails the seat got from this game in the last day (:data:`EMAILS_PER_DAY`) |
| ``g:{<id>}:talkreported`` | hash | ``<message>:<seat>`` -> the report's id: a seat reports a message once |
| ``g:{<id>}:talkopen`` | hash | report id -> the reporter seat: the game's reports kept and not yet handled (:data:`OPEN_PER_SEAT` a seat) |
| ``g:{<id>}:talkmore`` | hash | seat -> the seat's reports not kept because it had :data:`OPEN_PER_SEAT` waiting (a count) |
| ``g:{<id>}:talkcloses`` | string | a finished game's end as first seen, for a game whose end time is unknown (:meth:`GameService.ended_at`) |
| ``talk:due`` | zset | game id -> when its message emails are due (the sweep's index) |
| ``talk:reports`` | list | reported messages with their text, for the operator (capped: the handled go first; ``tablepost talk-reports``) |
| ``talk:reportn`` | string | the last report's id |
| ``talk:handled`` | zset | report id -> when the operator marked it handled (``tablepost talk-report-handled``) |

A message's author is its seat: its name is the seat's as the game's meta says it now, so a deleted
player's messages read :data:`application.accounts.FORMER` ("a former player"); no address is ever
stored with a message or served.
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import json
import os
import re
import time
import unicodedata

import games

from . import errors, talk_text
from .game_service import GameService
from .seats import seat_names
from .store import key

MAX_CHARS = 1000          # one message
MAX_LINES = 30
PER_HOUR = 30             # messages of one seat in one game per hour, whatever the channel
KEEP = 2000               # messages a thread keeps (the oldest go)
PAGE = 50
OPEN_AFTER_END = 7 * 86400   # a finished game's thread stays open so long ("gg")
EMAIL_DELAY = 3 * 3600       # a message not told by a turn email within this goes in one of its own
REPORTS_KEPT = 10000
OPEN_PER_SEAT = 5            # reports one seat of one game keeps waiting for the operator; more are counted
EMAILS_PER_DAY = 4           # message emails one seat gets from one game in a day (digest: 1)
TALKERS = ("human",)         # the seats that talk: a person's
DUE = "talk:due"
REPORTS = "talk:reports"
REPORT_N = "talk:reportn"
HANDLED = "talk:handled"

# KEYS: the thread, the seat's hourly counter, the thread's last id. ARGV: seat, text, time, per hour, keep.
# {'ok', n} or {'rate', ttl}
POST = """
local n = tonumber(redis.call('GET', KEYS[3]) or '0')
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used >= tonumber(ARGV[4]) then return {'rate', tostring(redis.call('TTL', KEYS[2]))} end
n = n + 1
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], tostring(n) .. '-0',
           's', ARGV[1], 't', ARGV[2], 'at', ARGV[3])
redis.call('SET', KEYS[3], tostring(n))
if redis.call('INCR', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], 3600) end
return {'ok', tostring(n)}
"""

# KEYS: the game's open reports, its counts of reports not kept. ARGV: seat, the most a seat keeps open.
# 1: the seat may file one more (the caller adds it to KEYS[1]); 0: counted in KEYS[2] instead
MAY_REPORT = """
local open = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 2, #all, 2 do if all[i] == ARGV[1] then open = open + 1 end end
if open >= tonumber(ARGV[2]) then redis.call('HINCRBY', KEYS[2], ARGV[1], 1) return 0 end
return 1
"""

# an email address in a message is never shown (a player's, or one a player typed): it reads so
ADDRESS_GONE = talk_text.ADDRESS_GONE


def clean_text(text) -> str:
    """A message as it is kept: NFC, no control, invisible or direction characters, line ends as
    ``\\n`` (line separators too), no trailing spaces, at most two blank lines in a row, an email
    address written in it (in any of the forms of application/talk_text.py) replaced by
    :data:`ADDRESS_GONE`; 422 ``empty-message``, ``message-too-long``."""
    if not isinstance(text, str):
        raise errors.invalid("invalid-request", "a message is text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise errors.invalid("invalid-request", "not valid Unicode text (a lone surrogate)") from None
    if len(text) > 4 * MAX_CHARS:   # as the API's schema: never read further
        raise _too_long()
    text = unicodedata.normalize("NFC", talk_text.strip_invisible(text.replace("\t", " ")))
    lines = [line.rstrip() for line in text.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    text = talk_text.hide_addresses(text)
    if not text:
        raise errors.invalid("empty-message", "the message is empty")
    if len(text) > MAX_CHARS or text.count("\n") >= MAX_LINES:
        raise _too_long()
    return text


def _too_long() -> errors.ServiceError:
    return errors.invalid("message-too-long",
                          errors.said("a message holds at most {chars} characters and {lines} lines",
                                      chars=MAX_CHARS, lines=MAX_LINES))


class TableTalk:
    def __init__(self, service: GameService, clock=None, email_delay: float | None = None):
        self.service = service
        self.r = service.store.r
        self.clock = clock or service.clock   # the service's (TABLEPOST_TEST_CLOCK shifts it)
        self.email_delay = (email_delay if email_delay is not None
                            else float(os.environ.get("TABLEPOST_TALK_EMAIL_SECONDS", EMAIL_DELAY)))
        self._post = self.r.register_script(POST)
        self._may_report = self.r.register_script(MAY_REPORT)

    # --- who talks ---------------------------------------------------------------------------
    def seat(self, game_id: str, token: str | None) -> tuple[dict, int]:
        """The game's meta and the token's seat: 401 without a token (spectators read nothing) or
        with one of no seat of this game, 403 for a seat that does not talk."""
        meta = self.service.meta(game_id)
        seat = self.service.seat_of(meta, token, game_id)
        if seat is None:
            raise errors.unauthorized("the table talk is the seats': a seat token is needed")
        self._talker(meta, seat)
        return meta, seat

    @staticmethod
    def _talker(meta: dict, seat: int) -> None:
        if not 0 <= seat < len(meta["seats"]) or meta["seats"][seat]["kind"] not in TALKERS \
                or meta["seats"][seat].get("former"):
            raise errors.forbidden("not-a-talking-seat",
                                   "only a person's seat reads and writes the table talk")

    def _thread(self, game_id: str) -> str:
        return key(game_id, "talk")

    # --- open or closed ----------------------------------------------------------------------
    def closes(self, game_id: str, meta: dict | None = None) -> float | None:
        """When the thread closes: None while the game runs; a finished game's closes
        :data:`OPEN_AFTER_END` after its end (the time of its last event); one whose end time is
        not known (it ended before that was kept) after it was first seen over here."""
        meta, state = self.service.load(game_id)
        if not games.of_meta(meta).is_over(state):
            return None
        ended = self.service.ended_at(game_id)
        if ended is not None:
            return ended + OPEN_AFTER_END
        k = key(game_id, "talkcloses")
        self.r.set(k, str(self.clock() + OPEN_AFTER_END), nx=True, ex=OPEN_AFTER_END + 30 * 86400)
        raw = self.r.get(k)
        return float(raw) if raw else self.clock() + OPEN_AFTER_END

    def is_open(self, game_id: str) -> bool:
        closes = self.closes(game_id)
        return closes is None or self.clock() < closes

    # --- writing -----------------------------------------------------------------------------
    def post(self, game_id: str, token: str | None, text) -> dict:
        """The token's seat says ``text`` (API)."""
        meta, seat = self.seat(game_id, token)
        return self.post_for_seat(game_id, seat, text, meta)

    def post_for_seat(self, game_id: str, seat: int, text, meta: dict | None = None) -> dict:
        """``seat`` says ``text``, authenticated by the caller (a signed reply address)."""
        meta = meta or self.service.meta(game_id)
        self._talker(meta, seat)
        text = clean_text(text)
        if not self.is_open(game_id):
            raise errors.refused("talk-closed", "this game's table talk is closed")
        now = self.clock()
        status, value = (v.decode() if isinstance(v, bytes) else v for v in self._post(
            keys=[self._thread(game_id), key(game_id, f"talkrate:{seat}"), key(game_id, "talkn")],
            args=[seat, text, f"{now:.3f}", PER_HOUR, KEEP]))
        if status == "rate":
            raise errors.limited("too-many-messages",
                                 errors.said("at most {n} messages an hour in one game: wait a while",
                                             n=PER_HOUR),
                                 retry_after=max(1, int(value)))
        n = int(value)
        self.r.zadd(DUE, {game_id: now + self.email_delay}, lt=True)   # never later than it was
        return self._public(meta, seat, {"n": n, "s": seat, "t": text, "at": now})

    # --- reading -----------------------------------------------------------------------------
    def read(self, game_id: str, token: str | None, after: int = 0, limit: int = PAGE) -> dict:
        """A page of the thread after message ``after`` as the token's seat reads it: the messages of
        the seats it muted are left out. What the seat read here no email tells it again."""
        meta, seat = self.seat(game_id, token)
        muted = self.muted(game_id, seat)
        rows = self._rows(game_id, after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        last = rows[-1]["n"] if rows else after
        if rows:
            self.mark_told(game_id, seat, last)
        shown = [self._public(meta, seat, m) for m in rows if not _mutes(muted, seat, m["s"])]
        closes = self.closes(game_id)
        return {"messages": shown, "last": last, "more": more, "muted": muted,
                "open": closes is None or self.clock() < closes,
                "closes": _iso(closes) if closes is not None else None}

    def _rows(self, game_id: str, after: int, count: int | None = None) -> list[dict]:
        return self._rows_from(self.r.xrange(self._thread(game_id), f"({after}-0" if after > 0 else "-", "+",
                                             count=count))

    @staticmethod
    def _public(meta: dict, reader: int | None, m: dict) -> dict:
        return {"id": m["n"], "seat": m["s"], "name": seat_names(meta)[m["s"]], "text": m["t"],
                "at": _iso(m["at"]), "mine": reader == m["s"]}

    def of_seat(self, game_id: str, seat: int) -> list[dict]:
        """The seat's own messages (the player's data export)."""
        meta = self.service.meta(game_id)
        return [{"id": m["n"], "text": m["t"], "at": _iso(m["at"])}
                for m in self._rows(game_id, 0) if m["s"] == seat and not meta["seats"][seat].get("former")]

    # --- muting ------------------------------------------------------------------------------
    def muted(self, game_id: str, seat: int) -> dict:
        raw = self.r.hget(key(game_id, "talkmute"), str(seat))
        doc = json.loads(raw) if raw else {}
        return {"all": bool(doc.get("all")), "seats": sorted(doc.get("seats") or [])}

    def mute(self, game_id: str, token: str | None, all_: bool | None, seats: list[int] | None) -> dict:
        """What the token's seat mutes: every message of the game (``all_``) and/or the seats
        ``seats`` (the whole list: [] unmutes everyone); None leaves that part as it was."""
        meta, seat = self.seat(game_id, token)
        doc = self.muted(game_id, seat)
        if all_ is not None:
            doc["all"] = bool(all_)
        if seats is not None:
            bad = [s for s in seats if not 0 <= s < len(meta["seats"]) or s == seat]
            if bad:
                raise errors.invalid("bad-seat", "mute the other seats of this game, by their numbers")
            doc["seats"] = sorted(set(seats))
        self.r.hset(key(game_id, "talkmute"), str(seat), json.dumps(doc))
        return doc

    # --- reporting ---------------------------------------------------------------------------
    def report(self, game_id: str, token: str | None, message_id: int, reason: str | None) -> dict:
        """The token's seat reports another seat's message: kept for the operator with the message
        (``talk:reports``; ``tablepost``'s operator reads it), never shown to the author."""
        meta, seat = self.seat(game_id, token)
        if not 0 < message_id < 2**63:
            raise errors.missing("message-not-found", "no such message in this game's thread")
        rows = self.r.xrange(self._thread(game_id), f"{message_id}-0", f"{message_id}-0")
        if not rows:
            raise errors.missing("message-not-found", "no such message in this game's thread")
        m = self._rows_from(rows)[0]
        if m["s"] == seat:
            raise errors.invalid("own-message", "you cannot report your own message")
        reason = clean_text(reason)[:300] if reason else ""
        # once per seat and message, and at most OPEN_PER_SEAT of a seat waiting for the operator:
        # one client holding every seat of a game cannot push the other games' reports out of the
        # capped list (the handled ones go first, the waiting ones of a game are few)
        if not self.r.hsetnx(key(game_id, "talkreported"), f"{message_id}:{seat}", "0"):
            return {"game": game_id, "message": message_id, "reported": True}
        if not self._may_report(keys=[key(game_id, "talkopen"), key(game_id, "talkmore")],
                                args=[str(seat), str(OPEN_PER_SEAT)]):
            return {"game": game_id, "message": message_id, "reported": True}
        report_id = int(self.r.incr(REPORT_N))
        self.r.hset(key(game_id, "talkopen"), str(report_id), str(seat))
        self.r.hset(key(game_id, "talkreported"), f"{message_id}:{seat}", str(report_id))
        names = seat_names(meta)
        doc = {"id": report_id, "game": game_id, "message": message_id, "author_seat": m["s"],
               "author": names[m["s"]], "text": m["t"], "at": _iso(m["at"]),
               "reporter_seat": seat, "reporter": names[seat], "reason": reason,
               "reported_at": _iso(self.clock())}
        self.r.lpush(REPORTS, json.dumps(doc))
        self._trim()
        return {"game": game_id, "message": message_id, "reported": True}

    def _trim(self) -> None:
        """Keep :data:`REPORTS_KEPT` reports: the oldest handled go first; a waiting report goes
        only when more than that many wait (then the oldest, and its game's open mark with it)."""
        over = int(self.r.llen(REPORTS)) - REPORTS_KEPT
        if over <= 0:
            return
        done = {int(i) for i in self.r.zrange(HANDLED, 0, -1)}
        for raw in reversed(self.r.lrange(REPORTS, 0, -1)):
            report_id = json.loads(raw).get("id")
            if report_id in done:
                over -= int(self.r.lrem(REPORTS, -1, raw))
                self.r.zrem(HANDLED, str(report_id))
                if over <= 0:
                    return
        for raw in self.r.lrange(REPORTS, REPORTS_KEPT, -1):
            doc = json.loads(raw)
            if doc.get("id") is not None:
                self.r.hdel(key(doc["game"], "talkopen"), str(doc["id"]))
        self.r.ltrim(REPORTS, 0, REPORTS_KEPT - 1)

    def _rows_from(self, raw) -> list[dict]:
        out = []
        for mid, fields in raw:
            f = {k.decode(): v.decode() for k, v in fields.items()}
            out.append({"n": int(mid.decode().split("-")[0]), "s": int(f["s"]), "t": f["t"],
                        "at": float(f["at"])})
        return out

    def reports(self, limit: int = 100, handled: bool = False) -> list[dict]:
        """The reports kept, newest first: those not yet handled (``handled``: all, each with
        ``handled`` the time it was marked, or None). Names are the seats' as they read now. The
        newest report of a seat that filed more than :data:`OPEN_PER_SEAT` waiting ones says in
        ``more`` how many were counted and not kept."""
        out = []
        told: set[tuple[str, int]] = set()
        for raw in self.r.lrange(REPORTS, 0, REPORTS_KEPT - 1):
            doc = json.loads(raw)
            done = self.r.zscore(HANDLED, str(doc.get("id"))) if doc.get("id") is not None else None
            if done is not None and not handled:
                continue
            doc["handled"] = _iso(done) if done is not None else None
            try:
                names = seat_names(self.service.meta(doc["game"]))
                doc["author"] = names[doc["author_seat"]]
                doc["reporter"] = names[doc["reporter_seat"]]
            except (errors.ServiceError, IndexError, KeyError):
                doc.setdefault("reporter", f"seat {doc.get('reporter_seat')}")   # the game is gone
            seat = (doc["game"], doc.get("reporter_seat"))
            if seat not in told:
                told.add(seat)
                more = self.r.hget(key(doc["game"], "talkmore"), str(doc.get("reporter_seat")))
                if more:
                    doc["more"] = int(more)
            out.append(doc)
            if len(out) >= limit:
                break
        return out

    def handle(self, report_id: int) -> bool:
        """Mark a report handled (it stays kept, left out of the default list, and its seat may file
        one more); False when no report kept has that id."""
        for raw in self.r.lrange(REPORTS, 0, REPORTS_KEPT - 1):
            doc = json.loads(raw)
            if doc.get("id") == report_id:
                self.r.zadd(HANDLED, {str(report_id): self.clock()})
                self.r.hdel(key(doc["game"], "talkopen"), str(report_id))
                # the handled marks of reports no longer kept go
                oldest = json.loads(self.r.lindex(REPORTS, -1) or "{}").get("id")
                if isinstance(oldest, int):
                    for old in self.r.zrange(HANDLED, 0, -1):
                        if int(old) < oldest:
                            self.r.zrem(HANDLED, old)
                return True
        return False

    # --- by email ----------------------------------------------------------------------------
    def unread_for_email(self, game_id: str, meta: dict, seat: int) -> tuple[list[dict], int]:
        """The others' messages the seat's emails have not told (the muted left out), and the last
        message id read. Nothing for a seat that does not talk."""
        if meta["seats"][seat]["kind"] not in TALKERS or not meta["seats"][seat].get("email"):
            return [], 0
        pipe = self.r.pipeline(transaction=False)   # one round trip when nothing is new (most turn emails)
        pipe.hget(key(game_id, "talkmail"), str(seat))
        pipe.xrevrange(self._thread(game_id), "+", "-", count=1)
        told_raw, last = pipe.execute()
        told = int(told_raw or 0)
        if not last or self._rows_from(last)[0]["n"] <= told:
            return [], told
        rows = self._rows(game_id, told, KEEP)
        if not rows:
            return [], told
        muted = self.muted(game_id, seat)
        shown = [self._public(meta, seat, m) for m in rows
                 if m["s"] != seat and not _mutes(muted, seat, m["s"])]
        return shown, rows[-1]["n"]

    def email_wait(self, game_id: str, seat: int, setting: str) -> float | None:
        """Whether the seat may get one more message email from this game now: None (and it is
        counted), or when it may again. :data:`EMAILS_PER_DAY` a day; one for an address whose
        setting is the daily ``digest``."""
        k = key(game_id, f"talkmails:{seat}")
        allowed = 1 if setting == "digest" else EMAILS_PER_DAY
        used = int(self.r.get(k) or 0)
        if used >= allowed:
            ttl = self.r.ttl(k)
            return self.clock() + (ttl if ttl and ttl > 0 else 86400)
        if self.r.incr(k) == 1:
            self.r.expire(k, 86400)
        return None

    def mark_told(self, game_id: str, seat: int, upto: int) -> None:
        """The seat's emails told the messages up to ``upto`` (never back)."""
        self.r.eval("local c = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') "
                    "if tonumber(ARGV[2]) > c then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end "
                    "return 1",
                    1, key(game_id, "talkmail"), str(seat), str(upto))

    def talk_address_sent(self, game_id: str, seat: int, upto: int) -> None:
        """The seat's message email that tells the messages up to ``upto`` goes out: its talk address
        (number ``upto``) is the current one, the older ones expire (never back)."""
        self.r.eval("local c = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') "
                    "if tonumber(ARGV[2]) > c then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end "
                    "return 1",
                    1, key(game_id, "talkaddr"), str(seat), str(upto))

    def talk_address(self, game_id: str, seat: int) -> int | None:
        """The number of the seat's current talk address (None: no message email went to it)."""
        raw = self.r.hget(key(game_id, "talkaddr"), str(seat))
        return int(raw) if raw else None

    def due(self, now: float | None = None, limit: int = 200) -> list[str]:
        now = self.clock() if now is None else now
        return [g.decode() for g in self.r.zrangebyscore(DUE, "-inf", now, start=0, num=limit)]

    def done(self, game_id: str, since: float) -> None:
        """The game's message emails are sent: it leaves the index unless a message came after
        ``since`` (then it is due again later)."""
        self.r.zrem(DUE, game_id)
        last = self._rows_last(game_id)
        if last is not None and last["at"] > since:
            self.r.zadd(DUE, {game_id: last["at"] + self.email_delay})

    def _rows_last(self, game_id: str) -> dict | None:
        raw = self.r.xrevrange(self._thread(game_id), "+", "-", count=1)
        return self._rows_from(raw)[0] if raw else None

    def last_id(self, game_id: str) -> int:
        last = self._rows_last(game_id)
        return last["n"] if last else 0


def _mutes(muted: dict, reader: int, author: int) -> bool:
    return author != reader and (muted["all"] or author in muted["seats"])


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
