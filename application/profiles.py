"""Public handles, profiles and leaderboards (docs/pbem.md, "Your public profile").

A player (an email address, known by its opaque player id, :mod:`application.players`) may choose a
*handle* once: 3 to 20 letters, digits, ``_`` or ``-``, unique without regard to case (``Ada`` and
``ada`` are one handle). The handle is claimed with one ``SET NX`` on the handle's own key, so of
any number of simultaneous claims exactly one wins; the player's record then takes it with
``HSETNX``, and a claim that finds the player already has another handle gives the key back.

A player with a handle may make their profile *public* (and private again) from the dashboard.
``GET /api/v1/players/{handle}`` answers a public profile in full (ratings per pool with their
history, finished games, current games that are public, member since); a handle whose player has
not opted in is answered by name only: ``{"handle", "public": false}`` and nothing more (a 200,
not a 404, so a link to a handle never breaks when its player turns the profile off). No answer
ever holds an email address or a seat's link. A public profile says how reliably the player
plays (games finished and abandoned, turns the stand-in took, the usual time to move:
:mod:`application.reliability`); so does the lobby beside a seated player whose profile is public.

Leaderboards (``GET /api/v1/leaderboards/{pool}``) are the rating pools of
:mod:`application.rating_service`, paged, each row with the player's handle when their profile
is public (the link to it) and their name as last used otherwise.

| key | type | what |
|---|---|---|
| ``handle:{<handle, lower-cased>}`` | string | the player id that holds the handle |
| ``profile:{<player id>}`` | hash | ``handle`` (as the player typed it), ``public`` (``1``/``0``), ``handle_at`` |
"""  # noqa: E501 (a Markdown table: its rows cannot wrap)
from __future__ import annotations

import json
import re
import time

import games

from . import errors, reliability
from .dashboard import Dashboard, games_key, hmget, iso
from .indexes import ME_RESULTS
from .players import name_of
from .rating_service import POOLS, canonical_pool, pool_key
from .resigned import resigned_of

HANDLE = re.compile(r"[A-Za-z0-9_-]{3,20}")
HANDLE_RULE = errors.N_("3 to 20 letters (a-z, A-Z), digits, '_' or '-'")
# Handles that would read as the service speaking, or as a path of the site
RESERVED = frozenset({"admin", "administrator", "support", "tablepost", "tiletum", "system", "root", "me",
                      "new",
                      "former-player", "a-former-player", "moderator", "staff"})
PUBLIC_GAMES_SHOWN = 50   # finished games on a profile, newest first

# Give a handle back only if this player still holds it (a claim that lost the player's own race).
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def handle_key(handle: str) -> str:
    return f"handle:{{{handle.lower()}}}"


def profile_key(pid: str) -> str:
    return f"profile:{{{pid}}}"


def check_handle(handle) -> str:
    """``handle`` if it is a valid handle, else ``invalid`` ``bad-handle``."""
    if not isinstance(handle, str) or not HANDLE.fullmatch(handle):
        raise errors.invalid("bad-handle", errors.said("a handle is {rule}", rule=errors.said(HANDLE_RULE)))
    if handle.lower() in RESERVED:
        raise errors.invalid("bad-handle", errors.said("the handle {handle} is reserved: choose another",
                                                        handle=repr(handle)))
    return handle


