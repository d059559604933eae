"""Your data (docs/pbem.md, "Your data"): everything the service holds about an address, as
JSON, and the deletion of the account.

**Export** (:meth:`Accounts.export`): the address, its handle and profile setting, its email
setting, every game it was given a seat in (the seat, its name, the game's state, the seat's own
moves, messages to the table (application/messages.py) and deadline state, the result of a finished
game), its ratings in every pool with their
history, the bot accounts it owns and the emails that could not be delivered to it.

**Deletion** (:meth:`Accounts.delete`, with a confirmation): afterwards nothing in Redis holds the
address, and nothing but the link generations holds the player id (a revoked generation is
kept so that a dashboard link of the deleted account never opens a later account of the same
address). In each game of the address the seat is renamed :data:`FORMER` ("a former player"),
its address, time zone and token are removed and its links revoked; events are stored with
seat markers and the names are put in when served (``game_service.with_names``), so the moves
of finished games stay, told under the new name. In a game still running the seat is *dropped*
(application/deadlines.py): the stand-in plays it to the end, at once if it is its turn now and
then whenever its turn comes (the turn email's path finds it dropped: every hosted game is played
by email); the game stays rated for the others, the former seat counting
as dropped and getting no rating. The address's dashboard, email setting, digest entries,
verified mark, undeliverable list, last name, handle, profile and ratings (every pool, and the
leaderboards) are deleted, the bot accounts it owns are deleted as their owner would delete them
(tombstones keep their ids), and the ``erasers`` the adapter gives (``mail.outbox.forget_address``:
emails queued to the address, once-keys and the log of failed attempts that name it) run last.
A seat in a game still waiting for players is opened again (:meth:`Accounts._leave_lobby`).
Tournaments keep their entrants by address in their event streams: before the games, every
tournament the address entered withdraws it if not over yet, and its stream is rewritten with a
placeholder entrant named :data:`FORMER` (:meth:`TournamentService.forget_entrant`); an entry
asked for the address with the invitation code and not confirmed is deleted
(:meth:`TournamentService.forget_asks`). Every step
can be redone: a deletion cut short (a crash) is finished by sending it again with the same key.
"""
from __future__ import annotations

import json
import logging
import time

import games

from . import errors, links, reliability, waiting
from . import consent
from .dashboard import UNDELIVERABLE, VERIFIED, Dashboard, games_key, iso, undeliverable_of
from .deadlines import Deadlines
from .messages import TableTalk
from .indexes import DIGEST, LANGUAGE, MAIL_DELAY, ME_EMAIL, ME_RESULTS, NAMES, PREFS, TIME_ZONE, TOLD
from .notifications import delay_minutes, language, preference, time_zone
from .profiles import Profiles
from .rating_service import POOLS, pool_key
from .resigned import resigned_of
from .tournament_service import TournamentService

log = logging.getLogger("tablepost.accounts")

FORMER = "a former player"
CONFIRM = "DELETE"


