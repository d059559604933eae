"""The player dashboard (docs/pbem.md, "Your dashboard"): every email address that plays sees
its games, its email setting and its vacation at ``/me#key=<dashboard key>``.

Redis:

| key | type | what |
|---|---|---|
| ``me:games:<player id>`` | zset | ``<game>:<seat>`` -> creation time: every seat this address was given |
| ``me:email`` | hash | player id -> the lower-cased address (never shown; for the email setting) |
| ``me:results`` | hash | game id -> the result of a finished game (finished games never change) |
| ``me:told`` | set | addresses already sent their dashboard link |
| ``me:undeliverable:<player id>`` | list | emails to this address the outbox gave up on (JSON, newest first) |
| ``games:active`` (sharded) | zset | game id -> creation time, while the game is in progress: the home page's list |
| ``me:verified:<player id>`` | string | when the address first proved it reads our email (see below) |

**Verified addresses.** Anyone may type any address into a seat or a bot account, so an address
is *verified* only once it has acted on an email the service sent it: its dashboard key (which
only ever travels by email) was used, or a reply from it was played (the signed reply address
is in the emails to it, and the reply's sender must be the seat's address). Emails that no game
needs and that quote what a stranger typed (a webhook switched off) go to verified addresses
only (:func:`is_verified`).

``index_game`` runs in :meth:`GameService.create_game` (every path: the API, tournaments), so a
game is on its players' dashboards from its creation. The dashboard key is the only credential
(:mod:`application.links`); it names the player by their opaque id, never by address.
"""  # noqa: E501  (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import json
import time

import games

from . import consent, errors, links, waiting as lobby
from .clock import iso, make_clock  # noqa: F401 (iso re-exported)
from .deadlines import Deadlines
from .time_control import time_control
from .notifications import (delay_minutes, language, preference, set_delay_minutes, set_language,
                            set_preference, set_time_zone, time_zone)
from .players import player_id
from .resigned import final_places, resigned_of
from .seats import seat_names

from .indexes import ACTIVE, ME_EMAIL, ME_RESULTS, TOLD, hmget  # noqa: F401 (re-exported; sharded hashes and set)


UNDELIVERABLE = "me:undeliverable:"
UNDELIVERABLE_KEPT = 20


def record_undeliverable(r, email: str, item: dict) -> None:
    """Remember an email to ``email`` that could not be delivered (mail/outbox.py gave up on it):
    ``item`` has its ``subject``, ``queued`` and ``given_up`` times and the ``reason``."""
    key = UNDELIVERABLE + player_id(r, email)
    r.lpush(key, json.dumps(item))
    r.ltrim(key, 0, UNDELIVERABLE_KEPT - 1)


def undeliverable_of(r, pid: str) -> list[dict]:
    out = []
    for raw in r.lrange(UNDELIVERABLE + pid, 0, -1):
        item = json.loads(raw)
        out.append({"subject": item.get("subject") or "", "queued_at": iso(item.get("queued")),
                    "given_up_at": iso(item.get("given_up")), "reason": item.get("reason") or ""})
    return out


def games_key(pid: str) -> str:
    return f"me:games:{pid}"


def index_game(r, game_id: str, meta: dict) -> None:
    """Put the game on the dashboard of each human seat's email address, and on the list of games
    in progress (``GameService.public_games``, which drops it once it is over) unless it is
    private (``options.private``: listed nowhere); idempotent."""
    pipe = r.pipeline(transaction=False)  # keys of other slots: idempotent writes, no transaction
    created = meta.get("created") or time.time()
    if not (meta.get("options") or {}).get("private"):
        pipe.zadd(ACTIVE.key(game_id), {game_id: created}, nx=True)
    for seat, s in enumerate(meta["seats"]):
        if s.get("kind", "human") != "human" or not s.get("email"):
            continue
        email = s["email"].strip().lower()
        pid = player_id(r, email)
        pipe.hset(ME_EMAIL.key(pid), pid, email)
        pipe.zadd(games_key(pid), {f"{game_id}:{seat}": created}, nx=True)
    pipe.execute()


def reindex(r) -> int:
    """Index every stored game (``tablepost index-dashboards``: games created before the index
    existed). Idempotent; returns the number of games seen."""
    n = 0
    for mkey in r.scan_iter(match="g:{*}:meta", count=500):
        raw = r.get(mkey)
        if raw is None:
            continue
        game_id = mkey.decode()[len("g:{"):-len("}:meta")]
        index_game(r, game_id, json.loads(raw))
        n += 1
    return n


# an address is verified once it acted on our email: it accepted it (application/consent.py)
from .consent import VERIFIED, is_verified, mark_verified  # noqa: E402,F401 (re-exported)


def remember_address(r, email: str) -> None:
    """Make the address's dashboard key valid before it has a game (a tournament welcome)."""
    email = email.strip().lower()
    pid = player_id(r, email)
    r.hset(ME_EMAIL.key(pid), pid, email)


