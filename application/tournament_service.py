"""The tournament application service: create, enter, withdraw, and advance (docs/tournaments.md,
"Running a tournament").

A tournament is an event stream (:mod:`application.tournament_store`) folded by the pure
:mod:`tournaments.model`. :meth:`TournamentService.advance` is the one place that moves a
tournament on: it pairs a round, starts its games, records finished games, closes the round
(or adjudicates it at its deadline) and finishes the tournament. It is idempotent and safe to
call from anywhere at any time (the API, the game-over task, the beat sweep): it runs under a
per-tournament lock, every step is an append at the expected version, and a round's games have
fixed ids (``<tournament>r<round>t<table>``), so a step cut short by a crash is redone without
creating a game twice.
"""
from __future__ import annotations

import base64
import builtins
import hashlib
import hmac
import json
import logging
import secrets
import time

import games as hosted
from games.setup import OptionError
from tablepost import i18n
from tournaments.model import FORMATS, Tournament, adjudicated_places, fold

from . import errors, links
from .clock import make_clock
from .deadline_store import SEAT_STATE
from .deadlines import Deadlines
from .time_control import check_deadline_options
from .names import check_name
from .players import player_id, remember_name
from .resigned import final_places, resigned_of
from .game_service import GameExists, GameService, token_hash
from .queues import EMAIL
from .store import Conflict
from .tournament_store import TournamentStore, key

log = logging.getLogger("tablepost.tournaments")
MAX_STEPS = 64
ENTRY_ASK_TASK = "workers.tournament_entry_ask"   # the email answering an entry asked by invitation
ENTRY_ASK_SECONDS = 7 * 24 * 3600   # how long the link confirming such an entry works


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of a secret a client sent with the expected one. Compares bytes:
    ``secrets.compare_digest`` refuses str with non-ASCII characters (a TypeError, so a 500)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"),
                               expected.encode("utf-8", "surrogatepass"))


def new_id() -> str:
    return "T" + secrets.token_urlsafe(8).replace("-", "x").replace("_", "y")


def game_of(t: Tournament) -> hosted.Game:
    """The game a tournament is of (Tiletum for those created before tournaments named one)."""
    return hosted.get(t.definition.get("game") or hosted.DEFAULT)


def tournament_options(game: hosted.Game, given: dict) -> dict:
    """The options of ``game``'s own that a tournament sets for all its games (those the game
    declares with ``tournament``: given, else their defaults), checked; one the game does not take,
    or does not let a tournament set, is refused (``bad-tournament``)."""
    settable = {o.name: o for o in game.options if o.tournament}
    others = {o.name for g in hosted.GAMES.values() for o in g.options if o.tournament}
    for name in sorted(others - set(settable)):
        if given.get(name) is not None:
            owners = ", ".join(g.title for g in hosted.GAMES.values() if name in g.own_options)
            raise errors.invalid("bad-tournament",
                                 errors.said("{name} is an option of {owners}, not of {game}",
                                             name=name, owners=owners, game=game.title))
    out = {}
    for name, o in settable.items():
        value = given.get(name, o.default)
        if value is None:
            continue
        try:
            out[name] = o.check(value)
        except OptionError as e:
            raise errors.invalid("bad-tournament", e.args[0]) from None   # (a Said: translatable)
    return out



def check_language(language: str | None) -> None:
    """An entrant's language for their games' emails (docs/i18n.md): one the service speaks."""
    if language is not None and not i18n.supported(language):
        raise errors.invalid("bad-language",
                             errors.said("{lang} is not a language of the service ({langs})",
                                         lang=repr(language), langs=", ".join(i18n.LANGUAGES)))