class Accounts:
    def __init__(self, dashboard: Dashboard, profiles: Profiles, webhooks=None, erasers=(), clock=time.time):
        self.dashboard = dashboard
        self.games = dashboard.games
        self.profiles = profiles
        self.webhooks = webhooks      # application.webhooks.Webhooks: the deleted bots' subscriptions go
        self.erasers = tuple(erasers)  # callables (redis, address) of the adapters' own stores (mail)
        self.r = dashboard.r
        self.clock = clock

    # --- export ------------------------------------------------------------------------------------
    def export(self, key: str | None) -> dict:
        pid, email = self.dashboard.player(key)
        settings = self.profiles.settings(pid)
        first = self.r.zrange(games_key(pid), 0, 0, withscores=True)
        verified = self.r.get(VERIFIED + pid)
        return {"exported_at": iso(self.clock()), "player": pid, "email": email,
                "handle": settings["handle"], "profile_public": settings["public"],
                "member_since": iso(first[0][1]) if first else None,
                "settings": {"notifications": preference(self.r, email),
                             "delay_minutes": delay_minutes(self.r, email),
                             "language": language(self.r, email), "time_zone": time_zone(self.r, email),
                             "verified_at": iso(int(verified)) if verified else None},
                "games": self._games(pid), "ratings": self._ratings(pid), "bots": self._bots(email),
                "undeliverable": undeliverable_of(self.r, pid),
                "reliability": reliability.of_player(self.r, pid)}

    def _games(self, pid: str) -> list[dict]:
        out = []
        deadlines = Deadlines(self.games, None)
        for game_id, seats in self.dashboard._seats(pid).items():
            try:
                meta, state = self.games.load(game_id)
            except errors.ServiceError:
                continue
            game = games.of_meta(meta)
            events = self.games.store.events(game_id)
            for seat in seats:
                s = meta["seats"][seat]
                out.append({
                    "game": game_id, "game_name": game.name, "seat": seat, "name": s["name"],
                    "time_zone": s.get("tz"), "created": iso(meta.get("created")),
                    "finished": game.is_over(state), "version": state.version,
                    "result": (Dashboard._result(meta, state, resigned_of(events)) if game.is_over(state)
                               else None),
                    "seat_state": deadlines.seat_state(game_id, seat),
                    "moves": [e["move"] for e in events if e.get("seat") == seat and "move" in e],
                    "messages": TableTalk(self.games).of_seat(game_id, seat),   # the seat's table talk
                    "url": f"/play/{game_id}", "record": f"/api/v1/games/{game_id}/record"})
        return out

    def _ratings(self, pid: str) -> dict:
        pipe = self.r.pipeline(transaction=False)
        for pool in POOLS:
            pipe.hget(pool_key(pool), pid)
            pipe.lrange(f"{pool_key(pool)}:hist:{pid}", 0, -1)
        got = pipe.execute()
        out = {}
        for i, pool in enumerate(POOLS):
            if got[2 * i] is not None:
                out[pool] = {**json.loads(got[2 * i]), "history": [json.loads(h) for h in got[2 * i + 1]]}
        return out

    def _bots(self, email: str) -> list[dict]:
        return [{"bot": bot_id, "name": fields.get("name"), "created": iso(float(fields["created"]))
                 if fields.get("created") else None} for bot_id, fields in self._owned_bots(email)]

    def _owned_bots(self, email: str) -> list[tuple[str, dict]]:
        """The bot accounts this address owns (bots are keyed by id: found by a scan; rare)."""
        out = []
        for k in self.r.scan_iter(match="bot:{*}", count=500, _type="hash"):
            owner = self.r.hget(k, "email")
            if owner is not None and owner.decode().strip().lower() == email:
                fields = {f.decode(): v.decode() for f, v in self.r.hgetall(k).items()}
                out.append((k.decode()[len("bot:{"):-1], fields))
        return out

    # --- deletion ----------------------------------------------------------------------------------
    def delete(self, key: str | None, confirm) -> dict:
        pid, email = self.dashboard.player(key)
        if confirm != CONFIRM:
            raise errors.invalid("confirmation-required",
                                 errors.said("to delete your account send {{\"confirm\": \"{confirm}\"}}: "
                                             "it cannot be undone", confirm=CONFIRM))
        email = email.strip().lower()
        # tournaments first: a withdrawal drops the seats of its games, which the loop below then leaves
        tournaments = TournamentService(self.games).forget_entrant(email, FORMER)
        TournamentService(self.games).forget_asks(email)   # entries asked and not confirmed
        left = {"finished": 0, "running": 0}
        for game_id, seats in self.dashboard._seats(pid).items():
            kind = self._leave(game_id, seats, email)
            if kind:
                left[kind] += 1
        self._leave_lobby(pid, email)
        bots = self._owned_bots(email)
        for bot_id, _ in bots:
            hooks = self.games.bots.delete_account(bot_id)
            if self.webhooks is not None:
                self.webhooks.forget(hooks)
        self._forget_player(pid, email)
        for erase in self.erasers:
            erase(self.r, email)
        log.info("account %s deleted: %d finished and %d running games, %d tournaments left, %d bots deleted",
                 pid, left["finished"], left["running"], tournaments, len(bots))
        return {"deleted": True, "games_finished": left["finished"], "games_running": left["running"],
                "tournaments": tournaments, "bots_deleted": len(bots)}

    def _leave(self, game_id: str, seats: list[int], email: str) -> str | None:
        """The seats of ``email`` in the game pass to "a former player"; a running game's to the stand-in."""
        try:
            meta, state = self.games.load(game_id)
        except errors.ServiceError:
            return None
        over = games.of_meta(meta).is_over(state)
        mine = [i for i in seats if i < len(meta["seats"])
                and (meta["seats"][i].get("email") or "").strip().lower() == email]

        def change(m: dict) -> None:
            for i in mine:
                s = m["seats"][i]
                s.update(name=FORMER, email=None, token_hash=None, former=True)
                s.pop("tz", None)

        self.games.store.update_meta(game_id, change)
        self.games.cache.forget_meta(game_id)
        for i in mine:
            links.revoke_seat_link(self.r, game_id, i)
        raw = self.r.hget(ME_RESULTS.key(game_id), game_id)
        if raw is not None:  # the dashboards' copy of the result names the seats too
            result = json.loads(raw)
            names = {p["seat"]: p["name"] for p in result["places"]}
            for p in result["places"]:
                if p["seat"] in mine:
                    p["name"] = FORMER
            if result.get("winner") is not None and any(result["winner"] == names.get(i) for i in mine):
                result["winner"] = FORMER
            self.r.hset(ME_RESULTS.key(game_id), game_id, json.dumps(result))
        if over:
            return "finished"
        deadlines = Deadlines(self.games, None, self.dashboard.clock)
        for i in mine:
            deadlines.drop(game_id, i)
            try:
                deadlines.stand_in_later(game_id, i)  # if it is that seat's decision now
            except Exception:  # the seat moved meanwhile: its next turn finds it dropped
                log.warning("the stand-in did not move now for seat %s of %s", i, game_id, exc_info=True)
        return "running"

    def _leave_lobby(self, pid: str, email: str) -> None:
        """Games waiting for players (docs/lobby.md) keep their seats' addresses in their records,
        and a join asked by email keeps its address until its link is opened: in a game still
        waiting the seat is open again (its links revoked), in a cancelled one it is renamed
        :data:`FORMER` without address, and the pending joins are deleted, with the records of the
        join links that took a seat (by player id). Found by a scan of the
        records: a cancelled game has left the address's index already."""
        for k in self.r.scan_iter(match="g:{*}:waiting", count=500):
            game_id = k.decode()[len("g:{"):-len("}:waiting")]
            doc = waiting.load(self.r, game_id)
            if doc is None or email not in waiting.seated_addresses(doc):
                continue
            try:
                freed, status = waiting.update(self.r, game_id, lambda d: _free_seats(d, email))
            except errors.ServiceError:
                continue   # started or gone meanwhile: a started game is left with the others
            for i in freed:
                links.revoke_seat_link(self.r, game_id, i)
            if status == waiting.WAITING:
                waiting.sync_listing(self.r, game_id, waiting.load(self.r, game_id))   # a seat open again
        for k in self.r.scan_iter(match="g:{*}:join:*", count=500):
            raw = self.r.get(k)
            if raw is not None and str(json.loads(raw).get("email", "")).strip().lower() == email:
                self.r.delete(k)
        for k in self.r.scan_iter(match="g:{*}:joined:*", count=500):   # join links that took a seat
            raw = self.r.get(k)
            if raw is not None and json.loads(raw).get("pid") == pid:
                self.r.delete(k)
        self.r.delete(waiting.player_key(pid))

    def _forget_player(self, pid: str, email: str) -> None:
        digest = [m for m in self.r.sscan_iter(DIGEST.key(email), match=_glob(email) + "|*")]
        pipe = self.r.pipeline(transaction=False)  # keys of many slots: each write on its own
        pipe.hdel(ME_EMAIL.key(pid), pid)
        pipe.delete(games_key(pid), UNDELIVERABLE + pid, VERIFIED + pid, f"ratings:hist:{pid}")
        pipe.hdel(PREFS.key(email), email)
        pipe.hdel(MAIL_DELAY.key(email), email)
        pipe.hdel(LANGUAGE.key(email), email)
        pipe.hdel(TIME_ZONE.key(email), email)
        if digest:
            pipe.srem(DIGEST.key(email), *digest)
        pipe.srem(TOLD.key(email), email)
        pipe.hdel(NAMES.key(pid), pid)
        for pool in POOLS:
            pk = pool_key(pool)
            pipe.hdel(pk, pid)
            pipe.zrem(pk + ":board", pid)
            pipe.delete(f"{pk}:hist:{pid}")
        pipe.execute()
        self.profiles.forget(pid)
        consent.forget(self.r, pid)   # its consent, the emails held back, the mail budget's counters
        links.revoke_dashboard_key(self.r, pid)  # kept: an old link never opens a later account


def _free_seats(doc: dict, email: str) -> tuple[list[int], str]:
    """The seats of ``email`` in a waiting record: open again while the game waits, else renamed
    :data:`FORMER` without address. Returns them and the record's status."""
    freed = []
    for i, s in enumerate(doc["seats"]):
        if s["kind"] == "human" and (s.get("email") or "").strip().lower() == email:
            if doc["status"] == waiting.WAITING:
                doc["seats"][i] = {"kind": "open"}
            else:
                s.update(name=FORMER, email=None, token_hash=None)
            freed.append(i)
    return freed, doc["status"]


def _glob(text: str) -> str:
    return "".join("\\" + c if c in "\\*?[]" else c for c in text)