def dashboard_key_for(r, email: str, generation: int | None = None) -> str:
    return links.dashboard_key(r, player_id(r, email), generation)


def play_path(r, game_id: str, seat: int, generation: int | None = None) -> str:
    """The game page opened as the seat: the link token in the fragment, never in the query."""
    return f"/play/{game_id}#token={links.seat_token(r, game_id, seat, generation)}"




def bad_key():
    return errors.unauthorized("this dashboard key is not valid: open the link from your email again")


class Dashboard:
    def __init__(self, games, clock=None):
        self.games = games
        self.r = games.store.r
        self.clock = clock or make_clock(self.r)

    def deadlines(self):
        return Deadlines(self.games, None, self.clock)

    # --- who --------------------------------------------------------------------------------
    def player(self, key: str | None) -> tuple[str, str]:
        """(player id, email) of a dashboard key; 401 for none or a bad one."""
        if key is None:
            raise errors.unauthorized("a dashboard key is required: send 'Authorization: Bearer <key>'")
        pid = links.player_of_key(self.r, key)
        if pid is None:
            raise bad_key()
        email = self.r.hget(ME_EMAIL.key(pid), pid)
        if email is None:  # a key made with this secret for an address that never played
            raise bad_key()
        mark_verified(self.r, pid=pid)  # the key only ever travels by email: the address reads ours
        return pid, email.decode()

    def _seats(self, pid: str) -> dict[str, list[int]]:
        """This player's seats by game, newest game first."""
        out: dict[str, list[int]] = {}
        for member in self.r.zrevrange(games_key(pid), 0, -1):
            game_id, seat = member.decode().rsplit(":", 1)
            out.setdefault(game_id, []).append(int(seat))
        for seats in out.values():
            seats.sort()
        return out

    # --- the games ----------------------------------------------------------------------------
    def games_of(self, key: str | None, lang: str | None = None) -> dict:
        """The games of the dashboard key's address; each game's ``progress`` in ``lang`` where the
        game speaks it (``games.in_language``)."""
        pid, email = self.player(key)
        to_move: list[tuple[float | None, dict]] = []   # (deadline, game)
        waiting: list[tuple[float | None, dict]] = []
        finished: list[dict] = []
        deadlines = self.deadlines()
        cached = self._cached_results(pid)
        for game_id, seats in self._seats(pid).items():
            if game_id in cached:
                finished.append(self._finished_item(game_id, seats, cached[game_id]))
                continue
            try:
                meta, state = self.games.load(game_id)
            except errors.ServiceError:
                continue  # a game that is gone
            names = seat_names(meta)
            game = games.of_meta(meta)
            if game.is_over(state):
                result = self._result(meta, state, resigned_of(self.games.store.events(game_id)))
                self.r.hset(ME_RESULTS.key(game_id), game_id, json.dumps(result))
                finished.append(self._finished_item(game_id, seats, result))
                continue
            actor = game.actor(state)
            mine = actor if actor in seats else seats[0]
            due = deadlines.deadline_of(game_id, actor) if actor is not None else None
            item = {
                "game": game_id, "game_name": game.name, "seat": mine, "name": names[mine],
                "opponents": [n for i, n in enumerate(names) if i not in seats],
                "round": game.round(state), "progress": game.progress(state, **games.in_language(game, lang)),
                "phase": game.phase(state),
                "version": state.version, "to_act": [] if actor is None else [actor],
                "to_act_names": [] if actor is None else [names[actor]],
                "deadline": iso(due),
                "on_vacation": deadlines.seat_state(game_id, mine)["vacation_since"] is not None,
                "tournament": (meta.get("tournament") or {}).get("id"),
                "play_url": play_path(self.r, game_id, mine),
            }
            (to_move if actor in seats else waiting).append((due, item))
        far = float("inf")
        to_move.sort(key=lambda x: (x[0] if x[0] is not None else far))
        return {"player": pid,
                "to_move": [i for _, i in to_move], "waiting": [i for _, i in waiting], "finished": finished,
                "not_started": self._not_started(pid, email), "undeliverable": undeliverable_of(self.r, pid),
                "held": consent.held_of(self.r, pid)}

    def _not_started(self, pid: str, email: str) -> list[dict]:
        """The games waiting for players (docs/lobby.md) that seat this address, newest first. An
        entry of a game that started, was cancelled or no longer seats the address is dropped (a
        started game is among the others now)."""
        email = email.strip().lower()
        out, stale = [], []
        for member in self.r.zrevrange(lobby.player_key(pid), 0, -1):
            game_id = member.decode()
            doc = lobby.load(self.r, game_id)
            seats = [] if doc is None or doc["status"] != lobby.WAITING else [
                i for i, s in enumerate(doc["seats"])
                if s["kind"] == "human" and (s.get("email") or "").strip().lower() == email]
            if doc is None or not seats:
                stale.append(game_id)
                continue
            out.append({"game": game_id, "game_name": doc["game"], "seat": seats[0],
                        "name": doc["seats"][seats[0]]["name"],
                        "players": doc["players"], "open_seats": len(lobby.open_seats(doc)),
                        "seats_taken": lobby.taken_names(doc), "created_at": iso(doc["created"]),
                        "expires_at": iso(doc["expires"]), "play_url": play_path(self.r, game_id, seats[0])})
        if stale:
            self.r.zrem(lobby.player_key(pid), *stale)
        return out

    def _cached_results(self, pid: str) -> dict[str, dict]:
        ids = [m.decode().rsplit(":", 1)[0] for m in self.r.zrange(games_key(pid), 0, -1)]
        if not ids:
            return {}
        ids = list(dict.fromkeys(ids))
        return {g: json.loads(v) for g, v in zip(ids, hmget(self.r, ME_RESULTS, ids)) if v is not None}

    @staticmethod
    def _result(meta: dict, state, resigned: list[int] | tuple = ()) -> dict:
        names = seat_names(meta)
        game = games.of_meta(meta)
        scores = game.scores(state)
        # by the game's own tie-break (or none: tied seats share), the seats that resigned last
        places = final_places(game.places(state), list(resigned))
        return {"game_name": game.name, "round": game.round(state), "version": state.version,
                "tournament": (meta.get("tournament") or {}).get("id"),
                "winner": names[winner] if (winner := game.winner(state)) is not None else None,
                "places": sorted(({"seat": i, "name": names[i], "score": scores[i], "place": places[i]}
                                  for i in range(len(names))), key=lambda p: p["place"])}

    def _finished_item(self, game_id: str, seats: list[int], result: dict) -> dict:
        mine = seats[0]
        by_seat = {p["seat"]: p for p in result["places"]}
        if "game_name" not in result:  # a result kept before it said which game: games never change it
            try:
                result["game_name"] = games.of_meta(self.games.meta(game_id)).name
            except errors.ServiceError:
                result["game_name"] = games.get(None).name   # the registry's first game
        return {"game": game_id, "game_name": result["game_name"], "seat": mine,
                "name": by_seat[mine]["name"],
                "opponents": [p["name"] for p in result["places"] if p["seat"] not in seats],
                "round": result["round"], "version": result["version"], "tournament": result["tournament"],
                "place": by_seat[mine]["place"], "score": by_seat[mine]["score"],
                "winner": result["winner"], "places": result["places"],
                "play_url": play_path(self.r, game_id, mine)}

    # --- email setting --------------------------------------------------------------------------
    def notifications(self, key: str | None) -> dict:
        _, email = self.player(key)
        return self._notifications(email)

    def _notifications(self, email: str) -> dict:
        return {"mode": preference(self.r, email), "delay_minutes": delay_minutes(self.r, email),
                "language": language(self.r, email), "time_zone": time_zone(self.r, email)}

    _KEEP = object()

    def set_notifications(self, key: str | None, mode: str, delay: int | None = None,
                          lang: object = _KEEP, tz: object = _KEEP) -> dict:
        """The address's email setting, and (``delay``, when given) how many minutes a turn email
        waits while it plays live (docs/pbem.md, "No email while you play live"; 0: at once);
        ``lang`` and ``tz``, when given, its emails' language and time zone (None: each seat's;
        docs/i18n.md)."""
        pid, email = self.player(key)
        if lang is not self._KEEP:
            set_language(self.r, email, lang)   # type: ignore[arg-type]
        if tz is not self._KEEP:
            set_time_zone(self.r, email, tz)    # type: ignore[arg-type]
        if delay is not None:
            set_delay_minutes(self.r, email, delay)
        set_preference(self.r, email, mode)
        if mode != "none":
            self.r.delete(consent.refused_key(pid))   # chosen again, on the dashboard: a refusal is lifted
        return self._notifications(email)

    # --- vacation -------------------------------------------------------------------------------
    def vacation(self, key: str | None, on: bool) -> dict:
        """Start or stop the vacation in every game in progress, each game on its own: a game
        where it cannot be done (its allowance is used up) is reported, the others are done."""
        pid, _ = self.player(key)
        deadlines = self.deadlines()
        finished = self._cached_results(pid)
        results = []
        for game_id, seats in self._seats(pid).items():
            if game_id in finished:
                continue
            try:
                meta, state = self.games.load(game_id)
            except errors.ServiceError:
                continue
            if games.is_over(state):
                continue
            for seat in seats:
                try:
                    out = deadlines.vacation(game_id, seat, on)
                    results.append({"game": game_id, "seat": seat, "ok": True, "code": None, **out})
                except ValueError as e:
                    st = deadlines.seat_state(game_id, seat)
                    results.append({"game": game_id, "seat": seat, "ok": False, "code": "no-vacation-left",
                                    "detail": str(e), "on": st["vacation_since"] is not None,
                                    "used_days": st["vacation_used"] / 86400,
                                    "allowance_days": float(time_control(meta)["vacation_days"])})
        return {"on": on, "all_applied": all(x["ok"] for x in results), "games": results}
