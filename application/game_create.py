"""Creating a game (the game service's one path for every game, application/game_service.py): seat
kinds, AI levels and time zones checked alike, then the game's own ``setup`` and ``new_game``; the
meta stored with a hash of each seat's token, never the token."""
from __future__ import annotations

import secrets
import time

import games
from tablepost import i18n

from . import errors, live
from .dashboard import index_game
from .game_core import GameCore, token_hash
from .ids import new_game_id

from .indexes import NAMES
from .names import check_name
from .players import player_id
from .seats import AI_LEVELS, AUTOMA_KINDS
from .time_control import check_deadline_options, valid_tz

SERVICE_OPTIONS = ("time_control", "timeout", "rated", "private")   # options of the service, for any game
NO_TOKEN = ("bot", "ai")   # seats played with a credential of their own (and a game's own automa's)


def seat_meta(s: dict, token: str | None) -> dict:
    """A seat as the game's meta keeps it: no token, only its hash."""
    return {"name": s["name"], "email": s.get("email"), "kind": s.get("kind", "human"),
            # a seat of a game that waited for players keeps the hash of the token it was given then
            "token_hash": token_hash(token) if token else s.get("token_hash"),
            **({"tz": s["tz"]} if s.get("tz") else {}),
            **({"language": s["language"]} if s.get("language") else {}),   # its emails' (docs/i18n.md)
            **({"bot": s["bot"]} if s.get("kind") == "bot" else {}),
            **({"level": s.get("level") or "medium"} if s.get("kind") == "ai" else {})}


def _idle_elsewhere(rules: games.Game, name: str, value) -> bool:
    """Whether ``name`` is an option of another game, not of ``rules``, given at that game's default:
    no choice at all (a form that sends every option's default), dropped rather than refused."""
    return name not in rules.own_options and any(
        o.name == name and o.default is not None and o.default == value
        for g in games.GAMES.values() if g is not rules for o in g.options)


class GameExists(Exception):
    """A game with the id a caller fixed exists already."""


