"""The move path of the game service (application/game_service.py): a seat's moves decided
against the state at the client's expected version and appended only at that version, in one step,
so that they are fully applied or not at all; idempotent replays, conflicts, and the bounds of what
one seat may append."""
from __future__ import annotations

import hashlib
import json
import logging

import games

from . import errors, live
from .dashboard import mark_verified
from .game_core import machine_seats, public_event, seat_markers
from .resigned import decision_began
from .seat_auth import SeatAuth
from .store import Conflict, GameArchived, StaleMeta

log = logging.getLogger("tablepost.game_service")   # the game service's one logger, as before its parts

# What one seat may append (issue 27): a request plays at most MAX_MOVES_PER_REQUEST moves (a whole
# Tiletum turn is far fewer), and takes back at most MAX_UNDOS_PER_REQUEST of them, and at most
# MAX_UNDOS_PER_TURN in one turn of the seat (the trailing run of its own events since another
# seat's event, the game's start or its last 'end'). Without these a seat could grow its game's log
# without end by (move, undo) pairs, and every reader of the log would pay for it.
MAX_MOVES_PER_REQUEST = 100
MAX_UNDOS_PER_REQUEST = 10
MAX_UNDOS_PER_TURN = 30


class MoveSubmission(SeatAuth):
    """``submit`` (by a seat's token) and ``submit_for_seat`` (a seat the caller authenticated)."""

    def submit(self, game_id: str, token: str | None, expected_version: int, moves: list[str],
               idem_key: str | None = None, lang: str | None = None) -> dict:
        """Moves by the seat whose token this is (the API). See :meth:`_submit` for what is
        played: the moves in order, up to and including the first one that reveals chance.
        ``lang``: the language of a refusal's words where the game speaks it (the request's)."""
        def authenticate(meta, state):
            seat = self._require_seat(meta, token, game_id, games.of_meta(meta).actor(state))
            self._acted(game_id, meta, seat, live.WEB)   # before the save: its turn email sees it
            return seat
        try:
            return self._submit(game_id, authenticate, expected_version, moves, idem_key, lang=lang)
        except _Replay as r:
            return r.answer

    def submit_for_seat(self, game_id: str, seat: int, expected_version: int, moves: list[str],
                        idem_key: str | None = None, by: str | None = None,
                        stop_at_reveal: bool = True, then=None, lang: str | None = None) -> dict:
        """Moves by ``seat``, authenticated by the caller (a signed reply address, the stand-in).
        ``by`` labels the events (e.g. "stand-in") in the log and the record. Only the service's
        own players, which choose no move by probing, may pass ``stop_at_reveal=False`` (the
        stand-in plays a whole turn it computed with the rules). ``then()`` runs once the moves are
        saved and before ``on_append`` tells anyone (a reply's message: the next turn email carries it).
        ``lang``: the language of a refusal's reason (the seat's, for a reply by email)."""
        def check(meta, state):
            if not 0 <= seat < len(meta["seats"]) or meta["seats"][seat]["kind"] != "human":
                raise errors.forbidden("not-a-human-seat", errors.said(
                    "seat {seat} is not a human seat of this game", seat=seat))
            if by is None:   # a reply or a one-click link of an email (not the stand-in): it reads our email
                self._acted(game_id, meta, seat, live.EMAIL)
                mark_verified(self.store.r, meta["seats"][seat].get("email"))
            return seat
        try:
            try:
                return self._submit(game_id, check, expected_version, moves, idem_key, by, stop_at_reveal,
                                    then, lang)
            except errors.ServiceError as e:
                # an email's reply address or link names the version its decision began at: another
                # seat's resignation since (a version of its own) leaves that decision as it was
                now = e.extra.get("current_version") if e.kind == "conflict" and by is None else None
                began = decision_began(self.store, game_id, seat, now) if now is not None else 0
                if now is None or not now > expected_version >= began:
                    raise
                return self._submit(game_id, check, now, moves, idem_key, by, stop_at_reveal, then, lang)
        except _Replay as r:
            return r.answer

    def _submit(self, game_id: str, authenticate, expected_version: int, moves: list[str],
                idem_key: str | None, by: str | None = None, stop_at_reveal: bool = True, then=None,
                lang: str | None = None) -> dict:
        """Play ``moves`` in order from ``expected_version`` and append them in one step.

        A move that reveals chance (a die rolled, a tile or token drawn) ends the batch: the moves
        up to and including it are applied, and the rest are answered as ``unplayed`` without
        being looked at. Otherwise a batch would be an oracle: reveal, then a move whose legality
        depends on the outcome, then a move that fails; the failure's ``move_index`` would tell
        the outcome while nothing is stored, and the seat could probe until it liked the draw.
        An error before the reveal reveals nothing, as nothing has been drawn yet (a move is
        checked in full before it draws). ``lang``: the language of a refused move's reason (the
        game's words where it speaks it: what the seat can type instead of a move that is no move,
        the rule an illegal move breaks; None: English as the engine says it)."""
        fast = self.cache.fast_path(game_id, expected_version)
        if fast is not None:  # one round trip: the append checks the version and the meta's generation
            generation, meta, seed, state = fast
            try:
                return self._decide_and_append(game_id, authenticate, expected_version, moves, idem_key, by,
                                               stop_at_reveal, meta, state, seed,
                                               self.cache.snapshot_hint(game_id), None, generation, then,
                                               lang)
            except StaleMeta:  # the meta changed (e.g. a token was revoked): decide again from the store
                self.cache.forget_meta(game_id)
        loaded = self._load(game_id, idem_key)
        snap_version = (loaded["snapshot_version"] if not loaded["from_known"]
                        else self.cache.snapshot_hint(game_id))
        return self._decide_and_append(game_id, authenticate, expected_version, moves, idem_key, by,
                                       stop_at_reveal, loaded["meta"], loaded["state"], loaded["seed"],
                                       snap_version, loaded["idem"], None, then, lang)

    def _decide_and_append(self, game_id, authenticate, expected_version, moves, idem_key, by, stop_at_reveal,
                           meta, state, seed, snap_version, idem_prev, generation, then=None,
                           lang: str | None = None) -> dict:
        """The body of :meth:`_submit` once the game is at hand. ``generation``: the cached meta's
        generation, which the append checks (None: the meta was just read). ``lang``: the language
        of a refusal's words (the game's ``refusal``) where the game speaks it."""
        game = games.of_meta(meta)
        seat = authenticate(meta, state)
        body_hash = hashlib.sha256(json.dumps([expected_version, moves]).encode()).hexdigest()
        if idem_prev is not None:
            return self._replayed(idem_prev, seat, body_hash)
        if not moves:
            raise errors.invalid("no-moves", "send at least one move")
        if len(moves) > MAX_MOVES_PER_REQUEST:
            raise errors.invalid("too-many-moves", errors.said("at most {n} moves per request",
                                                                   n=MAX_MOVES_PER_REQUEST))
        if state.version != expected_version:
            self._raise_conflict(game_id, idem_key, seat, body_hash, state.version, expected_version)
        events: list[dict] = []
        texts: list[str] = []
        played = 0
        batch_undos, turn_undos = 0, None   # turn_undos: read from the log at the batch's first undo
        for i, text in enumerate(moves):
            if game.is_over(state):
                raise errors.invalid("game-over", "the game is over", move_index=i)
            if seat != game.actor(state):
                raise errors.forbidden("not-your-turn",
                                       errors.said("move {i}: it is seat {seat}'s decision", i=i,
                                                   seat=game.actor(state)),
                                       move_index=i)
            before = state
            try:
                evs, state = game.play(state, seat, text, seed)
            except errors.ENGINE_ERRORS as e:
                words = games.in_language(game, lang)
                if i == 0 and isinstance(e, games.ERRORS["NotationError"]):
                    # the first move's refusal says what the seat can type instead: its legal moves'
                    # kinds, which it sees anyway (after a move of the batch that drew or rolled,
                    # that would tell what the batch revealed: not said); the parser's reason in the
                    # language with it (an engine error's ``reason``)
                    said = game.refusal(state, seat, str(text), getattr(e, "reason", e.message), **words)
                else:   # the engine's reason in the game's words of the language (English: as it is)
                    said = game.reason(e, **words) if words else e.message
                if said != e.message:
                    e = type(e)(said, code=e.code, rule=e.rule)
                raise errors.from_engine(e, i) from None
            for k, ev in enumerate(evs):
                if by is not None:
                    ev["by"] = by
                if ev["type"] == "MoveUndone":
                    batch_undos += 1
                    turn_undos = (self._undos_this_turn(game_id, seat, expected_version)
                                  if turn_undos is None else turn_undos) + 1
                    if batch_undos > MAX_UNDOS_PER_REQUEST or turn_undos > MAX_UNDOS_PER_TURN:
                        raise errors.invalid("too-many-undos",
                                             errors.said("move {i}: at most {request} undos per request "
                                                         "and {turn} per turn", i=i,
                                                         request=MAX_UNDOS_PER_REQUEST,
                                                         turn=MAX_UNDOS_PER_TURN),
                                             move_index=i)
                elif _ends_turn(ev):
                    turn_undos = 0
                # the event in words, in the position it was played in: stored with it for GET /events
                texts.append(game.event_text(before, ev, seat_markers(meta), machine_seats(meta)))
                if k + 1 < len(evs):
                    before = game.evolve(before, ev)
            events.extend(evs)
            played = i + 1
            if stop_at_reveal and any(ev.get("chance") for ev in evs):
                break  # the outcome is committed with this append; the rest waits for the seat
        answer = {"version": state.version,
                  "events": [{"version": expected_version + i + 1, **public_event(e)}
                              for i, e in enumerate(events)],
                  "applied": played, "unplayed": moves[played:], "seat": seat, "body": body_hash}
        try:
            result = self.store.append(game_id, expected_version, events, idem_key, answer, generation, texts)
            status, value = result
        except Conflict as c:
            self._raise_conflict(game_id, idem_key, seat, body_hash, c.current, expected_version)
        except GameArchived:  # archived while we decided: it is over (application/archive.py)
            raise errors.invalid("game-over", "the game is over") from None
        if status == "idem":
            return self._replayed(value, seat, body_hash)
        self.cache.put(game_id, state)
        if then is not None:
            try:   # the moves stand whatever it does
                then()
            except Exception:
                log.warning("the follow-up of a move in %s failed", game_id, exc_info=True)
        self._after_append(game_id, meta, state, snap_version, seat, game, hooks=result.hooks, by=by)
        return _public_answer(answer)

    def _undos_this_turn(self, game_id: str, seat: int, version: int) -> int:
        """How many moves ``seat`` took back in its current turn up to ``version``: the MoveUndone
        events of the trailing run of its own events (back to another seat's event, the game's
        start or its own last 'end'). Read backwards in chunks: the run is short, as each turn's
        undos are bounded."""
        undos, upto = 0, version
        while upto > 0:
            chunk = self.store.events_before(game_id, upto, 64)
            for ev in chunk:
                if ev.get("seat") != seat or ev["type"] not in ("MovePlayed", "MoveUndone") or _ends_turn(ev):
                    return undos
                undos += ev["type"] == "MoveUndone"
            if len(chunk) < 64:
                return undos
            upto -= len(chunk)
        return undos

    def _raise_conflict(self, game_id, idem_key, seat, body_hash, current, expected):
        """A 409, unless a twin of this request (same Idempotency-Key) has just been applied:
        then its answer is the answer (the twin won the race between our read and our write)."""
        if idem_key:
            prev = self.store.idempotent_answer(game_id, idem_key)
            if prev is not None:
                raise _Replay(self._replayed(prev, seat, body_hash))
        raise errors.conflict(current, expected) from None

    def _replayed(self, prev: dict, seat: int, body_hash: str) -> dict:
        if prev.get("seat") != seat or prev.get("body") != body_hash:
            raise errors.invalid("idempotency-key-reused",
                                    "this Idempotency-Key was used for a different request")
        return _public_answer(prev)


def _ends_turn(ev: dict) -> bool:
    """A seat's 'end' (Tiletum's end of a turn): its undo count starts again after it."""
    return ev["type"] == "MovePlayed" and ev.get("move") == "end"


class _Replay(Exception):
    """Carries the stored answer of an idempotent twin request out of a conflict."""

    def __init__(self, answer: dict):
        super().__init__("idempotent replay")
        self.answer = answer


def _public_answer(answer: dict) -> dict:
    """What a submission answers (also when replayed for its Idempotency-Key; answers stored
    before ``applied`` existed had every move applied, one event each)."""
    return {"version": answer["version"], "events": answer["events"],
            "applied": answer.get("applied", len(answer["events"])), "unplayed": answer.get("unplayed", [])}