class TournamentService:
    def __init__(self, games: GameService, clock=None, send=None):
        self.games = games
        self.send = send  # Dispatcher.send: enqueue a task by name (None: no broker)
        self.store = TournamentStore(games.store.r)
        self.r = games.store.r
        self.clock = clock or make_clock(self.r)  # the deadlines' clock (TABLEPOST_TEST_CLOCK shifts it)

    # --- secrets derived from the tournament's own secret ------------------------------------
    def _derive(self, tid: str, purpose: str) -> str:
        mac = hmac.new(self.store.secret(tid).encode(), purpose.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:18]).decode()

    def entry_token(self, tid: str, email: str) -> str:
        return self._derive(tid, "entry:" + email)

    def invite_code(self, tid: str) -> str:
        return self._derive(tid, "invite")

    def seat_token(self, tid: str, game_id: str, seat: int) -> str:
        return self._derive(tid, f"seat:{game_id}:{seat}")

    # --- reading ------------------------------------------------------------------------------
    def load(self, tid: str) -> Tournament:
        events = self.store.events(tid)
        if events is None:
            raise errors.missing("tournament-not-found", errors.said("no tournament {id}", id=repr(tid)))
        return fold(tid, events)

    def view(self, tid: str) -> dict:
        t = self.load(tid)
        pid = self._pids(t)
        d = t.definition
        return {
            "id": tid, "name": d["name"], "game": game_of(t).name, "format": t.format,
            "table_size": t.table_size, "rounds_planned": t.planned_rounds(), "status": t.status,
            "rated": d["rated"], "start_at": d.get("start_at"), "round_days": d.get("round_days"),
            "time_control": d.get("time_control"), "timeout": d.get("timeout"),
            "invitations": d["invite"], "version": t.version,
            "players": [{"player": pid[p], "name": t.entrants[p], "withdrawn": p in t.withdrawn}
                        for p in t.entrants],
            "rounds": [{"round": r.number, "closed": r.closed, "started": r.started, "deadline": r.deadline,
                        "byes": [pid[p] for p in r.byes],
                        "tables": [{"table": tb.table, "game": tb.game,
                                    "players": [pid[p] for p in tb.players],
                                    "result": self._public_result(tb.result, pid)} for tb in r.tables]}
                       for r in t.rounds],
        }

    def standings(self, tid: str) -> dict:
        t = self.load(tid)
        pid = self._pids(t)
        rows = t.standings()
        for row in rows:
            row["player"] = pid[row["player"]]
        return {"id": tid, "format": t.format, "status": t.status,
                "rounds_played": sum(r.closed for r in t.rounds), "standings": rows}

    def list(self, offset: int = 0, limit: int = 50) -> list[dict]:
        out = []
        for tid in self.store.ids(offset, limit):
            t = self.load(tid)
            out.append({"id": tid, "name": t.definition["name"], "game": game_of(t).name, "format": t.format,
                        "status": t.status,
                        "players": len(t.entrants), "rounds_played": sum(r.closed for r in t.rounds)})
        return out

    def _pids(self, t: Tournament) -> dict[str, str]:
        return {p: player_id(self.r, p) for p in t.entrants}

    @staticmethod
    def _public_result(res: dict | None, pid: dict[str, str]) -> dict | None:
        if res is None:
            return None
        return {"scores": res["scores"], "finish": res["finish"], "adjudicated": res["adjudicated"],
                "forfeits": [pid[p] for p in res["forfeits"]]}

    # --- who is asking --------------------------------------------------------------------------
    def _organizer(self, t: Tournament, token: str | None) -> bool:
        return token is not None and same_secret(token_hash(token), t.organizer)

    def _entrant(self, t: Tournament, token: str | None) -> str | None:
        if token is None:
            return None
        for p in t.entrants:
            if same_secret(token, self.entry_token(t.id, p)):
                return p
        return None

    # --- creating and entering ------------------------------------------------------------------
    def create(self, body: dict) -> dict:
        d = dict(body)
        # the name is in every email of the tournament (subjects too) and on its pages: never a link
        check_name(d.get("name"), "tournament name")
        if d["format"] not in FORMATS:
            raise errors.invalid("bad-tournament", errors.said("format must be one of {formats}",
                                                                   formats=", ".join(FORMATS)))
        if d["format"] == "swiss" and not d.get("rounds"):
            raise errors.invalid("bad-tournament", "a Swiss tournament needs its number of rounds")
        if d.get("seed") is not None and not self.games.allow_seeded_games:
            raise errors.invalid("seeded-games-disabled",
                                    "seed is honoured only on a server run with --allow-seeded-games")
        try:
            game = hosted.get(d.get("game") or hosted.DEFAULT)
        except hosted.UnknownGame as e:
            raise errors.invalid("bad-tournament", e.args[0]) from None   # (a Said: translatable)
        if not game.min_players <= d["table_size"] <= game.max_players:
            raise errors.invalid("bad-tournament", errors.said(
                "a game of {game} seats {min} to {max} players: table_size {size} is not one",
                game=game.title, min=game.min_players, max=game.max_players, size=d["table_size"]))
        own = tournament_options(game, d)   # the game's own options it sets for every game
        check_deadline_options(d)   # every game of the tournament takes them: refused now, not at round 1
        entries = d.pop("entries", None) or []
        for entry in entries:
            check_name(entry.get("name"))   # an entrant's name is shown to the others: never a link
            check_language(entry.get("language"))
        emails = [e["email"].strip().lower() for e in entries]
        if len(set(emails)) != len(emails):
            raise errors.invalid("duplicate-entry", "an email address is entered twice")
        organizer = secrets.token_urlsafe(24)
        now = self.clock()
        definition = {"name": d["name"], "game": game.name, "format": d["format"], "rounds": d.get("rounds"),
                      "table_size": d["table_size"], "time_control": d.get("time_control"),
                      "timeout": d.get("timeout"), "start_at": d.get("start_at"),
                      "round_days": d.get("round_days"),
                      "invite": bool(d.get("invite")), "rated": d.get("rated", True), "seed": d.get("seed"),
                      **own}
        first = {"type": "TournamentCreated", "definition": definition, "organizer": token_hash(organizer),
                 "at": now}
        for _ in range(5):
            tid = new_id()
            if self.store.create(tid, first, secrets.token_hex(32)):
                break
        else:  # pragma: no cover
            raise errors.failed("id-collision", "could not allocate a tournament id")
        if entries:
            self.store.append(
                tid, 1, [self._entered(e["name"], email, "list", e.get("language"))
                         for e, email in zip(entries, emails)])
        out = {"id": tid, "organizer_token": organizer, "status": "open",
               "players": [{"player": player_id(self.r, e), "name": n["name"]} for e,
                           n in zip(emails, entries)]}
        if definition["invite"]:
            out["invite_code"] = self.invite_code(tid)
        if entries:
            self._welcome(tid)
        self.advance(tid)  # a start date already passed: start now
        return out

    def _entered(self, name: str, email: str, via: str, language: str | None = None) -> dict:
        remember_name(self.r, player_id(self.r, email), name)
        return {"type": "PlayerEntered", "player": email, "name": name, "via": via, "at": self.clock(),
                **({"language": language} if language else {})}

    def enter(self, tid: str, token: str | None, body: dict) -> dict:
        """The organizer enters a player (their token: the entry and its token at once), or anyone
        with the invitation code asks to enter an address: then the answer is the same for any
        address (``{"tournament", "status": "pending", "emailed"}``: whether the address is entered
        already is for its owner alone, issue 39) and the address's owner gets an email
        (``workers.tournament_entry_ask``): a link that confirms the entry (:meth:`confirm_entry`),
        or, when the address is entered already, its private page again."""
        t = self.load(tid)
        email = body["email"].strip().lower()
        check_name(body.get("name"))
        check_language(body.get("language"))
        organizer = self._organizer(t, token)
        if not organizer:
            code = body.get("invite")
            if not t.definition["invite"] or not code or not same_secret(code, self.invite_code(tid)):
                raise errors.forbidden("bad-invitation",
                                        "entering needs the tournament's invitation code (or the organizer's "
                                        "token)")
        if t.status != "open":
            raise errors.refused("entries-closed", "the tournament has started: entries are closed")
        if not organizer:
            nonce = secrets.token_urlsafe(12)
            self.r.set(key(tid, f"entry-ask:{nonce}"),
                       json.dumps({"name": body["name"], "email": email, "at": self.clock(),
                                   **({"language": body["language"]} if body.get("language") else {})}),
                       ex=ENTRY_ASK_SECONDS)
            emailed = self.send is not None and self.send(ENTRY_ASK_TASK, [tid, nonce], EMAIL)
            return {"tournament": tid, "status": "pending", "emailed": bool(emailed)}
        if email in t.entrants:   # the organizer's own tournament: told to the organizer only
            raise errors.refused("already-entered", "this email address is entered already")
        return self._enter(tid, t, body["name"], email, "list", body.get("language"))

    def _enter(self, tid: str, t: Tournament, name: str, email: str, via: str,
               language: str | None = None) -> dict:
        try:
            self.store.append(tid, t.version, [self._entered(name, email, via, language)])
        except Conflict:
            raise errors.refused("version-conflict", "the tournament changed meanwhile; try again") from None
        if via == "list":
            self._welcome(tid)  # entered by the organizer: the player learns it by email
        return {"player": player_id(self.r, email), "name": name, "entry_token": self.entry_token(tid, email)}

    def entry_ask(self, tid: str, nonce: str) -> dict | None:
        """An entry asked for with the invitation code and not yet confirmed (for its email)."""
        raw = self.r.get(key(tid, f"entry-ask:{nonce}"))
        return json.loads(raw) if raw else None

    def confirm_token(self, tid: str, nonce: str) -> str:
        """The secret of the link that confirms the entry asked for as ``nonce`` (emailed only)."""
        return f"{nonce}.{self._derive(tid, 'entry-ask:' + nonce)}"

    def confirm_entry(self, tid: str, token: str) -> dict:
        """The link emailed to an address asked to enter was opened: its owner is entered (once;
        an owner entered meanwhile gets the entry as it is), with the name asked for."""
        nonce, _, mac = token.partition(".")
        t = self.load(tid)
        ask = self.entry_ask(tid, nonce) if nonce and mac else None
        if ask is None or not same_secret(mac, self._derive(tid, "entry-ask:" + nonce)):
            raise errors.invalid("bad-entry-link", "this entry link is not valid (or it expired): ask to "
                                                   "enter "
                                                   "again with the invitation link")
        email = ask["email"]
        if email in t.entrants:
            self.r.delete(key(tid, f"entry-ask:{nonce}"))
            return {"player": player_id(self.r, email), "name": t.entrants[email],
                    "entry_token": self.entry_token(tid, email)}
        if t.status != "open":
            raise errors.refused("entries-closed", "the tournament has started: entries are closed")
        out = self._enter(tid, t, ask["name"], email, "invite", ask.get("language"))
        self.r.delete(key(tid, f"entry-ask:{nonce}"))
        return out

    def _welcome(self, tid: str) -> None:
        if self.send is not None:
            self.send("workers.tournament_welcome", [tid], EMAIL)

    def my_games(self, tid: str, token: str | None) -> dict:
        """An entrant's games with their seat tokens (the entry token is the credential)."""
        t = self.load(tid)
        me = self._entrant(t, token)
        if me is None:
            raise errors.unauthorized("use 'Authorization: Bearer <entry token>'")
        games = []
        for tb in t.games_of(me):
            if tb.game is None:
                continue
            seat = tb.players.index(me)
            token = self.seat_token(tid, tb.game, seat)
            meta = self.games.store.meta(tb.game)
            if meta is not None and meta["seats"][seat].get("token_hash") != token_hash(token):
                # the seat token was re-issued: its link token
                token = links.seat_token(self.r, tb.game, seat)
            games.append({"round": tb.round, "table": tb.table, "game": tb.game, "seat": seat,
                          "token": token, "finished": tb.result is not None})
        return {"player": player_id(self.r, me), "withdrawn": me in t.withdrawn, "games": games}

    def withdraw(self, tid: str, token: str | None, who: str | None = None) -> dict:
        """A player withdraws (their entry token), or the organizer withdraws a player (by public
        id). Their unfinished games go to the stand-in; later rounds are paired without them."""
        t = self.load(tid)
        if self._organizer(t, token) and who is not None:
            pid = self._pids(t)
            player = next((p for p in t.entrants if pid[p] == who), None)
            if player is None:
                raise errors.missing("player-not-found", "no such player in this tournament")
            by = "organizer"
        else:
            player = self._entrant(t, token)
            if player is None:
                raise errors.unauthorized("use your entry token (or the organizer's token and a player id)")
            by = "player"
        if player in t.withdrawn:
            raise errors.refused("already-withdrawn", "this player has withdrawn already")
        if t.status == "finished":
            raise errors.refused("tournament-finished", "the tournament is over")
        self._withdraw(tid, player, by)
        return {"player": player_id(self.r, player), "withdrawn": True}

    def _withdraw(self, tid: str, player: str, by: str) -> None:
        self.advance(tid)  # results of games that ended before the withdrawal count as played
        for _ in range(5):
            t = self.load(tid)
            try:
                self.store.append(tid, t.version, [{"type": "PlayerWithdrawn", "player": player, "by": by,
                                                    "at": self.clock()}])
                break
            except Conflict:
                continue
        else:  # pragma: no cover
            raise errors.refused("version-conflict", "the tournament is busy; try again")
        for tb in t.games_of(player):
            if tb.game is not None and tb.result is None:
                self._drop_seat(tb.game, tb.players.index(player))
        self.advance(tid)

    # --- an entrant deletes their account -----------------------------------------------------
    def forget_entrant(self, email: str, name: str) -> int:
        """The account of ``email`` is deleted (application/accounts.py): in every tournament it
        entered, a tournament not yet over withdraws it first (its games go to the stand-in, as for
        any withdrawal), then the address is replaced everywhere in the tournament's stream by a
        placeholder of its own (``former-player-<random>``, shown as ``name``), the whole stream at
        once. Points and places stay with the placeholder. Each tournament is done in one step, so a
        deletion cut short is finished by running it again. Returns how many tournaments it was in."""
        email = email.strip().lower()
        n = 0
        for tid in self.store.all_ids():
            events = self.store.events(tid) or []
            if not any(ev.get("type") == "PlayerEntered" and ev.get("player") == email for ev in events):
                continue
            t = fold(tid, events)
            if t.status != "finished" and email not in t.withdrawn:
                self._withdraw(tid, email, "player")
            self._rename(tid, email, name)
            n += 1
        return n

    def forget_asks(self, email: str) -> int:
        """The account of ``email`` is deleted: the entries asked for it with the invitation code
        and not confirmed (``t:{<id>}:entry-ask:<nonce>``, which keep the address for their email
        until they expire) are deleted, so their links confirm nothing. Found by a scan: an account
        is deleted rarely. Returns how many went."""
        email = email.strip().lower()
        gone = 0
        for k in list(self.r.scan_iter(match="t:{*}:entry-ask:*", count=500)):
            raw = self.r.get(k)
            try:
                asked = str(json.loads(raw).get("email") or "") if raw else ""
            except ValueError:
                continue
            if asked.strip().lower() == email:
                gone += self.r.delete(k)
        return gone

    def _rename(self, tid: str, email: str, name: str) -> None:
        placeholder = "former-player-" + secrets.token_hex(8)
        deadline = time.monotonic() + self.lock_wait
        busy = errors.N_("a tournament you entered is busy right now: try again in a minute "
                         "(nothing was lost)")
        while True:
            lock = self._lock_by(tid, deadline, busy)   # no advance reads the old stream and appends after it
            try:
                events = self.store.events(tid) or []
                if self.store.rewrite(tid, lock, len(events), [_renamed(ev, email, placeholder, name)
                                                               for ev in events]):
                    return
            finally:
                self.store.unlock(tid, lock)
            if time.monotonic() > deadline:   # an event was added meanwhile, again and again
                raise errors.refused("tournament-busy", busy)

    def _lock_by(self, tid: str, deadline: float, busy: str) -> str:
        """The tournament's lock, waiting for another process that holds it until ``deadline``
        (``time.monotonic()``), then 409 ``tournament-busy`` with the words ``busy``."""
        while (lock := self.store.lock(tid)) is None:
            if time.monotonic() >= deadline:
                raise errors.refused("tournament-busy", busy)
            time.sleep(0.05)
        return lock

    def _drop_seat(self, game_id: str, seat: int) -> None:
        dl = Deadlines(self.games, None, make_clock(self.r))
        dl.drop(game_id, seat)
        try:
            dl.stand_in_later(game_id, seat)  # if it is that seat's decision now
        except Exception:  # the seat moved meanwhile: its next turn email finds it dropped
            log.warning("stand-in for withdrawn seat %s of %s did not move now", seat, game_id, exc_info=True)

    def start(self, tid: str, token: str | None) -> dict:
        t = self.load(tid)
        if not self._organizer(t, token):
            raise errors.unauthorized("starting a tournament needs the organizer's token")
        if t.status != "open":
            raise errors.refused("already-started", "the tournament has started already")
        if len(t.active) < 2:
            raise errors.refused("too-few-players", "a tournament needs at least 2 players")
        # The start waits for the tournament's lock (the sweep holds it a moment now and then): an
        # advance that found it taken would do nothing, and the tournament would stay open.
        lock = self._lock_by(tid, time.monotonic() + self.lock_wait,
                             "the tournament is busy right now: try again in a minute (nothing was changed)")
        self._advance_locked(tid, lock, start=True)
        return self.view(tid)

    # --- moving on ------------------------------------------------------------------------------
    lock_wait = 10.0   # seconds a request waits for a tournament another process is advancing

    def advance(self, tid: str, start: bool = False) -> int:
        """Do every step that is due now; returns how many events were appended (0 when nothing
        was due, or another process holds the tournament's lock and is doing it)."""
        lock = self.store.lock(tid)
        if lock is None:
            return 0
        return self._advance_locked(tid, lock, start)

    def _advance_locked(self, tid: str, lock: str, start: bool) -> int:
        appended = 0
        try:
            for _ in range(MAX_STEPS):
                t = self.load(tid)
                events = self._step(t, start)
                if not events:
                    break
                try:
                    self.store.append(tid, t.version, events)
                except Conflict:
                    continue  # an entry or withdrawal landed meanwhile: look again
                appended += len(events)
            if t.finished is not None:
                self.store.finished(tid)
        finally:
            self.store.unlock(tid, lock)
        return appended

    def sweep(self) -> int:
        """Advance every running tournament (start dates, round deadlines, missed game ends)."""
        n = 0
        for tid in self.store.running():
            try:
                n += self.advance(tid)
            except Exception:
                log.exception("advancing tournament %s failed; the next sweep tries again", tid)
        return n

    def _step(self, t: Tournament, start: bool) -> builtins.list[dict]:
        now = self.clock()
        if t.finished is not None:
            return []
        if t.status == "open":
            due = start or (t.definition.get("start_at") is not None and now >= t.definition["start_at"])
            return self._pair(t, now) if due and len(t.active) >= 2 else []
        r = t.current
        if r is None:
            if t.complete():
                return [{"type": "TournamentFinished", "at": now}]
            return self._pair(t, now)
        missing = [tb for tb in r.tables if tb.game is None]
        if missing:
            return [self._start_game(t, tb) for tb in missing]
        results = [ev for tb in r.tables if tb.result is None for ev in self._result_if_over(t, tb)]
        if results:
            return results
        if t.round_finished():
            return [{"type": "RoundClosed", "round": r.number, "at": now}]
        if r.deadline is not None and now >= r.deadline:
            return [self._adjudicate(t, tb) for tb in r.tables if tb.result is None] + \
                   [{"type": "RoundClosed", "round": r.number, "at": now}]
        return []

    def _pair(self, t: Tournament, now: float) -> builtins.list[dict]:
        n = len(t.rounds) + 1
        tables, byes = t.next_round(rng_seed=f"{t.id}:{n}")
        days = t.definition.get("round_days")
        return [{"type": "RoundPaired", "round": n, "tables": tables, "byes": byes, "at": now,
                 "deadline": now + days * 86400 if days else None}]

    def _start_game(self, t: Tournament, tb) -> dict:
        game_id = f"{t.id}r{tb.round}t{tb.table}"
        d = t.definition
        game = game_of(t)
        options = {k: d[k] for k in ("time_control", "timeout") if d.get(k)}
        # the game's own options the tournament set (kept in its definition under their names)
        options.update({o.name: d[o.name] for o in game.options
                        if o.tournament and d.get(o.name) is not None})
        options["rated"] = d["rated"]
        seats = [{"name": t.entrants[p], "email": p,
                  **({"language": t.languages[p]} if p in t.languages else {})} for p in tb.players]
        tokens: list[str | None] = [self.seat_token(t.id, game_id, i) for i in range(len(seats))]
        seed = f"{d['seed']}:{tb.round}:{tb.table}" if d.get("seed") is not None else None
        try:
            self.games.create_game(seats, options, game_id=game_id, tokens=tokens, seed=seed, game=game.name,
                                   extra_meta={"tournament": {"id": t.id, "round": tb.round,
                                                              "table": tb.table}})
        except GameExists:
            pass  # created before a crash cut the step short: it is the same game
        return {"type": "GameStarted", "round": tb.round, "table": tb.table, "game": game_id}

    def _seats_dropped(self, game_id: str, n: int) -> builtins.list[int]:
        raw = self.r.hmget(SEAT_STATE.key(game_id), [f"{game_id}:{i}" for i in range(n)])
        return [i for i, v in enumerate(raw) if v and json.loads(v).get("dropped")]

    def _result_if_over(self, t: Tournament, tb) -> builtins.list[dict]:
        meta, state = self.games.load(tb.game)
        game = hosted.of_meta(meta)
        if not game.is_over(state):
            return []
        # the places by the game's own tie-break (Tiletum's: earlier in the final turn order; none in
        # Carcassonne: tied seats share the place); the seats that resigned last
        places = final_places(game.places(state), resigned_of(self.games.store.events(tb.game)))
        return [self._result(t, tb, game.scores(state), places, adjudicated=False)]

    def _adjudicate(self, t: Tournament, tb) -> dict:
        meta, state = self.games.load(tb.game)
        scores = hosted.of_meta(meta).scores(state)
        return self._result(t, tb, scores, adjudicated_places(scores), adjudicated=True)

    def _result(self, t: Tournament, tb, scores: builtins.list[int], finish: builtins.list[int],
                adjudicated: bool) -> dict:
        dropped = self._seats_dropped(tb.game, len(tb.players))
        return {"type": "GameResult", "round": tb.round, "table": tb.table, "game": tb.game,
                "players": list(tb.players), "scores": scores, "finish": finish,
                "forfeits": [p for p in tb.players if p in t.withdrawn],
                "dropped": [tb.players[i] for i in dropped], "adjudicated": adjudicated}


def _renamed(ev, email: str, placeholder: str, name: str):
    """An event with every value ``email`` replaced by ``placeholder``, and the name it entered
    under by ``name``."""
    if isinstance(ev, dict):
        out = {k: _renamed(v, email, placeholder, name) for k, v in ev.items()}
        if ev.get("type") == "PlayerEntered" and ev.get("player") == email:
            out["name"] = name
        return out
    if isinstance(ev, list):
        return [_renamed(v, email, placeholder, name) for v in ev]
    return placeholder if ev == email else ev