class GameCreation(GameCore):
    """``create_game`` and what it needs."""

    # --- creating ----------------------------------------------------------------------------
    def _remember_names(self, meta: dict) -> None:
        """A seated address that has no name yet gets its seat's name (docs/lobby.md: a join with a
        dashboard key and no name takes the name last used). Only a first name: the others' names are
        given by whoever creates a game, so they do not overwrite one the player chose (joining,
        entering) or played under (a rated game's end)."""
        r = self.store.r
        pipe = r.pipeline(transaction=False)   # fields of other slots: each write on its own
        for s in meta["seats"]:
            if s.get("kind", "human") == "human" and s.get("email") and s.get("name"):
                pid = player_id(r, s["email"])
                pipe.hsetnx(NAMES.key(pid), pid, s["name"])
        pipe.execute()

    def create_game(self, seats: list[dict], options: dict, *, game_id: str | None = None,
                    tokens: list[str | None] | None = None, extra_meta: dict | None = None,
                    seed: str | None = None, game: str, dry_run: bool = False,
                    live_creator: bool = False, live_seats=None) -> dict:
        """Create a game. Callers inside the service (tournaments) may fix the ``game_id`` (an
        existing id raises :class:`GameExists`), the seats' ``tokens``, ``extra_meta`` and the
        ``seed`` (a tournament created with a seed on a server that allowed it). ``game`` is the
        name of the game (``games.NAMES``). ``dry_run``: check everything, store nothing (the lobby
        checks a game with open seats so, with stand-ins for the players to come). ``live_creator``:
        the game is created through the API (``POST /games``); when it has exactly one human seat
        (a game against the AI or the game's own automa), that seat's player is the one at the keyboard and
        counts as playing live (application/live.py): its first turn email waits like any other.
        ``live_seats(meta)``: the seats of the new game (its meta) whose players count as playing
        live now (a rematch: those on the old game's page)."""
        try:
            rules = games.get(game)
        except games.UnknownGame as e:
            raise errors.invalid("unknown-game", e.args[0]) from None   # (a Said: translatable)
        options = dict(options or {})
        asked = options.pop("seed", None)
        if asked is not None and not self.allow_seeded_games:
            raise errors.invalid("seeded-games-disabled",
                                    "options.seed is honoured only on a server run with --allow-seeded-games")
        seed = str(asked) if asked is not None else seed if seed is not None else secrets.token_hex(32)
        check_deadline_options(options)
        lobby_only = sorted(k for k in ("waiting_days", "rating_range") if k in options)
        if lobby_only:
            raise errors.invalid("bad-options",
                                 errors.said("{options}: options of a game with open seats only (a seat of "
                                             "kind 'open'; docs/lobby.md)", options=", ".join(lobby_only)))
        if not rules.min_players <= len(seats) <= rules.max_players:
            raise errors.invalid("bad-seats", errors.said("a game of {game} has {min} to {max} seats",
                                                          game=rules.title, min=rules.min_players,
                                                          max=rules.max_players))
        for s in seats:
            if game_id is None:   # names set now (a tournament's or a lobby's were checked when set)
                check_name(s.get("name"))   # shown to the other players: never a link
            if s.get("kind", "human") not in rules.seat_kinds:
                raise errors.invalid("bad-seats",
                                     errors.said("a game of {game} has seats of kind {kinds} only",
                                                 game=rules.title, kinds=", ".join(rules.seat_kinds)))
            if s.get("kind") == "ai" and s.get("level", "medium") not in AI_LEVELS:
                raise errors.invalid("bad-seats", errors.said("an AI seat's level is one of {levels}",
                                                              levels=", ".join(AI_LEVELS)))
            if s.get("tz") is not None and not valid_tz(s["tz"]):
                raise errors.invalid("bad-time-zone",
                                     errors.said("{tz} is not an IANA time zone name (e.g. Europe/Berlin)",
                                                 tz=repr(s["tz"])))
            if s.get("language") is not None and not i18n.supported(s["language"]):
                raise errors.invalid("bad-language",
                                     errors.said("{lang} is not a language of the service ({langs})",
                                                                 lang=repr(s["language"]),
                                                                 langs=", ".join(i18n.LANGUAGES)))
        seats = self.bots.seats(seats)  # a bot account's seat: registered, and named
        # the game's own seating (its automa's seat first) and options, checked against its declarations
        service_options = {k: v for k, v in options.items() if k in SERVICE_OPTIONS}
        own = {k: v for k, v in options.items()
               if k not in SERVICE_OPTIONS and not _idle_elsewhere(rules, k, v)}
        try:
            seats, game_options, engine_options = rules.setup(seats, own)
            state, events = rules.new_game(len(seats), seed, engine_options)
        except games.BadSetup as e:
            raise errors.invalid(e.code, e.message) from None
        except ValueError as e:  # e.g. an unknown Challenge card or level
            raise errors.invalid("bad-options", str(e)) from None
        if dry_run:
            return {}
        options = {**service_options, **game_options}
        if tokens is None:
            tokens = [None if s.get("kind") in NO_TOKEN or s.get("kind") in AUTOMA_KINDS
                      else secrets.token_urlsafe(24)
                      for s in seats]
        meta = {
            "game": rules.name, "players": len(seats), "options": options,
            "seats": [seat_meta(s, t) for s, t in zip(seats, tokens)],
            "seed_commitment": rules.seed_commitment(seed), "created": int(time.time()),
            "rules": rules.rules_version, **(extra_meta or {}),
        }
        self.bots.claim(seats)  # a bot seated by invitation: the invitation is used now, once
        first_text = rules.event_text(None, events[0])
        if game_id is not None:
            created = self.store.create(game_id, meta, seed, events[0], first_text)
            index_game(self.store.r, game_id, meta)  # idempotent: a retried tournament step re-indexes the
                                                     # same game
            if not created:
                raise GameExists(game_id)
        else:
            game_id = self._create_with_new_id(meta, seed, events[0], first_text)
            index_game(self.store.r, game_id, meta)
        self._remember_names(meta)
        self.bots.seated(game_id, meta)
        self.bots.note_game(game_id, seats)
        humans = [i for i, s in enumerate(meta["seats"]) if s["kind"] == "human"]
        if live_creator and len(humans) == 1:
            self._acted(game_id, meta, humans[0], live.WEB)
        for seat in live_seats(meta) if live_seats is not None else ():
            self._acted(game_id, meta, seat, live.WEB)
        self._appended(game_id, meta, state, None)
        return _created(game_id, state, meta, seats, tokens)

    def _create_with_new_id(self, meta: dict, seed: str, first_event: dict, first_text: str) -> str:
        for _ in range(5):
            game_id = new_game_id()
            if self.store.create(game_id, meta, seed, first_event, first_text):
                return game_id
        raise errors.failed("id-collision", "could not allocate a game id")  # pragma: no cover


def _created(game_id: str, state, meta: dict, seats: list[dict], tokens: list[str | None]) -> dict:
    return {
        "id": game_id, "version": state.version, "seed_commitment": meta["seed_commitment"],
        "seats": [{"seat": i, "name": s["name"], "kind": s.get("kind", "human"), "token": t}
                  for i, (s, t) in enumerate(zip(seats, tokens))],
    }