class Profiles:
    def __init__(self, games_service, ratings, clock=time.time):
        self.games = games_service
        self.ratings = ratings
        self.r = games_service.store.r
        self.clock = clock
        self._release = self.r.register_script(RELEASE)

    # --- the player's own settings (dashboard key) -------------------------------------------------
    def settings(self, pid: str) -> dict:
        raw = self.r.hmget(profile_key(pid), ["handle", "public"])
        handle = raw[0].decode() if raw[0] else None
        return {"handle": handle, "public": bool(handle) and raw[1] == b"1",
                "profile_url": f"/players/{handle}" if handle else None}

    def claim(self, pid: str, handle) -> dict:
        """Give the player ``handle`` (once; unique without regard to case)."""
        handle = check_handle(handle)
        hk = handle_key(handle)
        if not self.r.set(hk, pid, nx=True):
            holder = self.r.get(hk)
            mine = self.r.hget(profile_key(pid), "handle")
            if holder == pid.encode() and mine is not None and mine.decode().lower() == handle.lower():
                return self.settings(pid)  # the same claim again: idempotent
            if mine is not None:
                raise errors.refused("handle-already-chosen",
                                     errors.said("you chose your handle already ({handle}); it is chosen "
                                                 "once", handle=mine.decode()))
            raise errors.refused("handle-taken", errors.said("the handle {handle} is taken: choose another",
                                                                  handle=repr(handle)))
        if not self.r.hsetnx(profile_key(pid), "handle", handle):  # this player has one already
            self._release(keys=[hk], args=[pid])
            mine = self.r.hget(profile_key(pid), "handle")
            raise errors.refused("handle-already-chosen",
                                 errors.said("you chose your handle already ({handle}); it is chosen once",
                                             handle=mine.decode() if mine else ""))
        self.r.hset(profile_key(pid), mapping={"handle_at": int(self.clock()), "public": 0})
        return self.settings(pid)

    def set_public(self, pid: str, public: bool) -> dict:
        """Show or hide the player's profile; a profile needs a handle first."""
        if not self.r.hexists(profile_key(pid), "handle"):
            raise errors.refused("no-handle", "choose a handle first: your profile is shown under it")
        self.r.hset(profile_key(pid), "public", 1 if public else 0)
        return self.settings(pid)

    def forget(self, pid: str) -> None:
        """The player's handle and profile are gone (account deletion): the handle is free again."""
        handle = self.r.hget(profile_key(pid), "handle")
        if handle is not None:
            self._release(keys=[handle_key(handle.decode())], args=[pid])
        self.r.delete(profile_key(pid))
        reliability.forget(self.r, pid)

    # --- public reading ----------------------------------------------------------------------------
    def _holder(self, handle: str) -> tuple[str, str]:
        """(player id, handle as chosen) of a handle; 404 ``player-not-found``."""
        if not isinstance(handle, str) or not HANDLE.fullmatch(handle):
            raise errors.missing("player-not-found", "no player has this handle")
        pid = self.r.get(handle_key(handle))
        if pid is None:
            raise errors.missing("player-not-found", "no player has this handle")
        pid = pid.decode()
        chosen = self.r.hget(profile_key(pid), "handle")
        return pid, chosen.decode() if chosen else handle

    def public_profile(self, handle: str) -> dict:
        pid, handle = self._holder(handle)
        if self.r.hget(profile_key(pid), "public") != b"1":
            return {"handle": handle, "public": False}
        first = self.r.zrange(games_key(pid), 0, 0, withscores=True)
        finished, current = self._games(pid)
        return {"handle": handle, "public": True, "name": name_of(self.r, pid) or handle,
                "member_since": iso(first[0][1]) if first else None,
                "ratings": self._ratings(pid), "finished": finished, "current": current,
                "reliability": reliability.of_player(self.r, pid)}

    def _ratings(self, pid: str) -> dict:
        pipe = self.r.pipeline(transaction=False)
        for pool in POOLS:
            pipe.hget(pool_key(pool), pid)
            pipe.lrange(f"{pool_key(pool)}:hist:{pid}", 0, -1)
        got = pipe.execute()
        out = {}
        for i, pool in enumerate(POOLS):
            raw, hist = got[2 * i], got[2 * i + 1]
            if raw is None:
                continue
            d = json.loads(raw)
            points = [json.loads(h) for h in hist]
            out[pool] = {"rating": round(d["rating"], 1), "rd": round(d["rd"], 1), "games": d["games"],
                         "history": [{"game": h["game"], "at": iso(h["at"]),
                                      "rating": round(h["after"]["rating"], 1),
                                      "rd": round(h["after"]["rd"], 1)} for h in points]}
        return out

    def _games(self, pid: str) -> tuple[list[dict], list[dict]]:
        """The player's finished games (newest first, with their place) and current public ones;
        only what a game's own public page shows (no seat link, no address)."""
        seats: dict[str, int] = {}
        for member in self.r.zrevrange(games_key(pid), 0, -1):
            game_id, seat = member.decode().rsplit(":", 1)
            seats.setdefault(game_id, int(seat))
        ids = list(seats)
        cached = dict(zip(ids, hmget(self.r, ME_RESULTS, ids)))
        finished: list[dict] = []
        current: list[dict] = []
        for game_id in ids:
            raw = cached[game_id]
            result = json.loads(raw) if raw else None
            meta = None
            if result is None:
                try:
                    meta, state = self.games.load(game_id)
                except errors.ServiceError:
                    continue
                if games.is_over(state):
                    result = Dashboard._result(meta, state,   # the one place a result is worked out
                                               resigned_of(self.games.store.events(game_id)))
            if result is not None:
                if len(finished) < PUBLIC_GAMES_SHOWN:
                    me = next((p for p in result["places"] if p["seat"] == seats[game_id]), None)
                    finished.append(
                        {"game": game_id, "game_name": result.get("game_name") or games.get(None).name,
                         "players": len(result["places"]), "place": me["place"] if me else None,
                         "score": me["score"] if me else None, "winner": result.get("winner"),
                         "url": f"/play/{game_id}", "record": f"/api/v1/games/{game_id}/record"})
                continue
            # a game its creator keeps out of listings (the lobby's private games)
            if meta is None or meta.get("private"):
                continue
            current.append(
                {"game": game_id, "game_name": games.of_meta(meta).name, "url": f"/play/{game_id}"})
        return finished, current

    def chart(self, handle: str, pool: str) -> str:
        """The rating chart of a public profile in one pool (404 when hidden or never rated there)."""
        pid, handle = self._holder(handle)
        if self.r.hget(profile_key(pid), "public") != b"1":
            raise errors.missing("player-not-found", "this player's profile is not public")
        ratings = self._ratings(pid)
        pool = canonical_pool(pool)
        if pool not in ratings:
            raise errors.missing("pool-not-found", errors.said("{handle} has no rating in {pool}",
                                                                 handle=handle, pool=repr(pool)))
        return rating_chart(handle, pool, ratings[pool]["history"])

    def handles_of(self, pids: list[str]) -> dict[str, str]:
        """The handles of those of ``pids`` whose profile is public."""
        return self.public_handles(self.r, pids)

    @staticmethod
    def public_handles(r, pids: list[str]) -> dict[str, str]:
        """The handles of those of ``pids`` whose profile is public."""
        if not pids:
            return {}
        pipe = r.pipeline(transaction=False)
        for p in pids:
            pipe.hmget(profile_key(p), ["handle", "public"])
        return {p: h.decode() for p, (h, pub) in zip(pids, pipe.execute()) if h and pub == b"1"}

    def leaderboard(self, pool: str, offset: int = 0, limit: int = 50) -> dict:
        """A pool's players by rating, best first, ``limit`` from ``offset`` (a deprecated name of the
        pool is answered with its name)."""
        pool = canonical_pool(pool)
        if pool not in POOLS:
            raise errors.missing("pool-not-found", errors.said("no rating pool {pool} (pools: {pools})",
                                                                 pool=repr(pool), pools=", ".join(POOLS)))
        board = self.ratings.leaderboard(pool, offset, limit)
        handles = self.handles_of([row["player"] for row in board["ratings"]])
        rows = [{"rank": row["rank"], "player": row["player"], "name": row["name"],
                 "handle": handles.get(row["player"]), "rating": row["rating"], "rd": row["rd"],
                 "games": row["games"]} for row in board["ratings"]]
        return {"pool": pool, "total": board["total"], "offset": offset, "limit": limit, "entries": rows}


# --- the rating chart ------------------------------------------------------------------------------
CHART_W, CHART_H = 640, 240
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 52, 16, 28, 30


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def rating_chart(handle: str, pool: str, history: list[dict]) -> str:
    """The player's rating in ``pool`` after each rated game, as an SVG line chart (drawn here: the
    pages' policy allows pictures of this origin only, and no script library is needed). The band
    around the line is the rating deviation; the first point is the start, 1500."""
    points = [(0, 1500.0, 350.0)] + [(i + 1, h["rating"], h["rd"]) for i, h in enumerate(history)]
    lo = min(r - d for _, r, d in points)
    hi = max(r + d for _, r, d in points)
    lo, hi = 100 * int(lo // 100), 100 * int(-(-hi // 100))
    if hi - lo < 200:
        hi = lo + 200
    w, h = CHART_W - _PAD_L - _PAD_R, CHART_H - _PAD_T - _PAD_B
    n = max(1, len(points) - 1)

    def x(i: float) -> float:
        return round(_PAD_L + w * i / n, 1)

    def y(r: float) -> float:
        return round(_PAD_T + h * (hi - r) / (hi - lo), 1)

    title = f"Rating of {handle} in {pool}: {points[-1][1]:.0f} after {len(history)} rated game" + (
        "" if len(history) == 1 else "s")
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CHART_W} {CHART_H}" width="{CHART_W}" '
            f'height="{CHART_H}" role="img" aria-labelledby="t">'),
           f'<title id="t">{_esc(title)}</title>',
           f'<rect width="{CHART_W}" height="{CHART_H}" fill="#ffffff"/>']
    step = max(100, 100 * round((hi - lo) / 500))
    for v in range(lo, hi + 1, step):
        out.append(f'<line x1="{_PAD_L}" y1="{y(v)}" x2="{CHART_W - _PAD_R}" y2="{y(v)}" stroke="#d9dee5"/>')
        out.append(f'<text x="{_PAD_L - 6}" y="{y(v) + 4}" font-size="12" text-anchor="end" '
                   f'font-family="sans-serif" fill="#3c4450">{v}</text>')
    band = [f"{x(i)},{y(r + d)}" for i, r, d in points] + [f"{x(i)},{y(r - d)}" for i, r,
                                                           d in reversed(points)]
    out.append(f'<polygon points="{" ".join(band)}" fill="#2c6fbb" fill-opacity="0.12"/>')
    line = " ".join(f"{x(i)},{y(r)}" for i, r, _ in points)
    out.append(f'<polyline points="{line}" fill="none" stroke="#1d5fa8" stroke-width="2.5"/>')
    for i, r, _ in points:
        out.append(f'<circle cx="{x(i)}" cy="{y(r)}" r="3.5" fill="#1d5fa8"/>')
    out.append(f'<text x="{_PAD_L}" y="18" font-size="13" font-family="sans-serif" fill="#1f2430">'
               f'{_esc(pool)}: {points[-1][1]:.0f}</text>')
    out.append(f'<text x="{CHART_W - _PAD_R}" y="{CHART_H - 8}" font-size="12" text-anchor="end" '
               f'font-family="sans-serif" fill="#3c4450">rated games: {len(history)}</text>')
    out.append("</svg>")
    return "\n".join(out)
